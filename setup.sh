#!/usr/bin/env bash
# One-step install: a virtual environment in .venv with the ns-3 wheel and satsweep's pinned
# Python dependencies, then the `satnet` simulator built with CMake against that wheel.
# No root needed. Idempotent: a rerun only does what changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

PYTHON=${PYTHON:-python3}
NS3_WHEEL="ns3==3.44.post0"
SLURM_PLUGIN_VERSION=2.8.0

log() { printf '[setup] %s\n' "$*" >&2; }

if [ ! -x .venv/bin/python ]; then
  log "creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
# --no-deps: the wheel's cppyy dependency is only for Python bindings, which satsweep never loads.
log "installing $NS3_WHEEL and satsweep"
.venv/bin/pip install --quiet --disable-pip-version-check --no-deps "$NS3_WHEEL"
.venv/bin/pip install --quiet --disable-pip-version-check -e '.[test]'
# The Snakemake executor plugin for Ray (`snakemake --executor ray`). Not editable: Snakemake only
# discovers plugins installed as regular packages. --force-reinstall so an edited plugin is
# always picked up (~4 s); --no-deps because satsweep above pins ray and snakemake.
log "installing the Ray executor plugin"
.venv/bin/pip install --quiet --disable-pip-version-check --no-deps --force-reinstall \
  ./ray_jobs/snakemake-executor-plugin-ray
# The Snakemake executor plugin for Slurm, apart from site-packages: Snakemake imports every
# plugin it finds in every Snakemake process, and this one costs ~0.45 s there (pandas), plus
# an `scontrol show config` that waits ~9 s wherever Slurm is installed but its controller is
# down. `satsweep run --executor slurm` adds the directory to PYTHONPATH; its dependencies are
# satsweep's (pyproject.toml). An earlier setup.sh installed it into site-packages: removed.
slurm_plugins=.venv/executor-plugins/slurm
if .venv/bin/pip show --quiet snakemake-executor-plugin-slurm 2>/dev/null; then
  .venv/bin/pip uninstall --quiet --disable-pip-version-check -y snakemake-executor-plugin-slurm
fi
if [ ! -d "$slurm_plugins/snakemake_executor_plugin_slurm-$SLURM_PLUGIN_VERSION.dist-info" ]; then
  log "installing the Slurm executor plugin into $slurm_plugins"
  rm -rf "$slurm_plugins"
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps --target "$slurm_plugins" \
    "snakemake-executor-plugin-slurm==$SLURM_PLUGIN_VERSION"
fi

site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
ns3_dir="$site/ns3/lib64/cmake/ns3"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f sim/build/CMakeCache.txt ]; then
  log "configuring sim/ against $ns3_dir"
  cmake -S sim -B sim/build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -Dns3_DIR="$ns3_dir" >/dev/null
fi
log "building satnet"
cmake --build sim/build --parallel "$(nproc)" >&2
log "done: sim/build/satnet, .venv/bin/satsweep"

#!/usr/bin/env bash
# One-step install: a virtual environment in .venv with the ns-3 wheel and satsweep's pinned
# Python dependencies, then sim/ (the programs satnet, ... and their C++ test suites, sim-test)
# built with CMake against that wheel, the programs installed into .venv/libexec/satsweep, then
# the card's engine, OMNeT++ 6.1 and INET 4.5, built from their release sources into a cache
# (or an existing installation taken: omnetpp/build.sh says how; omnetpp/README.md) with the
# goyal98 model on it. No root needed but for --with-browser (and, where they are missing, the
# Debian packages OMNeT++ builds with). Idempotent: a rerun only does what changed.
#
#   ./setup.sh [--without-omnetpp] [--with-browser]
#
# --without-omnetpp is the quick install: the ns-3 programs only (minutes instead of the
# OMNeT++/INET build's first time, README.md gives both as measured).
# --with-browser installs Debian's chromium (root), in which the `browser` tests render a
# report (CONTRIBUTING.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

with_omnetpp=1
with_browser=0
for arg in "$@"; do
  case $arg in
    --without-omnetpp) with_omnetpp=0 ;;
    # The default now; still accepted, as older notes and scripts give it.
    --with-omnetpp) with_omnetpp=1 ;;
    --with-browser) with_browser=1 ;;
    *)
      printf '[setup] error: unknown option %s; allowed: --without-omnetpp, --with-browser\n' "$arg" >&2
      exit 2
      ;;
  esac
done

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
# Editable in "strict" mode: a tree of links to the checkout's files in build/, so that what the
# package ships from outside satsweep/ (pyproject.toml's package-dir: the Snakefile, the SQL, the
# Ray executor plugin) is installed as it would be from a wheel, and Snakemake discovers the
# plugin as a regular package. Edits to existing files take effect at once; a new file needs
# this script again.
.venv/bin/pip install --quiet --disable-pip-version-check -e '.[test]' \
  --config-settings editable_mode=strict
# Bytecode ahead of time, in the checkout (the tests import it from there) and in the link tree
# (every job and Snakemake import it from there): where PYTHONDONTWRITEBYTECODE is set, as on
# the CI machine, every process would otherwise compile satsweep again (about 0.2 s of CPU each).
venv_python="$PWD/.venv/bin/python"
installed=$(cd / && "$venv_python" -c 'import pathlib, satsweep; print(pathlib.Path(satsweep.__file__).parent.parent)')
.venv/bin/python -m compileall -q satsweep "$installed" >/dev/null
# The Ray executor plugin used to be installed on its own: it now ships inside satsweep.
if .venv/bin/pip show --quiet snakemake-executor-plugin-ray 2>/dev/null; then
  .venv/bin/pip uninstall --quiet --disable-pip-version-check -y snakemake-executor-plugin-ray
fi
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
log "building the simulation programs and sim/build/sim-test"
cmake --build sim/build --parallel "$(nproc)" >&2
# Into .venv/libexec/satsweep/, where a design's `program: satnet` is looked up
# (docs/engine-contract.md).
cmake --install sim/build --prefix .venv >/dev/null
# The launcher every run starts through (satsweep/engine/launch.c): without it, setpriv.
if [ ! .venv/libexec/satsweep-launch -nt satsweep/engine/launch.c ]; then
  log "building .venv/libexec/satsweep-launch"
  "${CC:-cc}" -O2 -Wall -Werror -o .venv/libexec/satsweep-launch satsweep/engine/launch.c
fi
if [ "$with_omnetpp" -eq 1 ]; then
  # The trees to use, for the OMNeT++ programs and tests: .venv/omnetpp.env.
  omnetpp/build.sh .venv/omnetpp.env
  # The goyal98 model on that engine (incremental; omnetpp/goyal98/README.md).
  omnetpp/goyal98/build.sh .venv/omnetpp.env
  # satsweep's generator class for `omnetpp_seeds: run`, built once per OMNeT++ into the cache
  # (docs/omnetpp.md, "Random streams"), so that no run has to build it.
  log "OMNeT++ generator: $(.venv/bin/python -c 'from satsweep.engine import omnetpp as o
print(o.rng_library(o.installation()[0]))')"
fi
if [ "$with_browser" -eq 1 ] && ! command -v chromium >/dev/null; then
  [ "$(id -u)" -eq 0 ] || {
    log "error: --with-browser installs the Debian package chromium, which needs root:" \
      "run it as root, or install chromium yourself"
    exit 2
  }
  log "installing chromium (the browser tests' headless browser)"
  apt=(env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends)
  "${apt[@]}" install chromium >&2 || { apt-get -q update >&2 && "${apt[@]}" install chromium >&2; }
fi
log "done: .venv/bin/satsweep, programs in .venv/libexec/satsweep: $(ls .venv/libexec/satsweep)"

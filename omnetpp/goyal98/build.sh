#!/usr/bin/env bash
# Builds the goyal98 model for OMNeT++ 6.1 / INET 4.5 into out/libgoyal98.so (incremental).
#
#   omnetpp/goyal98/build.sh ENV_FILE
#
# ENV_FILE is .venv/omnetpp.env (OMNETPP_ROOT=..., INET_ROOT=...), written by
# `./setup.sh`. Build products: src/Makefile, out/ (ignored by git).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ENV_FILE=${1:?usage: omnetpp/goyal98/build.sh ENV_FILE}
die() {
  printf '[goyal98] error: %s\n' "$*" >&2
  exit 1
}
[ -r "$ENV_FILE" ] || die "$ENV_FILE not readable (run ./setup.sh)"
# shellcheck disable=SC1090
source "$ENV_FILE"
[ -x "${OMNETPP_ROOT:-}/bin/opp_run" ] || die "OMNETPP_ROOT=${OMNETPP_ROOT:-} has no bin/opp_run"
ls "${INET_ROOT:-}"/src/libINET.so >/dev/null 2>&1 || die "INET_ROOT=${INET_ROOT:-} has no src/libINET.so"
export PATH="$OMNETPP_ROOT/bin:$PATH"
cd "$HERE/src"
# The Makefile is generated every time (--deep lists the sources found now); objects do not
# depend on it, so unchanged sources are not compiled again.
opp_makemake --make-so -f --deep -o goyal98 -O ../out/obj \
  -KINET_PROJ="$INET_ROOT" -DINET_IMPORT -I"$INET_ROOT/src" -I"$HERE/../../sim" \
  -L"$INET_ROOT/src" -lINET \
  >/dev/null || die "opp_makemake failed"
make MODE=release -j2 || die "make failed"
# opp_makemake puts the library beside the Makefile (src/libgoyal98.so): copy it to the
# stable place the adapter loads (out/libgoyal98.so, `libraries: [out/goyal98]`).
mkdir -p "$HERE/out"
lib="$HERE/src/libgoyal98.so"
[ -f "$lib" ] || die "make produced no $lib"
if ! cmp -s "$lib" "$HERE/out/libgoyal98.so"; then
  cp "$lib" "$HERE/out/libgoyal98.so.tmp" && mv "$HERE/out/libgoyal98.so.tmp" "$HERE/out/libgoyal98.so"
fi
printf '[goyal98] built %s\n' "$HERE/out/libgoyal98.so" >&2

#!/usr/bin/env bash
# Builds OMNeT++ (headless: Cmdenv, no Qtenv/OSG) and the INET features a wired IPv4 TCP
# network needs, from the release tarballs, into a cache keyed by their checksums; a second
# call finds the build there and returns at once. Called by `./setup.sh` (unless --without-omnetpp).
#
#   omnetpp/build.sh ENV_FILE
#
# Writes ENV_FILE (shell syntax: OMNETPP_ROOT=..., INET_ROOT=...) naming the trees to use.
# Environment:
#   OMNETPP_ROOT, INET_ROOT  an existing OMNeT++ 6.x / INET 4.5 installation to use instead
#                            (both built already; nothing is built or downloaded)
#   OMNETPP_SOURCES          the folder with omnetpp-6.1.0-src.tar.gz, inet-4.5.4-src.tar.gz
#                            and SHA256SUMS (default ../shared/vendor beside the checkout)
#   SATSWEEP_CACHE           the cache (default ${XDG_CACHE_HOME:-~/.cache}/satsweep)
# The build needs bison, flex, make, perl and the headers of libxml2, zlib and SQLite (Debian:
# installed here when run as root, else named). Nothing is downloaded but Debian packages.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ENV_FILE=${1:?usage: omnetpp/build.sh ENV_FILE}

OMNETPP_TARBALL=omnetpp-6.1.0-src.tar.gz
INET_TARBALL=inet-4.5.4-src.tar.gz
# The features of INET that satsweep's OMNeT++ studies use; opp_featuretool adds what they need.
INET_FEATURES=(TcpInet Ipv4 Ppp Ethernet Udp)
PACKAGES=(bison flex make perl libxml2-dev zlib1g-dev libsqlite3-dev)
# Changing how the trees are built changes the cache key.
RECIPE=1

log() { printf '[omnetpp] %s\n' "$*" >&2; }
die() {
  printf '[omnetpp] error: %s\n' "$*" >&2
  exit 1
}

if [ -n "${OMNETPP_ROOT:-}${INET_ROOT:-}" ]; then
  [ -x "${OMNETPP_ROOT:-}/bin/opp_run" ] ||
    die "OMNETPP_ROOT=${OMNETPP_ROOT:-} has no bin/opp_run (a built OMNeT++ 6.x); allowed: its root"
  ls "${INET_ROOT:-}"/src/libINET*.so >/dev/null 2>&1 ||
    die "INET_ROOT=${INET_ROOT:-} has no src/libINET.so (a built INET 4.5); allowed: its root"
  printf 'OMNETPP_ROOT=%q\nINET_ROOT=%q\n' "$OMNETPP_ROOT" "$INET_ROOT" >"$ENV_FILE"
  log "using OMNETPP_ROOT=$OMNETPP_ROOT, INET_ROOT=$INET_ROOT"
  exit 0
fi

SOURCES=${OMNETPP_SOURCES:-$HERE/../../shared/vendor}
[ -d "$SOURCES" ] || die "no OMNeT++ sources: $SOURCES does not exist; allowed: OMNETPP_SOURCES=DIR" \
  "with $OMNETPP_TARBALL, $INET_TARBALL and SHA256SUMS, or OMNETPP_ROOT and INET_ROOT"
SOURCES=$(cd "$SOURCES" && pwd)
for f in "$OMNETPP_TARBALL" "$INET_TARBALL" SHA256SUMS; do
  [ -r "$SOURCES/$f" ] || die "$SOURCES/$f is missing"
done
(cd "$SOURCES" && grep -E " ($OMNETPP_TARBALL|$INET_TARBALL)\$" SHA256SUMS | sha256sum --check --quiet) ||
  die "the tarballs in $SOURCES do not match their SHA256SUMS"
key=$( (grep -E " ($OMNETPP_TARBALL|$INET_TARBALL)\$" "$SOURCES/SHA256SUMS" | sort; echo "recipe $RECIPE") |
  sha256sum | cut -c1-16)
CACHE=${SATSWEEP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/satsweep}
TREE=$CACHE/omnetpp-$key
STAMP=$TREE/.complete

write_env() {
  printf 'OMNETPP_ROOT=%q\nINET_ROOT=%q\n' "$TREE/omnetpp-6.1.0" "$TREE/inet4.5" >"$ENV_FILE"
}

if [ -f "$STAMP" ]; then
  log "cached build $TREE"
  write_env
  exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || die "building OMNeT++ needs the Debian packages ${missing[*]}:" \
    "install them (root), or set OMNETPP_ROOT and INET_ROOT to an existing installation"
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends install "${missing[@]}" >&2 ||
    { apt-get -q update >&2 && DEBIAN_FRONTEND=noninteractive apt-get -q -y \
      --no-install-recommends install "${missing[@]}" >&2; }
fi

# A tree without its stamp is a build that did not finish: start again.
rm -rf "$TREE"
mkdir -p "$TREE"
start=$SECONDS
log "building OMNeT++ 6.1.0 (headless) and INET 4.5.4 (${INET_FEATURES[*]}) in $TREE"
tar -xzf "$SOURCES/$OMNETPP_TARBALL" -C "$TREE"
tar -xzf "$SOURCES/$INET_TARBALL" -C "$TREE"
jobs=$(nproc)
# A line a minute while the trees compile (INET alone takes 13 to 40 minutes): the stage, the
# time so far and the objects built, so a silent terminal is never mistaken for a hang.
(
  while sleep 60; do
    objects=$(find "$TREE" -name '*.o' 2>/dev/null | wc -l)
    stage=OMNeT++
    [ -f "$TREE/inet-make.log" ] && stage=INET
    log "$stage compiling: $(((SECONDS - start) / 60)) min so far, $objects objects built"
  done
) &
progress=$!
trap 'kill "$progress" 2>/dev/null || true' EXIT
(
  cd "$TREE/omnetpp-6.1.0"
  # The release copy lacks the bundled SQLite amalgamation: build against Debian's libsqlite3.
  cp /usr/include/sqlite3.h src/common/sqlite3.h
  : >src/common/sqlite3.c
  sed -i 's/^\(IMPLIBS *=.*\)$/\1 -lsqlite3/' src/common/Makefile
  [ -f configure.user ] || cp configure.user.dist configure.user
  sed -i 's/^WITH_QTENV=.*/WITH_QTENV=no/; s/^WITH_OSG=.*/WITH_OSG=no/; s/^WITH_OSGEARTH=.*/WITH_OSGEARTH=no/' configure.user
  set +u
  # shellcheck disable=SC1091 # OMNeT++'s own environment script
  source setenv -q
  set -u
  ./configure WITH_QTENV=no WITH_OSG=no WITH_OSGEARTH=no >"$TREE/configure.log" 2>&1 ||
    { tail -n 30 "$TREE/configure.log" >&2; exit 1; }
  make -j"$jobs" MODE=release base >"$TREE/omnetpp-make.log" 2>&1 ||
    { tail -n 30 "$TREE/omnetpp-make.log" >&2; exit 1; }
  log "OMNeT++ built in $((SECONDS - start)) s"
  cd "$TREE/inet4.5"
  set +u
  # shellcheck disable=SC1091
  source setenv -q
  set -u
  opp_featuretool disable -f all >&2
  opp_featuretool enable -r "${INET_FEATURES[@]}" >&2
  make makefiles >"$TREE/inet-make.log" 2>&1 && make -j"$jobs" MODE=release >>"$TREE/inet-make.log" 2>&1 ||
    { tail -n 30 "$TREE/inet-make.log" >&2; exit 1; }
) || die "the build failed (logs in $TREE)"
kill "$progress" 2>/dev/null || true
touch "$STAMP"
log "built in $((SECONDS - start)) s: $TREE ($(du -sh "$TREE" | cut -f1)); the next setup finds it there at once"
write_env

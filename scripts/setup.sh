#!/bin/sh
# scripts/setup.sh - install the Debian packages ips2 needs to build, test,
# run the demo and the benchmarks.  Installs only what is missing; when
# everything is present it prints one line and takes a few milliseconds.
# Not root and something missing: prints the apt-get command and exits 1.
#
#   sh scripts/setup.sh            (the Makefile runs it via build/.setup-done)
#   sh scripts/setup.sh --real     then also the real servers from Debian
#                                  source (scripts/real-programs.sh: a deb-src
#                                  entry, apt-get source, builds in build/real)

set -u

real=
if [ "${1:-}" = --real ]; then
    real=1
    shift
fi
# --real: after the packages, real-programs.sh with the remaining arguments.
then_real() {
    [ -n "$real" ] || exit 0
    exec sh "$(dirname "$0")/real-programs.sh" -v "ips2 plain pg" "$@"
}

# One package per line: name, then why.
PACKAGES='
gcc                 compiler
g++                 ips2c++ and its tests
make                build
git                 version control, tests build from a clone
binutils            ar, nm, readelf (tests); gprof (bench)
procps              ps, pgrep in tests
pvm                 pvmd3: the distributed engine
pvm-dev             pvm3.h, libpvm3
libunwind-dev       stack walking in libips2
zlib1g-dev          packed trace blocks
libelf-dev          symbol resolution
tcl8.6              tclsh (integration tests, the ips2 command)
tcl-dev             the master Tcl extension
tk8.6               wish (the GUI)
tk-dev              the GUI
tcllib              Tcl utility packages
tklib               Tk widgets (tablelist, plotchart)
libcmocka-dev       unit tests
xvfb                GUI tests without a display
libtk-img           GUI tests: screenshots of windows as PNG (img::window)
xauth               xvfb-run
clang               libFuzzer (make fuzz)
libclang-rt-14-dev  libFuzzer and sanitizer runtimes
uftrace             bench: the comparison tracer
time                bench: GNU time, CPU and peak memory (run-real)
libzstd-dev         packing codec measured against zlib (bench)
libotf2-trace-dev   ips2 export -format otf2
otf2-tools          otf2-print, checks the OTF2 export
openssh-server      test cluster: one sshd per namespace host (PVM adds hosts by ssh)
openssh-client      ssh, used by PVM to add hosts
iproute2            ip netns and veth, the hosts of the test cluster
'

names=$(printf '%s\n' "$PACKAGES" | awk 'NF { print $1 }')

# One dpkg-query for all of them; a package counts as present only in state
# "install ok installed" (not half-installed, not removed with config left).
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $names 2>/dev/null |
    awk '$2 == "install" && $3 == "ok" && $4 == "installed" { print $1 }')

missing=
for p in $names; do
    case "
$installed
" in
    *"
$p
"*) ;;
    *) missing="$missing $p" ;;
    esac
done
missing=${missing# }

if [ -z "$missing" ]; then
    echo "setup: all $(printf '%s\n' "$names" | wc -l | tr -d ' ') required Debian packages are installed"
    then_real "$@"
    exit 0
fi

cmd="DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing"
if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: $missing" >&2
    echo "setup: as root, run:" >&2
    echo "    apt-get update && $cmd" >&2
    exit 1
fi

echo "setup: installing missing Debian packages: $missing"
apt-get update -q </dev/null || {
    echo "setup: apt-get update failed" >&2
    exit 1
}
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing </dev/null || {
    echo "setup: apt-get install failed: $missing" >&2
    exit 1
}
echo "setup: installed $missing"
then_real "$@"

#!/bin/sh
# scripts/real-programs.sh - real servers with their own load clients, from
# Debian 12 (bookworm) source, built unchanged, for tests/integration/real.test
# and bench/run-real (issue 12 item 8, issue 13 item 1).
#
#   sh scripts/real-programs.sh [-d DIR] [-v VARIANTS] [PROGRAM ...]
#
# PROGRAM: redis (redis-server, redis-benchmark, redis-cli), memcached (the
# server) or memslap (libmemcached's load client memcslap and memcstat);
# default: all three.  VARIANTS (default "ips2"): ips2 (CC=ips2cc,
# CXX=ips2c++), plain (cc) and pg (cc -pg, for uftrace record).
#
# Design: `apt-get source` against the same archive the machine installs
# from.  If no deb-src entry for bookworm is known, one is added beside the
# machine's own (/etc/apt/sources.list.d/ips2-deb-src.sources, same URIs)
# and the lists are updated.  The build dependencies are a known short list
# (the servers' vendored deps are built from their own trees), installed
# when missing.  Each package's source is fetched and unpacked once into
# DIR/src (Debian's patches applied); each variant builds in its own copy,
# DIR/PROGRAM-VARIANT, and a stamp file DIR/PROGRAM-VARIANT.done makes a
# second call instant.  The source is never edited: only the compiler and
# build options change (redis: MALLOC=libc BUILD_TLS=no USE_SYSTEMD=no, so
# no jemalloc, OpenSSL or systemd is needed).
#
# IPS2_BUILD names the ips2 build directory (default build/ of this
# checkout); DIR: -d, else $IPS2_REAL_DIR, else IPS2_BUILD/real.
# Exit status: 0 built; 1 a build failed (see DIR/PROGRAM-VARIANT.log);
# 2 usage; 3 unavailable: the archive cannot be reached, the source
# package cannot be fetched, or something is missing and we are not root.
# Every failure says why on stderr, in one line starting "real-programs:".

set -u

root=$(cd "$(dirname "$0")/.." && pwd)
build=${IPS2_BUILD:-$root/build}
dir=${IPS2_REAL_DIR:-$build/real}
variants=ips2
jobs=${REAL_JOBS:-2}

usage() {
    echo "usage: real-programs.sh [-d DIR] [-v 'ips2 plain pg'] [redis|memcached|memslap ...]" >&2
    exit 2
}
while getopts d:v: opt; do
    case $opt in
    d) dir=$OPTARG ;;
    v) variants=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
programs=${*:-redis memcached memslap}
for p in $programs; do
    case $p in redis | memcached | memslap) ;; *) usage ;; esac
done
for v in $variants; do
    case $v in ips2 | plain | pg) ;; *) usage ;; esac
done

say() { echo "real-programs: $*" >&2; }
unavailable() {
    say "$*"
    exit 3
}

# Debian source package of each program.
package_of() {
    case $1 in
    redis) echo redis ;;
    memcached) echo memcached ;;
    memslap) echo libmemcached ;;
    esac
}

# --- 1. deb-src entry and build dependencies --------------------------------

need_root() {
    [ "$(id -u)" -eq 0 ] || unavailable "$1 (not root: run as root, or: $2)"
}

ensure_deb_src() {
    if [ -n "$(apt-cache showsrc redis 2>/dev/null | head -n 1)" ]; then
        return 0
    fi
    list=/etc/apt/sources.list.d/ips2-deb-src.sources
    if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        need_root "no deb-src entry for bookworm" "sh $0"
        uris=$(awk '/^URIs:/ && !/security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
        uris=${uris:-http://deb.debian.org/debian}
        say "adding a deb-src entry for bookworm: $list ($uris)"
        cat >"$list" <<EOF
Types: deb-src
URIs: $uris
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    fi
    need_root "the source lists are not updated" "apt-get update"
    apt-get update -q </dev/null >"$dir/apt-update.log" 2>&1 ||
        unavailable "apt-get update failed: the archive is unreachable? (see $dir/apt-update.log)"
    [ -n "$(apt-cache showsrc redis 2>/dev/null | head -n 1)" ] ||
        unavailable "the archive lists no source package redis after apt-get update"
}

# One package per line: name, then why.
BUILD_DEPS='
gcc             the servers
g++             libmemcached (C++)
make            the servers
dpkg-dev        dpkg-source: unpack and patch the source packages
pkg-config      configure scripts
cmake           libmemcached
bison           libmemcached
flex            libmemcached
libevent-dev    memcached
'

ensure_build_deps() {
    names=$(printf '%s\n' "$BUILD_DEPS" | awk 'NF { print $1 }')
    # shellcheck disable=SC2086
    have=$(dpkg-query -W -f='${Package} ${Status}\n' $names 2>/dev/null |
        awk '$2 == "install" && $3 == "ok" && $4 == "installed" { print $1 }')
    missing=
    for p in $names; do
        printf '%s\n' "$have" | grep -qx "$p" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    need_root "missing build dependencies:$missing" "apt-get install$missing"
    say "installing build dependencies:$missing"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing \
        </dev/null >"$dir/apt-install.log" 2>&1 ||
        unavailable "apt-get install failed:$missing (see $dir/apt-install.log)"
}

# --- 2. source packages -------------------------------------------------------

# fetch PACKAGE: unpacks the source into DIR/src/PACKAGE (once) and prints
# the tree's path.  Debian's patches are applied (dpkg-source -x); when the
# archive has the upstream tarball but not the Debian part, the upstream
# tarball is unpacked as it is, with a note.
fetch() {
    pkg=$1
    into=$dir/src/$pkg
    if [ -f "$into/.unpacked" ]; then
        cat "$into/.unpacked"
        return 0
    fi
    rm -rf "$into"
    mkdir -p "$into"
    (cd "$into" && apt-get source -q --download-only "$pkg" </dev/null >fetch.log 2>&1)
    dsc=$(ls "$into"/*.dsc 2>/dev/null | head -n 1)
    orig=$(ls "$into"/*.orig.tar.* 2>/dev/null | head -n 1)
    [ -n "$dsc" ] && [ -n "$orig" ] ||
        unavailable "apt-get source $pkg failed: $(grep -m1 '^E:' "$into/fetch.log")"
    if (cd "$into" && dpkg-source -x "$(basename "$dsc")" tree >unpack.log 2>&1); then
        tree=$into/tree
    else
        say "note: $pkg: Debian's part is not in the archive, unpacking the upstream tarball"
        rm -rf "$into/tree"
        mkdir -p "$into/tree"
        tar -xf "$orig" -C "$into/tree" --strip-components=1 ||
            unavailable "cannot unpack $orig"
    fi
    tree=$into/tree
    echo "$tree" >"$into/.unpacked"
    echo "$tree"
}

# --- 3. builds ------------------------------------------------------------------

# compilers VARIANT: sets cc, cxx and pgflag.
compilers() {
    cc=cc cxx=c++ pgflag=
    case $1 in
    ips2) cc=$build/bin/ips2cc cxx=$build/bin/ips2c++ ;;
    pg) pgflag=-pg ;;
    esac
}

build_redis() { # TREE OUT VARIANT
    compilers "$3"
    make -C "$2" -j"$jobs" CC="$cc" MALLOC=libc BUILD_TLS=no USE_SYSTEMD=no \
        REDIS_CFLAGS="$pgflag" REDIS_LDFLAGS="$pgflag" &&
        test -x "$2/src/redis-server" -a -x "$2/src/redis-benchmark" -a -x "$2/src/redis-cli"
}

build_memcached() { # TREE OUT VARIANT
    compilers "$3"
    (cd "$2" && ./configure CC="$cc" CFLAGS="-g -O2 $pgflag" LDFLAGS="$pgflag" &&
        make -j"$jobs" memcached) && test -x "$2/memcached"
}

build_memslap() { # TREE OUT VARIANT
    compilers "$3"
    cmake -S "$2" -B "$2/_build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
        -DBUILD_DOCS=OFF -DENABLE_SASL=OFF -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_FLAGS="$pgflag" -DCMAKE_CXX_FLAGS="$pgflag" &&
        cmake --build "$2/_build" -j "$jobs" --target slap stat &&
        ln -sf _build/src/bin/memslap "$2/memslap" && ln -sf _build/src/bin/memstat "$2/memstat" &&
        test -x "$2/memslap" -a -x "$2/memstat"
}

mkdir -p "$dir" || exit 1
for v in $variants; do
    if [ "$v" = ips2 ] && [ ! -x "$build/bin/ips2cc" ]; then
        say "no $build/bin/ips2cc: run make first"
        exit 1
    fi
done
todo=
for p in $programs; do
    for v in $variants; do
        [ -f "$dir/$p-$v.done" ] || todo="$todo $p-$v"
    done
done
if [ -z "$todo" ]; then
    echo "real-programs: built: $(echo $programs) ($(echo $variants)) in $dir"
    exit 0
fi
ensure_build_deps
ensure_deb_src
for pv in $todo; do
    p=${pv%-*}
    v=${pv##*-}
    tree=$(fetch "$(package_of "$p")") || exit $?
    out=$dir/$p-$v
    rm -rf "$out"
    cp -a "$tree" "$out" || exit 1
    say "building $p ($v) in $out"
    if "build_$p" "$tree" "$out" "$v" >"$out.log" 2>&1; then
        basename "$(dirname "$tree")" >"$out.done"
    else
        say "building $p ($v) failed: see $out.log"
        tail -n 5 "$out.log" >&2
        exit 1
    fi
done
echo "real-programs: built: $(echo $programs) ($(echo $variants)) in $dir"

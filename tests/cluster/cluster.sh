#!/bin/sh
# cluster.sh - a cluster of hosts on one machine, out of Linux namespaces,
# for testing ips2 across hosts (issue 17).  Root only.
#
#   sh tests/cluster/cluster.sh up N      makes hosts h1..hN and the master
#   sh tests/cluster/cluster.sh down      removes everything up made
#   sh tests/cluster/cluster.sh exec HOST CMD ARG...   runs CMD on HOST
#   sh tests/cluster/cluster.sh sshd HOST start|stop   (a fault: no sshd)
#   sh tests/cluster/cluster.sh status    what of a cluster is there
#   sh tests/cluster/cluster.sh check     whether up can work here (why not)
#   sh tests/cluster/cluster.sh env       the variables a master needs
#
# Design.  Each host hI is a network namespace (ip netns ips2c-hI) with a
# veth into one bridge (ips2c0) of the private subnet 10.231.0.0/24
# (hI = 10.231.0.(10+I)), nothing routed elsewhere, so traffic stays on
# these addresses.  The root namespace holds the bridge's address
# 10.231.0.1: that is the master host "master".  Every host, the master
# included, also has a mount and a UTS namespace of its own, kept alive by
# bind mounts of their namespace files (STATE/ns/HOST.mnt, .uts, on a
# private bind mount of STATE/ns), holding:
#   - its host name (UTS), so a pvmd there knows itself by name;
#   - STATE/hosts bind-mounted over /etc/hosts: every host's name and
#     address (the machine's own /etc/hosts is not changed);
#   - a tmpfs over STATE/private (its sessions/ and pvm/ directories): the
#     host's own trace storage, which no other host sees.  The master's
#     STATE/private is the ordinary directory (its tmpfs would vanish with
#     the last process in it), the others' are each a tmpfs;
#   - but the master: a tmpfs over /run (sshd wants /run/sshd; nothing of
#     the machine's /run is needed there); the master keeps the machine's
#     /run, and so sees /run/netns (a test there can break a host).
# Each host hI runs its own sshd (host key made here, listening on its
# address only, root login by the key made here for the test, PVM's
# variables set for every session: PVM_ROOT, PVM_ALLOW_ROOT and the host's
# own PVM_TMP), and ssh goes through STATE/ssh_config (that key, the
# cluster's known_hosts with every host key, strict checking): nothing in
# ~/.ssh or /etc/ssh is read or changed.  STATE/bin/ssh is the one-path
# wrapper PVM_RSH needs.  The binaries are on the shared file system.
#
# down kills every process in a host's namespaces (ip netns pids, and by
# mount namespace for the master), unmounts the namespace files, deletes
# the namespaces, the bridge and STATE; it is what up does on any failure,
# and is safe to run twice or on half a cluster.
#
# IPS2_CLUSTER_HOST_ENV="h1:NAME=VALUE h2:NAME=VALUE ...": variables of
# one host's sessions (see sshd_start).
#
# STATE is $IPS2_CLUSTER (default /tmp/ips2-cluster).  One cluster per
# machine: the names and the subnet are fixed.

set -u
STATE=${IPS2_CLUSTER:-/tmp/ips2-cluster}
PREFIX=ips2c
BRIDGE=${PREFIX}0
NET=10.231.0
MASTER_ADDR=$NET.1

die() {
    echo "cluster: $*" >&2
    exit 1
}

addr_of() { # HOST -> address
    case $1 in
        master) echo "$MASTER_ADDR" ;;
        h*) echo "$NET.$((10 + ${1#h}))" ;;
    esac
}

hosts_up() { # the hN of the cluster that STATE records
    [ -f "$STATE/hostlist" ] && cat "$STATE/hostlist"
}

# enter HOST CMD...: CMD in HOST's namespaces (the master keeps the root
# network namespace).
enter() {
    h=$1
    shift
    [ -e "$STATE/ns/$h.mnt" ] || die "no host $h"
    if [ "$h" = master ]; then
        exec nsenter --mount="$STATE/ns/$h.mnt" --uts="$STATE/ns/$h.uts" -- "$@"
    fi
    exec nsenter --net="/run/netns/$PREFIX-$h" --mount="$STATE/ns/$h.mnt" \
        --uts="$STATE/ns/$h.uts" -- "$@"
}

check() {
    [ "$(id -u)" = 0 ] || {
        echo "not root"
        return 1
    }
    for t in ip unshare nsenter ssh ssh-keygen /usr/sbin/sshd; do
        command -v "$t" >/dev/null 2>&1 || {
            echo "$t is not installed"
            return 1
        }
    done
    if ! ip netns add "$PREFIX-probe" 2>/dev/null; then
        echo "network namespaces are not available (ip netns add failed)"
        return 1
    fi
    ip netns del "$PREFIX-probe"
    probe=$(mktemp -d /tmp/ips2c-probe.XXXXXX) || {
        echo "no temporary directory"
        return 1
    }
    touch "$probe/mnt"
    ok=no
    if mount --bind "$probe" "$probe" 2>/dev/null; then
        mount --make-private "$probe" 2>/dev/null && touch "$probe/mnt" &&
            unshare --mount="$probe/mnt" --uts true 2>/dev/null && ok=yes
        umount "$probe/mnt" 2>/dev/null
        umount "$probe" 2>/dev/null
    fi
    rm -rf "$probe"
    if [ $ok = no ]; then
        echo "persistent mount/UTS namespaces are not available (mount --bind, unshare --mount=FILE)"
        return 1
    fi
    if ip link show "$BRIDGE" >/dev/null 2>&1; then
        echo "a cluster is already up (bridge $BRIDGE exists)"
        return 1
    fi
    return 0
}

# mkns HOST: HOST's persistent mount and UTS namespaces, set up.
mkns() {
    h=$1
    touch "$STATE/ns/$h.mnt" "$STATE/ns/$h.uts"
    net=
    [ "$h" = master ] || net="nsenter --net=/run/netns/$PREFIX-$h --"
    priv="" run=""
    if [ "$h" != master ]; then
        priv="mount -t tmpfs -o size=256m,mode=755 $PREFIX-$h '$STATE/private' &&"
        run="mount -t tmpfs -o size=16m,mode=755 $PREFIX-run /run && mkdir -m 755 /run/sshd &&"
    fi
    # shellcheck disable=SC2086 # net is one word or none
    $net unshare --mount="$STATE/ns/$h.mnt" --uts="$STATE/ns/$h.uts" \
        --propagation private sh -ec "
            hostname $h
            mount --bind '$STATE/hosts' /etc/hosts
            $priv true
            mkdir -p '$STATE/private/sessions' '$STATE/private/pvm'
            $run true" || return 1
}

# sshd_start HOST: HOST's sshd, in the background (its pid in
# STATE/HOST/sshd.pid).  Every session it starts (a pvmd and so the slave
# and the processes there) has PVM's variables and the HOST:NAME=VALUE
# items of $IPS2_CLUSTER_HOST_ENV given for HOST (a per-host setting, such
# as a clock offset to inject; no blanks in a value).
sshd_start() {
    extra=
    for item in ${IPS2_CLUSTER_HOST_ENV:-}; do
        case $item in "$1":*=*) extra="$extra ${item#*:}" ;; esac
    done
    (enter "$1" /usr/sbin/sshd -f /dev/null -E "$STATE/$1/sshd.log" \
        -h "$STATE/keys/$1" \
        -o ListenAddress="$(addr_of "$1")" \
        -o PidFile="$STATE/$1/sshd.pid" \
        -o AuthorizedKeysFile="$STATE/keys/client.pub" \
        -o PermitRootLogin=prohibit-password -o StrictModes=no -o UsePAM=no \
        -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no \
        -o UseDNS=no -o MaxStartups=100 -o MaxSessions=100 \
        -o "SetEnv=PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1 PVM_TMP=$STATE/private/pvm$extra")
}

# sshd_wait HOST: until HOST's sshd lets ssh in (5 s at most).
sshd_wait() {
    tries=0
    until "$STATE/bin/ssh" "$1" true 2>/dev/null; do
        tries=$((tries + 1))
        [ $tries -lt 50 ] || {
            echo "cluster: $1's sshd does not answer" >&2
            return 1
        }
        sleep 0.1 # polling a daemon's start-up, bounded
    done
}

# sshd_stop HOST: ends HOST's sshd (a host that cannot be reached by ssh;
# the sessions it started stay).
sshd_stop() {
    [ -f "$STATE/$1/sshd.pid" ] && kill "$(cat "$STATE/$1/sshd.pid")" 2>/dev/null
    rm -f "$STATE/$1/sshd.pid"
}

up() {
    n=$1
    case $n in '' | *[!0-9]*) die "up: expected a number of hosts, got \"$n\"" ;; esac
    [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "up: 1 to 200 hosts"
    why=$(check) || die "cannot make a cluster here: $why"
    [ -e "$STATE" ] && die "$STATE exists (a cluster is up, or down did not finish: run down)"
    mkdir -p "$STATE" || die "cannot make $STATE"
    trap 'echo "cluster: up failed; tearing down" >&2; down >/dev/null 2>&1; exit 1' EXIT
    trap 'exit 1' INT TERM HUP
    mkdir -p "$STATE/ns" "$STATE/keys" "$STATE/bin" "$STATE/private"
    mount --bind "$STATE/ns" "$STATE/ns" && mount --make-private "$STATE/ns" || return 1

    list=
    i=1
    while [ $i -le "$n" ]; do
        list="$list h$i"
        i=$((i + 1))
    done
    echo "$list" | tr ' ' '\n' | sed '/^$/d' >"$STATE/hostlist"

    {
        echo "127.0.0.1 localhost"
        for h in master $list; do echo "$(addr_of "$h") $h"; done
    } >"$STATE/hosts"

    # the client key and the host keys; known_hosts with all of them
    ssh-keygen -q -t ed25519 -N '' -C ips2-cluster -f "$STATE/keys/client" || return 1
    : >"$STATE/known_hosts"
    for h in $list; do
        ssh-keygen -q -t ed25519 -N '' -C "$h" -f "$STATE/keys/$h" || return 1
        echo "$h,$(addr_of "$h") $(cut -d' ' -f1,2 "$STATE/keys/$h.pub")" >>"$STATE/known_hosts"
    done
    cat >"$STATE/ssh_config" <<EOF
Host *
    User root
    IdentityFile $STATE/keys/client
    IdentitiesOnly yes
    UserKnownHostsFile $STATE/known_hosts
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    CheckHostIP no
    BatchMode yes
    ConnectTimeout 5
    ServerAliveInterval 2
    ServerAliveCountMax 3
    LogLevel ERROR
EOF
    for h in $list; do
        printf 'Host %s\n    HostName %s\n' "$h" "$(addr_of "$h")" >>"$STATE/ssh_config"
    done
    printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$STATE/ssh_config" >"$STATE/bin/ssh"
    chmod 755 "$STATE/bin/ssh"

    ip link add "$BRIDGE" type bridge || return 1
    ip addr add "$MASTER_ADDR/24" dev "$BRIDGE" || return 1
    ip link set "$BRIDGE" up || return 1
    mkns master || return 1
    for h in $list; do
        i=${h#h}
        ns=$PREFIX-$h
        ip netns add "$ns" || return 1
        ip link add "$PREFIX-v$i" type veth peer name eth0 netns "$ns" || return 1
        ip link set "$PREFIX-v$i" master "$BRIDGE" up || return 1
        ip -n "$ns" addr add "$(addr_of "$h")/24" dev eth0 || return 1
        ip -n "$ns" link set eth0 up || return 1
        ip -n "$ns" link set lo up || return 1
        mkns "$h" || return 1
        mkdir -p "$STATE/$h"
        sshd_start "$h" || return 1
    done
    # every sshd answers (ssh runs `true` there) before up returns
    for h in $list; do
        sshd_wait "$h" || return 1
    done
    trap - EXIT INT TERM HUP
    echo "cluster: up, master $MASTER_ADDR and$list; state in $STATE"
}

# pids_in_mnt FILE: the pids whose mount namespace is FILE's.
pids_in_mnt() {
    ino=$(stat -L -c %i "$1" 2>/dev/null) || return 0
    [ -n "$ino" ] || return 0
    for p in /proc/[0-9]*; do
        [ "$(stat -L -c %i "$p/ns/mnt" 2>/dev/null)" = "$ino" ] && echo "${p#/proc/}"
    done
    return 0
}

down() {
    trap '' INT TERM HUP
    # the hosts, the master included: every process, then the namespaces
    for f in "$STATE"/ns/*.mnt; do
        [ -e "$f" ] || continue
        h=$(basename "$f" .mnt)
        pids=$(
            [ "$h" = master ] || ip netns pids "$PREFIX-$h" 2>/dev/null
            pids_in_mnt "$f"
        )
        # shellcheck disable=SC2086 # a list of pids
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null
        umount "$f" "$STATE/ns/$h.uts" 2>/dev/null
    done
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$PREFIX-h"); do
        # shellcheck disable=SC2046 # a list of pids
        kill -9 $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null
        ip netns del "$ns"
    done
    # a namespace goes (with its end of a veth) only once its last process
    # is reaped: the root ends are deleted here
    for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | grep "^$PREFIX-v"); do
        ip link del "${l%@*}" 2>/dev/null
    done
    ip link del "$BRIDGE" 2>/dev/null
    umount "$STATE/ns" 2>/dev/null
    # what a killed process had open may hold a mount briefly; the
    # namespaces' mounts go with their last process
    rm -rf "$STATE"
    status >/dev/null || {
        status >&2
        return 1
    }
    return 0
}

# status: 0 when nothing of a cluster is left, else 1 with what is.
status() {
    left=0
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$PREFIX-"); do
        echo "namespace $ns"
        left=1
    done
    for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | grep "^$PREFIX"); do
        echo "link $l"
        left=1
    done
    if grep -q " ${STATE}[/ ]" /proc/self/mountinfo 2>/dev/null ||
        grep -q "$PREFIX-" /proc/self/mountinfo 2>/dev/null; then
        echo "mounts under $STATE"
        left=1
    fi
    if [ -e "$STATE" ]; then
        echo "directory $STATE"
        left=1
    fi
    return $left
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
    up) up "${1:-}" ;;
    down) down ;;
    exec)
        [ $# -ge 2 ] || die "exec: expected HOST CMD ..."
        enter "$@"
        ;;
    sshd)
        [ -e "$STATE/ns/${1:-}.mnt" ] && [ "${1:-}" != master ] || die "sshd: no host ${1:-}"
        case ${2:-} in
            start) sshd_start "$1" && sshd_wait "$1" ;;
            stop) sshd_stop "$1" ;;
            *) die "sshd: expected HOST start|stop" ;;
        esac
        ;;
    status) status ;;
    check) check ;;
    env)
        echo "PVM_RSH=$STATE/bin/ssh"
        echo "PVM_TMP=$STATE/private/pvm"
        echo "IPS2_CLUSTER=$STATE"
        ;;
    *) die "usage: cluster.sh up N | down | exec HOST CMD... | sshd HOST start|stop | status | check | env" ;;
esac

# pvm.tcl - a private PVM virtual machine for the integration tests.
#
# A test file that runs PVM programs sources this after lib.tcl:
#
#   source [file join [file dirname [info script]] lib.tcl]
#   source [file join [file dirname [info script]] pvm.tcl]
#
#   set vm [::ips2pvm::start]     ;# a pvmd of its own, running and ready
#   ... run PVM programs (with ::ips2test::run): they find that pvmd ...
#   ::ips2pvm::stop $vm           ;# or let cleanupTests stop it
#
# start follows the recipe of shared/notes/peers-and-pvm.md §4:
#
#   - a private PVM_TMP (a new directory under /tmp: the pvmd's Unix socket
#     path must stay short) and a private PVM_VMID, so that no other pvmd,
#     stale socket-address file (pvmd.<uid>.<vmid>) or parallel test can
#     get in the way; PVM_ROOT=/usr/lib/pvm3 (or the caller's), and
#     PVM_ALLOW_ROOT=1, without which PVM refuses to run as root;
#   - the pvmd started directly, as "pvmd -nlocalhost HOSTFILE" (no name
#     lookup of the host name); the hostfile adds $PVM_ROOT/lib to the
#     executable path (ep=), where Debian keeps pvmgs, the group server;
#   - ready when the pvmd prints its socket path on stdout and its
#     socket-address file exists: start waits for that (at most -timeout
#     seconds, 30 by default) in the event loop, never with a fixed sleep.
#
# While a machine runs, ::env holds its PVM_ROOT, PVM_TMP, PVM_VMID and
# PVM_ALLOW_ROOT, so that every program the test runs joins it (stop puts
# back the old values); [env $vm] gives the same as a dict for -env.  The
# pvmd runs under a small shell that holds a pipe from this tclsh: stop
# closes the pipe, the shell sends the pvmd SIGTERM (the pvmd then kills
# its tasks), reaps it and removes the PVM_TMP directory.  If this tclsh
# dies first (a crash, the runner's timeout), the pipe closes just the
# same, so no pvmd outlives its test file.  cleanupTests stops every machine still
# running before lib.tcl removes its temporary directories.
#
# Procedures: start ?-timeout s? | stop vm | stop_all | env vm | dir vm | log vm
# A vm is a dict: dir vmid chan env saved (the ::env values to restore).

namespace eval ::ips2pvm {
    variable machines {}   ;# vms still running
    variable serial 0
    variable pvmd /usr/bin/pvmd
    namespace export start stop stop_all env dir log
}

proc ::ips2pvm::start {args} {
    variable machines
    variable serial
    variable pvmd
    set limit 30
    foreach {opt value} $args {
        switch -- $opt {
            -timeout { set limit $value }
            default { error "ips2pvm::start: unknown option $opt" }
        }
    }
    if {![file executable $pvmd]} {
        error "ips2pvm::start: $pvmd not found (scripts/setup.sh installs Debian's pvm)"
    }
    set root /usr/lib/pvm3
    if {[info exists ::env(PVM_ROOT)] && $::env(PVM_ROOT) ne ""} { set root $::env(PVM_ROOT) }
    set n [incr serial]
    set dir /tmp/ips2-pvm.[pid].$n
    file delete -force $dir
    file mkdir $dir
    file attributes $dir -permissions 0700
    set vmid ips2t[pid]n$n
    set hostfile [file join $dir hosts]
    set f [open $hostfile w]
    puts $f "* ep=$root/lib:$root/bin"
    puts $f "localhost"
    close $f

    set vars [dict create PVM_ROOT $root PVM_TMP $dir PVM_VMID $vmid PVM_ALLOW_ROOT 1]
    set saved {}
    dict for {name value} $vars {
        dict set saved $name [array get ::env $name]
        set ::env($name) $value
    }
    # The shell reads its stdin (a pipe from us) until it ends, then stops
    # and reaps the pvmd and removes its directory; the pvmd's stdout is the
    # shell's, i.e. ours.
    set script {
        "$0" -nlocalhost "$1" </dev/null 2>"$2" &
        pvmd=$!
        while read -r _; do :; done
        kill -TERM "$pvmd" 2>/dev/null
        wait "$pvmd"
        rm -rf "$3"
    }
    set log [file join $dir pvmd.stderr]
    set vm [dict create dir $dir vmid $vmid env $vars saved $saved chan ""]
    try {
        set chan [open |[list sh -c $script $pvmd $hostfile $log $dir] r+]
        dict set vm chan $chan
        lappend machines $vm
        set line [ReadLine $chan $limit]
        set sockfiles [glob -nocomplain -directory $dir pvmd.*.$vmid]
        if {$line eq "" || ![llength $sockfiles]} {
            error "pvmd did not start in $limit s (stdout \"$line\"):\n[ReadLog $vm]"
        }
    } on error {message options} {
        catch {stop $vm}
        return -options $options "ips2pvm::start: $message"
    }
    return $vm
}

# The first line of chan, waiting at most limit seconds ("" if none).
proc ::ips2pvm::ReadLine {chan limit} {
    variable line
    fconfigure $chan -blocking 0 -buffering line
    set line($chan) ""
    fileevent $chan readable [list ::ips2pvm::GotLine $chan]
    set timer [after [expr {int($limit * 1000)}] [list set ::ips2pvm::line($chan) timeout]]
    vwait ::ips2pvm::line($chan)
    after cancel $timer
    fileevent $chan readable {}
    set result $line($chan)
    unset line($chan)
    if {$result in {timeout eof}} { return "" }
    return $result
}

proc ::ips2pvm::GotLine {chan} {
    variable line
    if {[gets $chan text] >= 0} {
        set line($chan) [string trim $text]
        if {$line($chan) eq ""} { set line($chan) eof } ;# an empty line is no answer
    } elseif {[eof $chan]} {
        set line($chan) eof
    }
}

proc ::ips2pvm::ReadLog {vm} {
    set text ""
    foreach f [glob -nocomplain -directory [dict get $vm dir] pvmd.stderr pvml.*] {
        catch { append text [::ips2test::readfile $f] }
    }
    return $text
}

proc ::ips2pvm::stop {vm} {
    variable machines
    set chan [dict get $vm chan]
    if {$chan ne ""} {
        # end the shell's input: it stops the pvmd, reaps it and exits; a
        # blocking close waits for that
        catch {fconfigure $chan -blocking 1}
        catch {close $chan}
    }
    dict for {name old} [dict get $vm saved] {
        if {[info exists ::env($name)] && $::env($name) eq [dict get $vm env $name]} {
            unset ::env($name)
            array set ::env $old
        }
    }
    file delete -force [dict get $vm dir]
    set machines [lmap m $machines {
        if {[dict get $m dir] eq [dict get $vm dir]} continue
        set m
    }]
    return
}

proc ::ips2pvm::stop_all {} {
    variable machines
    foreach vm [lreverse $machines] { catch {stop $vm} }
    set machines {}
}

proc ::ips2pvm::env {vm} { dict get $vm env }
proc ::ips2pvm::dir {vm} { dict get $vm dir }
proc ::ips2pvm::log {vm} { ReadLog $vm }

# Stop every machine before lib.tcl's hook removes the temporary files.
if {[info commands ::ips2pvm::LibCleanupHook] eq ""} {
    rename ::tcltest::cleanupTestsHook ::ips2pvm::LibCleanupHook
    proc ::tcltest::cleanupTestsHook {} {
        ::ips2pvm::stop_all
        ::ips2pvm::LibCleanupHook
    }
}

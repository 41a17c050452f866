# lib.tcl - what the cluster tests (tests/integration/cluster*.test) share:
# the cluster of tests/cluster/cluster.sh brought up for a test file and
# torn down after it, and ways to run things on its hosts.  Sourced after
# tests/integration/lib.tcl.
#
#   cluster::available      "" when a cluster can be made here, else why not
#   cluster::up N           makes hosts h1..hN (tearing down a stale one first)
#   cluster::down           tears it down; returns what is left ("" if nothing)
#   cluster::on HOST CMD... runs CMD on HOST; its run dict (ips2test::run)
#   cluster::master SCRIPT ?ARG ...? ?-env {NAME VALUE ...}?
#                           evaluates SCRIPT (tests/cluster/drive.tcl's
#                           helpers) with the ips2 package on the master
#                           host; returns its result, or fails with its output
#   cluster::leftovers      processes that still know the cluster (its
#                           PVM_TMP or IPS2_CLUSTER in their environment)
# Variables: cluster::state (the state directory, IPS2_CLUSTER), sessions
# (the sessions directory: the master's own, each host's private one).

namespace eval ::cluster {
    variable here [file dirname [file normalize [info script]]]
    variable sh [file join $here cluster.sh]
    variable drive [file join $here drive.tcl]
    variable state /tmp/ips2-cluster-test
    variable sessions [file join $state private sessions]
    set ::env(IPS2_CLUSTER) $state
}

proc ::cluster::available {} {
    variable sh
    down
    set r [::ips2test::run -timeout 60 -- sh $sh check]
    if {[dict get $r status] == 0} { return "" }
    return [string trim "[dict get $r stdout] [dict get $r stderr]"]
}

proc ::cluster::up {n} {
    variable sh
    down
    set r [::ips2test::run -timeout 120 -- sh $sh up $n]
    if {[dict get $r status] != 0} {
        error "cluster.sh up $n failed:\n[dict get $r stdout][dict get $r stderr]"
    }
}

proc ::cluster::down {} {
    variable sh
    set r [::ips2test::run -timeout 120 -- sh $sh down]
    return [string trim [dict get $r stderr]]
}

proc ::cluster::on {host args} {
    variable sh
    return [::ips2test::run -timeout 120 -- sh $sh exec $host {*}$args]
}

proc ::cluster::master {script args} {
    variable sh
    variable drive
    variable state
    set env {}
    if {[set i [lsearch -exact $args -env]] >= 0} {
        set env [lindex $args $i+1]
        set args [lreplace $args $i $i+1]
    }
    set file [file join [::ips2test::tmpdir drive] script.tcl]
    ::ips2test::writefile $file $script
    set r [::ips2test::run -timeout 300 -- sh $sh exec master env PVM_RSH=$state/bin/ssh \
               PVM_TMP=$state/private/pvm {*}[lmap {k v} $env { string cat $k = $v }] \
               tclsh $drive $::ips2test::build $file {*}$args]
    set out [dict get $r stdout]
    if {[dict get $r status] != 0 || ![regexp -line {^RESULT: (.*)$} $out -> result]} {
        error "on the master (status [dict get $r status][expr {[dict get $r timedout] ? ", timed out" : ""}]):\n$out[dict get $r stderr]"
    }
    return $result
}

proc ::cluster::leftovers {} {
    variable state
    set left {}
    foreach dir [glob -nocomplain -directory /proc {[0-9]*}] {
        if {[catch {open [file join $dir environ] rb} f]} { continue }
        set env [read $f]
        close $f
        if {[string first "$state/" $env] >= 0 || [string first "IPS2_CLUSTER=$state" $env] >= 0} {
            set pid [file tail $dir]
            if {$pid != [pid]} { lappend left $pid }
        }
    }
    return $left
}

# drive.tcl - runs a test's script with the ips2 package on the cluster's
# master host (tests/cluster/cluster.sh exec master tclsh drive.tcl ...):
#
#   tclsh drive.tcl BUILD SCRIPT ?ARG ...?
#
# SCRIPT is evaluated with ::argv set to the ARGs and these helpers; what
# it returns is printed as the last line, "RESULT: <a Tcl list>", for the
# test (cluster.test) to read.  An error prints "ERROR: <message>" and
# exits 1.
#
#   drive::run WORKLOAD SESSION ?-on {EVENT-MATCH SCRIPT}? ?-pvm HOW?
#       ips2::run of the workload file, recording every progress event
#       (drive::events); with -on, the first event matching the glob
#       EVENT-MATCH (against "MACHINE EVENT ...") runs SCRIPT once (a
#       fault: break a host as its process starts).  Returns the session.
#   drive::netns_kill HOST   kill -9 every process of HOST's namespace
#   drive::link HOST up|down the HOST's link on the bridge

lassign $argv build script
set argv [lrange $argv 2 end]
lappend auto_path [file join $build lib]
package require ips2
package require ips2::workload

namespace eval drive {
    variable events {}
    variable fault {}
}

proc drive::progress {event} {
    variable events
    variable fault
    lappend events $event
    if {[info exists ::env(DRIVE_VERBOSE)]} { puts stderr "event: $event" }
    if {[llength $fault] && [dict exists $event machine] && [dict exists $event event]} {
        lassign $fault match script
        set key "[dict get $event machine] [dict get $event event]"
        if {[string match $match $key]} {
            set fault {}
            uplevel #0 $script
        }
    }
}

proc drive::run {workload session args} {
    variable fault
    set pvm private
    foreach {opt value} $args {
        switch -- $opt {
            -on { set fault $value }
            -pvm { set pvm $value }
            default { error "drive::run: unknown option $opt" }
        }
    }
    set w [ips2::workload::read $workload]
    return [ips2::run $w -session $session -pvm $pvm -progress drive::progress]
}

proc drive::netns_kill {host} {
    set pids [split [string trim [exec ip netns pids ips2c-$host]] \n]
    if {[llength $pids]} { exec kill -9 {*}$pids }
}

proc drive::link {host state} {
    exec ip link set ips2c-v[string range $host 1 end] $state
}

if {[catch {
    set f [open $script]
    set body [read $f]
    close $f
    set result [eval $body]
} message]} {
    puts "ERROR: $message"
    puts stderr $::errorInfo
    exit 1
}
puts "RESULT: $result"
exit 0

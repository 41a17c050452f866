# ring.tcl - a token ring over TCP across three machines, for the clocks
# across machines (docs/CLOCKS.md, tests/integration/clocks.test): a 64-byte
# token goes round alpha -> beta -> gamma -> alpha `rounds` times, and each
# machine spends `work` ms of CPU on it before passing it on (compute on
# alpha, assemble on beta, refine on gamma).  Every hop waits for the one
# before, so the critical path is the whole ring: 3 x rounds x work ms of
# CPU plus 3 x rounds message delays; the histograms show the token moving
# from machine to machine.  With IPS2_TEST_CLOCK_OFFSETS="alpha=50000000
# beta=-50000000" in ips2's environment the machines' clocks disagree by
# 100 ms; ips2 corrects for it.
#
# Variables: bin (the programs' folder), port (three free TCP ports from
# it), rounds (default 5), work (ms, default 20).

if {![info exists bin]} { set bin ../../build/examples/workloads }
if {![info exists port]} { set port 7380 }
if {![info exists rounds]} { set rounds 5 }
if {![info exists work]} { set work 20 }

machine alpha -host localhost
machine beta -host localhost
machine gamma -host localhost
option interval 10
option timeout 60

# listen on its port, connect to the next machine's (slot 0), accept the
# previous one's (slot 1); the ring's start holds the token first
proc hop {me next first proc} {
    upvar rounds rounds work work
    set steps [list listen $me]
    if {$first} {
        lappend steps connect $next 0 accept $me 1
    } else {
        lappend steps accept $me 1 connect $next 0
    }
    for {set i 0} {$i < $rounds} {incr i} {
        if {!$first || $i > 0} { lappend steps recv 1 64 }
        lappend steps work $proc $work send 0 64
    }
    if {$first} { lappend steps recv 1 64 }
    return $steps
}

application ring {
    process alpha -env {IPS2_CPUCLOCK exact} -- $bin/cpstep {*}[hop $port [expr {$port + 1}] 1 compute]
    process beta -env {IPS2_CPUCLOCK exact} -- $bin/cpstep {*}[hop [expr {$port + 1}] [expr {$port + 2}] 0 assemble]
    process gamma -env {IPS2_CPUCLOCK exact} -- $bin/cpstep {*}[hop [expr {$port + 2}] $port 0 refine]
}

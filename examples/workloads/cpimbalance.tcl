# cpimbalance.tcl - a critical-path imbalance known by construction (the
# critical-path tests and `ips2 report SESSION cp-imbalance` on it): four
# processes of one program (cpimbalance.c) meet at a process-shared
# pthread barrier in every round; each computes `work` ms of CPU in work()
# per round, process 1 three times as much.  The critical path runs
# through the slow process: work's critical-path time is 3 x rounds x work,
# its average CPU per process 1.5 x rounds x work, the imbalance the other
# 1.5 x rounds x work.
#
# Variables (ips2 run cpimbalance.tcl -set NAME=VALUE): bin, the folder of
# the built programs; rounds (default 4); work, ms (default 10).

if {![info exists bin]} { set bin ../../build/examples/workloads }
if {![info exists rounds]} { set rounds 4 }
if {![info exists work]} { set work 10 }

machine alpha -host localhost
option interval 10
option timeout 60

application imbalance {
    process alpha -env {IPS2_CPUCLOCK exact} -- $bin/cpimbalance \
        -procs 4 -rounds $rounds -work $work -slow 3
}

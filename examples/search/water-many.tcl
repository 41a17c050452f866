# water-many.tcl - the small Water (water.c) with many threads: 8 threads x
# 40 steps, interf() 2 ms of CPU a step, 2 ms under potengsum_lock, so the
# sums are serialised.
# Truth: syncBottleneck / excessiveBlockingTime / hotSync on
# mutex:potengsum_lock (as the thesis's Water on 16 CPUs); kinetisum_lock
# not reported.
# Variables: bin, threads (8), steps (40).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists threads]} { set threads 8 }
if {![info exists steps]} { set steps 40 }

machine alpha -host localhost
option timeout 60

application water {
    process alpha $bin/water -threads $threads -steps $steps -interf 2 -locked 2
}

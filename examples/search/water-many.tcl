# water-many.tcl - the small Water (water.c) with many threads: 8 threads
# for 3 s of wall time, interf() 2 ms of CPU a step, 2 ms under potengsum_lock, so the
# sums are serialised.
# Truth: syncBottleneck / excessiveBlockingTime / hotSync on
# mutex:potengsum_lock (as the thesis's Water on 16 CPUs); kinetisum_lock
# not reported.
# Variables: bin, threads (8), seconds (3).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists threads]} { set threads 8 }
if {![info exists seconds]} { set seconds 3 }

machine alpha -host localhost
option timeout 60

application water {
    process alpha $bin/water -threads $threads -seconds $seconds -interf 2 -locked 2
}

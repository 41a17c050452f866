# water-few.tcl - the small Water (water.c) with few threads: 2 threads for
# 2.5 s of wall time, interf() 18 ms of CPU a step, 0.3 ms under
# potengsum_lock.
# Truth: cpuBound (as the thesis's Water on 4 CPUs); no sync bottleneck.
# Variables: bin, threads (2), seconds (2.5).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists threads]} { set threads 2 }
if {![info exists seconds]} { set seconds 2.5 }

machine alpha -host localhost
option timeout 60

application water {
    process alpha $bin/water -threads $threads -seconds $seconds -interf 18 -locked 0.3
}

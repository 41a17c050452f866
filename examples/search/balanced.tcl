# balanced.tcl - a balanced program (balanced.c): 2 threads each serving
# ticks of 3 ms of CPU every 10 ms for 1.5 s; no waits, no I/O.
# Truth: the search reports no bottleneck.
# Variables: bin, threads (2), seconds (1.5).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists threads]} { set threads 2 }
if {![info exists seconds]} { set seconds 1.5 }

machine alpha -host localhost
option timeout 60

application balanced {
    process alpha $bin/balanced -threads $threads -seconds $seconds
}

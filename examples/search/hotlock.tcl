# hotlock.tcl - a hot lock among three quiet ones (hotlock.c): 4 threads
# for 3 s of wall time, each holding hot_lock 2 ms of CPU a round.
# Truth: syncBottleneck / excessiveBlockingTime / hotSync on mutex:hot_lock;
# quiet_stats, quiet_log and quiet_config not reported.
# Variables: bin, threads (4), seconds (3), hold (ms, 2).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists threads]} { set threads 4 }
if {![info exists seconds]} { set seconds 3 }
if {![info exists hold]} { set hold 2 }

machine alpha -host localhost
option timeout 60

application hotlock {
    process alpha $bin/hotlock -threads $threads -seconds $seconds -hold $hold
}

# cpubound.tcl - parallel CPU-bound compute (cpubound.c): 2 threads spend
# 1.5 s of CPU each, 90% in integrate(), 10% in checkpoint().
# Truth: cpuBound, code focus integrate; checkpoint not reported.
# Variables: bin (the programs' folder), threads (2), seconds (1.5).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists threads]} { set threads 2 }
if {![info exists seconds]} { set seconds 1.5 }

machine alpha -host localhost
option timeout 60

application cpubound {
    process alpha $bin/cpubound -threads $threads -seconds $seconds
}

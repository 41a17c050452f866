# cpubound.tcl - parallel CPU-bound compute (cpubound.c): 2 threads compute
# for 2.5 s of wall time, 90% of their CPU in integrate(), 10% in
# checkpoint().
# Truth: cpuBound, code focus integrate; checkpoint not reported.
# Variables: bin (the programs' folder), threads (2), seconds (2.5).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists threads]} { set threads 2 }
if {![info exists seconds]} { set seconds 2.5 }

machine alpha -host localhost
option timeout 60

application cpubound {
    process alpha $bin/cpubound -threads $threads -seconds $seconds
}

# hashjoin.tcl - the small Shmjoin (hashjoin.c) with the os collector: the
# build phase fills 8 partitions' tables of 4 million tuples in memory
# fresh from malloc (zero-fill faults), then the probe phase computes for
# 1 s in memory already touched.  Sampled at 20 ms, as the thesis's second
# Shmjoin run.
# Truth: tooManyPageFaults, its interval the build phase.
# Variables: bin, tuples (4000000), probe (s, 1).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists tuples]} { set tuples 4000000 }
if {![info exists probe]} { set probe 1 }

machine alpha -host localhost
collector alpha os
option interval 20
option timeout 60

application hashjoin {
    process alpha $bin/hashjoin -tuples $tuples -partitions 8 -probe $probe
}

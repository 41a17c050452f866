# pagefault.tcl - a burst of page faults in one phase (pagefault.c) with
# the os collector: build_index() faults for 1 s of CPU, then
# compute_scores() computes for 1.5 s.
# Truth: tooManyPageFaults with an interval covering build_index's phase
# only.
# Variables: bin, faulting (s, 1), compute (s, 1.5).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists faulting]} { set faulting 1 }
if {![info exists compute]} { set compute 1.5 }

machine alpha -host localhost
collector alpha os
option timeout 60

application pagefault {
    process alpha $bin/pagefault -faulting $faulting -compute $compute
}

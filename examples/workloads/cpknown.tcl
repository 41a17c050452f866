# cpknown.tcl - a critical path known by construction (the critical-path
# tests and `ips2 report SESSION cp` on it): two processes of one
# application on two machines, spinning known CPU work (cpuwork.h) in named
# procedures of cpstep.c, with TCP messages at known points:
#
#   first   (alpha)  solve 40 ms, connect, send --.         .--> recv, refine 20, output 10
#   second  (beta)   setup 5, accept, recv <------'  assemble 30, send --'   cleanup 8
#
# The longest path is solve -> message -> assemble -> message -> refine ->
# output: a procedure-level critical-path profile ranks solve (40 ms),
# assemble (30), refine (20), output (10), each its whole work; setup and
# cleanup run beside it and are not on it.  Without assemble's work
# (-set assemble=0) the path is 30 ms shorter: what critical-path zeroing
# of assemble predicts.  The CPU clock is read at every event (exact), so
# the procedures' times are exact too.
#
# Variables (ips2 run cpknown.tcl -set NAME=VALUE): bin, the folder of the
# built programs; port, a free TCP port; scale, multiplies every work
# (default 1); assemble, assemble's work in ms before scaling (default 30).

if {![info exists bin]} { set bin ../../build/examples/workloads }
if {![info exists port]} { set port 7350 }
if {![info exists scale]} { set scale 1 }
if {![info exists assemble]} { set assemble 30 }
proc ms {n} { upvar scale scale; expr {$n * $scale} }

machine alpha -host localhost
machine beta -host localhost
option interval 10
option timeout 60

application known {
    process alpha -env {IPS2_CPUCLOCK exact} -- $bin/cpstep \
        work solve [ms 40] connect $port 0 send 0 64 recv 0 64 \
        work refine [ms 20] work output [ms 10]
    process beta -env {IPS2_CPUCLOCK exact} -- $bin/cpstep \
        listen $port work setup [ms 5] accept $port 0 recv 0 64 \
        work assemble [ms $assemble] send 0 64 work cleanup [ms 8]
}

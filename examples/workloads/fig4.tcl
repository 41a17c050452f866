# fig4.tcl - the IPS-2 paper's Figure 4 as a real workload: three
# applications whose critical paths differ by mode.  Programs are cpstep.c
# processes (known CPU work in named procedures, TCP messages):
#
#   A  a0 (alpha)  compute 20, send to a1 ..........  recv, finish 10
#      a1 (beta)   recv, solve 30, reply to a0, tell B (connect, send)
#   B  b0 (beta)   hear from A (accept, recv), record 10,
#                  then C's request (accept, recv), serve 25, reply
#   C  c0 (alpha)  prepare 5, ask B (connect, send), recv the reply, digest 5
#
# A's intra-application path crosses from a0 to a1 and back but never
# leaves A (the message to B is ignored).  C's inter-application path goes
# from C into B (serve) and back, but not into A: B heard from A first, but
# that part of B is reached only by the secondary diffusion.  The global
# path runs A -> B -> C.
#
# Variables: bin (the programs' folder), port (a free TCP port; port+1 and
# port+2 are used too), scale (multiplies every work, default 1).

if {![info exists bin]} { set bin ../../build/examples/workloads }
if {![info exists port]} { set port 7360 }
if {![info exists scale]} { set scale 1 }
proc ms {n} { upvar scale scale; expr {$n * $scale} }
set pa $port
set pb [expr {$port + 1}]
set pab [expr {$port + 2}]

machine alpha -host localhost
machine beta -host localhost
option interval 10
option timeout 60

application A {
    process alpha -env {IPS2_CPUCLOCK exact} -- $bin/cpstep \
        work compute [ms 20] connect $pa 0 send 0 64 recv 0 64 work finish [ms 10]
    process beta -env {IPS2_CPUCLOCK exact} -- $bin/cpstep \
        listen $pa accept $pa 0 recv 0 64 work solve [ms 30] send 0 64 \
        connect $pab 1 send 1 32
}
application B {
    process beta -env {IPS2_CPUCLOCK exact} -- $bin/cpstep \
        listen $pab listen $pb accept $pab 1 recv 1 32 work record [ms 10] \
        accept $pb 0 recv 0 64 work serve [ms 25] send 0 64
}
application C {
    process alpha -env {IPS2_CPUCLOCK exact} -- $bin/cpstep \
        work prepare [ms 5] connect $pb 0 send 0 64 recv 0 64 work digest [ms 5]
}

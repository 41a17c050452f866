# locusroute.tcl - the small LocusRoute (locusroute.c): 1000 wires routed
# over a 64 x 64 grid, millions of calls of cell_at(), cell_cost() and
# is_blocked().
# Truth: instBottleneck (as the thesis's LocusRoute).  The wires are
# routed pass after pass for 2 s of wall time: 20 samples at 100 ms on
# any machine, however busy.
# Variables: bin, wires (1000), seconds (2).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists wires]} { set wires 1000 }
if {![info exists seconds]} { set seconds 2 }

machine alpha -host localhost
option timeout 60

application locusroute {
    process alpha $bin/locusroute -wires $wires -grid 64 -seconds $seconds
}

# locusroute.tcl - the small LocusRoute (locusroute.c): 1000 wires routed
# over a 64 x 64 grid, millions of calls of cell_at(), cell_cost() and
# is_blocked().
# Truth: instBottleneck (as the thesis's LocusRoute).
# Variables: bin, wires (1000).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists wires]} { set wires 1000 }

machine alpha -host localhost
option timeout 60

application locusroute {
    process alpha $bin/locusroute -wires $wires -grid 64
}

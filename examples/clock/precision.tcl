# precision.tcl - the clock-precision study of the IPS-2 paper (§5.1) on
# this machine: the same program (join.c) run twice at once, measured with
# the exact thread CPU clock (application exact) and with a process clock
# that advances in 10 ms ticks as the Sequent's did (application coarse,
# IPS2_CPUCLOCK=tick:10).  Compare their procedure-level critical-path
# profiles:
#
#   ips2 run examples/clock/precision.tcl -session S
#   ips2 report S cp -mode intra -app exact -level procedure
#   ips2 report S cp -mode intra -app coarse -level procedure
#
# The exact clock ranks effect_join (a few long calls) over partition
# (many short ones between barriers); the coarse clock ranks partition
# first, by far, and its path is longer than the run.  Every table's
# header names the clock its application was measured with and, for the
# coarse one, warns that partition's calls are shorter than ten ticks.
#
# Variables (-set NAME=VALUE): bin, the folder of the built program
# (default ../../build/examples/clock); tick, the coarse clock's tick in
# ms (default 10); threads, episodes, io, short, long, calls: join's options.

if {![info exists bin]} { set bin ../../build/examples/clock }
if {![info exists tick]} { set tick 10 }
foreach {name default} {threads 6 episodes 100 io 12 short 2 long 150 calls 2} {
    if {![info exists $name]} { set $name $default }
}
set args [list -threads $threads -episodes $episodes -io $io -short $short -long $long \
              -calls $calls]

machine local -host localhost
option timeout 300

application exact {
    process local -env {IPS2_CPUCLOCK exact} -- $bin/join {*}$args
}
application coarse {
    process local -env [list IPS2_CPUCLOCK tick:$tick] -- $bin/join {*}$args
}

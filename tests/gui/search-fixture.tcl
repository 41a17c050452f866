# search-fixture.tcl - a W3 search answer written by hand that follows the
# contract of `$session search` (issue 11 item 9; the dict of the common
# contract: bottlenecks, shg, accounting) exactly, for the Performance
# Consultant pane's tests before and beside the real engine.  Its foci name
# the nodes of a real cpimbalance session: searchFixture fills them in.
#
#   searchFixture APP MACHINE SLOW SLOWTHREAD OTHER SYNC
#       SLOW and OTHER are process paths (app:A/machine:M/process:PID),
#       SLOWTHREAD a thread path under SLOW, SYNC a synchronisation object name.
#
# The graph (ids; * = a reported bottleneck):
#   0 topLevelHypothesis                                   true
#   1   syncBottleneck                                     true
#   2     excessiveBlockingTime                            true
#   3       excessiveBlockingTime {process OTHER}          true  *
#   4       excessiveBlockingTime {sync SYNC}              testing
#   5     excessiveSyncRates                               false
#   6   ioBottleneck                                       false
#   7   cpuBottleneck                                      true
#   8     cpuBound                                         true
#   9       cpuBound {process SLOW}                        true
#  10         cpuBound {process SLOW code M/work}          true  * (whole run)
#  11           cpuBound {... code M/work} 0.20-0.60 s     true  * (when: an interval)
#  12         cpuBound {process SLOW code M/main}          false
#  13       cpuBound {process OTHER}                       false
#  14   vmBottleneck                                       untested
#  15   instBottleneck                                     untested

proc searchFixture {app machine slow slowthread other sync} {
    set module cpimbalance
    set run {0.0 1.25}
    set part {0.2 0.6}
    set node {apply {{id parent hypothesis focus interval state value threshold why} {
        dict create id $id parent $parent hypothesis $hypothesis focus $focus interval $interval \
            state $state value $value threshold $threshold why $why
    }}}
    set shg [list \
        [{*}$node 0 -1 topLevelHypothesis {} $run true 1.0 0.0 \
             "the root: some bottleneck somewhere; its children are the kinds of bottleneck"] \
        [{*}$node 1 0 syncBottleneck {} $run true 0.52 0.2 \
             "synchronisation waiting is 52% of the time: refined by why"] \
        [{*}$node 2 1 excessiveBlockingTime {} $run true 0.52 0.25 \
             "blocked 52% of the time: refined by where (process, sync object)"] \
        [{*}$node 3 2 excessiveBlockingTime [dict create process $other] $run true 0.71 0.25 \
             "this process waits 71% of its time at the barrier"] \
        [{*}$node 4 2 excessiveBlockingTime [dict create sync $sync] $run testing 0.3 0.25 \
             "being observed: 3 of 5 samples so far"] \
        [{*}$node 5 1 excessiveSyncRates {} $run false 40.0 1000.0 \
             "32 operations a second, under the 1000 of the threshold"] \
        [{*}$node 6 0 ioBottleneck {} $run false 0.0 0.2 "no I/O time"] \
        [{*}$node 7 0 cpuBottleneck {} $run true 0.48 0.2 "CPU is 48% of the time: refined by why"] \
        [{*}$node 8 7 cpuBound {} $run true 0.48 0.2 "refined by where: processes first (hint: critical path)"] \
        [{*}$node 9 8 cpuBound [dict create process $slow] $run true 0.97 0.2 \
             "this process computes 97% of its time: refined by code"] \
        [{*}$node 10 9 cpuBound [dict create process $slow code $module/work] $run true 0.96 0.2 \
             "work computes 96% of the process's time: reported; refined by when"] \
        [{*}$node 11 10 cpuBound [dict create process $slow code $module/work] $part true 0.99 0.2 \
             "between 0.2 and 0.6 s work computes 99% of the time"] \
        [{*}$node 12 9 cpuBound [dict create process $slow code $module/main] $run false 0.001 0.2 \
             "main computes 0.1% of the time, under the threshold"] \
        [{*}$node 13 8 cpuBound [dict create process $other] $run false 0.19 0.2 \
             "this process computes 19% of its time, under the threshold"] \
        [{*}$node 14 0 vmBottleneck {} $run untested 0 0.1 "not tested: no page-fault counter (no os collector)"] \
        [{*}$node 15 0 instBottleneck {} $run untested 0 0.05 "not tested yet"]]
    set gprof [dict create columns {{name {}} {self ns} {children ns} {calls {}} {percent %}} \
                   rows [list {work 1200000000 0 10 96.0} {sync_round 1000000 0 10 0.1}]]
    set waits [dict create columns {{object {}} {waits {}} {wait ns}} rows [list [list $sync 10 880000000]]]
    set bottlenecks [list \
        [dict create hypothesis cpuBound path {topLevelHypothesis cpuBottleneck cpuBound} \
             focus [dict create process $slow code $module/work] interval $run value 0.96 threshold 0.2 \
             explanation "work in process [lindex [split $slow :] end] is CPU bound: it computes 96% of\
                the time.  Try a faster algorithm in work, or spread its work over more processes." \
             evidence $gprof] \
        [dict create hypothesis cpuBound path {topLevelHypothesis cpuBottleneck cpuBound} \
             focus [dict create process $slow code $module/work] interval $part value 0.99 threshold 0.2 \
             explanation "Between 0.20 and 0.60 s work is the whole of its process's time." \
             evidence {}] \
        [dict create hypothesis excessiveBlockingTime \
             path {topLevelHypothesis syncBottleneck excessiveBlockingTime} \
             focus [dict create process $other] interval $run value 0.71 threshold 0.25 \
             explanation "Process [lindex [split $other :] end] waits 71% of its time at $sync for a\
                slower process.  Balance the work between the processes." \
             evidence $waits]]
    set accounting [dict create total_counters 96 counters_used 14 total_samples 6000 samples_used 700 \
                        bytes_per_sample 12 di_bytes 8400 trace_bytes 1843200 ratio 219.4]
    dict create bottlenecks $bottlenecks shg $shg accounting $accounting
}

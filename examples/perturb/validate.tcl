# validate.tcl - perturbation compensation against untraced runs
# (examples/perturb/README.md, docs/PERTURBATION.md).
#
#   tclsh examples/perturb/validate.tcl ?-build DIR? ?-runs N? ?-programs {seq barrier ...}?
#                                       ?-autocount off|""|CALLS:DURATION?
#
# For each program: N untraced runs of the plain build (each reports its
# own CPU times: "ref work", "ref cp") and N traced runs of the ips2cc
# build, each reduced twice (ips2-reduce --times raw and compensated, with
# the PAG part) and its global critical path computed (ips2-cpa oracle).
# Per program and measure (the procedure's CPU, the critical path's
# length) it prints the medians and the errors of raw and compensated
# times against the untraced median, and whether compensated is inside
# the bound (10% sequential, 15% concurrent) while raw is off by 2x or
# more (it says when raw is not).  Exit status 0 when every compensated
# time is inside its bound, 1 otherwise.  The test
# (tests/integration/perturb.test) sources it with -source-only and calls
# perturb::measure with looser bounds.

namespace eval perturb {
    # program -> {procedure whose CPU is compared, bound, arguments}
    variable programs {
        seq      {work       0.10 {}}
        barrier  {fine_round 0.15 {}}
        mutex    {cs_work    0.15 {}}
        pipeline {produce    0.15 {}}
    }
    # IPS2_AUTOCOUNT for the traced runs: "" the runtime's default (the
    # run-time counting on: tiny leaves counted, their cost sampled and
    # compensated, docs/PERTURBATION.md section 1); off traces every call.
    variable autocount ""
}

proc perturb::median {values} {
    set v [lsort -real $values]
    set n [llength $v]
    if {$n == 0} { return 0 }
    if {$n % 2} { return [lindex $v [expr {$n / 2}]] }
    expr {([lindex $v [expr {$n / 2 - 1}]] + [lindex $v [expr {$n / 2}]]) / 2.0}
}

# The "ref KEY NS" lines of a program's output, as a dict.
proc perturb::refs {output} {
    set d {}
    foreach line [split $output \n] {
        if {[lindex $line 0] eq "ref"} { dict set d [lindex $line 1] [lindex $line 2] }
    }
    return $d
}

# One traced run reduced with TIMES: {work NS cp NS}.
proc perturb::reduce {build dir proc times} {
    set pag $dir.$times.pag
    set tsv [exec $build/bin/ips2-reduce --times $times --tsv --pag $pag $dir]
    set work 0
    foreach line [split $tsv \n] {
        set f [split $line \t]
        if {[lindex $f 0] eq "proc" && [lindex $f 4] eq $proc} {
            set work [expr {$work + [lindex $f 5]}]
        }
    }
    # the path's CPU: its length less the latencies of its dependence
    # arcs (a thread's wake-up on this shared machine is in neither run's
    # CPU; the profile names an arc "KIND FROM->TO")
    set out [exec $build/bin/ips2-cpa oracle -mode global -level thread $pag 2>@1]
    set cp 0
    foreach line [lrange [split $out \n] 1 end] {
        if {[llength $line] >= 3 && [string is wide -strict [lindex $line 0]] &&
            ![string match *->* $line]} {
            set cp [expr {$cp + [lindex $line 0]}]
        }
    }
    file delete $pag
    list work $work cp $cp
}

# Runs program NAME RUNS times each way; returns a dict of medians:
# ref_work ref_cp raw_work raw_cp comp_work comp_cp.
proc perturb::measure {build name runs {scratch ""}} {
    variable programs
    variable autocount
    lassign [dict get $programs $name] proc bound args
    if {$scratch eq ""} { set scratch [file join [pwd] perturb-[pid]] }
    file mkdir $scratch
    set plain $build/examples/perturb/plain/$name
    set traced $build/examples/perturb/$name
    foreach k {ref_work ref_cp raw_work raw_cp comp_work comp_cp} { set v($k) {} }
    for {set i 0} {$i < $runs} {incr i} {
        # alternate, so that a change of load hits both alike
        set r [refs [exec $plain {*}$args]]
        lappend v(ref_work) [dict get $r work]
        lappend v(ref_cp) [dict get $r cp]
        set dir [file join $scratch $name.$i]
        file delete -force $dir
        set ::env(IPS2_SESSION) $dir
        unset -nocomplain ::env(IPS2_AUTOCOUNT)
        if {$autocount ne ""} { set ::env(IPS2_AUTOCOUNT) $autocount }
        exec $traced {*}$args
        unset ::env(IPS2_SESSION)
        unset -nocomplain ::env(IPS2_AUTOCOUNT)
        foreach t {raw comp} times {raw compensated} {
            set m [reduce $build $dir $proc $times]
            lappend v(${t}_work) [dict get $m work]
            lappend v(${t}_cp) [dict get $m cp]
        }
        file delete -force $dir
    }
    set d [dict create bound $bound]
    foreach k [array names v] { dict set d $k [median $v($k)] }
    return $d
}

# Relative error of a measured value against the reference.
proc perturb::err {value ref} {
    expr {$ref > 0 ? ($value - $ref) / double($ref) : 0.0}
}

proc perturb::table {build runs names} {
    set ok 1
    puts [format "%-9s %-5s %10s %10s %10s %8s %8s  %s" program what untraced_ms raw_ms comp_ms \
              raw_err comp_err verdict]
    foreach name $names {
        set d [measure $build $name $runs]
        foreach what {work cp} {
            set ref [dict get $d ref_$what]
            set raw [dict get $d raw_$what]
            set comp [dict get $d comp_$what]
            set re [err $raw $ref]
            set ce [err $comp $ref]
            set bound [dict get $d bound]
            set good [expr {abs($ce) <= $bound}]
            if {!$good} { set ok 0 }
            set verdict [expr {$good ? "ok" : "OUT"}]
            append verdict " (bound [expr {round($bound * 100)}]%)"
            # the programs make raw times off by 2x or more when the probes
            # cost what they cost under load; on a quiet core they cost less
            if {$re < 1.0} { append verdict ", raw under 2x" }
            puts [format "%-9s %-5s %10.2f %10.2f %10.2f %+7.0f%% %+7.1f%%  %s" $name $what \
                      [expr {$ref / 1e6}] [expr {$raw / 1e6}] [expr {$comp / 1e6}] \
                      [expr {$re * 100}] [expr {$ce * 100}] $verdict]
        }
    }
    return $ok
}

if {[info script] eq $::argv0 && [lsearch $::argv -source-only] < 0} {
    set build [file normalize [file join [file dirname [info script]] ../../build]]
    set runs 5
    set names {seq barrier mutex pipeline}
    foreach {opt val} $::argv {
        switch -- $opt {
            -build { set build [file normalize $val] }
            -runs { set runs $val }
            -programs { set names $val }
            -autocount { set perturb::autocount $val }
            default { puts stderr "usage: validate.tcl ?-build DIR? ?-runs N? ?-programs LIST? ?-autocount A?"; exit 2 }
        }
    }
    puts "perturbation compensation: medians of $runs runs; CPU times; errors against untraced"
    exit [expr {[perturb::table $build $runs $names] ? 0 : 1}]
}

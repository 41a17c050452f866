# accounting.tcl - the data-volume accounting of the search on the three
# thesis-like programs (water.c, locusroute.c, hashjoin.c), printed in the
# format of the thesis's Figs 4.2-4.7 with the thesis's own rows beside
# them, for issue 11's closing note.
#
#   tclsh examples/search/accounting.tcl ?-build DIR? ?-sessions DIR?
#
# -build: the build directory (default build/ beside this folder).
# -sessions: where the sessions are kept (default: a new directory under
# /tmp, removed at the end); a session already there (DIR/NAME, with a
# manifest.tcl) is reopened rather than run again, so a second call only
# searches.  Each workload runs with ips2::run under a private pvmd, then
# `$session search` gives the accounting dict; Shmjoin is searched at the
# two sample intervals of Figs 4.6/4.7 (100 ms and 20 ms; its workload
# samples at 20 ms).
#
# Fig 4.2-style table: Total Counters, Counters Used (%), Total Samples,
# Samples Used (%).  Fig 4.3-style table: DI Samples, DI Size (KB = 1000
# bytes, 12 bytes a sample), IPS-2 Trace Size (KB: here the session's trace
# bytes), Ratio (trace / DI).

set here [file dirname [file normalize [info script]]]
set build [file join [file dirname [file dirname $here]] build]
set keep ""
foreach {opt value} $argv {
    switch -- $opt {
        -build { set build [file normalize $value] }
        -sessions { set keep [file normalize $value] }
        default {
            puts stderr "usage: tclsh accounting.tcl ?-build DIR? ?-sessions DIR?"
            exit 2
        }
    }
}
lappend auto_path [file join $build lib]
package require ips2

set dir [expr {$keep ne "" ? $keep : [file join /tmp ips2-accounting.[pid]]}]
file mkdir $dir

# rows: program, version, workload, search options
set runs {
    Water      {2 threads}      water-few  {}
    Water      {8 threads}      water-many {}
    LocusRoute {instBottleneck} locusroute {}
    Shmjoin    {100 ms}         hashjoin   {-interval 100}
    Shmjoin    {20 ms}          hashjoin   {-interval 20}
}

# The thesis's rows (Figs 4.2, 4.4, 4.6; 4.3, 4.5, 4.7).
# Columns: total counters, counters used, total samples, samples used,
# DI size (KB), trace size (KB), ratio, as printed there.
set thesis {
    Water      {4 CPUs}               2022 22 279036 1390 17 1240 73
    Water      {16 CPUs}              7783 328 2762965 28692 343 13129 38
    LocusRoute {initial}              1928 6 337400 1050 12.6 9696 770
    LocusRoute {collection hypothesis} 1928 44 337400 4226 50.7 9696 191
    Shmjoin    {100 ms.}              1978 9 1845474 8379 101 4100 41
    Shmjoin    {20 ms.}               1978 9 9227370 41958 504 6300 13
}

proc session {dir name build} {
    set sdir [file join $dir $name]
    if {[file exists [file join $sdir manifest.tcl]]} { return [ips2::open $sdir] }
    set s [ips2::run [file join $::here $name.tcl] -session $sdir -pvm private \
               -vars [list bin [file join $build examples search]]]
    return $s
}

proc pct {part whole} {
    expr {$whole > 0 ? 100.0 * $part / $whole : 0.0}
}

set ours {}
set sessions {}
foreach {program version name options} $runs {
    if {![dict exists $sessions $name]} { dict set sessions $name [session $dir $name $build] }
    set s [dict get $sessions $name]
    set r [$s search {*}$options]
    set a [dict get $r accounting]
    set found [lsort -unique [lmap b [dict get $r bottlenecks] { dict get $b hypothesis }]]
    lappend ours [list $program $version $a $found]
}
dict for {name s} $sessions { $s close }

puts "Sampling vs. Dynamic Instrumentation (thesis Figs 4.2, 4.4, 4.6 format)"
puts [format "%-11s %-22s %14s %16s %14s %16s" Program Version "Total Counters" "Counters Used" \
          "Total Samples" "Samples Used"]
foreach row $ours {
    lassign $row program version a
    dict with a {
        puts [format "%-11s %-22s %14d %9d (%4.1f%%) %14d %9d (%4.1f%%)" $program $version \
                  $total_counters $counters_used [pct $counters_used $total_counters] \
                  $total_samples $samples_used [pct $samples_used $total_samples]]
    }
}
puts "  the thesis:"
foreach {program version tc cu ts su di kb ratio} $thesis {
    puts [format "%-11s %-22s %14d %9d (%4.1f%%) %14d %9d (%4.1f%%)" $program $version \
              $tc $cu [pct $cu $tc] $ts $su [pct $su $ts]]
}
puts ""
puts "DI vs. Tracing (thesis Figs 4.3, 4.5, 4.7 format; KB = 1000 bytes, 12 bytes a sample)"
puts [format "%-11s %-22s %10s %12s %16s %8s" Program Version "DI Samples" "DI Size (KB)" \
          "Trace Size (KB)" Ratio]
foreach row $ours {
    lassign $row program version a
    dict with a {
        puts [format "%-11s %-22s %10d %12.1f %16.0f %8.0f" $program $version $samples_used \
                  [expr {$di_bytes / 1000.0}] [expr {$trace_bytes / 1000.0}] $ratio]
    }
}
puts "  the thesis:"
foreach {program version tc cu ts su di kb ratio} $thesis {
    puts [format "%-11s %-22s %10d %12.1f %16.0f %8.0f" $program $version $su $di $kb $ratio]
}
puts ""
puts "Bottlenecks found:"
foreach row $ours {
    lassign $row program version a found
    puts [format "%-11s %-22s %s" $program $version [expr {[llength $found] ? [join $found ", "] : "none"}]]
}
if {$keep eq ""} { file delete -force $dir }

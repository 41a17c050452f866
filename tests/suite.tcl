# suite.tcl - the driver of the Tcl test suites (tests/integration,
# tests/gui): each DIR/*.test file runs in its own tclsh, under coreutils
# timeout (IPS2_TEST_TIMEOUT seconds, default 600), with the tcltest options
# given.  A file that exits non-zero, times out or ends without tcltest's
# summary line counts as one failed test, so a crash is never lost.  The
# last line is tcltest's usual total,
#   all.tcl:<TAB>Total<TAB>N<TAB>Passed<TAB>N<TAB>Skipped<TAB>N<TAB>Failed<TAB>N
# and `ips2suite::run` returns 1 when anything failed (each all.tcl exits
# with it).

package require Tcl 8.6
package require tcltest 2.5

namespace eval ips2suite {}

proc ips2suite::run {here argv} {
    set root [file dirname [file dirname $here]]
    set build [expr {[info exists ::env(IPS2_BUILD)] ? $::env(IPS2_BUILD) : [file join $root build]}]
    set tmp [file join $build tests tmp]
    file mkdir $tmp

    # Parse the options the way every test file will, to learn -file/-notfile.
    tcltest::configure -testdir $here -tmpdir $tmp {*}$argv

    set files {}
    foreach path [lsort [glob -nocomplain -directory $here *.test]] {
        set tail [file tail $path]
        set take 0
        foreach pattern [tcltest::matchFiles] {
            if {[string match $pattern $tail]} { set take 1 }
        }
        foreach pattern [tcltest::skipFiles] {
            if {[string match $pattern $tail]} { set take 0 }
        }
        if {$take} { lappend files $path }
    }

    set limit 600
    if {[info exists ::env(IPS2_TEST_TIMEOUT)] && [string is integer -strict $::env(IPS2_TEST_TIMEOUT)]} {
        set limit $::env(IPS2_TEST_TIMEOUT)
    }

    array set total {Total 0 Passed 0 Skipped 0 Failed 0}
    set failing {}
    set broken {}
    set summaryRE {^([^:]+):\tTotal\t([0-9]+)\tPassed\t([0-9]+)\tSkipped\t([0-9]+)\tFailed\t([0-9]+)}

    foreach path $files {
        set tail [file tail $path]
        puts "== $tail"
        flush stdout
        set cmd [list timeout -k 10 $limit [info nameofexecutable] $path -tmpdir $tmp {*}$argv]
        set chan [open |[concat $cmd [list </dev/null 2>@1]] r]
        set summary 0
        while {[gets $chan line] >= 0} {
            if {[regexp $summaryRE $line -> name t p s f]} {
                set summary 1
                foreach key {Total Passed Skipped Failed} n [list $t $p $s $f] {
                    incr total($key) $n
                }
                if {$f > 0} { lappend failing $tail }
            }
            puts $line
            flush stdout
        }
        set status 0
        if {[catch {close $chan} message options]} {
            set code [dict get $options -errorcode]
            switch -- [lindex $code 0] {
                CHILDSTATUS { set status [lindex $code 2] }
                CHILDKILLED { set status "signal [lindex $code 2]" }
                default     { set status $message }
            }
        }
        if {$status ne "0" || !$summary} {
            set why [expr {$status eq "124" ? "timed out after ${limit}s" : "exit status $status"}]
            if {!$summary} { append why ", no tcltest summary" }
            puts "$tail: error: $why (counted as one failed test)"
            incr total(Total)
            incr total(Failed)
            lappend broken $tail
        }
    }

    puts ""
    if {[llength $failing]} { puts "Files with failing tests: $failing" }
    if {[llength $broken]} { puts "Test files exiting with errors: $broken" }
    puts "Sourced [llength $files] Test Files."
    puts [format "all.tcl:\tTotal\t%d\tPassed\t%d\tSkipped\t%d\tFailed\t%d" \
              $total(Total) $total(Passed) $total(Skipped) $total(Failed)]
    return [expr {$total(Failed) > 0 || $total(Total) == 0}]
}

# all.tcl - runs the GUI tests (tests/gui/*.test) under the X display the
# caller provides (tests/run-all runs this under xvfb-run).  Each file runs
# in its own tclsh under coreutils timeout (IPS2_TEST_TIMEOUT seconds,
# default 600); a file that exits non-zero, times out or ends without
# tcltest's summary counts as one failed test.  The last line is tcltest's
#   all.tcl:<TAB>Total<TAB>N<TAB>Passed<TAB>N<TAB>Skipped<TAB>N<TAB>Failed<TAB>N
# and the exit status is 1 when anything failed.
#
#   xvfb-run -a tclsh tests/gui/all.tcl ?-file gui.test? ?-match PATTERN? ?-verbose bpe?

package require Tcl 8.6
package require tcltest 2.5

set here [file dirname [file normalize [info script]]]
set root [file dirname [file dirname $here]]
set build [expr {[info exists env(IPS2_BUILD)] ? $env(IPS2_BUILD) : [file join $root build]}]
set tmp [file join $build tests tmp]
file mkdir $tmp
tcltest::configure -testdir $here -tmpdir $tmp {*}$argv

set files {}
foreach path [lsort [glob -nocomplain -directory $here *.test]] {
    set tail [file tail $path]
    set take 0
    foreach pattern [tcltest::matchFiles] { if {[string match $pattern $tail]} { set take 1 } }
    foreach pattern [tcltest::skipFiles] { if {[string match $pattern $tail]} { set take 0 } }
    if {$take} { lappend files $path }
}
set limit 600
if {[info exists env(IPS2_TEST_TIMEOUT)] && [string is integer -strict $env(IPS2_TEST_TIMEOUT)]} {
    set limit $env(IPS2_TEST_TIMEOUT)
}
array set total {Total 0 Passed 0 Skipped 0 Failed 0}
set bad {}
set summaryRE {^([^:]+):\tTotal\t([0-9]+)\tPassed\t([0-9]+)\tSkipped\t([0-9]+)\tFailed\t([0-9]+)}
foreach path $files {
    set tail [file tail $path]
    puts "== $tail"
    flush stdout
    set chan [open |[list timeout -k 10 $limit [info nameofexecutable] $path -tmpdir $tmp {*}$argv \
                         </dev/null 2>@1] r]
    set summary 0
    while {[gets $chan line] >= 0} {
        if {[regexp $summaryRE $line -> name t p s f]} {
            set summary 1
            foreach key {Total Passed Skipped Failed} n [list $t $p $s $f] { incr total($key) $n }
        }
        puts $line
        flush stdout
    }
    set status 0
    if {[catch {close $chan} message options]} {
        set code [dict get $options -errorcode]
        set status [expr {[lindex $code 0] eq "CHILDSTATUS" ? [lindex $code 2] : $message}]
    }
    if {$status ne "0" || !$summary} {
        puts "$tail: error: exit status $status[expr {$summary ? "" : ", no tcltest summary"}] (counted as one failed test)"
        incr total(Total)
        incr total(Failed)
        lappend bad $tail
    }
}
puts ""
if {[llength $bad]} { puts "Test files exiting with errors: $bad" }
puts "Sourced [llength $files] Test Files."
puts [format "all.tcl:\tTotal\t%d\tPassed\t%d\tSkipped\t%d\tFailed\t%d" \
          $total(Total) $total(Passed) $total(Skipped) $total(Failed)]
exit [expr {$total(Failed) > 0 || $total(Total) == 0}]

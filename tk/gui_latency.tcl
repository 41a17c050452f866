# gui_latency.tcl - a procedure's latency distribution in the master
# analyst window: the histogram of the inclusive wall times of its
# outermost activations under a node (the session's `latency NODE
# -procedure NAME`, master/latency.h), drawn as bars over a logarithmic
# time axis (eight buckets per power of two, as the master gives them),
# with the p50, p90 and p99 marked and the count, mean and max in the
# title.  A double-click on a row of a latency table opens it (gui.tcl).
#
#   ips2::gui::latency::open SESSION PATH PROCEDURE ?PHASEARGS?   a plot pane
#   ips2::gui::latency::data PANE                                 what it drew (tests)
#   ips2::gui::latency::view TABLE      the latency table as the window shows it

package require Tcl 8.6
package require Tk 8.6
package require ips2::latency 1.0
package provide ips2::gui::latency 1.0

namespace eval ::ips2::gui::latency {
    # Data(PANE): the master's answer the pane drew
    variable Data
    array set Data {}
    variable Marks {p50 #2a7f3f p90 #d08000 p99 #c0392b}
}

# view TABLE: the master's latency table for the window: times in
# microseconds (ips2::latency::Micro, as the command line's text), and the
# percentiles right after the count, so that the tail a user came for is
# in sight in a narrow pane; mean and total after them.
proc ::ips2::gui::latency::view {t} {
    set t [ips2::latency::Micro $t]
    set names [lmap c [dict get $t columns] { lindex $c 0 }]
    set order [lmap n {procedure count p50 p90 p99 max mean total} { lsearch -exact $names $n }]
    dict create columns [lmap i $order { lindex [dict get $t columns] $i }] \
        rows [lmap row [dict get $t rows] { lmap i $order { lindex $row $i } }]
}

# Human NS: a duration as people read it.
proc ::ips2::gui::latency::Human {ns} {
    if {$ns >= 1e9} { return [format "%.3g s" [expr {$ns / 1e9}]] }
    if {$ns >= 1e6} { return [format "%.3g ms" [expr {$ns / 1e6}]] }
    if {$ns >= 1e3} { return [format "%.3g us" [expr {$ns / 1e3}]] }
    return "[expr {round($ns)}] ns"
}

proc ::ips2::gui::latency::open {session path procedure {phase {}}} {
    variable Data
    set title "latency of $procedure under $path"
    if {[catch {$session latency $path {*}$phase -procedure $procedure} h]} {
        ::ips2::gui::status "$title: $h" error
        return ""
    }
    set f [::ips2::gui::table::newPane $title latency-histogram]
    ::ips2::gui::table::register $f [dict create title $title kind latency]
    set Data($f) $h
    ttk::label $f.title -font TkHeadingFont -anchor w -text $title
    if {![dict get $h available]} {
        ttk::label $f.summary -anchor w -wraplength 560 \
            -text "not available: the reductions (older than version 6) recorded no latency"
    } else {
        ttk::label $f.summary -anchor w -wraplength 560 -text [format "%d activations (outermost), mean %s,\
            p50 %s, p90 %s, p99 %s, max %s; bars: activations per bucket (log time axis)" \
            [dict get $h count] [Human [dict get $h mean]] [Human [dict get $h p50]] \
            [Human [dict get $h p90]] [Human [dict get $h p99]] [Human [dict get $h max]]]
    }
    canvas $f.c -background white -height 320 -highlightthickness 0
    pack $f.title $f.summary -side top -fill x -padx 4
    pack $f.c -side top -fill both -expand 1 -padx 4 -pady 4
    bind $f.c <Configure> [list ::ips2::gui::latency::Draw $f]
    ::ips2::gui::status "$title: [dict get $h count] activations"
    return $f
}

proc ::ips2::gui::latency::data {f} {
    variable Data
    return $Data($f)
}

# X LO HI X0 X1 NS: the x of a duration on the log axis from 10^LO at X0
# to 10^HI at X1.
proc ::ips2::gui::latency::X {lo hi x0 x1 ns} {
    set v [expr {log10(max($ns, 1))}]
    expr {$x0 + ($x1 - $x0) * ($v - $lo) / max($hi - $lo, 1e-9)}
}

proc ::ips2::gui::latency::Draw {f} {
    variable Data
    variable Marks
    if {![winfo exists $f.c] || ![info exists Data($f)]} return
    set c $f.c
    $c delete all
    set h $Data($f)
    set rows [dict get $h rows]
    set w [winfo width $c]
    set ht [winfo height $c]
    set x0 60
    set x1 [expr {$w - 20}]
    set y0 [expr {$ht - 40}]
    set y1 20
    $c create line $x0 $y0 $x1 $y0
    $c create line $x0 $y0 $x0 $y1
    if {![llength $rows]} {
        $c create text [expr {($x0 + $x1) / 2}] [expr {($y0 + $y1) / 2}] -text "no activations"
        return
    }
    set lo [expr {log10(max([lindex $rows 0 0], 1))}]
    set hi [expr {log10(max([lindex $rows end 1] + 1, 2))}]
    set most 1
    foreach r $rows { set most [expr {max($most, [lindex $r 2])}] }
    foreach r $rows {
        lassign $r low high count
        if {$count == 0} continue
        set xa [X $lo $hi $x0 $x1 $low]
        set xb [X $lo $hi $x0 $x1 [expr {$high + 1}]]
        set y [expr {$y0 - ($y0 - $y1) * double($count) / $most}]
        $c create rectangle $xa $y [expr {max($xb - 1, $xa + 1)}] $y0 -fill #4a78b5 -outline #2c4f80 \
            -tags [list bar bar$low]
    }
    # 1, 2 and 5 times the powers of ten on the time axis
    for {set d [expr {int(floor($lo))}]} {$d <= ceil($hi)} {incr d} {
        foreach m {1 2 5} {
            set v [expr {$m * 10.0 ** $d}]
            if {log10($v) < $lo || log10($v) > $hi} continue
            set x [X $lo $hi $x0 $x1 $v]
            $c create line $x $y0 $x [expr {$y0 + ($m == 1 ? 6 : 3)}]
            $c create text $x [expr {$y0 + 8}] -anchor n -text [Human $v] -tags axis
        }
    }
    $c create text [expr {$x0 - 6}] $y1 -anchor e -text $most -tags axis
    $c create text [expr {$x0 - 6}] $y0 -anchor e -text 0 -tags axis
    if {![dict get $h available]} return
    foreach {p colour} $Marks {
        set v [dict get $h $p]
        set x [X $lo $hi $x0 $x1 $v]
        $c create line $x $y0 $x $y1 -fill $colour -dash {4 2} -width 2 -tags [list mark $p]
        set right [expr {$x > $x1 - 90}]
        $c create text [expr {$right ? $x - 3 : $x + 3}] \
            [expr {$y1 + 4 + 14 * [lsearch {p50 p90 p99} $p]}] -anchor [expr {$right ? "ne" : "nw"}] \
            -fill $colour -text "$p [Human $v]" -tags [list mark $p]
    }
}

# gui_trace.tcl - the trace browser of the master analyst window (paper §3:
# "a very low level view of program events"): a time range of the session,
# one lane per thread (labelled with its application, machine, process and
# thread), events as ticks (kind and procedure in the pane's info line when
# the pointer is on one), messages and the other dependences as lines
# between lanes, and the critical path highlighted: thick red on the lanes
# where it runs and on the arcs it follows; the entry the browser was
# opened for (a critical-path table's row) in a yellow halo.  Its data are
# the master's `timeline` (bounded: at most -limit events and arcs, a
# "truncated" banner says when there were more) and `cp-path`
# (docs/ANALYSTS.md §6), both asked without blocking (gui_query.tcl).  Zoom and scroll
# change the view at once and ask the timeline of the new range shortly
# after (the path is asked once).
#
#   ips2::gui::trace::open SESSION NODE START END ?-cp {mode M app A}? ?-focus ENTRY?
#                          ?-limit N?           a browser pane (START/END ns; "" = the whole
#                                               run, or around the focus); NODE restricts the lanes
#   ips2::gui::trace::openFromRow PANE ROW      from a critical-path table's row (a dict)
#   ips2::gui::trace::zoom PANE FACTOR ?T?      FACTOR < 1 zooms in, around time T
#   ips2::gui::trace::moveto PANE FRACTION      scroll: the view's start at FRACTION of the run
#   ips2::gui::trace::view PANE                 what is shown (tests): dict from to lanes events
#                                               arcs truncated path focus state
#   ips2::gui::trace::busy PANE                 1 while its timeline is being asked
#   ips2::gui::trace::closeAll

package require Tcl 8.6
package require Tk 8.6
package provide ips2::gui::trace 1.0

namespace eval ::ips2::gui::trace {
    # View(PANE): dict session node cp limit run {R0 R1} from to (the view)
    # data (the timeline answer or {}) asked {FROM TO} path (cp-path rows or
    # {}) pathLength focus (ENTRY or {}) hits (indices of focused rows)
    # lanes (the lanes drawn) state loading|done|error pendingRequery
    variable View
    array set View {}
    variable Geometry {left 190 right 12 top 30 lane 24 bottom 8}
    variable Colours {
        message #1f5fbf sync #ff7f0e create #2ca02c exit #7f7f7f
        path #d62728 focus #ffd700 lane #f3f5f9 laneAlt #ffffff
    }
    # Event kinds and their tick colours (others grey).
    variable KindColours {
        send #1f5fbf recv #1f5fbf accept #1f5fbf connect #1f5fbf
        begin #2ca02c end #2ca02c thread-create #2ca02c join-end #2ca02c
        barrier-arrive #ff7f0e barrier-depart #ff7f0e
    }
    variable DefaultLimit 5000
}

proc ::ips2::gui::trace::closeAll {} {
    variable View
    array unset View
}

# open SESSION NODE START END ?options?: a browser pane.
proc ::ips2::gui::trace::open {session node start end args} {
    variable View
    variable DefaultLimit
    set o [dict merge [list -cp {mode global app ""} -focus {} -limit $DefaultLimit] $args]
    set run [RunRange $session]
    set f [::ips2::gui::table::newPane "trace browser"]
    ttk::frame $f.top
    ttk::label $f.top.title -text "Trace browser" -font TkHeadingFont
    foreach {name label command} {
        in "Zoom in" {zoom $f 0.5}  out "Zoom out" {zoom $f 2.0}  all "Whole run" {Whole $f}
        left "◀" {Step $f -0.5}  right "▶" {Step $f 0.5}  close Close {::ips2::gui::table::close $f}
    } {
        ttk::button $f.top.$name -text $label -style Toolbutton \
            -command [list namespace eval ::ips2::gui::trace [string map [list \$f $f] $command]]
    }
    # The buttons first: a long title is cut, not them.
    pack $f.top.close $f.top.right $f.top.left $f.top.all $f.top.out $f.top.in -side right -padx 1
    pack $f.top.title -side left -fill x -expand 1
    pack $f.top -fill x
    ttk::label $f.banner -foreground red3 -anchor w
    ttk::label $f.info -anchor w -foreground gray25 \
        -text "Lanes are threads; ticks are events, lines are messages and other dependences; the critical path is red. Wheel: scroll, Ctrl-wheel: zoom, drag: pan."
    pack $f.info -side bottom -fill x
    ttk::scrollbar $f.x -orient horizontal -command [list ::ips2::gui::trace::XView $f]
    pack $f.x -side bottom -fill x
    ttk::scrollbar $f.y -orient vertical -command [list $f.c yview]
    pack $f.y -side right -fill y
    canvas $f.c -background white -highlightthickness 0 -width 600 -height 320 \
        -yscrollcommand [list $f.y set]
    pack $f.c -fill both -expand 1
    if {$start eq "" || $end eq ""} {
        lassign $run start end
    }
    set View($f) [dict create session $session node $node cp [dict get $o -cp] limit [dict get $o -limit] \
        run $run from $start to $end data {} asked {} path {} pathLength "" focus [dict get $o -focus] \
        hits {} lanes {} state loading requery "" placed [expr {[llength [dict get $o -focus]] == 0
                                                                 || [dict exists $o -placed]}]]
    if {[dict exists $o -placed]} { dict set View($f) placed [dict get $o -placed] }
    ::ips2::gui::table::register $f [dict create title "trace browser" kind trace \
        remake [list ::ips2::gui::trace::Remake $f]]
    bind $f.c <Configure> [list ::ips2::gui::trace::Draw $f]
    bind $f.c <ButtonPress-1> [list ::ips2::gui::trace::Press $f %x]
    bind $f.c <B1-Motion> [list ::ips2::gui::trace::Pan $f %x]
    bind $f.c <ButtonRelease-1> [list ::ips2::gui::trace::Release $f %x]
    bind $f.c <Button-4> [list ::ips2::gui::trace::Wheel $f %x %s 1]
    bind $f.c <Button-5> [list ::ips2::gui::trace::Wheel $f %x %s -1]
    bind $f.c <MouseWheel> [list ::ips2::gui::trace::Wheel $f %x %s %D]
    $f.c bind event <Enter> [list ::ips2::gui::trace::Hover $f]
    $f.c bind arc <Enter> [list ::ips2::gui::trace::Hover $f]
    $f.c bind path <Enter> [list ::ips2::gui::trace::Hover $f]
    $f.c bind lanelabel <Enter> [list ::ips2::gui::trace::Hover $f]
    set cp [dict get $o -cp]
    set words [list cp-path -mode [dict get $cp mode]]
    if {[dict get $cp mode] ne "global" && [dict get $cp app] ne ""} { lappend words -app [dict get $cp app] }
    lappend words {*}[::ips2::gui::CpPvm]
    ::ips2::gui::query::ask $words [list ::ips2::gui::trace::PathAnswer $f] "critical path"
    Set $f $start $end
    if {[dict get $View($f) placed]} { Ask $f }
    return $f
}

proc ::ips2::gui::trace::Remake {f} {
    variable View
    set v $View($f)
    open [dict get $v session] [dict get $v node] [dict get $v from] [dict get $v to] \
        -cp [dict get $v cp] -focus [dict get $v focus] -limit [dict get $v limit] -placed 1
}

# RunRange SESSION: {FIRST LAST} wall ns of the session's processes.
proc ::ips2::gui::trace::RunRange {session} {
    set r0 ""
    set r1 ""
    if {![catch {$session processes} ps]} {
        foreach p $ps {
            if {[dict exists $p start] && [string is wideinteger -strict [dict get $p start]]} {
                set s [dict get $p start]
                if {$r0 eq "" || $s < $r0} { set r0 $s }
            }
            if {[dict exists $p end] && [string is wideinteger -strict [dict get $p end]]} {
                set e [dict get $p end]
                if {$r1 eq "" || $e > $r1} { set r1 $e }
            }
        }
    }
    if {$r0 eq "" || $r1 eq "" || $r1 <= $r0} { return {0 1000000000} }
    return [list $r0 $r1]
}

proc ::ips2::gui::trace::Title {f} {
    variable View
    set v $View($f)
    set cp [dict get $v cp]
    set what [dict get $cp mode][expr {[dict get $cp app] ne "" && [dict get $cp mode] ne "global" ? " [dict get $cp app]" : ""}]
    set text [::format "Trace: %s, %.3f - %.3f ms; path %s" \
                  [expr {[dict get $v node] in {"" physical} ? "all threads" : [dict get $v node]}] \
                  [expr {[dict get $v from] / 1e6}] [expr {[dict get $v to] / 1e6}] $what]
    if {[dict get $v pathLength] ne ""} {
        append text [::format " (%.3f ms)" [expr {[dict get $v pathLength] / 1e6}]]
    }
    $f.top.title configure -text $text
}

# --- the queries --------------------------------------------------------------------

# Ask PANE: the timeline of the view's range (a bit wider, so that a small
# scroll needs no new question).
proc ::ips2::gui::trace::Ask {f} {
    variable View
    set v $View($f)
    set from [dict get $v from]
    set to [dict get $v to]
    set words [list timeline]
    if {[dict get $v node] ni {"" physical}} { lappend words [dict get $v node] }
    lappend words -from $from -to $to -limit [dict get $v limit]
    dict set View($f) asked [list $from $to]
    dict set View($f) state loading
    dict incr View($f) serial
    ::ips2::gui::query::ask $words [list ::ips2::gui::trace::TimelineAnswer $f [dict get $View($f) serial]] \
        "timeline"
}

proc ::ips2::gui::trace::TimelineAnswer {f serial code answer ms} {
    variable View
    if {![info exists View($f)] || ![winfo exists $f] || [dict get $View($f) serial] != $serial} return
    if {$code} {
        dict set View($f) state error
        $f.banner configure -text "timeline: $answer"
        pack $f.banner -before $f.info -side top -fill x
        ::ips2::gui::status "trace browser: $answer" error
        return
    }
    dict set View($f) data $answer
    dict set View($f) state done
    dict set View($f) ms $ms
    if {[dict get $answer truncated]} {
        $f.banner configure -text [::format "truncated: only the first %d events and arcs of %.3f - %.3f ms are shown; zoom in to see the rest" \
            [dict get $View($f) limit] [expr {[dict get $answer from] / 1e6}] [expr {[dict get $answer to] / 1e6}]]
        pack $f.banner -after $f.top -side top -fill x
    } else {
        pack forget $f.banner
    }
    ::ips2::gui::status [::format "trace browser: %d lanes, %d events, %d arcs%s in %d ms" \
        [llength [dict get $answer lanes]] [llength [dict get $answer events]] [llength [dict get $answer arcs]] \
        [expr {[dict get $answer truncated] ? " (truncated)" : ""}] $ms]
    Draw $f
}

proc ::ips2::gui::trace::PathAnswer {f code answer ms} {
    variable View
    if {![info exists View($f)] || ![winfo exists $f]} return
    if {$code} {
        ::ips2::gui::status "trace browser: the critical path: $answer" error
        dict set View($f) path {}
    } else {
        dict set View($f) path [dict get $answer rows]
        dict set View($f) pathLength [dict get $answer length]
    }
    dict set View($f) hits [Hits [dict get $View($f) path] [dict get $View($f) focus]]
    if {![dict get $View($f) placed]} {
        # Opened for an entry: the view goes around its first segment.
        dict set View($f) placed 1
        set hits [dict get $View($f) hits]
        if {[llength $hits]} {
            set row [lindex [dict get $View($f) path] [lindex $hits 0]]
            lassign [lrange $row 2 3] a b
            Around $f [expr {min($a, $b)}] [expr {max($a, $b)}]
        } else {
            ::ips2::gui::status "trace browser: the entry is not on the critical path's segments" error
        }
        Ask $f
    }
    Title $f
    Draw $f
}

# Around PANE A B: the view centred on A..B, five times as wide (at least 2 ms).
proc ::ips2::gui::trace::Around {f a b} {
    Set $f {*}[AroundRange $a $b]
}

proc ::ips2::gui::trace::AroundRange {a b} {
    set span [expr {max(($b - $a) * 5, 2000000)}]
    set mid [expr {($a + $b) / 2}]
    list [expr {$mid - $span / 2}] [expr {$mid + $span / 2}]
}

# --- focus: the critical-path entry the browser was opened for ----------------------

# Hits ROWS ENTRY: the indices of the cp-path rows an entry stands for.
# ENTRY is a row dict of a critical-path table: a cp-path row (kind thread
# from to), a cp profile row (name path) or a cp-imbalance row (name).
proc ::ips2::gui::trace::Hits {rows entry} {
    if {![llength $entry]} { return {} }
    set hits {}
    set i 0
    foreach r $rows {
        lassign $r kind thread from to length what
        if {[Matches $entry $kind $thread $from $to $what]} { lappend hits $i }
        incr i
    }
    return $hits
}

proc ::ips2::gui::trace::Matches {entry kind thread from to what} {
    set get [list apply {{d k} { expr {[dict exists $d $k] ? [dict get $d $k] : ""} }} $entry]
    if {[{*}$get kind] ne "" && [{*}$get from] ne ""} {
        return [expr {$kind eq [{*}$get kind] && $thread eq [{*}$get thread] && $from == [{*}$get from]
                      && $to == [{*}$get to]}]
    }
    set name [{*}$get name]
    set path [{*}$get path]
    if {$path eq ""} {
        if {[regexp {^messages (.+)->(.+)$} $name -> a b]} {
            return [expr {$kind eq "message" && [EndIs $a $what] && [EndIs $b $thread]}]
        }
        if {[string match "sync*" $name]} { return [expr {$kind eq "sync"}] }
        return [expr {$kind eq "cpu" && $name in $what}]
    }
    if {$kind ne "cpu"} { return 0 }
    set last [lindex [split $path /] end]
    if {[string match procedure:* $last]} {
        return [expr {[string range $last 10 end] in $what}]
    }
    if {[string match machine:* $path]} {
        return [expr {$last in [lrange [split $thread /] 1 end]}]
    }
    return [Under $path $thread]
}

# Names are compared as they are, never as patterns: an application,
# machine or procedure name may hold glob characters or backslashes.

# Under PATH THREAD: THREAD's path is PATH or below it.
proc ::ips2::gui::trace::Under {path thread} {
    string equal -length [string length $path/] $path/ $thread/
}

# EndIs E THREAD: THREAD's path is at a message entry's end E: "A:PID"
# (process level: app:A/.../process:PID/...) or a machine's name (machine
# level: .../machine:E/...).
proc ::ips2::gui::trace::EndIs {e thread} {
    set parts [split $thread /]
    if {[regexp {^(.+):([0-9]+)$} $e -> app pid]} {
        return [expr {[lindex $parts 0] eq "app:$app" && "process:$pid" in [lrange $parts 1 end]}]
    }
    return [expr {"machine:$e" in [lrange $parts 1 end]}]
}

# openFromRow PANE ROW: the browser for a row of a critical-path table,
# around the part of the path the row stands for.
proc ::ips2::gui::trace::openFromRow {pane row} {
    set info [::ips2::gui::table::pane $pane]
    set cp [expr {[dict exists $info cp] ? [dict get $info cp] : [list mode $::ips2::gui::State(cpmode) app ""]}]
    set session [::ips2::gui::session]
    if {$session eq ""} return
    if {[dict exists $row from] && [dict exists $row to] && [string is wideinteger -strict [dict get $row from]]} {
        set a [expr {min([dict get $row from], [dict get $row to])}]
        set b [expr {max([dict get $row from], [dict get $row to])}]
        return [open $session "" {*}[AroundRange $a $b] -cp $cp -focus $row -placed 1]
    }
    return [open $session "" "" "" -cp $cp -focus $row]
}

# --- view: zoom, scroll, pan ------------------------------------------------------

# Set PANE FROM TO: the view (kept inside the run, at least 10 us wide);
# the timeline is asked again after a pause when the data do not cover it.
proc ::ips2::gui::trace::Set {f from to} {
    variable View
    lassign [dict get $View($f) run] r0 r1
    set span [expr {max(10000, $to - $from)}]
    set span [expr {min($span, $r1 - $r0)}]
    set from [expr {max($r0, min($from, $r1 - $span))}]
    dict set View($f) from [expr {entier($from)}]
    dict set View($f) to [expr {entier($from + $span)}]
    Title $f
    Draw $f
}

proc ::ips2::gui::trace::Requery {f} {
    variable View
    if {![info exists View($f)]} return
    after cancel [dict get $View($f) requery]
    set v $View($f)
    lassign [dict get $v asked] a b
    set data [dict get $v data]
    set covered [expr {$a ne "" && [dict get $v from] >= $a && [dict get $v to] <= $b}]
    if {$covered && [llength $data] && ![dict get $data truncated]} return
    if {$covered && [dict get $v state] eq "loading"} return
    dict set View($f) requery [after 150 [list ::ips2::gui::trace::Ask $f]]
}

proc ::ips2::gui::trace::zoom {f factor {t ""}} {
    variable View
    set from [dict get $View($f) from]
    set to [dict get $View($f) to]
    if {$t eq ""} { set t [expr {($from + $to) / 2}] }
    Set $f [expr {$t - ($t - $from) * $factor}] [expr {$t + ($to - $t) * $factor}]
    Requery $f
}

proc ::ips2::gui::trace::moveto {f fraction} {
    variable View
    lassign [dict get $View($f) run] r0 r1
    set span [expr {[dict get $View($f) to] - [dict get $View($f) from]}]
    set from [expr {$r0 + $fraction * ($r1 - $r0)}]
    Set $f $from [expr {$from + $span}]
    Requery $f
}

proc ::ips2::gui::trace::Step {f fraction} {
    variable View
    set from [dict get $View($f) from]
    set span [expr {[dict get $View($f) to] - $from}]
    Set $f [expr {$from + $fraction * $span}] [expr {$from + $fraction * $span + $span}]
    Requery $f
}

proc ::ips2::gui::trace::Whole {f} {
    variable View
    Set $f {*}[dict get $View($f) run]
    Requery $f
}

proc ::ips2::gui::trace::XView {f args} {
    variable View
    lassign [dict get $View($f) run] r0 r1
    set span [expr {[dict get $View($f) to] - [dict get $View($f) from]}]
    switch -- [lindex $args 0] {
        moveto { moveto $f [lindex $args 1] }
        scroll {
            lassign $args - n what
            Step $f [expr {$n * ($what eq "pages" ? 0.9 : 0.1)}]
        }
    }
}

proc ::ips2::gui::trace::Wheel {f x state delta} {
    set ctrl [expr {$state & 4}]
    set up [expr {$delta > 0}]
    if {$ctrl} {
        zoom $f [expr {$up ? 0.8 : 1.25}] [XToTime $f $x]
    } else {
        Step $f [expr {$up ? -0.1 : 0.1}]
    }
}

proc ::ips2::gui::trace::Press {f x} {
    variable View
    dict set View($f) drag [list $x [dict get $View($f) from] [dict get $View($f) to]]
}

proc ::ips2::gui::trace::Pan {f x} {
    variable View
    if {![dict exists $View($f) drag] || ![llength [dict get $View($f) drag]]} return
    lassign [dict get $View($f) drag] x0 from to
    lassign [Plot $f] left pw
    set dt [expr {($x - $x0) * double($to - $from) / $pw}]
    Set $f [expr {$from - $dt}] [expr {$to - $dt}]
}

proc ::ips2::gui::trace::Release {f x} {
    variable View
    dict set View($f) drag {}
    Requery $f
}

# --- drawing ---------------------------------------------------------------------------

# Plot PANE: {LEFT WIDTH} of the time area in canvas pixels.
proc ::ips2::gui::trace::Plot {f} {
    variable Geometry
    set W [winfo width $f.c]
    if {$W < 100} { set W [$f.c cget -width] }
    set left [dict get $Geometry left]
    list $left [expr {max(50, $W - $left - [dict get $Geometry right])}]
}

proc ::ips2::gui::trace::timeToX {f t} {
    variable View
    lassign [Plot $f] left pw
    set from [dict get $View($f) from]
    set to [dict get $View($f) to]
    expr {$left + $pw * double($t - $from) / max(1, $to - $from)}
}

proc ::ips2::gui::trace::XToTime {f x} {
    variable View
    lassign [Plot $f] left pw
    set from [dict get $View($f) from]
    set to [dict get $View($f) to]
    expr {entier($from + ($to - $from) * double($x - $left) / $pw)}
}

# Lanes PANE: the timeline's lanes, then the threads of the path not among them.
proc ::ips2::gui::trace::Lanes {f} {
    variable View
    set data [dict get $View($f) data]
    set lanes [expr {[llength $data] ? [dict get $data lanes] : {}}]
    foreach r [dict get $View($f) path] {
        set thread [lindex $r 1]
        if {$thread ni $lanes} { lappend lanes $thread }
    }
    return $lanes
}

# LaneLabel PATH: "APP  MACHINE  PID/TID" of a thread's path.
proc ::ips2::gui::trace::LaneLabel {path} {
    set parts {}
    foreach p [split $path /] {
        set i [string first : $p]
        dict set parts [string range $p 0 [expr {$i - 1}]] [string range $p [expr {$i + 1}] end]
    }
    set get [list apply {{d k} { expr {[dict exists $d $k] ? [dict get $d $k] : "?"} }} $parts]
    set app [expr {[dict exists $parts app] ? "[dict get $parts app]  " : ""}]
    return "$app[{*}$get machine]  [{*}$get process]/[{*}$get thread]"
}

proc ::ips2::gui::trace::Draw {f} {
    variable View
    variable Geometry
    variable Colours
    variable KindColours
    if {![info exists View($f)] || ![winfo exists $f.c]} return
    set c $f.c
    $c delete all
    set v $View($f)
    lassign [Plot $f] left pw
    set top [dict get $Geometry top]
    set lh [dict get $Geometry lane]
    set from [dict get $v from]
    set to [dict get $v to]
    set lanes [Lanes $f]
    dict set View($f) lanes $lanes
    set index [dict create]
    set i 0
    foreach lane $lanes { dict set index $lane $i; incr i }
    set data [dict get $v data]
    set n [llength $lanes]
    set bottom [expr {$top + max(1, $n) * $lh}]
    # Lanes and their labels.
    set i 0
    foreach lane $lanes {
        set y0 [expr {$top + $i * $lh}]
        $c create rectangle 0 $y0 [expr {$left + $pw}] [expr {$y0 + $lh}] -outline "" \
            -fill [dict get $Colours [expr {$i % 2 ? "laneAlt" : "lane"}]] -tags lanebg
        $c create text 4 [expr {$y0 + $lh / 2}] -anchor w -text [LaneLabel $lane] -font TkSmallCaptionFont \
            -tags [list lanelabel l$i]
        incr i
    }
    $c create line $left $top $left $bottom -fill gray60
    # The time axis (ms from the session's start).
    set spanMs [expr {($to - $from) / 1e6}]
    set step [::ips2::gui::histogram::Nice [expr {$spanMs / 6.0}]]
    set first [expr {ceil($from / 1e6 / $step) * $step}]
    for {set t $first} {$t <= $to / 1e6 + 1e-9} {set t [expr {$t + $step}]} {
        set x [timeToX $f [expr {$t * 1e6}]]
        $c create line $x [expr {$top - 4}] $x $bottom -fill gray88 -tags grid
        $c create text $x [expr {$top - 6}] -anchor s -text [::format %g [expr {round($t * 1e6) / 1e6}]] \
            -font TkSmallCaptionFont
    }
    $c create text 4 [expr {$top - 6}] -anchor sw -text "time (ms)" -font TkSmallCaptionFont
    if {![llength $data]} {
        $c create text [expr {$left + $pw / 2}] [expr {$top + 20}] -text "loading the timeline ..." -fill gray40 \
            -tags loading
    }
    set laneY [list apply {{top lh i} { expr {$top + $i * $lh + $lh / 2} }} $top $lh]
    # The critical path under the rest: CPU segments on their lanes, the
    # dependences it follows as thick lines; the focused entry in a halo.
    set hits [dict get $v hits]
    set k 0
    foreach r [dict get $v path] {
        lassign $r kind thread a b length what
        if {max($a, $b) < $from || min($a, $b) > $to || ![dict exists $index $thread]} { incr k; continue }
        set yb [{*}$laneY [dict get $index $thread]]
        set xa [timeToX $f [expr {max($a, $from - 1)}]]
        set xb [timeToX $f [expr {min($b, $to + 1)}]]
        set focus [expr {$k in $hits}]
        if {$kind eq "cpu"} {
            if {$focus} {
                $c create line $xa $yb [expr {max($xb, $xa + 1)}] $yb -width 14 -fill [dict get $Colours focus] \
                    -tags [list focus p$k]
            }
            $c create line $xa $yb [expr {max($xb, $xa + 1)}] $yb -width 7 -fill [dict get $Colours path] \
                -capstyle butt -tags [list path p$k]
        } elseif {[dict exists $index $what]} {
            set ya [{*}$laneY [dict get $index $what]]
            if {$focus} {
                $c create line $xa $ya $xb $yb -width 9 -fill [dict get $Colours focus] -tags [list focus p$k]
            }
            $c create line $xa $ya $xb $yb -width 3 -fill [dict get $Colours path] -arrow last \
                -tags [list path p$k]
        } else {
            $c create line $xb [expr {$yb - $lh / 2 + 2}] $xb [expr {$yb + $lh / 2 - 2}] -width 3 \
                -fill [dict get $Colours path] -tags [list path p$k]
        }
        incr k
    }
    if {[llength $data]} {
        # Dependences between lanes.
        set k 0
        foreach arc [dict get $data arcs] {
            lassign $arc la ta lb tb type
            set ya [{*}$laneY $la]
            set yb [{*}$laneY $lb]
            set colour [expr {[dict exists $Colours $type] ? [dict get $Colours $type] : "gray50"}]
            $c create line [timeToX $f $ta] $ya [timeToX $f $tb] $yb -fill $colour -arrow last \
                -arrowshape {6 7 3} -tags [list arc a$k]
            incr k
        }
        # Events as ticks.
        set k 0
        foreach e [dict get $data events] {
            lassign $e lane t kind label
            set x [timeToX $f $t]
            set y [{*}$laneY $lane]
            set colour [expr {[dict exists $KindColours $kind] ? [dict get $KindColours $kind] : "gray40"}]
            $c create line $x [expr {$y - 7}] $x [expr {$y + 7}] -fill $colour -width 2 -tags [list event e$k]
            incr k
        }
    }
    $c configure -scrollregion [list 0 0 [expr {$left + $pw}] [expr {$bottom + [dict get $Geometry bottom]}]]
    # The horizontal scrollbar shows the view within the run.
    lassign [dict get $v run] r0 r1
    set span [expr {max(1, $r1 - $r0)}]
    $f.x set [expr {max(0.0, double($from - $r0) / $span)}] [expr {min(1.0, double($to - $r0) / $span)}]
}

# Hover PANE: what is under the pointer, in the info line.
proc ::ips2::gui::trace::Hover {f} {
    variable View
    set c $f.c
    set tags [$c gettags current]
    set v $View($f)
    set data [dict get $v data]
    set lanes [dict get $v lanes]
    set text ""
    foreach tag $tags {
        if {[regexp {^e([0-9]+)$} $tag -> k]} {
            lassign [lindex [dict get $data events] $k] lane t kind label
            set text [::format "event %s at %.6f ms on %s%s" $kind [expr {$t / 1e6}] [lindex $lanes $lane] \
                          [expr {$label ne "" ? " in $label" : ""}]]
        } elseif {[regexp {^a([0-9]+)$} $tag -> k]} {
            lassign [lindex [dict get $data arcs] $k] la ta lb tb type
            set text [::format "%s from %s at %.6f ms to %s at %.6f ms" $type [lindex $lanes $la] \
                          [expr {$ta / 1e6}] [lindex $lanes $lb] [expr {$tb / 1e6}]]
        } elseif {[regexp {^p([0-9]+)$} $tag -> k]} {
            lassign [lindex [dict get $v path] $k] kind thread a b length what
            set text [::format "critical path: %s on %s, %.6f - %.6f ms (%.3f ms)%s" $kind $thread \
                          [expr {$a / 1e6}] [expr {$b / 1e6}] [expr {$length / 1e6}] \
                          [expr {$what ne "" ? ", $what" : ""}]]
        } elseif {[regexp {^l([0-9]+)$} $tag -> k]} {
            set text "lane: [lindex $lanes $k]"
        }
    }
    if {$text ne ""} { $f.info configure -text $text }
}

# busy PANE: 1 while a timeline is asked or about to be (after a zoom or scroll).
proc ::ips2::gui::trace::busy {f} {
    variable View
    set id [dict get $View($f) requery]
    expr {[dict get $View($f) state] eq "loading" || ($id ne "" && $id in [after info])}
}

# view PANE: what the browser shows (tests).
proc ::ips2::gui::trace::view {f} {
    variable View
    set v $View($f)
    set data [dict get $v data]
    set drawn [lmap i [$f.c find withtag path] {
        if {[regexp {p([0-9]+)} [$f.c gettags $i] -> k]} { set k } else continue
    }]
    dict create from [dict get $v from] to [dict get $v to] lanes [dict get $v lanes] \
        events [expr {[llength $data] ? [llength [dict get $data events]] : 0}] \
        arcs [expr {[llength $data] ? [llength [dict get $data arcs]] : 0}] \
        truncated [expr {[llength $data] ? [dict get $data truncated] : 0}] \
        path [dict get $v path] drawnPath [lsort -integer -unique $drawn] hits [dict get $v hits] \
        state [dict get $v state] banner [expr {[winfo manager $f.banner] ne "" ? [$f.banner cget -text] : ""}] \
        info [$f.info cget -text]
}

proc ::ips2::gui::trace::panes {} {
    variable View
    lmap f [lsort -dictionary [array names View]] { if {[winfo exists $f]} { set f } else continue }
}

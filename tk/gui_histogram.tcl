# gui_histogram.tcl - time histograms in the master analyst window (paper
# §3, §4.2, Figs. 5 and 9): any metric of any node over the run, several
# curves in one plot (nodes and metrics added to it), comparison-mode
# applications on the active session's time base (the master shifts them)
# each in its own colour, with a legend.  Drag across the plot to define a
# phase (it becomes the selected one, and the tables that follow the phase
# show it); the session's phases are drawn as bands, a click on a band
# selects it; right-click for the trace browser of the dragged range.
# Curves are the master's histogram tables drawn as steps; times in ns show
# as ms per bucket.
#
#   ips2::gui::histogram::open SESSION {{PATH METRIC} ...}   a new plot pane
#   ips2::gui::histogram::add SESSION PATH METRIC             a curve on the current plot
#   ips2::gui::histogram::timeToX PANE NS / xToTime PANE X     plot coordinates (tests)
#   ips2::gui::histogram::series PANE                         the curves shown
#   ips2::gui::histogram::phaseChanged                        redraw the bands

package require Tcl 8.6
package require Tk 8.6
package provide ips2::gui::histogram 1.0

namespace eval ::ips2::gui::histogram {
    # Plot(PANE): dict session series {{path metric label colour table} ...}
    # geometry {left top width height tmin tmax vmax} drag {x0 x1} sel {start end}
    variable Plot
    array set Plot {}
    variable Palette {#1f5fbf #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #7f7f7f #bcbd22}
    variable Current ""
    variable Margin {left 78 right 16 top 16 bottom 42}
}

proc ::ips2::gui::histogram::open {session specs} {
    variable Plot
    variable Current
    set f [::ips2::gui::table::newPane "histogram"]
    ttk::frame $f.top
    ttk::label $f.top.title -text "Time histogram" -font TkHeadingFont
    ttk::button $f.top.add -text "Add selected node" -style Toolbutton \
        -command [list ::ips2::gui::histogram::add $session "" "" $f]
    ttk::button $f.top.trace -text "Trace browser of selection" -style Toolbutton \
        -command [list ::ips2::gui::histogram::TraceOfSelection $f]
    ttk::button $f.top.remove -text "Remove last curve" -style Toolbutton \
        -command [list ::ips2::gui::histogram::RemoveLast $f]
    ttk::button $f.top.close -text Close -style Toolbutton \
        -command [list ::ips2::gui::table::close $f]
    pack $f.top.title -side left
    pack $f.top.close $f.top.remove $f.top.trace $f.top.add -side right -padx 2
    pack $f.top -fill x
    ttk::label $f.hint -foreground gray35 -anchor w \
        -text "Drag across the plot to define a phase; click a phase band to select it; right-click for the trace browser."
    pack $f.hint -side bottom -fill x
    canvas $f.c -background white -highlightthickness 0 -width 600 -height 320
    pack $f.c -fill both -expand 1
    set Plot($f) [dict create session $session series {} geometry {} drag {} sel {} waiting 0]
    ::ips2::gui::table::register $f [dict create title histogram kind histogram \
        remake [list ::ips2::gui::histogram::Remake $f]]
    bind $f.c <Configure> [list ::ips2::gui::histogram::Draw $f]
    bind $f.c <ButtonPress-1> [list ::ips2::gui::histogram::Press $f %x]
    bind $f.c <B1-Motion> [list ::ips2::gui::histogram::Motion $f %x]
    bind $f.c <ButtonRelease-1> [list ::ips2::gui::histogram::Release $f %x]
    bind $f.c <Button-3> [list ::ips2::gui::histogram::Context $f %X %Y]
    menu $f.c.menu
    set Current $f
    foreach spec $specs {
        lassign $spec path metric
        AddSeries $f $path $metric
    }
    Draw $f
    return $f
}

proc ::ips2::gui::histogram::Remake {f} {
    variable Plot
    set specs [lmap s [dict get $Plot($f) series] { lrange $s 0 1 }]
    open [dict get $Plot($f) session] $specs
}

# add SESSION PATH METRIC ?PANE?: one more curve (the selected node and
# metric by default) on the current plot, or a new plot.
proc ::ips2::gui::histogram::add {session path metric {f ""}} {
    variable Current
    if {$path eq ""} { set path [::ips2::gui::node] }
    if {$metric eq ""} { set metric $::ips2::gui::State(metric) }
    if {$f eq ""} { set f $Current }
    if {$f eq "" || ![winfo exists $f]} {
        return [open $session [list [list $path $metric]]]
    }
    AddSeries $f $path $metric
    return $f
}

# AddSeries PANE PATH METRIC: the master's histogram of a node, as a curve
# (asked without blocking, gui_query.tcl; drawn when it comes).
proc ::ips2::gui::histogram::AddSeries {f path metric} {
    variable Plot
    dict incr Plot($f) waiting
    ::ips2::gui::query::ask [list histogram $path -metric $metric] \
        [list ::ips2::gui::histogram::Answer $f $path $metric] "histogram of $metric of $path"
}

proc ::ips2::gui::histogram::Answer {f path metric code table ms} {
    variable Plot
    variable Palette
    if {![info exists Plot($f)] || ![winfo exists $f]} return
    dict incr Plot($f) waiting -1
    if {$code} {
        ::ips2::gui::status "histogram of $metric of $path: $table" error
        Draw $f
        return
    }
    set session [dict get $Plot($f) session]
    set label "$metric of $path"
    set app [::ips2::gui::appOf $path]
    if {$app ne "" && ![catch {$session application $app} a] && [dict get $a mode] ne "active"} {
        append label " ([dict get $a mode])"
    }
    set n [llength [dict get $Plot($f) series]]
    set colour [lindex $Palette [expr {$n % [llength $Palette]}]]
    dict lappend Plot($f) series [list $path $metric $label $colour $table]
    $f.top.title configure -text "Time histogram: [join [lmap s [dict get $Plot($f) series] { lindex $s 2 }] {; }]"
    ::ips2::gui::status "histogram: $label, [llength [dict get $table rows]] buckets in $ms ms"
    Draw $f
}

proc ::ips2::gui::histogram::RemoveLast {f} {
    variable Plot
    set s [dict get $Plot($f) series]
    if {![llength $s]} return
    dict set Plot($f) series [lrange $s 0 end-1]
    Draw $f
}

proc ::ips2::gui::histogram::series {f} {
    variable Plot
    lmap s [dict get $Plot($f) series] { lrange $s 0 3 }
}

proc ::ips2::gui::histogram::phaseChanged {} {
    variable Plot
    foreach f [array names Plot] {
        if {[winfo exists $f]} { Draw $f } else { unset Plot($f) }
    }
}

# --- drawing ------------------------------------------------------------------------

proc ::ips2::gui::histogram::Unit {table} {
    lindex [lindex [dict get $table columns] 2] 1
}

proc ::ips2::gui::histogram::Scale {unit} {
    expr {$unit eq "ns" ? 1e6 : 1.0}
}

proc ::ips2::gui::histogram::Draw {f} {
    variable Plot
    variable Margin
    if {![winfo exists $f.c]} return
    set c $f.c
    $c delete all
    set W [winfo width $c]
    set H [winfo height $c]
    if {$W < 50} { set W [$c cget -width] }
    if {$H < 50} { set H [$c cget -height] }
    set series [dict get $Plot($f) series]
    set tmin ""
    set tmax ""
    set vmax 0
    set units {}
    foreach s $series {
        set t [lindex $s 4]
        set scale [Scale [Unit $t]]
        lappend units [Unit $t]
        foreach r [dict get $t rows] {
            lassign $r start end v
            if {$tmin eq "" || $start < $tmin} { set tmin $start }
            if {$tmax eq "" || $end > $tmax} { set tmax $end }
            set v [expr {$v / $scale}]
            if {$v > $vmax} { set vmax $v }
        }
    }
    if {$tmin eq ""} {
        set text [expr {[dict get $Plot($f) waiting] > 0 ? "computing ..." : "no data: add a node (Add selected node)"}]
        $c create text [expr {$W / 2}] [expr {$H / 2}] -text $text -fill gray40
        dict set Plot($f) geometry {}
        return
    }
    if {$tmax <= $tmin} { set tmax [expr {$tmin + 1}] }
    if {$vmax <= 0} { set vmax 1 }
    set vmax [Nice $vmax]
    set left [dict get $Margin left]
    set top [dict get $Margin top]
    set pw [expr {$W - $left - [dict get $Margin right]}]
    set ph [expr {$H - $top - [dict get $Margin bottom]}]
    dict set Plot($f) geometry [list $left $top $pw $ph $tmin $tmax $vmax]
    # Phase bands under the curves.
    foreach p [::ips2::gui::phases] {
        lassign $p name start end
        if {$end < $tmin || $start > $tmax} continue
        set x0 [timeToX $f [expr {max($start, $tmin)}]]
        set x1 [timeToX $f [expr {min($end, $tmax)}]]
        set on [expr {$name eq $::ips2::gui::State(phase)}]
        $c create rectangle $x0 $top $x1 [expr {$top + $ph}] -fill [expr {$on ? "#ffe08a" : "#eef2f7"}] \
            -outline [expr {$on ? "#c89b00" : "#c8d0dc"}] -tags [list band phase:$name]
        $c create text [expr {($x0 + $x1) / 2}] [expr {$top + 8}] -text $name -fill gray25 \
            -tags [list band phase:$name]
    }
    # Axes and grid.
    $c create rectangle $left $top [expr {$left + $pw}] [expr {$top + $ph}] -outline gray50
    for {set i 0} {$i <= 4} {incr i} {
        set v [expr {$vmax * $i / 4.0}]
        set y [expr {$top + $ph - $ph * $i / 4.0}]
        $c create line $left $y [expr {$left + $pw}] $y -fill gray88
        $c create text [expr {$left - 6}] $y -anchor e -text [::format %g $v] -font TkSmallCaptionFont
    }
    set span [expr {($tmax - $tmin) / 1e9}]
    set step [Nice [expr {$span / 6.0}]]
    set first [expr {ceil($tmin / 1e9 / $step) * $step}]
    for {set t $first} {$t <= $tmax / 1e9 + 1e-12} {set t [expr {$t + $step}]} {
        set x [timeToX $f [expr {$t * 1e9}]]
        $c create line $x [expr {$top + $ph}] $x [expr {$top + $ph + 4}] -fill gray40
        $c create text $x [expr {$top + $ph + 6}] -anchor n -text [::format %g [expr {round($t * 1e6) / 1e6}]] \
            -font TkSmallCaptionFont
    }
    $c create text [expr {$left + $pw / 2}] [expr {$H - 4}] -anchor s -text "time (s)"
    set yl [expr {[lsort -unique $units] eq "ns" ? "ms per bucket" : "per bucket"}]
    $c create text 12 [expr {$top + $ph / 2}] -text $yl -angle 90
    # Curves as steps.
    foreach s $series {
        lassign $s path metric label colour t
        set scale [Scale [Unit $t]]
        set pts {}
        foreach r [dict get $t rows] {
            lassign $r start end v
            set y [expr {$top + $ph - $ph * ($v / $scale) / $vmax}]
            lappend pts [timeToX $f $start] $y [timeToX $f $end] $y
        }
        if {[llength $pts] >= 4} {
            $c create line {*}$pts -fill $colour -width 2 -tags [list curve]
        }
    }
    # Legend, top right.
    set ly [expr {$top + 6}]
    set lx [expr {$left + $pw - 8}]
    set items {}
    foreach s $series {
        lassign $s path metric label colour
        set id [$c create text [expr {$lx - 26}] $ly -anchor ne -text $label -font TkSmallCaptionFont \
                    -tags legend]
        $c create line [expr {$lx - 22}] [expr {$ly + 7}] $lx [expr {$ly + 7}] -fill $colour -width 3 \
            -tags legend
        set ly [expr {$ly + 16}]
    }
    lassign [$c bbox legend] bx0 by0 bx1 by1
    if {$bx0 ne ""} {
        $c lower [$c create rectangle [expr {$bx0 - 4}] [expr {$by0 - 3}] [expr {$bx1 + 4}] [expr {$by1 + 3}] \
                      -fill white -outline gray70 -tags legendbox] legend
    }
    set sel [dict get $Plot($f) sel]
    if {[llength $sel] == 2} {
        lassign $sel s0 s1
        $c create rectangle [timeToX $f $s0] $top [timeToX $f $s1] [expr {$top + $ph}] -outline blue \
            -dash {4 2} -tags selection
    }
}

# Nice V: V rounded up to 1, 2 or 5 times a power of ten.
proc ::ips2::gui::histogram::Nice {v} {
    if {$v <= 0} { return 1 }
    set e [expr {pow(10, floor(log10($v)))}]
    foreach m {1 2 5 10} {
        if {$m * $e >= $v * 0.9999} { return [expr {$m * $e}] }
    }
    return [expr {10 * $e}]
}

proc ::ips2::gui::histogram::timeToX {f t} {
    variable Plot
    lassign [dict get $Plot($f) geometry] left top pw ph tmin tmax
    expr {$left + $pw * double($t - $tmin) / ($tmax - $tmin)}
}

proc ::ips2::gui::histogram::xToTime {f x} {
    variable Plot
    lassign [dict get $Plot($f) geometry] left top pw ph tmin tmax
    set x [expr {max($left, min($left + $pw, $x))}]
    expr {entier($tmin + ($tmax - $tmin) * double($x - $left) / $pw)}
}

# --- phases by drag ----------------------------------------------------------------

proc ::ips2::gui::histogram::Press {f x} {
    variable Plot
    variable Current
    set Current $f
    if {![llength [dict get $Plot($f) geometry]]} return
    dict set Plot($f) drag [list $x $x]
}

proc ::ips2::gui::histogram::Motion {f x} {
    variable Plot
    set d [dict get $Plot($f) drag]
    if {![llength $d]} return
    lassign [dict get $Plot($f) geometry] left top pw ph
    dict set Plot($f) drag [list [lindex $d 0] $x]
    $f.c delete rubber
    $f.c create rectangle [lindex $d 0] $top $x [expr {$top + $ph}] -outline blue -fill #9fc2ff \
        -stipple gray25 -tags rubber
}

# Release: a drag of more than 3 pixels defines a phase; a click on a band
# selects that phase, elsewhere the whole run.
proc ::ips2::gui::histogram::Release {f x} {
    variable Plot
    set d [dict get $Plot($f) drag]
    dict set Plot($f) drag {}
    $f.c delete rubber
    if {![llength $d]} return
    set x0 [lindex $d 0]
    if {abs($x - $x0) > 3} {
        set a [xToTime $f [expr {min($x0, $x)}]]
        set b [xToTime $f [expr {max($x0, $x)}]]
        if {$b <= $a} return
        dict set Plot($f) sel [list $a $b]
        set name [::ips2::gui::newPhaseName]
        ::ips2::gui::definePhase $name $a $b
        ::ips2::gui::status [::format "phase %s defined: %.3f - %.3f s" $name [expr {$a / 1e9}] [expr {$b / 1e9}]]
        return
    }
    set t [xToTime $f $x]
    set hit ""
    foreach p [::ips2::gui::phases] {
        lassign $p name start end
        if {$t >= $start && $t <= $end} { set hit $name }
    }
    if {$hit ne $::ips2::gui::State(phase)} { ::ips2::gui::setPhase $hit }
}

proc ::ips2::gui::histogram::Context {f X Y} {
    variable Plot
    set m $f.c.menu
    $m delete 0 end
    $m add command -label "Trace browser of the selection" -command [list ::ips2::gui::histogram::TraceOfSelection $f]
    $m add command -label "Add the selected node" -command [list ::ips2::gui::histogram::add \
        [dict get $Plot($f) session] "" "" $f]
    $m add command -label "Remove the last curve" -command [list ::ips2::gui::histogram::RemoveLast $f]
    $m add command -label "Whole run (no phase)" -command {::ips2::gui::setPhase ""}
    tk_popup $m $X $Y
}

# TraceOfSelection: the trace browser over the dragged range (or the
# selected phase, or the whole plot).
proc ::ips2::gui::histogram::TraceOfSelection {f} {
    variable Plot
    set sel [dict get $Plot($f) sel]
    if {[llength $sel] != 2} {
        foreach p [::ips2::gui::phases] {
            if {[lindex $p 0] eq $::ips2::gui::State(phase)} { set sel [lrange $p 1 2] }
        }
    }
    if {[llength $sel] != 2 && [llength [dict get $Plot($f) geometry]]} {
        set sel [lrange [dict get $Plot($f) geometry] 4 5]
    }
    lassign $sel start end
    ::ips2::gui::ShowTrace $start $end
}

# gui_consultant.tcl - the Performance Consultant pane of the master analyst
# window (issue 11 item 9): the W3 search of the master package run on the
# open session, and its search history graph (SHG) drawn as Paradyn's
# Performance Consultant showed it (thesis §8.1): every (why, where, when)
# node the search considered, a tree from the root hypothesis, each node
# filled by its state (a legend says which colour is which: true, tested
# false, being tested, untested).
#
# The search is the session's `search` subcommand (its answer is the dict
# of the contract: bottlenecks, shg, accounting), asked like every other
# query through ips2::gui::query (`$session async {search ...}`): the pane
# shows a progress bar and Cancel until the answer comes, and the window
# serves its events meanwhile.  The critical paths that seed the search
# are asked first (on the session's query thread, the bar counting them),
# so that the search itself, evaluated in the window's turn, is short.  The answer is checked against the contract
# before it is drawn; one that does not follow it is said in the pane.
#
# A click on a node shows what is known of it below the graph: for a
# reported bottleneck (matched by hypothesis, focus and interval, or the
# node whose interval holds the bottleneck's) its
# explanation and its evidence table, else its value against its threshold
# and why it was or was not refined; and it selects the node's focus in
# the program trees (a process or thread focus is that tree node, a code
# focus the procedure under it, else its machine or application).  The
# data-volume accounting (thesis Figs 4.2-4.7) is the line at the bottom.
#
# The graph is laid out left to right (depth in x, one row per leaf, a
# parent beside its first child), so that a search of a few hundred nodes
# stays readable in a scrolling canvas, its root at the top left.
#
#   ips2::gui::consultant::dialog             the search options; Search opens the pane
#   ips2::gui::consultant::open ?OPTIONS?      a pane running a search; OPTIONS is a
#                                              dict of the search's options (-interval
#                                              MS -phase P -app A -threshold {NAME VALUE
#                                              ...} -hysteresis H -min-samples N
#                                              -sufficient-samples N -ignore {RESOURCE ...});
#                                              returns the pane
#   ips2::gui::consultant::showResult RESULT ?OPTIONS?  a pane showing an answer
#   ips2::gui::consultant::show PANE RESULT   draw a search's answer (a contract dict)
#   ips2::gui::consultant::check RESULT       "" when RESULT follows the contract, else why not
#   ips2::gui::consultant::state PANE         computing | done | error
#   ips2::gui::consultant::nodes PANE         {ID STATE FILL} of each drawn node (tests)
#   ips2::gui::consultant::nodeXY PANE ID     a node's centre in the canvas window (tests)
#   ips2::gui::consultant::selectNode PANE ID what a click on the node does
#   ips2::gui::consultant::details PANE       what the details show: a dict id kind
#                                              (bottleneck|node) text evidence (tests)
#   ips2::gui::consultant::zoom PANE FACTOR   the graph FACTOR times larger (0: fit its
#                                              width, -1: 100%)
#   ips2::gui::consultant::focusPath FOCUS    the tree node a focus selects, or ""
#   ips2::gui::consultant::words OPTIONS      the session words of a search with OPTIONS

package require Tcl 8.6
package require Tk 8.6
package require ips2::format 1.0
package require ips2::gui::query 1.0
package require ips2::gui::table 1.0
package provide ips2::gui::consultant 1.0

namespace eval ::ips2::gui::consultant {
    # View(PANE): dict options result (the answer or {}) state
    # (computing|done|error) gen (the question being answered) selected
    # (node id or "") details (what the details show) started (ms).
    variable View
    array set View {}
    # Serial: the last question asked (a pane drops the answers of others).
    variable Serial 0
    # Item(PANE,ID): the canvas rectangle of a drawn node.
    variable Item
    array set Item {}
    # Fill colours of the four states Paradyn's search history graph tells
    # apart (thesis §8.1): true blue, tested false pink, being tested
    # green, untested grey.
    variable Colours {true #3f6fd8 false #f6b3c3 testing #8fdc8f untested #e2e2e2}
    variable TextColours {true white false black testing black untested gray30}
    variable StateLabels {
        true "true" false "tested false" untested "untested" testing "being tested"
    }
    # The contract's keys.
    variable ShgKeys {id parent hypothesis focus interval state value threshold why}
    variable BottleneckKeys {hypothesis path focus interval value threshold explanation evidence}
    variable AccountingKeys {
        total_counters counters_used total_samples samples_used bytes_per_sample di_bytes
        trace_bytes ratio
    }
    variable FocusKeys {code process sync machine application}
    # Geometry: column width, node size, row height.
    variable ColumnWidth 206
    variable NodeWidth 184
    variable NodeHeight 34
    variable RowHeight 44
    # The options dialog's fields (Form) and what it last ran with.
    variable Form
    array set Form {
        interval 100 phase "whole run" app "all" hysteresis "" minSamples ""
        sufficientSamples "" thresholds "" ignore "" error ""
    }
}

# --- the search ---------------------------------------------------------------

# words OPTIONS: the session words of a search; options with an empty value
# are left to the engine's defaults.
proc ::ips2::gui::consultant::words {options} {
    set words [list search]
    dict for {name value} $options {
        if {$value eq ""} continue
        if {$name ni {-interval -phase -app -threshold -hysteresis -min-samples -sufficient-samples
                      -ignore}} {
            error "unknown search option \"$name\""
        }
        lappend words $name $value
    }
    return $words
}

# open ?OPTIONS?: a Performance Consultant pane (the one open is reused),
# its search asked.
proc ::ips2::gui::consultant::open {{options {}}} {
    if {![::ips2::gui::Need]} { return "" }
    set f [NewPane $options consultant]
    run $f
    return $f
}

# showResult RESULT ?OPTIONS?: a pane showing a search's answer (one asked
# elsewhere, or a test's).
proc ::ips2::gui::consultant::showResult {result {options {}}} {
    set f [NewPane $options consultant]
    show $f $result
    return $f
}

proc ::ips2::gui::consultant::NewPane {options {reuse ""}} {
    variable View
    set f [::ips2::gui::table::newPane "Performance Consultant" $reuse]
    Build $f
    set View($f) [dict create options $options result {} state computing gen 0 selected "" \
                      details {} started 0 trueOnly 0 matches {} zoom 1.0]
    ::ips2::gui::table::register $f [dict create title "Performance Consultant" kind consultant \
        onrow "" remake [list ::ips2::gui::consultant::Remake $f]]
    return $f
}

# Remake PANE: the pane made again in the other notebook (side by side),
# with the answer it has (none asked again).
proc ::ips2::gui::consultant::Remake {f} {
    variable View
    set v $View($f)
    set new [NewPane [dict get $v options]]
    if {[dict get $v state] eq "done"} {
        show $new [dict get $v result]
    } else {
        run $new
    }
}

# run PANE: asks the pane's search again.
proc ::ips2::gui::consultant::run {f} {
    variable View
    variable Serial
    set gen [incr Serial]
    dict set View($f) gen $gen
    dict set View($f) state computing
    dict set View($f) started [clock milliseconds]
    set options [dict get $View($f) options]
    if {[catch {words $options} words]} {
        Failed $f $words
        return
    }
    $f.top.title configure -text "Performance Consultant: [OptionsText $options]"
    Clear $f
    set seeds [Seeds $options]
    dict set View($f) steps [expr {[llength $seeds] + 1}]
    dict set View($f) done 0
    dict set View($f) stage [expr {[llength $seeds] ? "critical paths (0 of [llength $seeds])" : "searching"}]
    Waiting $f [expr {[llength $seeds] + 1}]
    foreach seed $seeds {
        ::ips2::gui::query::ask $seed [list ::ips2::gui::consultant::Seeded $f $gen] \
            "critical path for the search"
    }
    ::ips2::gui::query::ask $words [list ::ips2::gui::consultant::Answered $f $gen] "W3 search"
    Tick $f $gen
}

# Seeds OPTIONS: the critical paths the search is seeded with (each
# application's intra- and inter-application path, of the phase), asked
# before it: they are computed on the session's query thread, and the
# search, evaluated in the window's turn, finds them kept by the session.
proc ::ips2::gui::consultant::Seeds {options} {
    if {![::ips2::gui::HasCp]} { return {} }
    set apps [[::ips2::gui::session] apps]
    if {[dict exists $options -app] && [dict get $options -app] ne ""} {
        set apps [lsearch -all -inline -exact $apps [dict get $options -app]]
    }
    set phase {}
    if {[dict exists $options -phase] && [dict get $options -phase] ne ""} {
        set phase [list -phase [dict get $options -phase]]
    }
    set out {}
    foreach app $apps {
        foreach mode {intra inter} { lappend out [list cp -mode $mode -app $app -level process {*}$phase] }
    }
    return $out
}

# Seeded PANE GEN CODE RESULT MS: one seed computed (or not: the search
# goes without it, as the master does).
proc ::ips2::gui::consultant::Seeded {f gen code result ms} {
    variable View
    if {![info exists View($f)] || [dict get $View($f) gen] != $gen} return
    dict incr View($f) done
    set seeds [expr {[dict get $View($f) steps] - 1}]
    set done [dict get $View($f) done]
    dict set View($f) stage [expr {$done < $seeds ? "critical paths ($done of $seeds)" : "searching"}]
    if {[winfo exists $f.wait.bar]} { $f.wait.bar configure -value $done }
    Tick $f $gen 0
}

proc ::ips2::gui::consultant::OptionsText {options} {
    set parts {}
    if {[dict exists $options -interval] && [dict get $options -interval] ne ""} {
        lappend parts "samples of [dict get $options -interval] ms"
    } else {
        lappend parts "samples of the default interval"
    }
    if {[dict exists $options -phase] && [dict get $options -phase] ne ""} {
        lappend parts "phase [dict get $options -phase]"
    } else {
        lappend parts "whole run"
    }
    if {[dict exists $options -app] && [dict get $options -app] ne ""} {
        lappend parts "application [dict get $options -app]"
    }
    if {[dict exists $options -threshold] && [llength [dict get $options -threshold]]} {
        lappend parts "thresholds [join [lmap {n v} [dict get $options -threshold] { set x $n=$v }] { }]"
    }
    if {[dict exists $options -ignore] && [llength [dict get $options -ignore]]} {
        lappend parts "trying [join [dict get $options -ignore] {, }] last"
    }
    foreach {name label} {-hysteresis hysteresis -min-samples "min samples"
                          -sufficient-samples "sufficient samples"} {
        if {[dict exists $options $name] && [dict get $options $name] ne ""} {
            lappend parts "$label [dict get $options $name]"
        }
    }
    join $parts ", "
}

# Clear PANE: no answer shown (while the next is asked).
proc ::ips2::gui::consultant::Clear {f} {
    variable View
    variable Item
    dict set View($f) result {}
    dict set View($f) matches {}
    dict set View($f) selected ""
    dict set View($f) details {}
    $f.body.g.c delete all
    array unset Item $f,*
    $f.accounting configure -text ""
    $f.legend.found configure -values {}
    $f.legend.found set ""
    Details $f "" "Click a node for what the search found there." "" {}
}

# Waiting PANE STEPS: the progress bar (STEPS: the seeds and the search) and
# Cancel while the search is asked.
proc ::ips2::gui::consultant::Waiting {f steps} {
    foreach w {wait error} { if {[winfo exists $f.$w]} { destroy $f.$w } }
    ttk::frame $f.wait -padding 6
    ttk::label $f.wait.text -text "searching ..." -width 36
    ttk::progressbar $f.wait.bar -mode determinate -length 200 -maximum $steps -value 0 \
        -style Ips2.Horizontal.TProgressbar
    ttk::button $f.wait.cancel -text Cancel -command ::ips2::gui::query::cancel
    pack $f.wait.text $f.wait.bar $f.wait.cancel -side left -padx 4
    pack $f.wait -fill x -after $f.top
}

# Tick PANE GEN ?AGAIN?: the stage and the elapsed time in the progress
# line, every half second while the search is asked.
proc ::ips2::gui::consultant::Tick {f gen {again 1}} {
    variable View
    if {![info exists View($f)] || ![winfo exists $f.wait.text]} return
    if {[dict get $View($f) gen] != $gen || [dict get $View($f) state] ne "computing"} return
    set s [expr {([clock milliseconds] - [dict get $View($f) started]) / 1000.0}]
    $f.wait.text configure -text [::format "%s ... %.1f s" [dict get $View($f) stage] $s]
    if {$again} { after 500 [list ::ips2::gui::consultant::Tick $f $gen] }
}

proc ::ips2::gui::consultant::Answered {f gen code result ms} {
    variable View
    if {![info exists View($f)] || ![winfo exists $f] || [dict get $View($f) gen] != $gen} return
    if {[winfo exists $f.wait]} { destroy $f.wait }
    if {$code} {
        Failed $f $result
        return
    }
    show $f $result
    if {[dict get $View($f) state] eq "done"} {
        set r [dict get $View($f) result]
        ::ips2::gui::status "W3 search: [llength [dict get $r bottlenecks]] bottlenecks,\
            [llength [dict get $r shg]] nodes considered, in $ms ms"
    }
}

proc ::ips2::gui::consultant::Failed {f message} {
    variable View
    if {[winfo exists $f.wait]} { destroy $f.wait }
    if {[winfo exists $f.error]} { destroy $f.error }
    dict set View($f) state error
    ttk::label $f.error -text "W3 search: $message" -foreground red3 -padding 8 -wraplength 700 \
        -justify left
    pack $f.error -fill x -after $f.top
    ::ips2::gui::status "W3 search: $message" error
}

proc ::ips2::gui::consultant::state {f} {
    variable View
    dict get $View($f) state
}

# --- the contract -------------------------------------------------------------

# check RESULT: "" when the answer follows the contract (the three keys,
# the keys of every node and bottleneck, states known, ids unique, parents
# known or -1), else what is wrong.
proc ::ips2::gui::consultant::check {result} {
    variable ShgKeys
    variable BottleneckKeys
    variable AccountingKeys
    variable StateLabels
    if {[catch {dict size $result}]} { return "the answer is not a dict" }
    if {[lsort [dict keys $result]] ne {accounting bottlenecks shg}} {
        return "the answer's keys are {[dict keys $result]}, not bottlenecks shg accounting"
    }
    set ids {}
    foreach n [dict get $result shg] {
        if {[set why [Keys $n $ShgKeys "search history node"]] ne ""} { return $why }
        set id [dict get $n id]
        if {![string is integer -strict $id] || ![string is integer -strict [dict get $n parent]]} {
            return "search history node $id: id and parent must be integers"
        }
        if {[dict exists $ids $id]} { return "search history node $id: listed twice" }
        dict set ids $id 1
        if {![dict exists $StateLabels [dict get $n state]]} {
            return "search history node $id: unknown state \"[dict get $n state]\""
        }
        if {[set why [Focus [dict get $n focus]]] ne ""} { return "search history node $id: $why" }
        if {[set why [Interval [dict get $n interval]]] ne ""} { return "search history node $id: $why" }
    }
    foreach n [dict get $result shg] {
        set p [dict get $n parent]
        if {$p != -1 && ![dict exists $ids $p]} {
            return "search history node [dict get $n id]: parent $p is not in the graph"
        }
    }
    set i 0
    foreach b [dict get $result bottlenecks] {
        if {[set why [Keys $b $BottleneckKeys "bottleneck $i"]] ne ""} { return $why }
        if {[set why [Focus [dict get $b focus]]] ne ""} { return "bottleneck $i: $why" }
        if {[set why [Interval [dict get $b interval]]] ne ""} { return "bottleneck $i: $why" }
        set e [dict get $b evidence]
        if {[llength $e] && ([catch {dict size $e}] || ![dict exists $e columns]
                             || ![dict exists $e rows])} {
            return "bottleneck $i: the evidence is not a table"
        }
        incr i
    }
    Keys [dict get $result accounting] $AccountingKeys accounting
}

proc ::ips2::gui::consultant::Keys {d keys what} {
    if {[catch {dict size $d}]} { return "$what is not a dict" }
    foreach k $keys {
        if {![dict exists $d $k]} { return "$what has no \"$k\"" }
    }
    return ""
}

proc ::ips2::gui::consultant::Focus {focus} {
    variable FocusKeys
    if {[catch {dict size $focus}]} { return "the focus is not a dict" }
    foreach k [dict keys $focus] {
        if {$k ni $FocusKeys} { return "unknown focus hierarchy \"$k\"" }
    }
    return ""
}

proc ::ips2::gui::consultant::Interval {interval} {
    if {[llength $interval] != 2 || ![string is double -strict [lindex $interval 0]]
            || ![string is double -strict [lindex $interval 1]]} {
        return "the interval {$interval} is not {START END}"
    }
    return ""
}

# SameFocus A B: two foci name the same place (a hierarchy absent or empty
# is its root).
proc ::ips2::gui::consultant::SameFocus {a b} {
    expr {[Normal $a] eq [Normal $b]}
}

proc ::ips2::gui::consultant::Normal {focus} {
    variable FocusKeys
    set out {}
    foreach k $FocusKeys {
        if {[dict exists $focus $k] && [dict get $focus $k] ne ""} { lappend out $k [dict get $focus $k] }
    }
    return $out
}

proc ::ips2::gui::consultant::SameInterval {a b} {
    foreach x $a y $b {
        if {abs($x - $y) > 1e-6} { return 0 }
    }
    return 1
}

# Matches RESULT: NODE-ID -> the index of the reported bottleneck the node
# stands for.  A bottleneck is the node of its hypothesis and focus over
# the same interval; else (the search may report the part of a node's
# interval where it holds) the node of its hypothesis and focus whose
# interval holds the bottleneck's, true ones first, then the narrowest.
proc ::ips2::gui::consultant::Matches {result} {
    set out [dict create]
    set i 0
    foreach b [dict get $result bottlenecks] {
        set best ""
        set bestKey ""
        foreach n [dict get $result shg] {
            if {[dict exists $out [dict get $n id]]} continue
            if {[dict get $n hypothesis] ne [dict get $b hypothesis]
                    || ![SameFocus [dict get $n focus] [dict get $b focus]]} continue
            lassign [dict get $n interval] ns ne
            lassign [dict get $b interval] bs be
            if {[SameInterval [dict get $n interval] [dict get $b interval]]} {
                set key [list 0 [expr {[dict get $n state] ne "true"}] 0]
            } elseif {$ns <= $bs + 1e-6 && $ne >= $be - 1e-6} {
                set key [list 1 [expr {[dict get $n state] ne "true"}] [expr {$ne - $ns}]]
            } else {
                continue
            }
            if {$best eq "" || [Before $key $bestKey]} {
                set best [dict get $n id]
                set bestKey $key
            }
        }
        if {$best ne ""} { dict set out $best $i }
        incr i
    }
    return $out
}

proc ::ips2::gui::consultant::Before {a b} {
    foreach x $a y $b {
        if {$x < $y} { return 1 }
        if {$x > $y} { return 0 }
    }
    return 0
}

# BottleneckOf PANE ID: the reported bottleneck node ID stands for, or {}.
proc ::ips2::gui::consultant::BottleneckOf {f id} {
    variable View
    set m [dict get $View($f) matches]
    if {![dict exists $m $id]} { return {} }
    lindex [dict get $View($f) result bottlenecks] [dict get $m $id]
}

# --- the pane -----------------------------------------------------------------

proc ::ips2::gui::consultant::Build {f} {
    variable Colours
    variable StateLabels
    ttk::frame $f.top
    ttk::label $f.top.title -text "Performance Consultant" -font TkHeadingFont -anchor w
    ttk::button $f.top.options -text "Search..." -style Toolbutton \
        -command [list ::ips2::gui::consultant::dialog $f]
    ttk::button $f.top.again -text "Search again" -style Toolbutton \
        -command [list ::ips2::gui::consultant::run $f]
    ttk::button $f.top.side -text "Side by side" -style Toolbutton \
        -command [list ::ips2::gui::table::sideBySide $f]
    ttk::button $f.top.close -text Close -style Toolbutton \
        -command [list ::ips2::gui::table::close $f]
    foreach {name label factor} {one 100% -1 fit Fit 0 out − 0.8 in + 1.25} {
        ttk::button $f.top.$name -text $label -style Toolbutton \
            -command [list ::ips2::gui::consultant::zoom $f $factor]
    }
    pack $f.top.close $f.top.side $f.top.again $f.top.options $f.top.one $f.top.fit $f.top.out \
        $f.top.in -side right -padx 1
    pack $f.top.title -side left -fill x -expand 1
    pack $f.top -fill x
    # The legend, and the bottlenecks found (choose one to go to its node).
    set bg [ttk::style lookup TFrame -background]
    ttk::frame $f.legend
    foreach state {true false testing untested} {
        canvas $f.legend.c$state -width 14 -height 14 -highlightthickness 0 -background $bg
        $f.legend.c$state create rectangle 1 1 13 13 -fill [dict get $Colours $state] -outline gray30
        ttk::label $f.legend.l$state -text [dict get $StateLabels $state]
        pack $f.legend.c$state -side left -padx {6 2}
        pack $f.legend.l$state -side left
    }
    ttk::checkbutton $f.legend.trueonly -text "true only" \
        -variable ::ips2::gui::consultant::TrueOnly($f) -command [list ::ips2::gui::consultant::Filter $f]
    set ::ips2::gui::consultant::TrueOnly($f) 0
    pack $f.legend.trueonly -side left -padx {12 2}
    ttk::combobox $f.legend.found -state readonly -width 44
    ttk::label $f.legend.lfound -text "Bottlenecks:"
    pack $f.legend.found $f.legend.lfound -side right -padx 2
    bind $f.legend.found <<ComboboxSelected>> [list ::ips2::gui::consultant::BottleneckChosen $f]
    pack $f.legend -fill x -pady 2
    ttk::label $f.accounting -anchor w -foreground gray20 -padding {4 2} -justify left
    pack $f.accounting -side bottom -fill x
    bind $f.accounting <Configure> {%W configure -wraplength [expr {max(200, %w - 8)}]}
    ttk::panedwindow $f.body -orient vertical
    ttk::frame $f.body.g
    canvas $f.body.g.c -background white -highlightthickness 0 -width 500 -height 260 \
        -xscrollcommand [list $f.body.g.x set] -yscrollcommand [list $f.body.g.y set]
    ttk::scrollbar $f.body.g.x -orient horizontal -command [list $f.body.g.c xview]
    ttk::scrollbar $f.body.g.y -orient vertical -command [list $f.body.g.c yview]
    grid $f.body.g.c $f.body.g.y -sticky nsew
    grid $f.body.g.x -sticky ew
    grid columnconfigure $f.body.g 0 -weight 1
    grid rowconfigure $f.body.g 0 -weight 1
    set c $f.body.g.c
    $c bind shg <Button-1> [list ::ips2::gui::consultant::Click $f]
    $c bind shg <Button-3> [list ::ips2::gui::consultant::Context $f %X %Y]
    menu $c.menu
    $c bind shg <Enter> [list ::ips2::gui::consultant::Hover $f]
    bind $c <MouseWheel> {%W yview scroll [expr {-%D / 120}] units}
    bind $c <Button-4> {%W yview scroll -3 units}
    bind $c <Button-5> {%W yview scroll 3 units}
    bind $c <Shift-Button-4> {%W xview scroll -3 units}
    bind $c <Shift-Button-5> {%W xview scroll 3 units}
    bind $c <Control-Button-4> [list ::ips2::gui::consultant::zoom $f 1.25]
    bind $c <Control-Button-5> [list ::ips2::gui::consultant::zoom $f 0.8]
    bind $c <Button-2> {%W scan mark %x %y}
    bind $c <B2-Motion> {%W scan dragto %x %y 1}
    ttk::frame $f.body.d
    ttk::label $f.body.d.head -font TkHeadingFont -anchor w \
        -text "Click a node for what the search found there."
    text $f.body.d.text -height 5 -wrap word -relief flat -background $bg \
        -font TkDefaultFont -padx 4 -pady 2
    $f.body.d.text configure -state disabled
    ttk::frame $f.body.d.evidence
    pack $f.body.d.head -fill x
    pack $f.body.d.text -fill x
    pack $f.body.d.evidence -fill both -expand 1
    $f.body add $f.body.g -weight 1
    $f.body add $f.body.d -weight 1
    pack $f.body -fill both -expand 1
    bind $f <Destroy> [list ::ips2::gui::consultant::Forget $f %W]
}

# zoom PANE FACTOR: the graph redrawn FACTOR times as large (0: as large as
# fits the pane's width, at most 1; below 0: at 100%).
proc ::ips2::gui::consultant::zoom {f factor} {
    variable View
    variable ColumnWidth
    variable NodeWidth
    if {![info exists View($f)]} return
    set z [dict get $View($f) zoom]
    if {$factor < 0} {
        set z 1.0
    } elseif {$factor == 0} {
        set depth 0
        set result [dict get $View($f) result]
        if {[dict exists $result shg]} {
            foreach e [Layout $result [dict get $View($f) trueOnly]] {
                set depth [expr {max($depth, [lindex $e 1])}]
            }
        }
        set width [expr {max(100, [winfo width $f.body.g.c])}]
        set z [expr {min(1.0, ($width - 30.0) / ($depth * $ColumnWidth + $NodeWidth))}]
    } else {
        set z [expr {$z * $factor}]
    }
    dict set View($f) zoom [expr {max(0.25, min(2.5, $z))}]
    if {[dict get $View($f) state] ne "done"} return
    set selected [dict get $View($f) selected]
    Draw $f
    if {$selected ne ""} {
        Outline $f $selected
        See $f $selected
    }
}

# Filter PANE: the graph redrawn with or without the nodes not true (for a
# search of many nodes).
proc ::ips2::gui::consultant::Filter {f} {
    variable View
    dict set View($f) trueOnly $::ips2::gui::consultant::TrueOnly($f)
    if {[dict get $View($f) state] ne "done"} return
    set selected [dict get $View($f) selected]
    Draw $f
    if {$selected ne ""} { Outline $f $selected }
}

proc ::ips2::gui::consultant::Forget {f w} {
    variable View
    variable Item
    if {$w ne $f} return
    unset -nocomplain View($f) ::ips2::gui::consultant::TrueOnly($f)
    array unset Item $f,*
}

# show PANE RESULT: the answer drawn (or why it cannot be).
proc ::ips2::gui::consultant::show {f result} {
    variable View
    if {[set why [check $result]] ne ""} {
        Failed $f "the answer does not follow the search's contract: $why"
        return
    }
    foreach w {wait error} { if {[winfo exists $f.$w]} { destroy $f.$w } }
    dict set View($f) result $result
    dict set View($f) matches [Matches $result]
    dict set View($f) state done
    dict set View($f) selected ""
    dict set View($f) details {}
    Draw $f
    Accounting $f [dict get $result accounting]
    set found [lmap b [dict get $result bottlenecks] { BottleneckText $b }]
    $f.legend.found configure -values $found
    $f.legend.found set [expr {[llength $found] ? [lindex $found 0] : "none above its threshold"}]
    set n [llength [dict get $result bottlenecks]]
    Details $f "" "" [expr {$n ? "$n bottlenecks found (blue, outlined): click one." :
                             "Nothing above its threshold: no bottleneck found."}] {}
}

proc ::ips2::gui::consultant::BottleneckText {b} {
    set text "[dict get $b hypothesis]: [FocusText [dict get $b focus]]"
    lassign [dict get $b interval] s e
    append text [::format " (%.2f-%.2f s)" $s $e]
}

proc ::ips2::gui::consultant::BottleneckChosen {f} {
    variable View
    set i [$f.legend.found current]
    set r [dict get $View($f) result]
    if {![dict exists $r bottlenecks] || $i < 0 || $i >= [llength [dict get $r bottlenecks]]} return
    dict for {id index} [dict get $View($f) matches] {
        if {$index == $i} {
            See $f $id
            selectNode $f $id
            return
        }
    }
    # A bottleneck without a node of its own: what it says, all the same.
    set b [lindex [dict get $r bottlenecks] $i]
    $f.body.g.c delete selection
    dict set View($f) selected ""
    ShowBottleneck $f "" [dict get $b hypothesis] [dict get $b focus] [dict get $b interval] true $b
    SelectFocus [dict get $b focus]
}

# Accounting PANE A: the data-volume line (thesis Figs 4.2-4.7).
proc ::ips2::gui::consultant::Accounting {f a} {
    set text [::format "Data volume: counters %s used of %s; samples %s used of %s (%s bytes each: %s);\
        trace %s; ratio %s" [dict get $a counters_used] [dict get $a total_counters] \
        [dict get $a samples_used] [dict get $a total_samples] [dict get $a bytes_per_sample] \
        [Bytes [dict get $a di_bytes]] [Bytes [dict get $a trace_bytes]] [Ratio [dict get $a ratio]]]
    $f.accounting configure -text $text
}

proc ::ips2::gui::consultant::Ratio {r} {
    expr {[string is double -strict $r] ? [::format %.1f $r] : $r}
}

proc ::ips2::gui::consultant::Bytes {n} {
    if {![string is double -strict $n]} { return $n }
    if {$n >= 1048576} { return [::format "%.1f MB" [expr {$n / 1048576.0}]] }
    if {$n >= 1024} { return [::format "%.1f KB" [expr {$n / 1024.0}]] }
    return "$n bytes"
}

# FocusText FOCUS ?SHORT?: a focus in a few words ("whole program" for the
# roots): the process (and thread) without its application and machine,
# the code (SHORT: its procedure only), the object, the machine, the
# application.
proc ::ips2::gui::consultant::FocusText {focus {short 0}} {
    set f [Normal $focus]
    set parts {}
    if {[dict exists $f process]} {
        set tail [lmap p [split [dict get $f process] /] {
            if {[string match app:* $p] || [string match machine:* $p]} continue
            set p
        }]
        lappend parts [join $tail /]
    }
    if {[dict exists $f code]} {
        lappend parts [expr {$short ? [lindex [split [dict get $f code] /] end] : [dict get $f code]}]
    }
    foreach k {sync machine application} {
        if {[dict exists $f $k]} { lappend parts [dict get $f $k] }
    }
    expr {[llength $parts] ? [join $parts ", "] : "whole program"}
}

# --- the graph ----------------------------------------------------------------

# Layout RESULT: {ID DEPTH ROW PARENT-ID} for every node, children in the
# order listed; nodes whose parent chain does not reach a root start trees
# of their own (the contract says parent -1 for the root).
proc ::ips2::gui::consultant::Layout {result {trueOnly 0}} {
    set children [dict create]
    set roots {}
    set known [dict create]
    set hidden [dict create]
    foreach n [dict get $result shg] {
        dict set known [dict get $n id] $n
        if {$trueOnly && [dict get $n state] ni {true testing}} { dict set hidden [dict get $n id] 1 }
    }
    foreach n [dict get $result shg] {
        set p [dict get $n parent]
        if {$p == -1 || $p == [dict get $n id] || ![dict exists $known $p]} {
            lappend roots [dict get $n id]
        } else {
            dict lappend children $p [dict get $n id]
        }
    }
    set out {}
    set row 0
    # Hidden nodes count as placed: their subtrees stay hidden.
    set placed $hidden
    foreach r $roots {
        if {![dict exists $placed $r]} { Place $r 0 -1 $children placed row out }
    }
    # What a cycle kept from every root (not what a hidden node hides).
    foreach n [dict get $result shg] {
        set id [dict get $n id]
        if {[dict exists $placed $id] || [UnderHidden $known $hidden $id]} continue
        Place $id 0 -1 $children placed row out
    }
    return $out
}

proc ::ips2::gui::consultant::UnderHidden {known hidden id} {
    set seen [dict create]
    while {[dict exists $known $id] && ![dict exists $seen $id]} {
        if {[dict exists $hidden $id]} { return 1 }
        dict set seen $id 1
        set id [dict get $known $id parent]
    }
    return 0
}

# Place ID DEPTH PARENT CHILDREN PLACEDVAR ROWVAR OUTVAR: depth-first; a leaf
# takes the next row, a parent its first child's row (the root at the top
# left, where the view starts).
proc ::ips2::gui::consultant::Place {id depth parent children placedVar rowVar outVar} {
    upvar 1 $placedVar placed $rowVar row $outVar out
    dict set placed $id 1
    set me [llength $out]
    lappend out [list $id $depth 0 $parent]
    set rows {}
    if {[dict exists $children $id]} {
        foreach k [dict get $children $id] {
            if {[dict exists $placed $k]} continue
            lappend rows [Place $k [expr {$depth + 1}] $id $children placed row out]
        }
    }
    if {[llength $rows]} {
        set y [lindex $rows 0]
    } else {
        set y $row
        incr row
    }
    lset out $me 2 $y
    return $y
}

proc ::ips2::gui::consultant::Draw {f} {
    variable View
    variable Item
    variable Colours
    variable TextColours
    variable ColumnWidth
    variable NodeWidth
    variable NodeHeight
    variable RowHeight
    set c $f.body.g.c
    $c delete all
    array unset Item $f,*
    set z [dict get $View($f) zoom]
    set nw [expr {$NodeWidth * $z}]
    set nh [expr {$NodeHeight * $z}]
    set rh [expr {$RowHeight * $z}]
    set cw [expr {$ColumnWidth * $z}]
    set result [dict get $View($f) result]
    set byId [dict create]
    foreach n [dict get $result shg] { dict set byId [dict get $n id] $n }
    set layout [Layout $result [dict get $View($f) trueOnly]]
    set centre [dict create]
    foreach e $layout {
        lassign $e id depth row
        dict set centre $id [list [expr {12 + $nw / 2.0 + $depth * $cw}] \
                                 [expr {10 + $nh / 2.0 + $row * $rh}]]
    }
    # Arcs first (an elbow from the parent's right side), then the nodes.
    foreach e $layout {
        lassign $e id depth row parent
        if {$parent < 0 || ![dict exists $centre $parent]} continue
        lassign [dict get $centre $parent] px py
        lassign [dict get $centre $id] x y
        set x0 [expr {$px + $nw / 2.0}]
        set x1 [expr {$x - $nw / 2.0}]
        set xm [expr {($x0 + $x1) / 2.0}]
        $c create line $x0 $py $xm $py $xm $y $x1 $y -fill gray50 -tags arc
    }
    set font [list TkDefaultFont [expr {max(5, int(round(8 * $z)))}]]
    set bold [list TkDefaultFont [expr {max(5, int(round(8 * $z)))}] bold]
    foreach e $layout {
        lassign $e id
        set n [dict get $byId $id]
        lassign [dict get $centre $id] x y
        set st [dict get $n state]
        set reported [dict exists [dict get $View($f) matches] $id]
        set tags [list shg id:$id]
        set item [$c create rectangle [expr {$x - $nw / 2.0}] [expr {$y - $nh / 2.0}] \
                      [expr {$x + $nw / 2.0}] [expr {$y + $nh / 2.0}] \
                      -fill [dict get $Colours $st] -outline [expr {$reported ? "#0b1f5c" : "gray35"}] \
                      -width [expr {$reported ? 3 : 1}] -tags $tags]
        set Item($f,$id) $item
        # The interval when it is not its parent's (a "when" refinement).
        set where [FocusText [dict get $n focus] 1]
        set parent [dict get $n parent]
        if {[dict exists $byId $parent] && $parent != $id
                && ![SameInterval [dict get $n interval] [dict get $byId $parent interval]]} {
            lassign [dict get $n interval] s e
            append where [::format " @%.2f-%.2fs" $s $e]
        }
        set fg [dict get $TextColours $st]
        set room [expr {$nw - 8}]
        $c create text $x [expr {$y - 7 * $z}] -text [Fit [dict get $n hypothesis] $bold $room] \
            -font $bold -fill $fg -tags $tags
        $c create text $x [expr {$y + 8 * $z}] -text [Fit $where $font $room] -font $font -fill $fg \
            -tags $tags
    }
    if {![llength $layout]} {
        $c create text 20 20 -anchor nw -fill gray40 -text "The search considered no node."
    }
    lassign [$c bbox all] bx0 by0 bx1 by1
    if {$bx1 ne ""} { $c configure -scrollregion [list 0 0 [expr {$bx1 + 12}] [expr {$by1 + 12}]] }
    $c xview moveto 0
    $c yview moveto 0
}

# Fit TEXT FONT WIDTH: TEXT, cut with an ellipsis to fit in WIDTH pixels.
proc ::ips2::gui::consultant::Fit {text font width} {
    if {[font measure $font $text] <= $width} { return $text }
    set lo 0
    set hi [string length $text]
    while {$lo < $hi} {
        set mid [expr {($lo + $hi + 1) / 2}]
        if {[font measure $font "[string range $text 0 [expr {$mid - 1}]]…"] <= $width} {
            set lo $mid
        } else {
            set hi [expr {$mid - 1}]
        }
    }
    return "[string range $text 0 [expr {$lo - 1}]]…"
}

proc ::ips2::gui::consultant::IdOf {c} {
    foreach t [$c gettags current] {
        if {[string match id:* $t]} { return [string range $t 3 end] }
    }
    return ""
}

proc ::ips2::gui::consultant::Click {f} {
    set id [IdOf $f.body.g.c]
    if {$id ne ""} { selectNode $f $id }
}

# Context PANE X Y: a node's menu: select it, or search again with one of
# the resources of its focus tried last (Paradyn's "ignore", thesis §8.1:
# its refinements deferred until all others are tried).
proc ::ips2::gui::consultant::Context {f X Y} {
    variable View
    set c $f.body.g.c
    set id [IdOf $c]
    if {$id eq ""} return
    set n [NodeById $f $id]
    if {$n eq ""} return
    selectNode $f $id
    set m $c.menu
    $m delete 0 end
    $m add command -label "Show what the search found here" \
        -command [list ::ips2::gui::consultant::selectNode $f $id]
    set ignored [expr {[dict exists $View($f) options -ignore] ? [dict get $View($f) options -ignore] : {}}]
    foreach {k v} [Normal [dict get $n focus]] {
        if {$v in $ignored} continue
        $m add command -label "Search again, $v tried last" \
            -command [list ::ips2::gui::consultant::SearchIgnoring $f $v]
    }
    tk_popup $m $X $Y
}

# SearchIgnoring PANE RESOURCE: the pane's search again with RESOURCE added
# to those whose refinements are tried last.
proc ::ips2::gui::consultant::SearchIgnoring {f resource} {
    variable View
    set options [dict get $View($f) options]
    set ignored [expr {[dict exists $options -ignore] ? [dict get $options -ignore] : {}}]
    if {$resource ni $ignored} { lappend ignored $resource }
    dict set View($f) options [dict set options -ignore $ignored]
    run $f
}

proc ::ips2::gui::consultant::Hover {f} {
    variable View
    variable StateLabels
    set id [IdOf $f.body.g.c]
    if {$id eq ""} return
    set n [NodeById $f $id]
    if {$n eq ""} return
    ::ips2::gui::status "[dict get $n hypothesis] at [FocusText [dict get $n focus]]:\
        [dict get $StateLabels [dict get $n state]], [ValueText $n]"
}

proc ::ips2::gui::consultant::NodeById {f id} {
    variable View
    set result [dict get $View($f) result]
    if {![dict exists $result shg]} { return "" }
    foreach n [dict get $result shg] {
        if {[dict get $n id] == $id} { return $n }
    }
    return ""
}

proc ::ips2::gui::consultant::ValueText {n} {
    set v [dict get $n value]
    set t [dict get $n threshold]
    set fv [expr {[string is double -strict $v] ? [::format %.4g $v] : $v}]
    set ft [expr {[string is double -strict $t] ? [::format %.4g $t] : $t}]
    return "value $fv, threshold $ft"
}

# See PANE ID: the node scrolled into view.
proc ::ips2::gui::consultant::See {f id} {
    variable Item
    set c $f.body.g.c
    if {![info exists Item($f,$id)]} return
    lassign [$c bbox $Item($f,$id)] x0 y0 x1 y1
    lassign [$c cget -scrollregion] - - sw sh
    if {$sw eq "" || $sw <= 0} return
    set vx0 [$c canvasx 0]
    set vy0 [$c canvasy 0]
    set vx1 [expr {$vx0 + [winfo width $c]}]
    set vy1 [expr {$vy0 + [winfo height $c]}]
    if {$x0 < $vx0 || $x1 > $vx1} { $c xview moveto [expr {max(0, ($x0 - 20.0) / $sw)}] }
    if {$y0 < $vy0 || $y1 > $vy1} { $c yview moveto [expr {max(0, ($y0 - 20.0) / $sh)}] }
}

# selectNode PANE ID: the node outlined, what is known of it below the
# graph, its focus selected in the program trees.
proc ::ips2::gui::consultant::selectNode {f id} {
    variable View
    variable Item
    variable StateLabels
    set n [NodeById $f $id]
    if {$n eq ""} return
    dict set View($f) selected $id
    Outline $f $id
    set b [BottleneckOf $f $id]
    if {[llength $b]} {
        ShowBottleneck $f $id [dict get $n hypothesis] [dict get $n focus] [dict get $n interval] \
            [dict get $n state] $b
    } else {
        lassign [dict get $n interval] s e
        set head [::format "%s at %s, %.3f-%.3f s: %s" [dict get $n hypothesis] \
                      [FocusText [dict get $n focus]] $s $e [dict get $StateLabels [dict get $n state]]]
        set text "[string totitle [ValueText $n] 0 0]."
        if {[dict get $n why] ne ""} { append text "\n[dict get $n why]" }
        Details $f $id $head $text {} node
    }
    SelectFocus [dict get $n focus]
}

# SelectFocus FOCUS: the focus's node selected in the program trees.
proc ::ips2::gui::consultant::SelectFocus {focus} {
    set path [focusPath $focus]
    if {$path eq ""} return
    if {[winfo exists .pw.left.trees]} { .pw.left select .pw.left.trees }
    ::ips2::gui::tree::reveal $path
    ::ips2::gui::select $path
}

# Outline PANE ID: the selected node's orange frame.
proc ::ips2::gui::consultant::Outline {f id} {
    variable Item
    set c $f.body.g.c
    $c delete selection
    if {![info exists Item($f,$id)]} return
    lassign [$c bbox $Item($f,$id)] x0 y0 x1 y1
    $c create rectangle [expr {$x0 - 3}] [expr {$y0 - 3}] [expr {$x1 + 3}] [expr {$y1 + 3}] \
        -outline orange -width 3 -tags selection
}

# ShowBottleneck PANE ID HYPOTHESIS FOCUS INTERVAL STATE B: a reported
# bottleneck's explanation, value and evidence under the graph (its own
# interval: where it holds).
proc ::ips2::gui::consultant::ShowBottleneck {f id hypothesis focus interval state b} {
    variable StateLabels
    lassign [dict get $b interval] s e
    set head [::format "%s at %s, %.3f-%.3f s: %s" $hypothesis [FocusText $focus] $s $e \
                  [dict get $StateLabels $state]]
    set text "[dict get $b explanation]\n\n[string totitle [ValueText $b] 0 0]; refined along\
        [join [dict get $b path] { > }]."
    Details $f $id $head $text [dict get $b evidence] bottleneck
}

# Details PANE ID HEAD TEXT EVIDENCE ?KIND?: the part under the graph.
proc ::ips2::gui::consultant::Details {f id head text evidence {kind node}} {
    variable View
    set d $f.body.d
    if {$head ne ""} { $d.head configure -text $head }
    $d.text configure -state normal
    $d.text delete 1.0 end
    $d.text insert end $text
    $d.text configure -state disabled
    foreach w [winfo children $d.evidence] { destroy $w }
    if {[llength $evidence] && [llength [dict get $evidence columns]]} {
        ttk::label $d.evidence.label -text "Evidence:" -anchor w
        pack $d.evidence.label -fill x
        ttk::frame $d.evidence.t
        pack $d.evidence.t -fill both -expand 1
        ::ips2::gui::table::Tablelist $d.evidence.t $evidence $f
    }
    dict set View($f) details [dict create id $id kind $kind head $head text $text evidence $evidence]
}

proc ::ips2::gui::consultant::details {f} {
    variable View
    dict get $View($f) details
}

# --- the focus in the trees ---------------------------------------------------

# focusPath FOCUS: the node of the program trees a focus selects: the
# procedure of a code focus under its process or thread (or its
# application), a process or thread, a machine, an application; "" if none
# of the trees holds it.
proc ::ips2::gui::consultant::focusPath {focus} {
    set f [Normal $focus]
    set all [::ips2::gui::tree::allPaths]
    set under ""
    foreach k {process machine application} {
        if {[dict exists $f $k]} {
            set under [dict get $f $k]
            break
        }
    }
    if {[dict exists $f code]} {
        set proc [lindex [split [dict get $f code] /] end]
        foreach p $all {
            if {[string match "*/procedure:$proc" $p] && [string equal -length [string length $under] \
                    $under $p] && ($under eq "" || [string index $p [string length $under]] eq "/")} {
                return $p
            }
        }
    }
    foreach k {process machine application} {
        if {[dict exists $f $k] && [dict get $f $k] in $all} { return [dict get $f $k] }
    }
    return ""
}

# --- the options dialog -------------------------------------------------------

# dialog ?PANE?: the search's options; Search runs it in PANE (or the
# consultant pane, made if none).
proc ::ips2::gui::consultant::dialog {{pane ""}} {
    variable Form
    set w .consultant
    if {[winfo exists $w]} { destroy $w }
    if {![::ips2::gui::Need]} return
    toplevel $w
    wm title $w "Performance Consultant - search options"
    set s [::ips2::gui::session]
    set phases [list "whole run" {*}[lmap p [::ips2::gui::phases] { lindex $p 0 }]]
    set current $::ips2::gui::State(phase)
    set Form(phase) [expr {$current ne "" && $current in $phases ? $current : "whole run"}]
    if {$Form(app) ni [list all {*}[$s apps]]} { set Form(app) all }
    set Form(error) ""
    ttk::frame $w.f -padding 10
    set rows {
        interval   "Sample interval (ms)"    spinbox
        phase      "Phase"                   phase
        app        "Application"             app
        thresholds "Thresholds (NAME=VALUE ...)" entry
        hysteresis "Hysteresis (0-1)"        entry
        minSamples "Minimum samples"         entry
        sufficientSamples "Sufficient samples" entry
        ignore     "Try last (resources)"    entry
    }
    set r 0
    foreach {key label kind} $rows {
        ttk::label $w.f.l$key -text $label
        switch -- $kind {
            spinbox {
                ttk::spinbox $w.f.$key -from 1 -to 100000 -increment 10 -width 10 \
                    -textvariable ::ips2::gui::consultant::Form($key)
            }
            phase {
                ttk::combobox $w.f.$key -state readonly -values $phases -width 20 \
                    -textvariable ::ips2::gui::consultant::Form($key)
            }
            app {
                ttk::combobox $w.f.$key -state readonly -values [list all {*}[$s apps]] -width 20 \
                    -textvariable ::ips2::gui::consultant::Form($key)
            }
            entry {
                ttk::entry $w.f.$key -width 40 -textvariable ::ips2::gui::consultant::Form($key)
            }
        }
        grid $w.f.l$key $w.f.$key -sticky w -pady 2 -padx 4
        incr r
    }
    ttk::label $w.f.hint -foreground gray35 -text "Empty fields take the engine's defaults.\
        Thresholds are named by hypothesis, e.g. cpuBound=0.3 hotSync=0.15." -wraplength 420
    ttk::label $w.f.error -foreground red3 -textvariable ::ips2::gui::consultant::Form(error) \
        -wraplength 420
    grid $w.f.hint - -sticky w -pady {6 0}
    grid $w.f.error - -sticky w
    ttk::frame $w.b
    ttk::button $w.b.run -text Search -default active \
        -command [list ::ips2::gui::consultant::DialogRun $pane]
    ttk::button $w.b.cancel -text Cancel -command [list destroy $w]
    pack $w.b.cancel $w.b.run -side right -padx 4
    pack $w.f -fill both -expand 1
    pack $w.b -fill x -pady 6
    bind $w <Return> [list ::ips2::gui::consultant::DialogRun $pane]
    bind $w <Escape> [list destroy $w]
    focus $w.f.interval
    return $w
}

# formOptions: the dialog's fields as search options, or an error.
proc ::ips2::gui::consultant::formOptions {} {
    variable Form
    set o [dict create]
    set interval [string trim $Form(interval)]
    if {$interval ne ""} {
        if {![string is integer -strict $interval] || $interval <= 0} {
            error "the sample interval must be a whole number of ms above 0"
        }
        dict set o -interval $interval
    }
    if {$Form(phase) ne "" && $Form(phase) ne "whole run"} { dict set o -phase $Form(phase) }
    if {$Form(app) ne "" && $Form(app) ne "all"} { dict set o -app $Form(app) }
    set thresholds {}
    foreach item [split [string trim $Form(thresholds)] " \t,;"] {
        if {$item eq ""} continue
        if {![regexp {^([A-Za-z][A-Za-z0-9_]*)=(.+)$} $item -> name value]
                || ![string is double -strict $value]} {
            error "a threshold is NAME=VALUE with a number: \"$item\""
        }
        lappend thresholds $name $value
    }
    if {[llength $thresholds]} { dict set o -threshold $thresholds }
    if {[catch {llength $Form(ignore)} n] || $n == 0} {
        if {[string trim $Form(ignore)] ne ""} { error "the resources to try last are a Tcl list of names" }
    } else {
        dict set o -ignore $Form(ignore)
    }
    foreach {key option check} {
        hysteresis -hysteresis double minSamples -min-samples integer
        sufficientSamples -sufficient-samples integer
    } {
        set v [string trim $Form($key)]
        if {$v eq ""} continue
        if {![string is $check -strict $v] || $v < 0} { error "$option must be a number at least 0: \"$v\"" }
        dict set o $option $v
    }
    return $o
}

proc ::ips2::gui::consultant::DialogRun {pane} {
    variable Form
    variable View
    if {[catch {formOptions} options]} {
        set Form(error) $options
        return
    }
    destroy .consultant
    if {$pane ne "" && [info exists View($pane)] && [winfo exists $pane]} {
        dict set View($pane) options $options
        [winfo parent $pane] select $pane
        run $pane
        return $pane
    }
    open $options
}

# --- for tests ----------------------------------------------------------------

# nodes PANE: {ID STATE FILL} of every drawn node, in the graph's order.
proc ::ips2::gui::consultant::nodes {f} {
    variable View
    variable Item
    set c $f.body.g.c
    set out {}
    set result [dict get $View($f) result]
    if {![dict exists $result shg]} { return {} }
    foreach n [dict get $result shg] {
        set id [dict get $n id]
        if {![info exists Item($f,$id)]} continue
        lappend out [list $id [dict get $n state] [$c itemcget $Item($f,$id) -fill]]
    }
    return $out
}

# nodeXY PANE ID: the node's centre in the canvas window, scrolled into view.
proc ::ips2::gui::consultant::nodeXY {f id} {
    variable Item
    set c $f.body.g.c
    if {![info exists Item($f,$id)]} { return "" }
    update idletasks
    See $f $id
    update idletasks
    lassign [$c bbox $Item($f,$id)] x0 y0 x1 y1
    list [expr {int(($x0 + $x1) / 2.0 - [$c canvasx 0])}] [expr {int(($y0 + $y1) / 2.0 - [$c canvasy 0])}]
}

# graphWidget PANE: the canvas of the graph.
proc ::ips2::gui::consultant::graphWidget {f} { return $f.body.g.c }

# gui_tree.tcl - the program trees of the master analyst window, drawn as in
# the IPS-2 paper (§3, Figs. 2 and 3): one logical tree per application and
# the physical tree, top down, side by side on one scrolling canvas.  Node
# shapes by level: program (an application, or the whole workload) a
# triangle, machine a rectangle, process an ellipse, collector an octagon,
# thread a small dashed ellipse, procedure a flat rectangle (procedures
# appear once traces are reduced).  Before a run the trees of the workload
# being edited are shown (Fig. 2: processes with their command lines).
#
# Collapsing, for hundreds of procedures or processes: a thread's procedures
# are one "N procedures" node until expanded (double-click the thread or the
# node); a node shows at most MaxShown children, the largest by the colour
# metric, then one "+K more" node that shows the rest.  Nodes are filled by
# the chosen metric, white to red relative to the largest at that level of
# that tree (values from the master's profile tables).  Zoom redraws at a
# scale.
#
#   ips2::gui::tree::build W        the canvas and scroll bars into frame W
#   ips2::gui::tree::show SESSION   draw the session's trees
#   ips2::gui::tree::showWorkload W draw a workload dict's trees (before a run)
#   ips2::gui::tree::highlight PATH / zoom F / expandAll 0|1 / recolour / clear
#   ips2::gui::tree::nodeXY PATH    the node's centre in canvas window coordinates (tests)
#   ips2::gui::tree::allPaths       the path of every node of the trees, drawn or folded
#   ips2::gui::tree::reveal PATH    unfold what hides a node and scroll it into view

package require Tcl 8.6
package require Tk 8.6
package provide ips2::gui::tree 1.0

namespace eval ::ips2::gui::tree {
    # State: canvas, zoom, trees (list of {title TREE}), session.
    variable State
    array set State {canvas "" zoom 1.0 trees {} session "" workload 0}
    # Per path: Expanded (procedures shown), All (every child shown).
    variable Expanded
    variable All
    array set Expanded {}
    array set All {}
    # Value(path): the colour metric's value; Max(TREE-INDEX,LEVEL).
    variable Value
    variable Max
    array set Value {}
    array set Max {}
    # Item(path): the canvas item of a drawn node; Node(item): its path.
    variable Item
    array set Item {}
    variable MaxShown 12
    # Geometry at zoom 1: slot width, node size, level height.
    variable Slot 112
    variable LevelHeight 70
    variable Colours {
        physical #b9d3ee app #b9d3ee machine #e8e8e8 process #ffffff collector #fff3c4
        thread #ffffff procedure #ffffff more #f4f4f4
    }
}

proc ::ips2::gui::tree::build {w} {
    variable State
    set c $w.c
    canvas $c -background white -xscrollcommand [list $w.x set] -yscrollcommand [list $w.y set] \
        -highlightthickness 0
    ttk::scrollbar $w.x -orient horizontal -command [list $c xview]
    ttk::scrollbar $w.y -orient vertical -command [list $c yview]
    grid $c $w.y -sticky nsew
    grid $w.x -sticky ew
    grid columnconfigure $w 0 -weight 1
    grid rowconfigure $w 0 -weight 1
    set State(canvas) $c
    $c bind node <Button-1> {::ips2::gui::tree::Click %W current}
    $c bind node <Double-Button-1> {::ips2::gui::tree::Toggle %W current}
    $c bind node <Button-3> {::ips2::gui::tree::Context %W current %X %Y}
    $c bind node <Enter> {::ips2::gui::tree::Hover %W current}
    bind $c <MouseWheel> {%W yview scroll [expr {-%D / 120}] units}
    bind $c <Button-4> {%W yview scroll -3 units}
    bind $c <Button-5> {%W yview scroll 3 units}
    bind $c <Shift-Button-4> {%W xview scroll -3 units}
    bind $c <Shift-Button-5> {%W xview scroll 3 units}
    bind $c <Control-Button-4> {::ips2::gui::tree::zoom 1.25}
    bind $c <Control-Button-5> {::ips2::gui::tree::zoom 0.8}
    bind $c <Button-2> {%W scan mark %x %y}
    bind $c <B2-Motion> {%W scan dragto %x %y 1}
    menu $c.menu
}

proc ::ips2::gui::tree::clear {} {
    variable State
    set State(trees) {}
    set State(session) ""
    Draw
}

# show SESSION: the logical trees of its applications and the physical tree.
proc ::ips2::gui::tree::show {session} {
    variable State
    variable Expanded
    variable All
    array unset Expanded
    array unset All
    set State(session) $session
    set State(workload) 0
    set trees {}
    foreach app [$session apps] {
        set a [$session application $app]
        set title "$app"
        if {[dict get $a mode] ne "active"} { append title " ([dict get $a mode])" }
        lappend trees [list "logical tree: $title" [$session tree logical $app]]
    }
    lappend trees [list "physical tree" [$session tree physical]]
    set State(trees) $trees
    Values
    Draw
}

# showWorkload W: the trees a workload would make (paper Fig. 2).
proc ::ips2::gui::tree::showWorkload {w} {
    variable State
    if {$State(session) ne ""} return
    set State(workload) 1
    set trees {}
    set physical [dict create]
    dict for {app a} [dict get $w applications] {
        set machines [dict create]
        foreach p [dict get $a processes] {
            set m [dict get $p machine]
            set node [dict create kind process name "#[dict get $p index]" \
                          path "app:$app/machine:$m/process:#[dict get $p index]" \
                          command [dict get $p command] children {}]
            dict lappend machines $m $node
            dict lappend physical $m [dict replace $node path "machine:$m/process:$app#[dict get $p index]" \
                                          name "$app#[dict get $p index]"]
        }
        set kids [lmap {m ps} $machines {
            dict create kind machine name $m path app:$app/machine:$m children $ps
        }]
        lappend trees [list "logical tree: $app ([dict get $a mode])" \
                           [dict create kind app name $app path app:$app children $kids]]
    }
    foreach r [dict get $w replays] {
        set name [file tail [dict get $r session]]
        lappend trees [list "replayed: $name ([dict get $r mode])" \
                           [dict create kind app name "$name" path replay:$name \
                                label "[dict get $r mode] mode" children {}]]
    }
    foreach c [dict get $w collectors] {
        set m [dict get $c machine]
        dict lappend physical $m [dict create kind collector name [dict get $c kind] \
                                      path machine:$m/collector:[dict get $c kind] children {}]
    }
    set kids [lmap {m ps} $physical { dict create kind machine name $m path machine:$m children $ps }]
    lappend trees [list "physical tree" [dict create kind physical name workload path physical children $kids]]
    set State(trees) $trees
    array unset ::ips2::gui::tree::Value
    Draw
}

# --- colours ------------------------------------------------------------------

# Values: the colour metric of every node of every tree, from the master's
# profile tables (one per level and tree).
proc ::ips2::gui::tree::Values {} {
    variable State
    variable Value
    variable Max
    array unset Value
    array unset Max
    set s $State(session)
    if {$s eq ""} return
    set metric $::ips2::gui::State(metric)
    set i 0
    foreach t $State(trees) {
        set root [dict get [lindex $t 1] path]
        foreach level {machine process thread procedure} {
            set Max($i,$level) 0
            if {$metric eq "npt"} {
                if {$level ni {process procedure}} continue
                set code [catch {$s npt $root -level $level} table]
                set column npt
            } else {
                set code [catch {$s profile $root -level $level -metric $metric} table]
                set column $metric
            }
            if {$code} continue
            set pi [lsearch -index 0 [dict get $table columns] path]
            set vi [lsearch -index 0 [dict get $table columns] $column]
            if {$pi < 0 || $vi < 0} continue
            foreach row [dict get $table rows] {
                set v [lindex $row $vi]
                if {![string is double -strict $v]} continue
                set Value([lindex $row $pi]) $v
                if {$v > $Max($i,$level)} { set Max($i,$level) $v }
            }
        }
        incr i
    }
}

proc ::ips2::gui::tree::recolour {} {
    variable State
    if {$State(session) eq ""} return
    ::ips2::gui::busy { Values }
    Draw
}

# Fill KIND PATH TREE: a node's fill colour.
proc ::ips2::gui::tree::Fill {kind path tree} {
    variable Colours
    variable Value
    variable Max
    if {![info exists Value($path)] || ![info exists Max($tree,$kind)] || $Max($tree,$kind) <= 0} {
        return [expr {[dict exists $Colours $kind] ? [dict get $Colours $kind] : "white"}]
    }
    set f [expr {max(0.0, min(1.0, double($Value($path)) / $Max($tree,$kind)))}]
    # white -> orange -> red
    if {$f < 0.5} {
        set g [expr {$f * 2}]
        set rgb [list 255 [expr {int(255 - 90 * $g)}] [expr {int(255 - 255 * $g)}]]
    } else {
        set g [expr {($f - 0.5) * 2}]
        set rgb [list 255 [expr {int(165 - 165 * $g)}] 0]
    }
    ::format #%02x%02x%02x {*}$rgb
}

# --- layout and drawing ---------------------------------------------------------

# Visible NODE: the children shown for a node, as node dicts, with the
# collapsing rules applied ("more" nodes standing for the rest).
proc ::ips2::gui::tree::Visible {node} {
    variable Expanded
    variable All
    variable MaxShown
    variable Value
    set path [dict get $node path]
    set kids [expr {[dict exists $node children] ? [dict get $node children] : {}}]
    if {![llength $kids]} { return {} }
    set kind [dict get $node kind]
    if {$kind eq "thread" && ![info exists Expanded($path)]} {
        set n [llength $kids]
        return [list [dict create kind more name "$n procedure[expr {$n == 1 ? "" : "s"}]" \
                          path $path/+procedures action expand of $path children {}]]
    }
    if {[llength $kids] <= $MaxShown || [info exists All($path)]} { return $kids }
    # The largest by the colour metric first, then by name.
    set keyed [lmap k $kids {
        set p [dict get $k path]
        list [expr {[info exists Value($p)] ? $Value($p) : -1}] $k
    }]
    set keyed [lsort -real -decreasing -index 0 $keyed]
    set shown [lmap k [lrange $keyed 0 [expr {$MaxShown - 1}]] { lindex $k 1 }]
    set rest [expr {[llength $kids] - $MaxShown}]
    lappend shown [dict create kind more name "+$rest more" path $path/+more action all of $path \
                       children {}]
    return $shown
}

# Layout NODE DEPTH SLOTVAR OUTVAR: assigns each visible node a slot (x) and
# depth (y); leaves take consecutive slots, a parent sits over its children.
# OUT gets {node slot depth parentIndex} entries; returns the node's slot.
proc ::ips2::gui::tree::Layout {node depth slotVar outVar {parent -1}} {
    upvar 1 $slotVar slot $outVar out
    set me [llength $out]
    lappend out [list $node 0 $depth $parent]
    set kids [Visible $node]
    if {![llength $kids]} {
        set x $slot
        set slot [expr {$slot + 1}]
    } else {
        set xs {}
        foreach k $kids { lappend xs [Layout $k [expr {$depth + 1}] slot out $me] }
        set x [expr {([lindex $xs 0] + [lindex $xs end]) / 2.0}]
    }
    lset out $me 1 $x
    return $x
}

proc ::ips2::gui::tree::Draw {} {
    variable State
    variable Item
    variable Slot
    variable LevelHeight
    set c $State(canvas)
    if {$c eq ""} return
    $c delete all
    array unset Item
    set z $State(zoom)
    set font [list TkDefaultFont [expr {max(6, int(round(9 * $z)))}]]
    set bold [list TkDefaultFont [expr {max(6, int(round(10 * $z)))}] bold]
    set x0 [expr {20 * $z}]
    set ti 0
    foreach t $State(trees) {
        lassign $t title tree
        set slot 0
        set out {}
        Layout $tree 0 slot out
        set width [expr {max($slot, 1) * $Slot * $z}]
        $c create text [expr {$x0 + $width / 2.0}] [expr {14 * $z}] -text $title -font $bold \
            -tags title
        # Edges first, then nodes over them.
        set centres {}
        foreach e $out {
            lassign $e node s depth parent
            lappend centres [list [expr {$x0 + ($s + 0.5) * $Slot * $z}] \
                                 [expr {(55 + $depth * $LevelHeight) * $z}]]
        }
        foreach e $out xy $centres {
            set parent [lindex $e 3]
            if {$parent < 0} continue
            lassign $xy x y
            lassign [lindex $centres $parent] px py
            $c create line $px [expr {$py + 16 * $z}] $x [expr {$y - 16 * $z}] -fill gray45 -tags edge
        }
        foreach e $out xy $centres {
            lassign $xy x y
            DrawNode $c [lindex $e 0] $x $y $z $ti $font
        }
        set x0 [expr {$x0 + $width + 40 * $z}]
        incr ti
    }
    if {![llength $State(trees)]} {
        $c create text 20 20 -anchor nw -font $bold -fill gray40 \
            -text "No session open.\nFile > Open session (Ctrl-O), or describe a workload in the Workload tab and Run (F5)."
    }
    lassign [$c bbox all] bx0 by0 bx1 by1
    if {$bx1 ne ""} { $c configure -scrollregion [list 0 0 [expr {$bx1 + 20}] [expr {$by1 + 20}]] }
    highlight $::ips2::gui::State(node)
}

# Label NODE: the text in a node: its name, shortened; a process's program.
proc ::ips2::gui::tree::Label {node} {
    set name [dict get $node name]
    set kind [dict get $node kind]
    set text $name
    if {$kind eq "process" && [dict exists $node command] && [llength [dict get $node command]]} {
        set text "$name\n[file tail [lindex [dict get $node command] 0]]"
    } elseif {$kind eq "thread"} {
        set text "~$name"
    } elseif {$kind eq "app" && [dict exists $node label]} {
        set text "$name\n[dict get $node label]"
    }
    set lines [lmap l [split $text \n] {
        expr {[string length $l] > 16 ? "[string range $l 0 14]…" : $l}
    }]
    join $lines \n
}

proc ::ips2::gui::tree::DrawNode {c node x y z tree font} {
    variable Item
    variable Slot
    set kind [dict get $node kind]
    set path [dict get $node path]
    set w [expr {($Slot - 12) * $z / 2.0}]
    set h [expr {16 * $z}]
    set fill [Fill $kind $path $tree]
    set tags [list node n:$path]
    set outline black
    switch -- $kind {
        physical - app {
            set item [$c create polygon $x [expr {$y - $h - 6 * $z}] [expr {$x - $w}] [expr {$y + $h}] \
                          [expr {$x + $w}] [expr {$y + $h}] -fill $fill -outline $outline -tags $tags]
            set ty [expr {$y + 5 * $z}]
        }
        machine {
            set item [$c create rectangle [expr {$x - $w}] [expr {$y - $h}] [expr {$x + $w}] \
                          [expr {$y + $h}] -fill $fill -outline $outline -width 2 -tags $tags]
            set ty $y
        }
        process {
            set item [$c create oval [expr {$x - $w}] [expr {$y - $h}] [expr {$x + $w}] \
                          [expr {$y + $h}] -fill $fill -outline $outline -tags $tags]
            set ty $y
        }
        collector {
            set a [expr {$h * 0.55}]
            set pts {}
            foreach {dx dy} [list -$w -$a -[expr {$w - $a}] -$h [expr {$w - $a}] -$h $w -$a \
                                 $w $a [expr {$w - $a}] $h -[expr {$w - $a}] $h -$w $a] {
                lappend pts [expr {$x + $dx}] [expr {$y + $dy}]
            }
            set item [$c create polygon {*}$pts -fill $fill -outline $outline -tags $tags]
            set ty $y
        }
        thread {
            set item [$c create oval [expr {$x - $w * 0.8}] [expr {$y - $h * 0.8}] [expr {$x + $w * 0.8}] \
                          [expr {$y + $h * 0.8}] -fill $fill -outline $outline -dash {4 2} -tags $tags]
            set ty $y
        }
        procedure {
            set item [$c create rectangle [expr {$x - $w}] [expr {$y - $h * 0.7}] [expr {$x + $w}] \
                          [expr {$y + $h * 0.7}] -fill $fill -outline gray30 -tags $tags]
            set ty $y
        }
        default {
            set item [$c create rectangle [expr {$x - $w}] [expr {$y - $h * 0.7}] [expr {$x + $w}] \
                          [expr {$y + $h * 0.7}] -fill $fill -outline gray50 -dash {2 2} -tags $tags]
            set ty $y
        }
    }
    set Item($path) $item
    set ::ips2::gui::tree::Node($item) $node
    set t [$c create text $x $ty -text [Label $node] -font $font -justify center -tags $tags]
    set ::ips2::gui::tree::Node($t) $node
}

# --- interaction ----------------------------------------------------------------

proc ::ips2::gui::tree::NodeOf {c item} {
    set id [$c find withtag $item]
    if {![info exists ::ips2::gui::tree::Node($id)]} { return "" }
    return $::ips2::gui::tree::Node($id)
}

# Click: select a node and show its metric table; a "more" node expands.
proc ::ips2::gui::tree::Click {c item} {
    variable State
    set node [NodeOf $c $item]
    if {$node eq ""} return
    if {[dict get $node kind] eq "more"} {
        Expand $node
        return
    }
    set path [dict get $node path]
    if {$State(workload)} {
        ::ips2::gui::status "[dict get $node kind] [dict get $node name]: run the workload (F5) to analyse it"
        return
    }
    ::ips2::gui::select $path
    ::ips2::gui::ShowMetrics $path
}

proc ::ips2::gui::tree::Expand {node} {
    variable Expanded
    variable All
    set of [dict get $node of]
    if {[dict get $node action] eq "expand"} {
        set Expanded($of) 1
    } else {
        set All($of) 1
    }
    Draw
}

# Toggle: a thread's procedures shown or folded.
proc ::ips2::gui::tree::Toggle {c item} {
    variable Expanded
    set node [NodeOf $c $item]
    if {$node eq "" || [dict get $node kind] ne "thread"} return
    set path [dict get $node path]
    if {[info exists Expanded($path)]} {
        unset Expanded($path)
    } else {
        set Expanded($path) 1
    }
    Draw
}

proc ::ips2::gui::tree::expandAll {on} {
    variable State
    variable Expanded
    array unset Expanded
    if {$on} {
        foreach t $State(trees) { MarkThreads [lindex $t 1] }
    }
    Draw
}

proc ::ips2::gui::tree::MarkThreads {node} {
    variable Expanded
    if {[dict get $node kind] eq "thread"} { set Expanded([dict get $node path]) 1 }
    if {[dict exists $node children]} {
        foreach k [dict get $node children] { MarkThreads $k }
    }
}

proc ::ips2::gui::tree::Hover {c item} {
    variable Value
    set node [NodeOf $c $item]
    if {$node eq ""} return
    set path [dict get $node path]
    set text "[dict get $node kind] $path"
    if {[dict exists $node command]} { append text "  [join [dict get $node command] { }]" }
    if {[dict exists $node status]} { append text "  \[[dict get $node status]\]" }
    if {[info exists Value($path)]} {
        append text "  $::ips2::gui::State(metric) = [ips2::format::Cell $Value($path) \
            [expr {$::ips2::gui::State(metric) in {calls msgs_sent msgs_recv io_ops bytes_sent bytes_recv io_bytes} ? "" : "ns"}] 0]"
    }
    ::ips2::gui::status $text
}

# Context: the menu of analyses for a node.
proc ::ips2::gui::tree::Context {c item X Y} {
    variable State
    set node [NodeOf $c $item]
    if {$node eq "" || $State(workload) || [dict get $node kind] eq "more"} return
    set path [dict get $node path]
    ::ips2::gui::select $path
    set m $c.menu
    $m delete 0 end
    foreach sub {profile cp zero npt} { catch {destroy $m.$sub} }
    $m add command -label "Metric table" -command [list ::ips2::gui::ShowMetrics $path]
    menu $m.profile
    foreach level [::ips2::gui::Levels $path] {
        $m.profile add command -label "$level level" -command [list ::ips2::gui::ShowProfile $path $level]
    }
    $m add cascade -label "Profile table ($::ips2::gui::State(metric))" -menu $m.profile
    menu $m.cp
    foreach mode {intra inter global} {
        foreach level {machine process procedure} {
            $m.cp add command -label "$mode-application, $level level" \
                -command [list ::ips2::gui::ShowCp $path $mode $level]
        }
        $m.cp add separator
    }
    $m.cp add command -label "Critical path segments" -command [list ::ips2::gui::ShowCpPath $path]
    $m.cp add command -label "Critical-path imbalance" -command [list ::ips2::gui::ShowCpImbalance $path]
    $m add cascade -label "Critical path profile" -menu $m.cp
    menu $m.npt
    foreach level {process procedure} {
        $m.npt add command -label "$level level" -command [list ::ips2::gui::ShowNpt $path $level]
    }
    $m add cascade -label "NPT profile" -menu $m.npt
    $m add command -label "gprof table" -command [list ::ips2::gui::ShowGprof $path]
    $m add command -label "Synchronisation objects" -command [list ::ips2::gui::ShowObjects $path]
    $m add command -label "Latency of the procedures" -command [list ::ips2::gui::ShowLatency $path]
    $m add separator
    $m add command -label "Time histogram ($::ips2::gui::State(metric))" \
        -command [list ::ips2::gui::ShowHistogram $path]
    $m add command -label "Add to the histogram" -command [list ::ips2::gui::AddToHistogram $path]
    $m add command -label "Histogram of every application (overlay)" -command ::ips2::gui::ShowOverlay
    $m add separator
    $m add command -label "Critical-path zeroing" -command [list ::ips2::gui::ShowZeroing $path]
    if {[dict get $node kind] eq "procedure"} {
        $m add command -label "Critical-path zeroing with what it calls" \
            -command [list ::ips2::gui::ShowZeroing $path "" 1]
    }
    $m add command -label "Trace browser (the critical path highlighted)" -command ::ips2::gui::ShowTrace
    if {[dict get $node kind] eq "thread"} {
        $m add separator
        $m add command -label "Show/fold procedures" -command [list ::ips2::gui::tree::Toggle $c $item]
    }
    tk_popup $m $X $Y
}

# highlight PATH: a thick blue outline around the selected node.
proc ::ips2::gui::tree::highlight {path} {
    variable State
    variable Item
    set c $State(canvas)
    if {$c eq ""} return
    $c delete selection
    if {![info exists Item($path)]} return
    lassign [$c bbox $Item($path)] x0 y0 x1 y1
    $c create rectangle [expr {$x0 - 3}] [expr {$y0 - 3}] [expr {$x1 + 3}] [expr {$y1 + 3}] \
        -outline blue -width 2 -tags selection
}

proc ::ips2::gui::tree::zoom {factor} {
    variable State
    if {$factor == 0} {
        set State(zoom) 1.0
    } else {
        set State(zoom) [expr {max(0.3, min(3.0, $State(zoom) * $factor))}]
    }
    Draw
}

# nodeXY PATH: the centre of a drawn node in the canvas window's
# coordinates, scrolled into view first; "" if not drawn (folded).
proc ::ips2::gui::tree::nodeXY {path} {
    variable State
    variable Item
    set c $State(canvas)
    if {![info exists Item($path)]} { return "" }
    lassign [$c bbox $Item($path)] x0 y0 x1 y1
    lassign [$c cget -scrollregion] - - sw sh
    if {$sw > 0} {
        $c xview moveto [expr {max(0, ($x0 - 40.0) / $sw)}]
        $c yview moveto [expr {max(0, ($y0 - 40.0) / $sh)}]
    }
    update idletasks
    set cx [expr {($x0 + $x1) / 2.0}]
    set cy [expr {($y0 + $y1) / 2.0}]
    list [expr {int($cx - [$c canvasx 0])}] [expr {int($cy - [$c canvasy 0])}]
}

proc ::ips2::gui::tree::widget {} {
    variable State
    return $State(canvas)
}

# paths: the paths of the drawn nodes (tests).
proc ::ips2::gui::tree::paths {} {
    variable Item
    lsort [array names Item]
}

# allPaths: every node's path, in the trees' order (folded ones too).
proc ::ips2::gui::tree::allPaths {} {
    variable State
    set out {}
    foreach t $State(trees) { Collect [lindex $t 1] out }
    return $out
}

proc ::ips2::gui::tree::Collect {node outVar} {
    upvar 1 $outVar out
    lappend out [dict get $node path]
    if {[dict exists $node children]} {
        foreach k [dict get $node children] { Collect $k out }
    }
}

# Chain NODE PATH: the nodes from NODE down to the one with PATH, or {}.
proc ::ips2::gui::tree::Chain {node path} {
    if {[dict get $node path] eq $path} { return [list $node] }
    if {[dict exists $node children]} {
        foreach k [dict get $node children] {
            set chain [Chain $k $path]
            if {[llength $chain]} { return [list $node {*}$chain] }
        }
    }
    return {}
}

# reveal PATH: the node drawn (its thread's procedures unfolded, every child
# of a crowded parent shown) and scrolled into view; 0 if no tree holds it.
proc ::ips2::gui::tree::reveal {path} {
    variable State
    variable Expanded
    variable All
    variable Item
    variable MaxShown
    set chain {}
    foreach t $State(trees) {
        set chain [Chain [lindex $t 1] $path]
        if {[llength $chain]} break
    }
    if {![llength $chain]} { return 0 }
    set changed 0
    foreach node [lrange $chain 0 end-1] {
        set p [dict get $node path]
        if {[dict get $node kind] eq "thread" && ![info exists Expanded($p)]} {
            set Expanded($p) 1
            set changed 1
        }
        if {[llength [dict get $node children]] > $MaxShown && ![info exists All($p)]} {
            set All($p) 1
            set changed 1
        }
    }
    if {$changed} { Draw }
    set c $State(canvas)
    if {![info exists Item($path)]} { return 0 }
    lassign [$c bbox $Item($path)] x0 y0 x1 y1
    lassign [$c cget -scrollregion] - - sw sh
    if {$sw ne "" && $sw > 0} {
        set vx0 [$c canvasx 0]
        set vy0 [$c canvasy 0]
        if {$x0 < $vx0 || $x1 > $vx0 + [winfo width $c]} {
            $c xview moveto [expr {max(0, ($x0 - 40.0) / $sw)}]
        }
        if {$y0 < $vy0 || $y1 > $vy0 + [winfo height $c]} {
            $c yview moveto [expr {max(0, ($y0 - 40.0) / $sh)}]
        }
    }
    return 1
}

# gui_table.tcl - the result area of the master analyst window: every table
# (metric, profile, critical path, NPT, gprof, zeroing, ...) in a tab of its
# own, shown with tklib's tablelist.  The cells hold the master's values as
# they are (what CSV export and the tests read back); times show in ms and
# percentages with one decimal, as the command line's text does
# (ips2::format::Cell).  A click on a column label sorts by it (numbers as
# numbers); a pane that follows the phase reruns its query when the phase
# changes; side by side moves a result into a second notebook beside the
# first; double-click on a row with a node path selects that node (or runs
# the pane's row action, e.g. the trace browser for a critical-path entry).
# Queries go through ips2::gui::query (the session's query thread): a pane
# says "computing" with a Cancel button until its answer comes, and the
# window stays live meanwhile.
# The numbers a user came for stay in sight: a result pane shows the
# numeric columns right after the first one (the row's name), the other
# text columns after them; long names and paths show elided in the middle
# (the first column to 28 characters, the others to 36), their whole text
# in a tooltip.  The cells keep the values whole and contents gives the
# table in its own column order.  A pane's title wraps beside its buttons,
# so that the path's length it ends with shows too.  Under the title, a
# metric, profile, NPT, gprof or critical-path table says which process-time
# clock its times come from, and warns about procedures too short for it,
# as the command line's headers do (ips2::format::clockLines).
#
#   ips2::gui::table::buildArea W               the notebooks into frame W
#   ips2::gui::table::open TITLE WORDS ?-reuse KEY? ?-follow 0|1? ?-onrow CMD? ?-post CMD?
#                                      ?-info DICT?
#       WORDS: a session subcommand's words; the phase options are appended
#       when the pane follows the phase.  The answer is a table dict
#       {columns rows ...}, or -post CMD makes it a table or a list
#       {LABEL TABLE ...}.  -info: more keys kept in the pane's dict.
#       Returns the pane (its tables come later: see state, query::wait).
#   ips2::gui::table::state PANE                computing | done | error
#   ips2::gui::table::contents PANE ?I?         the I-th table as the widget holds it
#   ips2::gui::table::export PANE FILE ?I?      that table as CSV
#   ips2::gui::table::current / panes / closeCurrent / closeAll / sideBySide / phaseChanged

package require Tcl 8.6
package require Tk 8.6
package require tablelist_tile
package require tooltip
package require ips2::format 1.0
package require ips2::gui::query 1.0
package provide ips2::gui::table 1.0

namespace eval ::ips2::gui::table {
    # Pane(FRAME): dict title query follow onrow tables {TABLELIST ...}
    # labels {...} phase (the phase shown) kind table|other
    variable Pane
    array set Pane {}
    variable Area ""
    variable Serial 0
    # Reuse(KEY): the pane a "reused" kind of result goes to.
    variable Reuse
    array set Reuse {}
    # The notebook new results go to.
    variable Target ""
    # Order(TABLELIST): the table's column index of each column shown, when
    # the columns show in another order than the table's.
    variable Order
    array set Order {}
}

proc ::ips2::gui::table::buildArea {w} {
    variable Area
    variable Target
    set Area $w
    ttk::panedwindow $w.pw -orient horizontal
    ttk::notebook $w.pw.nb1
    ttk::notebook::enableTraversal $w.pw.nb1
    $w.pw add $w.pw.nb1 -weight 1
    pack $w.pw -fill both -expand 1
    set Target $w.pw.nb1
    bind $w.pw.nb1 <<NotebookTabChanged>> [list set ::ips2::gui::table::Target $w.pw.nb1]
    Placeholder $w.pw.nb1
    # The first tablelist of a process loads most of the package's code
    # (100-150 ms here): one is made now, so that the first table shown
    # does not stop the window's event loop that long.
    tablelist::tablelist $w.warmup -columns {0 "" left}
    $w.warmup insertlist end {{""}}
    destroy $w.warmup
}

proc ::ips2::gui::table::Placeholder {nb} {
    if {[winfo exists $nb.empty]} return
    ttk::label $nb.empty -padding 20 -justify left -text \
        "Results appear here.\n\nClick a node of a tree for its metric table; right-click it for\nprofile, critical-path, NPT and gprof tables, histograms and zeroing.\nThe toolbar buttons and the keys m p c n g h z t act on the selected node."
    $nb add $nb.empty -text Welcome
}

# NewPane TITLE: a frame in the target notebook, selected.
proc ::ips2::gui::table::NewPane {title {reuse ""}} {
    variable Target
    variable Serial
    variable Reuse
    variable Pane
    if {$reuse ne "" && [info exists Reuse($reuse)] && [winfo exists $Reuse($reuse)]} {
        set f $Reuse($reuse)
        foreach child [winfo children $f] { destroy $child }
        set nb [winfo parent $f]
    } else {
        set nb $Target
        if {![winfo exists $nb]} { set nb [lindex [Notebooks] 0] }
        set f $nb.p[incr Serial]
        ttk::frame $f
        $nb add $f -text [Short $title]
        if {$reuse ne ""} { set Reuse($reuse) $f }
    }
    if {[winfo exists $nb.empty]} { destroy $nb.empty }
    $nb tab $f -text [Short $title]
    $nb select $f
    return $f
}

proc ::ips2::gui::table::Short {title} {
    expr {[string length $title] > 30 ? "[string range $title 0 28]…" : $title}
}

proc ::ips2::gui::table::Notebooks {} {
    variable Area
    lmap nb [$Area.pw panes] { set nb }
}

# open TITLE QUERY ?options?: runs the query and shows its table(s).
proc ::ips2::gui::table::open {title query args} {
    variable Pane
    set o [dict merge {-reuse "" -follow 1 -onrow "" -post "" -info {}} $args]
    set f [NewPane $title [dict get $o -reuse]]
    set Pane($f) [dict merge [dict get $o -info] [dict create title $title query $query \
        follow [dict get $o -follow] onrow [dict get $o -onrow] post [dict get $o -post] \
        tables {} labels {} phase "" kind table gen 0 state computing]]
    Header $f
    Fill $f
    return $f
}

proc ::ips2::gui::table::state {f} {
    variable Pane
    dict get $Pane($f) state
}

proc ::ips2::gui::table::Header {f} {
    variable Pane
    ttk::frame $f.top
    ttk::label $f.top.title -text [dict get $Pane($f) title] -font TkHeadingFont -anchor w
    # a long title (long names) wraps, so that its notes (the path's length) show
    bind $f.top.title <Configure> {
        if {[%W cget -wraplength] != %w} { %W configure -wraplength %w }
    }
    ttk::checkbutton $f.top.follow -text "follows the phase" \
        -variable ::ips2::gui::table::Follow($f) -command [list ::ips2::gui::table::FollowChanged $f]
    set ::ips2::gui::table::Follow($f) [dict get $Pane($f) follow]
    ttk::button $f.top.csv -text "CSV..." -command [list ::ips2::gui::table::ExportDialog $f] \
        -style Toolbutton
    ttk::button $f.top.side -text "Side by side" -command [list ::ips2::gui::table::sideBySide $f] \
        -style Toolbutton
    ttk::button $f.top.close -text "Close" -command [list ::ips2::gui::table::close $f] \
        -style Toolbutton
    # the buttons first: a long title takes what is left, never their room
    pack $f.top.close $f.top.side $f.top.csv $f.top.follow -side right -padx 2
    pack $f.top.title -side left -fill x -expand 1
    pack $f.top -fill x
}

proc ::ips2::gui::table::FollowChanged {f} {
    variable Pane
    dict set Pane($f) follow $::ips2::gui::table::Follow($f)
    if {$::ips2::gui::table::Follow($f)} { Fill $f }
}

# Fill PANE: asks the pane's query (with the current phase when it follows
# it); Filled makes its tables when the answer comes.  An answer to an
# older question of the pane is dropped.
proc ::ips2::gui::table::Fill {f} {
    variable Pane
    set phase [expr {[dict get $Pane($f) follow] ? [::ips2::gui::phaseArgs] : {}}]
    foreach w {body error wait} { if {[winfo exists $f.$w]} { destroy $f.$w } }
    dict incr Pane($f) gen
    set gen [dict get $Pane($f) gen]
    dict set Pane($f) state computing
    dict set Pane($f) tables {}
    set title [dict get $Pane($f) title]
    if {[llength $phase]} { append title "  —  phase [lindex $phase 1]" }
    $f.top.title configure -text $title
    ttk::frame $f.wait -padding 20
    ttk::label $f.wait.text -text "computing $title ..."
    ttk::progressbar $f.wait.bar -mode indeterminate -length 200
    ttk::button $f.wait.cancel -text Cancel -command ::ips2::gui::query::cancel
    pack $f.wait.text $f.wait.bar $f.wait.cancel -side top -anchor w -pady 4
    pack $f.wait -fill both -expand 1
    $f.wait.bar start 40
    ::ips2::gui::query::ask [list {*}[dict get $Pane($f) query] {*}$phase] \
        [list ::ips2::gui::table::Filled $f $gen $phase] $title
}

proc ::ips2::gui::table::Filled {f gen phase code result ms} {
    variable Pane
    if {![info exists Pane($f)] || ![winfo exists $f] || [dict get $Pane($f) gen] != $gen} return
    if {[winfo exists $f.wait]} { destroy $f.wait }
    if {!$code && [dict get $Pane($f) post] ne ""} {
        set code [catch {{*}[dict get $Pane($f) post] $result} result]
    }
    dict set Pane($f) phase [lindex $phase 1]
    dict set Pane($f) ms $ms
    set title [dict get $Pane($f) title]
    if {[llength $phase]} { append title "  —  phase [lindex $phase 1]" }
    $f.top.title configure -text $title
    if {$code} {
        ttk::label $f.error -text "$title:\n$result" -foreground red3 -padding 10 -wraplength 600 \
            -justify left
        pack $f.error -fill both -expand 1
        dict set Pane($f) tables {}
        dict set Pane($f) state error
        ::ips2::gui::status "[dict get $Pane($f) title]: $result" error
        return
    }
    if {[dict exists $result columns] && [dict exists $result rows] && [dict size $result] >= 2
            && ![catch {llength [dict get $result columns]}] && [llength $result] % 2 == 0
            && [lindex $result 0] in {columns rows}} {
        set result [list "" $result]
    }
    ttk::panedwindow $f.body -orient vertical
    pack $f.body -fill both -expand 1
    set tables {}
    set labels {}
    set columns {}
    set i 0
    foreach {label t} $result {
        lappend columns [dict get $t columns]
        set sub $f.body.t$i
        ttk::frame $sub
        if {$label ne ""} {
            ttk::label $sub.label -text $label -anchor w
            pack $sub.label -fill x
        }
        lappend tables [Tablelist $sub $t $f 1]
        lappend labels $label
        $f.body add $sub -weight 1
        incr i
    }
    dict set Pane($f) tables $tables
    dict set Pane($f) labels $labels
    dict set Pane($f) columns $columns
    dict set Pane($f) answer $result
    dict set Pane($f) state done
    set rows 0
    set notes {}
    foreach {label t} $result {
        incr rows [llength [dict get $t rows]]
        # A critical-path table says its path's length and its warnings.
        if {[dict exists $t length]} {
            set note "path length [ips2::format::Cell [dict get $t length] ns 0] ms"
            if {[dict exists $t elapsed] && [dict get $t elapsed] > 0} {
                append note " of [ips2::format::Cell [dict get $t elapsed] ns 0] ms elapsed"
            }
            lappend notes $note
        }
        if {[dict exists $t warnings] && [llength [dict get $t warnings]]} {
            lappend notes "[llength [dict get $t warnings]] warnings: [lindex [dict get $t warnings] 0]"
        }
    }
    if {[llength $notes]} { $f.top.title configure -text "$title  ([join $notes {; }])" }
    ClockLines $f
    ::ips2::gui::status "$title: $rows rows in $ms ms[expr {[llength $notes] ? "; [join $notes {; }]" : ""}]"
}

# ClockNode QUERY: the node whose processes' clock measured the times of a
# table of QUERY (an intra-application path's: its application), or "" for
# a table without times of procedures.
proc ::ips2::gui::table::ClockNode {query} {
    set words [lassign $query command]
    if {$command ni {metrics profile npt gprof cp cp-path cp-imbalance}} { return "" }
    set node physical
    if {[llength $words] && [string index [lindex $words 0] 0] ne "-"} { set node [lindex $words 0] }
    set app [lsearch -exact $words -app]
    set mode [lsearch -exact $words -mode]
    if {$app >= 0 && $mode >= 0 && [lindex $words $mode+1] eq "intra"} {
        set node app:[lindex $words $app+1]
    }
    return $node
}

# ClockLines PANE: the clock's lines under the pane's title (the warning
# in red), or none.
proc ::ips2::gui::table::ClockLines {f} {
    variable Pane
    set node [ClockNode [dict get $Pane($f) query]]
    if {$node eq "" || [catch {[::ips2::gui::session] clock $node} clock]} {
        if {[winfo exists $f.clock]} { destroy $f.clock }
        return
    }
    set lines [ips2::format::clockLines $clock]
    if {![winfo exists $f.clock]} {
        ttk::label $f.clock -anchor w -justify left
        pack $f.clock -after $f.top -fill x -padx 4
    }
    $f.clock configure -text [join $lines \n] \
        -foreground [expr {[llength $lines] > 1 ? "red3" : ""}]
}

# Tablelist FRAME TABLE PANE ?NUMBERSFIRST?: a tablelist in FRAME holding
# TABLE; with NUMBERSFIRST its numeric columns show right after the first.
proc ::ips2::gui::table::Tablelist {sub t pane {numbersfirst 0}} {
    variable Order
    set columns [dict get $t columns]
    set rows [dict get $t rows]
    set spec {}
    set i 0
    set numeric {}
    foreach c $columns {
        lassign $c name unit
        set isnum [expr {[llength $rows] > 0}]
        foreach r $rows {
            set v [lindex $r $i]
            if {$v ne "" && ![ips2::format::IsNumber $v]} { set isnum 0; break }
        }
        if {$name in {name path application machine metric command process thread procedure pid}} {
            set isnum 0
        }
        lappend numeric $isnum
        incr i
    }
    set order [NumbersFirst $numeric $numbersfirst]
    set columns [lmap i $order { lindex $columns $i }]
    set numeric [lmap i $order { lindex $numeric $i }]
    set rows [lmap r $rows { lmap i $order { lindex $r $i } }]
    foreach c $columns isnum $numeric {
        lassign $c name unit
        set shown [ips2::format::DisplayUnit $unit 0]
        set label [expr {$shown eq "" ? $name : "$name ($shown)"}]
        lappend spec 0 $label [expr {$isnum ? "right" : "left"}]
    }
    set tl $sub.tl
    tablelist::tablelist $tl -columns $spec -stretch end -selectmode extended \
        -labelcommand tablelist::sortByColumn -xscrollcommand [list $sub.x set] \
        -yscrollcommand [list $sub.y set] -stripebackground #f0f4fa -showseparators 1 \
        -height 8 -tooltipaddcommand ::ips2::gui::table::Tooltip \
        -tooltipdelcommand ::ips2::gui::table::NoTooltip
    if {$order ne [lsearch -all $order *]} {
        set Order($tl) $order
        bind $tl <Destroy> [list unset -nocomplain ::ips2::gui::table::Order($tl)]
    }
    ttk::scrollbar $sub.x -orient horizontal -command [list $tl xview]
    ttk::scrollbar $sub.y -orient vertical -command [list $tl yview]
    set i 0
    foreach c $columns isnum $numeric {
        lassign $c name unit
        $tl columnconfigure $i -name $name
        if {$isnum} {
            # a blank cell (no value: n/a) sorts below every number
            set blank [expr {[lsearch -exact -index $i $rows ""] >= 0}]
            $tl columnconfigure $i -sortmode [expr {$blank ? "command" : "real"}] \
                -sortcommand ::ips2::gui::table::CompareNumbers \
                -formatcommand [list ::ips2::gui::table::Format $tl $unit [lsearch -index 0 $columns unit]]
        } else {
            # long names and paths would hide the numbers: they show elided
            # in the middle (the cell keeps them whole; the tooltip says them)
            $tl columnconfigure $i -sortmode dictionary \
                -formatcommand [list ::ips2::gui::table::Elide [expr {$i == 0 ? 28 : 36}]]
        }
        if {$name eq "unit"} {
            $tl columnconfigure $i -formatcommand {apply {{unit} { ips2::format::DisplayUnit $unit 0 }}}
        }
        incr i
    }
    $tl insertlist end $rows
    pack $sub.x -side bottom -fill x
    pack $sub.y -side right -fill y
    pack $tl -fill both -expand 1
    bind [$tl bodytag] <Double-Button-1> [list ::ips2::gui::table::RowAction $pane $tl]
    return $tl
}

# NumbersFirst NUMERIC ON: the order the columns show in (their indices):
# the first, the numeric ones, the others; as they are unless ON.
proc ::ips2::gui::table::NumbersFirst {numeric on} {
    set all [lsearch -all $numeric *]
    if {!$on || ![llength $all]} { return $all }
    set first [expr {[lindex $numeric 0] ? {} : 0}]
    set numbers [lsearch -all -exact $numeric 1]
    set texts [lmap i [lsearch -all -exact $numeric 0] { expr {$i == 0 ? [continue] : $i} }]
    concat $first $numbers $texts
}

# Elide MAX VALUE: VALUE as shown in a column of text: at most MAX
# characters, the middle left out (a third before, the rest after).
proc ::ips2::gui::table::Elide {max value} {
    if {[string length $value] <= $max} { return $value }
    set head [expr {($max - 1) / 3}]
    set tail [expr {$max - 1 - $head}]
    return "[string range $value 0 [expr {$head - 1}]]…[string range $value end-[expr {$tail - 1}] end]"
}

# Tooltip TABLELIST ROW COLUMN: over an elided cell, its whole text.
proc ::ips2::gui::table::Tooltip {tl row col} {
    if {$row < 0 || $col < 0} return
    set full [$tl getcells $row,$col]
    set shown [$tl getformattedcells $row,$col]
    if {$shown ne $full && [string first … $shown] >= 0} { tooltip::tooltip $tl $full }
}

proc ::ips2::gui::table::NoTooltip {tl} { tooltip::tooltip $tl "" }

# Format TABLELIST UNIT UNITCOLUMN VALUE: a cell as the command line's text
# shows it; a metric table's values take their row's unit.
proc ::ips2::gui::table::Format {tl unit unitcol value} {
    if {$value eq "" && $unitcol >= 0} { return n/a } ;# a metric not measured there
    if {$unit eq "" && $unitcol >= 0} {
        set row [lindex [$tl formatinfo] 1]
        set unit [$tl getcells $row,$unitcol]
    }
    ips2::format::Cell $value $unit 0
}

proc ::ips2::gui::table::CompareNumbers {a b} {
    if {$a eq "" || $b eq ""} { return [expr {($a ne "") - ($b ne "")}] }
    expr {$a < $b ? -1 : $a > $b}
}

# RowAction PANE TABLELIST: the pane's row action, else select the node a
# path column names.
proc ::ips2::gui::table::RowAction {f tl} {
    variable Pane
    set i [$tl curselection]
    if {![llength $i]} return
    set i [lindex $i 0]
    set row [dict create]
    for {set c 0} {$c < [$tl columncount]} {incr c} {
        dict set row [$tl columncget $c -name] [$tl getcells $i,$c]
    }
    if {[dict get $Pane($f) onrow] ne ""} {
        {*}[dict get $Pane($f) onrow] $f $row
        return
    }
    if {[dict exists $row path] && [dict get $row path] ne ""} {
        ::ips2::gui::select [dict get $row path]
    }
}

# --- the panes -------------------------------------------------------------------

proc ::ips2::gui::table::current {} {
    variable Target
    variable Area
    foreach nb [list $Target {*}[Notebooks]] {
        if {[winfo exists $nb] && [$nb select] ne "" && ![string match *.empty [$nb select]]} {
            return [$nb select]
        }
    }
    return ""
}

proc ::ips2::gui::table::panes {} {
    variable Pane
    lmap f [lsort -dictionary [array names Pane]] { if {[winfo exists $f]} { set f } else continue }
}

proc ::ips2::gui::table::pane {f} {
    variable Pane
    return $Pane($f)
}

# register FRAME INFO: another kind of pane (histogram, trace) in the area.
proc ::ips2::gui::table::register {f info} {
    variable Pane
    set Pane($f) [dict merge {follow 0 tables {} kind other} $info]
}

# newPane TITLE ?REUSE?: a frame for another kind of pane; with REUSE, the
# pane last made with that key (emptied) if it is still open.
proc ::ips2::gui::table::newPane {title {reuse ""}} { NewPane $title $reuse }

proc ::ips2::gui::table::close {f} {
    variable Pane
    if {![winfo exists $f]} return
    set nb [winfo parent $f]
    destroy $f
    unset -nocomplain Pane($f)
    if {![llength [$nb tabs]]} {
        if {$nb ne [lindex [Notebooks] 0]} {
            MergeBack
        } else {
            Placeholder $nb
        }
    }
}

proc ::ips2::gui::table::closeCurrent {} {
    set f [current]
    if {$f ne ""} { close $f }
}

proc ::ips2::gui::table::closeAll {} {
    variable Pane
    foreach f [array names Pane] { close $f }
    array unset Pane
}

# sideBySide ?PANE?: moves a result into the other notebook (made on demand),
# so that two results show side by side.
proc ::ips2::gui::table::sideBySide {{f ""}} {
    variable Area
    variable Target
    if {$f eq ""} { set f [current] }
    if {$f eq "" || ![winfo exists $f]} return
    set from [winfo parent $f]
    set nbs [Notebooks]
    if {[llength $nbs] < 2} {
        set nb2 $Area.pw.nb2
        if {![winfo exists $nb2]} {
            ttk::notebook $nb2
            bind $nb2 <<NotebookTabChanged>> [list set ::ips2::gui::table::Target $nb2]
        }
        $Area.pw add $nb2 -weight 1
        set nbs [Notebooks]
    }
    set to [expr {$from eq [lindex $nbs 0] ? [lindex $nbs 1] : [lindex $nbs 0]}]
    set text [$from tab $f -text]
    # A ttk::notebook manages only its own children: the pane moves by
    # being managed by the other one, which ttk allows for slaves of a
    # common parent; panes are children of their notebook, so rebuild.
    Move $f $from $to $text
}

# Move PANE FROM TO TEXT: a pane re-made in the other notebook (widgets
# cannot change parents in Tk): the same query, a new frame.
proc ::ips2::gui::table::Move {f from to text} {
    variable Pane
    variable Target
    variable Serial
    set info $Pane($f)
    if {[dict get $info kind] ne "table"} {
        # Histograms and trace views are re-made by their owners.
        set Target $to
        {*}[dict get $info remake]
        close $f
        return
    }
    set Target $to
    set new [open [dict get $info title] [dict get $info query] -follow [dict get $info follow] \
                 -onrow [dict get $info onrow] -post [dict get $info post] \
                 -info [dict remove $info title query follow onrow post tables labels phase kind gen \
                            state columns answer ms]]
    close $f
    if {![llength [$from tabs]]} { Placeholder $from }
    return $new
}

proc ::ips2::gui::table::MergeBack {} {
    variable Area
    variable Target
    set nbs [Notebooks]
    if {[llength $nbs] < 2} return
    $Area.pw forget [lindex $nbs 1]
    set Target [lindex $nbs 0]
    if {![llength [$Target tabs]]} { Placeholder $Target }
}

# phaseChanged: panes that follow the phase show it.
proc ::ips2::gui::table::phaseChanged {} {
    variable Pane
    foreach f [array names Pane] {
        if {![winfo exists $f]} continue
        if {[dict get $Pane($f) kind] eq "table" && [dict get $Pane($f) follow]} { Fill $f }
    }
}

# contents PANE ?I?: the I-th table of a pane, as the widget holds it now
# (its order is the displayed one): {columns {{NAME UNIT} ...} rows {...}}.
proc ::ips2::gui::table::contents {f {i 0}} {
    variable Pane
    variable Order
    set tl [lindex [dict get $Pane($f) tables] $i]
    if {$tl eq ""} { error "pane $f has no table $i" }
    set rows [$tl get 0 end]
    if {[info exists Order($tl)]} { # the table's own column order
        set order $Order($tl)
        set rows [lmap r $rows {
            set row [lrepeat [llength $order] ""]
            foreach v $r at $order { lset row $at $v }
            set row
        }]
    }
    dict create columns [lindex [dict get $Pane($f) columns] $i] rows $rows
}

proc ::ips2::gui::table::export {f file {i 0}} {
    set t [contents $f $i]
    set ch [::open $file w]
    puts -nonewline $ch [ips2::format::table $t -format csv]
    ::close $ch
}

proc ::ips2::gui::table::ExportDialog {{f ""}} {
    variable Pane
    if {$f eq ""} { set f [current] }
    if {$f eq "" || ![info exists Pane($f)] || ![llength [dict get $Pane($f) tables]]} {
        ::ips2::gui::status "no table to export: open one first" error
        return
    }
    set n [llength [dict get $Pane($f) tables]]
    for {set i 0} {$i < $n} {incr i} {
        set label [lindex [dict get $Pane($f) labels] $i]
        set file [tk_getSaveFile -title "Export [dict get $Pane($f) title] $label as CSV" \
                      -defaultextension .csv -filetypes {{CSV .csv} {All *}}]
        if {$file eq ""} return
        if {[catch {export $f $file $i} message]} {
            ::ips2::gui::status "$file: $message" error
        } else {
            ::ips2::gui::status "saved $file"
        }
    }
}

# gui.tcl - the master analyst window (`ips2 gui`, issue #6): the main
# window, its menus, toolbar and status bar, the open session, the selected
# node and phase, and the queries every pane makes of the master package
# (docs/ANALYSTS.md §6).  The panes live in their own files:
#
#   gui_editor.tcl     ips2::gui::editor     workload editor, Run and Replay with progress
#   gui_tree.tcl       ips2::gui::tree       program trees on a canvas (paper Figs. 2, 3)
#   gui_table.tcl      ips2::gui::table      result tables: sort, CSV, side by side, phases
#   gui_histogram.tcl  ips2::gui::histogram  time histograms, overlays, phases by drag
#   gui_trace.tcl      ips2::gui::trace      trace browser (lanes, messages, critical path)
#   gui_help.tcl       ips2::gui::help       the guide and the keyboard shortcuts
#   gui_consultant.tcl ips2::gui::consultant the Performance Consultant (W3 search, its SHG)
#
# Every table comes from the master package; the GUI only asks and shows.
# A query is a command prefix run on the session with the phase options
# appended ({} or {-phase P}); a pane that follows the phase reruns it when
# the phase changes.  A failing query says why in the status bar and the
# rest of the window goes on.
#
#   ips2::gui::main ARGS      open the window on workload files and sessions, wait until closed
#   ips2::gui::build          the window without waiting (tests drive it)

package require Tcl 8.6
package require Tk 8.6
package require ips2::format 1.0
package require ips2::workload 1.0
package require ips2::gui::tree 1.0
package require ips2::gui::table 1.0
package require ips2::gui::histogram 1.0
package require ips2::gui::editor 1.0
package require ips2::gui::trace 1.0
package require ips2::gui::help 1.0
package require ips2::gui::query 1.0
package require ips2::gui::consultant 1.0
package require ips2::gui::latency 1.0
package provide ips2::gui 1.0

namespace eval ::ips2::gui {
    namespace export main build
    # State: session (the session command or ""), dir, node (selected
    # path), phase ("" = the whole run), metric (colours the trees), level
    # (profile level), cpmode, cplevel, status, closed (set when the window goes),
    # metrics (the master's metric list: NAME -> {unit U description D}).
    variable State
    array set State {
        session "" dir "" node physical phase "" metric cpu level process
        cpmode inter cplevel process status "" closed 0 phaseList {} busy 0 cppvm 0 metrics {}
        times raw sessionTimes raw
    }
    # The analyses, for menus and toolbar: {label key command}.
    variable Analyses {
        {"Metric table"          m  ::ips2::gui::ShowMetrics}
        {"Profile table"         p  ::ips2::gui::ShowProfile}
        {"Critical path profile" c  ::ips2::gui::ShowCp}
        {"NPT profile"           n  ::ips2::gui::ShowNpt}
        {"gprof table"           g  ::ips2::gui::ShowGprof}
        {"Time histogram"        h  ::ips2::gui::ShowHistogram}
        {"Critical-path zeroing" z  ::ips2::gui::ShowZeroing}
        {"Trace browser"         t  ::ips2::gui::ShowTrace}
    }
}

# --- entry --------------------------------------------------------------------

# main ARGS: each argument is a workload file (loaded into the editor) or a
# session directory; the first session is opened, later ones are added to
# the workload as replays in comparison mode.  Returns when the window closes.
proc ::ips2::gui::main {argv} {
    variable State
    build
    set sessions {}
    foreach arg $argv {
        if {[file isdirectory $arg]} {
            lappend sessions $arg
        } elseif {[file isfile $arg]} {
            editor::load $arg
        } else {
            status "$arg: no such workload file or session directory" error
        }
    }
    if {[llength $sessions]} {
        openSession [lindex $sessions 0]
        foreach s [lrange $sessions 1 end] { editor::addReplay $s comparison }
    }
    if {!$State(closed)} { vwait ::ips2::gui::State(closed) }
    return 0
}

# build: the main window (.), empty.
proc ::ips2::gui::build {} {
    variable State
    wm title . "ips2 - master analyst"
    wm geometry . 1280x800
    wm protocol . WM_DELETE_WINDOW ::ips2::gui::quit
    ttk::style theme use clam
    # Clam draws a progress bar's filled part in its light background
    # colour over a darker trough: a full bar looked empty.  A blue bar.
    ttk::style configure Ips2.Horizontal.TProgressbar -background #3d7cc9 -lightcolor #6a9edb \
        -darkcolor #2c5f9e -bordercolor #2c5f9e -troughcolor #e8e8e8
    option add *tearOff 0
    Menus
    Toolbar .tb
    ttk::panedwindow .pw -orient horizontal
    ttk::notebook .pw.left
    ttk::frame .pw.left.trees
    tree::build .pw.left.trees
    ttk::frame .pw.left.workload
    editor::build .pw.left.workload
    .pw.left add .pw.left.trees -text "Program trees" -underline 8
    .pw.left add .pw.left.workload -text "Workload" -underline 0
    ttk::frame .pw.right
    table::buildArea .pw.right
    .pw add .pw.left -weight 1
    .pw add .pw.right -weight 1
    ttk::frame .sb
    ttk::label .sb.text -textvariable ::ips2::gui::State(status) -anchor w
    ttk::label .sb.phase -textvariable ::ips2::gui::State(phaseLabel) -anchor e
    ttk::progressbar .sb.progress -length 160 -mode determinate -style Ips2.Horizontal.TProgressbar
    # Shown while queries are under way (ips2::gui::query), with Cancel.
    ttk::label .sb.queries -foreground #2c5f9e
    ttk::button .sb.cancel -text Cancel -style Toolbutton -command ::ips2::gui::query::cancel
    ttk::progressbar .sb.busy -length 80 -mode indeterminate
    query::watch ::ips2::gui::QueriesChanged
    pack .sb.progress -side right -padx 4
    pack .sb.phase -side right -padx 8
    pack .sb.text -side left -fill x -expand 1 -padx 4
    grid .tb -sticky ew
    grid .pw -sticky nsew
    grid .sb -sticky ew
    grid columnconfigure . 0 -weight 1
    grid rowconfigure . 1 -weight 1
    Keys
    PhaseChanged
    status "Open a session (File > Open session, Ctrl-O) or describe a workload (Workload tab)."
}

proc ::ips2::gui::Menus {} {
    variable Analyses
    menu .menu
    . configure -menu .menu
    foreach {name label under} {file File 0 analyze Analyze 0 phases Phases 0 view View 0 help Help 0} {
        .menu add cascade -label $label -underline $under -menu [menu .menu.$name]
    }
    set m .menu.file
    $m add command -label "Open session..." -accelerator Ctrl+O -command ::ips2::gui::OpenSessionDialog
    $m add command -label "Close session" -command ::ips2::gui::closeSession
    $m add separator
    $m add command -label "New workload" -command ::ips2::gui::editor::clear
    $m add command -label "Open workload..." -accelerator Ctrl+L -command ::ips2::gui::editor::LoadDialog
    $m add command -label "Save workload as..." -accelerator Ctrl+S -command ::ips2::gui::editor::SaveDialog
    $m add command -label "Run workload" -accelerator F5 -command ::ips2::gui::editor::run
    $m add command -label "Replay sessions..." -command ::ips2::gui::editor::ReplayDialog
    $m add command -label "Compare with a new run..." -command ::ips2::gui::editor::confirmCompare
    $m add separator
    $m add command -label "Export table as CSV..." -accelerator Ctrl+E -command ::ips2::gui::table::ExportDialog
    $m add command -label "Close result" -accelerator Ctrl+W -command ::ips2::gui::table::closeCurrent
    $m add separator
    $m add command -label Quit -accelerator Ctrl+Q -command ::ips2::gui::quit
    set m .menu.analyze
    foreach a $Analyses {
        lassign $a label key command
        $m add command -label "$label of the selected node" -accelerator $key -command $command
    }
    $m add separator
    $m add command -label "Add the selected node to the histogram" -accelerator a \
        -command ::ips2::gui::AddToHistogram
    $m add command -label "Histogram of every application (comparison overlay)" -accelerator o \
        -command ::ips2::gui::ShowOverlay
    $m add command -label "Critical path (segments)" -command ::ips2::gui::ShowCpPath
    $m add command -label "Critical-path imbalance" -command ::ips2::gui::ShowCpImbalance
    $m add checkbutton -label "Critical paths on PVM slaves (one per machine)" \
        -variable ::ips2::gui::State(cppvm)
    $m add command -label "Synchronisation objects" -command ::ips2::gui::ShowObjects
    $m add command -label "Latency of the procedures" -accelerator l -command ::ips2::gui::ShowLatency
    $m add command -label "Multi-application metric table" -command ::ips2::gui::ShowMulti
    $m add command -label "Processes" -command ::ips2::gui::ShowProcesses
    $m add command -label "Problems" -command ::ips2::gui::ShowProblems
    $m add separator
    $m add command -label "Performance Consultant (W3 search)..." -accelerator w \
        -command ::ips2::gui::consultant::dialog
    set m .menu.phases
    $m configure -postcommand ::ips2::gui::PhasesMenu
    set m .menu.view
    $m add command -label "Zoom in" -accelerator + -command {::ips2::gui::tree::zoom 1.25}
    $m add command -label "Zoom out" -accelerator - -command {::ips2::gui::tree::zoom 0.8}
    $m add command -label "Zoom to 100%" -accelerator = -command {::ips2::gui::tree::zoom 0}
    $m add command -label "Expand all procedures" -command {::ips2::gui::tree::expandAll 1}
    $m add command -label "Collapse all procedures" -command {::ips2::gui::tree::expandAll 0}
    $m add command -label "Side by side" -accelerator Ctrl+B -command ::ips2::gui::table::sideBySide
    help::menu .menu.help
}

proc ::ips2::gui::Toolbar {w} {
    variable Analyses
    ttk::frame $w -padding 2
    ttk::label $w.node -textvariable ::ips2::gui::State(nodeLabel) -width 30 -anchor w \
        -relief sunken
    ttk::label $w.lphase -text Phase:
    ttk::combobox $w.phase -width 16 -state readonly -textvariable ::ips2::gui::State(phaseChoice)
    bind $w.phase <<ComboboxSelected>> {::ips2::gui::setPhase [::ips2::gui::PhaseOfChoice]}
    ttk::label $w.lmetric -text Metric:
    # the metrics are the session's (Metrics, when a session opens)
    ttk::combobox $w.metric -width 16 -state readonly -textvariable ::ips2::gui::State(metric) \
        -values {cpu}
    bind $w.metric <<ComboboxSelected>> {::ips2::gui::MetricChosen}
    ttk::label $w.llevel -text Level:
    ttk::combobox $w.level -width 9 -state readonly -textvariable ::ips2::gui::State(level) \
        -values {machine process thread procedure}
    # raw or compensated times (REDUCTION.md "Compensated times"): see setTimes
    ttk::label $w.ltimes -text Times:
    ttk::combobox $w.times -width 11 -state readonly -textvariable ::ips2::gui::State(times) \
        -values {compensated raw}
    bind $w.times <<ComboboxSelected>> {::ips2::gui::setTimes $::ips2::gui::State(times)}
    ttk::label $w.lcp -text CP:
    ttk::combobox $w.cpmode -width 6 -state readonly -textvariable ::ips2::gui::State(cpmode) \
        -values {intra inter global}
    ttk::frame $w.buttons
    grid $w.node $w.lphase $w.phase $w.lmetric $w.metric $w.llevel $w.level $w.ltimes $w.times \
        $w.lcp $w.cpmode -padx 2 -sticky w
    grid $w.buttons - - - - - - - - - - -sticky w
    grid columnconfigure $w 0 -weight 1
    grid configure $w.node -sticky ew
    foreach a $Analyses {
        lassign $a label key command
        set short [dict get {m Metrics p Profile c "Critical path" n NPT g gprof h Histogram
                              z "CP zeroing" t "Trace browser"} $key]
        ttk::button $w.buttons.b$key -text $short -command $command -width -6
        pack $w.buttons.b$key -side left -padx 1
    }
    ttk::button $w.buttons.ba -text "Add to plot" -command ::ips2::gui::AddToHistogram -width -6
    ttk::button $w.buttons.bo -text "Overlay applications" -command ::ips2::gui::ShowOverlay -width -6
    ttk::button $w.buttons.bw -text "Consultant" -command ::ips2::gui::consultant::dialog -width -6
    pack $w.buttons.ba $w.buttons.bo $w.buttons.bw -side left -padx 1
}

proc ::ips2::gui::Keys {} {
    variable Analyses
    bind . <Control-o> ::ips2::gui::OpenSessionDialog
    bind . <Control-l> ::ips2::gui::editor::LoadDialog
    bind . <Control-s> ::ips2::gui::editor::SaveDialog
    bind . <Control-e> ::ips2::gui::table::ExportDialog
    bind . <Control-w> ::ips2::gui::table::closeCurrent
    bind . <Control-b> ::ips2::gui::table::sideBySide
    bind . <Control-q> ::ips2::gui::quit
    bind . <F5> ::ips2::gui::editor::run
    bind . <F1> ::ips2::gui::help::guide
    # Single keys act on the selected node unless typing in an entry.
    foreach a $Analyses {
        lassign $a label key command
        bind . <Key-$key> [list ::ips2::gui::KeyAction %W $command]
    }
    bind . <Key-a> [list ::ips2::gui::KeyAction %W ::ips2::gui::AddToHistogram]
    bind . <Key-o> [list ::ips2::gui::KeyAction %W ::ips2::gui::ShowOverlay]
    bind . <Key-w> [list ::ips2::gui::KeyAction %W ::ips2::gui::consultant::dialog]
    bind . <Key-l> [list ::ips2::gui::KeyAction %W ::ips2::gui::ShowLatency]
    bind . <Key-plus> [list ::ips2::gui::KeyAction %W {::ips2::gui::tree::zoom 1.25}]
    bind . <Key-minus> [list ::ips2::gui::KeyAction %W {::ips2::gui::tree::zoom 0.8}]
    bind . <Key-equal> [list ::ips2::gui::KeyAction %W {::ips2::gui::tree::zoom 0}]
}

proc ::ips2::gui::KeyAction {w command} {
    if {[winfo class $w] in {TEntry Entry Text TCombobox Spinbox TSpinbox}} return
    {*}$command
}

proc ::ips2::gui::quit {} {
    variable State
    closeSession
    destroy .
    set State(closed) 1
}

# --- status -------------------------------------------------------------------

# status TEXT ?error?: one line in the status bar; errors in red and kept
# in the problems list (tests read State(lastError)).
proc ::ips2::gui::status {text {kind info}} {
    variable State
    set State(status) $text
    if {[winfo exists .sb.text]} {
        .sb.text configure -foreground [expr {$kind eq "error" ? "red3" : "black"}]
    }
    if {$kind eq "error"} { set State(lastError) $text }
}

# QueriesChanged N: the status bar says how many queries are under way.
proc ::ips2::gui::QueriesChanged {n} {
    if {![winfo exists .sb.queries]} return
    if {$n > 0} {
        .sb.queries configure -text "computing ($n)"
        if {[winfo manager .sb.busy] eq ""} {
            pack .sb.cancel .sb.busy .sb.queries -side right -padx 2 -after .sb.progress
            .sb.busy start 40
        }
    } elseif {[winfo manager .sb.busy] ne ""} {
        .sb.busy stop
        pack forget .sb.cancel .sb.busy .sb.queries
    }
}

proc ::ips2::gui::progress {done total} {
    if {![winfo exists .sb.progress]} return
    .sb.progress configure -maximum [expr {max($total, 1)}] -value $done
}

# busy SCRIPT: runs SCRIPT (a query) with a busy cursor, after the window
# has been redrawn; returns its result or raises its error.
proc ::ips2::gui::busy {script} {
    variable State
    incr State(busy)
    catch {tk busy hold .pw}
    update idletasks
    try {
        uplevel 1 $script
    } finally {
        catch {tk busy forget .pw}
        incr State(busy) -1
    }
}

# --- session ------------------------------------------------------------------

proc ::ips2::gui::session {} {
    variable State
    return $State(session)
}

proc ::ips2::gui::OpenSessionDialog {} {
    set dir [tk_chooseDirectory -title "Open an ips2 session" -mustexist 1]
    if {$dir ne ""} { openSession $dir }
}

# openSession DIR: opens a session (closing the one open) and draws its
# trees.  Returns 1 when open.
proc ::ips2::gui::openSession {dir} {
    variable State
    if {![file isfile [file join $dir manifest.tcl]]} {
        status "$dir: not a session directory (no manifest.tcl)" error
        return 0
    }
    if {[catch {package require ips2} message]} {
        status "the master package \"ips2\" cannot be loaded: $message" error
        return 0
    }
    closeSession
    if {[catch {ips2::open $dir} s]} {
        status "$dir: $s" error
        return 0
    }
    set State(session) $s
    set State(dir) [file normalize $dir]
    Metrics
    query::start $State(dir)
    set State(node) physical
    set State(phase) ""
    wm title . "ips2 - [file tail $State(dir)]"
    tree::show $s
    select physical
    set State(times) [dict get [$s times] times]
    set State(sessionTimes) $State(times)
    PhaseChanged
    .pw.left select .pw.left.trees
    set problems [$s problems]
    set apps [$s apps]
    set text "session $State(dir): [llength $apps] applications ([join $apps {, }]) on [llength [$s machines]] machines"
    if {[llength $problems]} {
        status "$text; [llength $problems] problems (Analyze > Problems): [lindex $problems 0]" error
    } else {
        status $text
    }
    return 1
}

# Metrics: the toolbar's metrics are those the master lists (metric-list:
# every metric the slaves and collectors measure, and the derived ones),
# each with its unit and description for the status bar.
proc ::ips2::gui::Metrics {} {
    variable State
    if {[catch {$State(session) metric-list} list]} return
    set State(metrics) {}
    foreach row [dict get $list rows] {
        lassign $row name unit levels histogram description
        dict set State(metrics) $name [dict create unit $unit description $description]
    }
    .tb.metric configure -values [dict keys $State(metrics)]
}

proc ::ips2::gui::MetricChosen {} {
    variable State
    if {[dict exists $State(metrics) $State(metric)]} {
        set m [dict get $State(metrics) $State(metric)]
        set unit [expr {[dict get $m unit] ne "" ? " ([dict get $m unit])" : ""}]
        status "$State(metric)$unit: [dict get $m description]"
    }
    tree::recolour
}

proc ::ips2::gui::closeSession {} {
    variable State
    if {$State(session) ne ""} {
        table::closeAll
        trace::closeAll
        query::stop
        catch {$State(session) close}
        set State(session) ""
        set State(dir) ""
        tree::clear
        wm title . "ips2 - master analyst"
    }
}

# --- node and phase -----------------------------------------------------------

# select PATH: the selected node (highlighted in the trees).
proc ::ips2::gui::select {path} {
    variable State
    set State(node) $path
    set State(nodeLabel) "Node: $path"
    tree::highlight $path
}

proc ::ips2::gui::node {} {
    variable State
    return $State(node)
}

# kindOf PATH: the kind of a node path's last part (physical, app, machine,
# process, thread, procedure).
proc ::ips2::gui::kindOf {path} {
    if {$path eq "physical"} { return physical }
    set last [lindex [split $path /] end]
    return [lindex [split $last :] 0]
}

# appOf PATH: the application of a logical path, or "".
proc ::ips2::gui::appOf {path} {
    if {[regexp {^app:([^/]+)} $path -> app]} { return $app }
    return ""
}

proc ::ips2::gui::phaseArgs {} {
    variable State
    expr {$State(phase) eq "" ? {} : [list -phase $State(phase)]}
}

# definePhase NAME START END: a new phase of the session (ns), selected.
proc ::ips2::gui::definePhase {name start end} {
    variable State
    if {$State(session) eq ""} return
    if {[catch {$State(session) phase $name $start $end} message]} {
        status "phase $name: $message" error
        return
    }
    setPhase $name
}

# newPhaseName: P1, P2, ... not yet defined.
proc ::ips2::gui::newPhaseName {} {
    variable State
    set names [lmap p [phases] { lindex $p 0 }]
    set i 1
    while {"P$i" in $names} { incr i }
    return P$i
}

proc ::ips2::gui::phases {} {
    variable State
    if {$State(session) eq "" || [catch {$State(session) phases} ps]} { return {} }
    return $ps
}

# setPhase NAME: the phase every following pane shows ("" = whole run).
proc ::ips2::gui::setPhase {name} {
    variable State
    set State(phase) $name
    PhaseChanged
    table::phaseChanged
    histogram::phaseChanged
}

# setTimes WHICH: the tables and histograms in raw or compensated times.
# The session's reductions hold one (the run's choice); the other is the
# traces reduced again over the whole run, as for a phase (a phase named
# times:WHICH), with IPS2_TIMES set for the reducer.  The critical path's
# PAG keeps the run's.
proc ::ips2::gui::setTimes {which} {
    variable State
    if {$State(session) eq ""} return
    set ::env(IPS2_TIMES) $which
    if {$which eq $State(sessionTimes)} {
        setPhase ""
    } elseif {[catch {$State(session) phase times:$which -1000000000000000000 \
                          1000000000000000000 -save 0} message]} {
        status "times: $which: $message" error
        return
    } else {
        setPhase times:$which
    }
    status "times: $which[expr {$which eq $State(sessionTimes) ? "" : " (the traces reduced again; the critical path keeps the run's $State(sessionTimes) times)"}]"
}

proc ::ips2::gui::PhaseChanged {} {
    variable State
    set choices [list "whole run"]
    foreach p [phases] {
        lassign $p name start end
        lappend choices [::format "%s  %.3f-%.3f s" $name [expr {$start / 1e9}] [expr {$end / 1e9}]]
    }
    set State(phaseList) $choices
    if {[winfo exists .tb.phase]} { .tb.phase configure -values $choices }
    set State(phaseChoice) [lindex $choices 0]
    foreach c $choices {
        if {$State(phase) ne "" && [lindex $c 0] eq $State(phase)} { set State(phaseChoice) $c }
    }
    set State(phaseLabel) [expr {$State(phase) eq "" ? "whole run" : "phase $State(phase)"}]
}

proc ::ips2::gui::PhaseOfChoice {} {
    variable State
    if {$State(phaseChoice) eq "whole run"} { return "" }
    return [lindex $State(phaseChoice) 0]
}

proc ::ips2::gui::PhasesMenu {} {
    variable State
    set m .menu.phases
    $m delete 0 end
    $m add radiobutton -label "Whole run" -value "" -variable ::ips2::gui::State(phase) \
        -command {::ips2::gui::setPhase ""}
    foreach p [phases] {
        lassign $p name start end
        $m add radiobutton -label [::format "%s  (%.3f - %.3f s)" $name [expr {$start / 1e9}] [expr {$end / 1e9}]] \
            -value $name -variable ::ips2::gui::State(phase) -command [list ::ips2::gui::setPhase $name]
    }
    $m add separator
    $m add command -label "Define a phase: drag across a time histogram" -state disabled
    $m add command -label "Phases table" -command ::ips2::gui::ShowPhases
}

# --- analyses of the selected node ----------------------------------------------

# Need: the session, or a message; returns 1 when there is one.
proc ::ips2::gui::Need {} {
    variable State
    if {$State(session) eq ""} {
        status "no session open: File > Open session (Ctrl-O), or run a workload" error
        return 0
    }
    return 1
}

# Levels PATH: the profile levels below a node.
proc ::ips2::gui::Levels {path} {
    switch -- [kindOf $path] {
        physical - app { return {machine process thread procedure} }
        machine { return {process thread procedure} }
        process { return {thread procedure} }
        thread - procedure { return {procedure} }
    }
    return {procedure}
}

proc ::ips2::gui::Level {path} {
    variable State
    set levels [Levels $path]
    expr {$State(level) in $levels ? $State(level) : [lindex $levels 0]}
}

proc ::ips2::gui::ShowMetrics {{path ""}} {
    variable State
    if {![Need]} return
    if {$path eq ""} { set path $State(node) }
    table::open "metrics $path" [list metrics $path] -reuse metrics
}

proc ::ips2::gui::ShowProfile {{path ""} {level ""} {metric ""}} {
    variable State
    if {![Need]} return
    if {$path eq ""} { set path $State(node) }
    if {$level eq ""} { set level [Level $path] }
    if {$metric eq ""} { set metric $State(metric) }
    if {$metric eq "npt"} { return [ShowNpt $path $level] }
    table::open "profile of $metric, $level level, under $path" \
        [list profile $path -level $level -metric $metric]
}

proc ::ips2::gui::ShowNpt {{path ""} {level ""}} {
    variable State
    if {![Need]} return
    if {$path eq ""} { set path $State(node) }
    if {$level eq ""} { set level [Level $path] }
    if {$level ni {process procedure}} { set level process }
    table::open "NPT profile, $level level, under $path" \
        [list npt $path -level $level]
}

proc ::ips2::gui::ShowGprof {{path ""}} {
    variable State
    if {![Need]} return
    if {$path eq ""} { set path $State(node) }
    if {$path eq "physical" && [llength [$State(session) apps]] == 1} {
        set path app:[lindex [$State(session) apps] 0]
    }
    table::open "gprof of $path" [list gprof $path] -post ::ips2::gui::GprofTables
}

# GprofTables GPROF: the flat profile and the call graph as two tables of
# one pane.
proc ::ips2::gui::GprofTables {g} {
    list "flat profile" [dict get $g flat] "call graph" [dict get $g graph]
}

proc ::ips2::gui::ShowObjects {{path ""}} {
    variable State
    if {![Need]} return
    if {$path eq ""} { set path $State(node) }
    table::open "synchronisation objects under $path" [list objects $path]
}

# ShowLatency ?PATH?: the latency table of the procedures under a node, in
# microseconds as the command line's text (latencies are short), the
# percentiles first (latency::view); a double-click on a row shows that
# procedure's distribution.
proc ::ips2::gui::ShowLatency {{path ""}} {
    variable State
    if {![Need]} return
    if {$path eq ""} { set path $State(node) }
    table::open "latency under $path" [list latency $path] -onrow ::ips2::gui::LatencyRowAction \
        -post ::ips2::gui::latency::view -info [dict create latency $path]
}

proc ::ips2::gui::LatencyRowAction {pane row} {
    variable State
    latency::open $State(session) [dict get [table::pane $pane] latency] [dict get $row procedure] \
        [phaseArgs]
}

proc ::ips2::gui::ShowMulti {} {
    variable State
    if {![Need]} return
    table::open "multi-application metric table" \
        [list metrics -apps [$State(session) apps]]
}

proc ::ips2::gui::ShowProcesses {} {
    variable State
    if {![Need]} return
    table::open "processes" {table processes} -follow 0
}

proc ::ips2::gui::ShowProblems {} {
    variable State
    if {![Need]} return
    table::open "problems" {table problems} -follow 0
}

proc ::ips2::gui::ShowPhases {} {
    variable State
    if {![Need]} return
    table::open "phases" {table phases} -follow 0
}

proc ::ips2::gui::ShowHistogram {{path ""} {metric ""}} {
    variable State
    if {![Need]} return
    if {$path eq ""} { set path $State(node) }
    if {$metric eq ""} { set metric $State(metric) }
    histogram::open $State(session) [list [list $path $metric]]
}

proc ::ips2::gui::AddToHistogram {{path ""} {metric ""}} {
    variable State
    if {![Need]} return
    if {$path eq ""} { set path $State(node) }
    if {$metric eq ""} { set metric $State(metric) }
    histogram::add $State(session) $path $metric
}

# ShowOverlay: one curve per application, comparison-mode ones on the
# active session's time base (paper Fig. 5).
proc ::ips2::gui::ShowOverlay {{metric ""}} {
    variable State
    if {![Need]} return
    if {$metric eq ""} { set metric $State(metric) }
    histogram::open $State(session) [lmap app [$State(session) apps] { list app:$app $metric }]
}

# --- critical path (the master's cp commands, ANALYSTS.md §6) ----------------------

# HasCp: whether the master package answers critical-path queries.
proc ::ips2::gui::HasCp {} {
    variable State
    if {$State(session) eq ""} { return 0 }
    catch {$State(session) no-such-subcommand} message
    if {![regexp {must be (.*)$} $message -> words]} { return 0 }
    expr {"cp" in [string map {, "" " or " " "} $words]}
}

proc ::ips2::gui::NoCp {} {
    status "critical-path analysis is not in this build of the master package yet" error
}

proc ::ips2::gui::CpApp {path} {
    variable State
    set app [appOf $path]
    if {$app eq ""} { set app [lindex [$State(session) apps] 0] }
    return $app
}

# CpWords PATH MODE: the node and options of a critical-path query of a
# node: an application's node (or the physical tree) asks for the whole
# path of its application (an inter-application path crosses into others,
# paper §5.3); a node below an application restricts the entries to it.
proc ::ips2::gui::CpWords {path mode} {
    set app [CpApp $path]
    set node [expr {[kindOf $path] in {physical app} ? {} : [list $path]}]
    set words [list {*}$node -mode $mode]
    if {$mode ne "global"} { lappend words -app $app }
    return [list {*}$words {*}[CpPvm]]
}

# CpPvm: the -pvm option of critical-path queries: on PVM slaves when the
# Analyze menu says so (in the window: libpvm is not thread-safe), else as
# the master decides (on the session's query thread for a reopened session).
proc ::ips2::gui::CpPvm {} {
    variable State
    expr {$State(cppvm) ? {-pvm private} : {}}
}

proc ::ips2::gui::CpTitle {path mode} {
    set app [expr {$mode eq "global" ? "" : ", app [CpApp $path]"}]
    set under [expr {[kindOf $path] in {physical app} ? "" : " under $path"}]
    return "$mode$app$under"
}

proc ::ips2::gui::ShowCp {{path ""} {mode ""} {level ""}} {
    variable State
    if {![Need]} return
    if {![HasCp]} { return [NoCp] }
    if {$path eq ""} { set path $State(node) }
    if {$mode eq ""} { set mode $State(cpmode) }
    if {$level eq ""} { set level [Level $path] }
    set words [CpWords $path $mode]
    table::open "critical path ([CpTitle $path $mode]), $level level" [list cp {*}$words -level $level] \
        -onrow ::ips2::gui::CpRowAction -info [dict create cp [dict create mode $mode app [CpApp $path]]]
}

# ShowZeroing ?PATH? ?MODE? ?INCLUSIVE?: the zeroing table of a procedure
# (with INCLUSIVE, of it and every procedure it calls) or of a process.
proc ::ips2::gui::ShowZeroing {{path ""} {mode ""} {inclusive 0}} {
    variable State
    if {![Need]} return
    if {![HasCp]} { return [NoCp] }
    if {$path eq ""} { set path $State(node) }
    if {$mode eq ""} { set mode $State(cpmode) }
    set kind [kindOf $path]
    if {$kind ni {procedure process thread}} {
        status "critical-path zeroing: select a procedure or a process" error
        return
    }
    set name [lindex [split [lindex [split $path /] end] :] 1]
    set app [CpApp $path]
    set words [list -mode $mode]
    if {$mode ne "global"} { lappend words -app $app }
    if {$kind eq "procedure"} {
        lappend words -procedure $name {*}[expr {$inclusive ? "-inclusive" : ""}]
        if {$inclusive} { append name " and what it calls" }
    } else {
        lappend words -process [ProcessPath $path]
        set name [ProcessPath $path]
    }
    lappend words {*}[CpPvm]
    # the master's zeroing table, as the command line's `report cp-zero` (the
    # phase does not apply: zeroing reruns the whole diffusion)
    table::open "critical-path zeroing of $kind $name ([CpTitle app:$app $mode])" \
        [list table cp-zero {*}$words] -follow 0
}

# ProcessPath PATH: the process a thread's path is under.
proc ::ips2::gui::ProcessPath {path} {
    regsub {/thread:[^/]*.*$} $path "" path
    return $path
}

proc ::ips2::gui::ShowCpPath {{path ""} {mode ""}} {
    variable State
    if {![Need]} return
    if {![HasCp]} { return [NoCp] }
    if {$path eq ""} { set path $State(node) }
    if {$mode eq ""} { set mode $State(cpmode) }
    set words [list -mode $mode]
    if {$mode ne "global"} { lappend words -app [CpApp $path] }
    lappend words {*}[CpPvm]
    table::open "critical path segments ([CpTitle app:[CpApp $path] $mode])" [list cp-path {*}$words] \
        -onrow ::ips2::gui::CpRowAction -info [dict create cp [dict create mode $mode app [CpApp $path]]]
}

proc ::ips2::gui::ShowCpImbalance {{path ""} {mode ""}} {
    variable State
    if {![Need]} return
    if {![HasCp]} { return [NoCp] }
    if {$path eq ""} { set path $State(node) }
    if {$mode eq ""} { set mode $State(cpmode) }
    table::open "critical-path imbalance ([CpTitle $path $mode])" [list cp-imbalance {*}[CpWords $path $mode]]
}

# CpRowAction PANE ROW: a double-click on a critical-path entry opens the
# trace browser around that part of the path.
proc ::ips2::gui::CpRowAction {pane row} {
    trace::openFromRow $pane $row
}

proc ::ips2::gui::ShowTrace {{start ""} {end ""} args} {
    variable State
    if {![Need]} return
    if {![HasCp]} { return [NoCp] }
    set path $State(node)
    set mode $State(cpmode)
    set cp [dict create mode $mode app [CpApp $path]]
    trace::open $State(session) [expr {[kindOf $path] eq "procedure" ? [ProcessPath $path] : $path}] \
        $start $end -cp $cp {*}$args
}

# gui_help.tcl - the Help menu of the master analyst window: a short guide,
# the keyboard shortcuts and what the program is, each in a small window.
#
#   ips2::gui::help::menu M     fill menu M
#   ips2::gui::help::guide / keys / about

package require Tcl 8.6
package require Tk 8.6
package provide ips2::gui::help 1.0

namespace eval ::ips2::gui::help {
    variable Guide {ips2 gui - the master analyst window

1. A session.  File > Open session (Ctrl-O) opens a session directory made by
   `ips2 run` or `ips2 replay` (make demo leaves build/demo-session).  Or
   describe a workload in the Workload tab - machines, applications and their
   processes (machine and command line), old sessions to replay in replay or
   comparison mode, collectors - and press Run (F5).  The bar and one line per
   slave show how the run goes; the session opens when it is done.

2. The trees.  One logical tree per application and the physical tree, drawn
   as in IPS-2: program triangle, machine rectangle, process ellipse,
   collector octagon, thread dashed ellipse, procedure flat rectangle.  A
   thread's procedures fold into one node: double-click the thread (or the
   node) to unfold them; at most 12 children show, "+N more" shows the rest.
   Nodes are coloured by the toolbar's metric (white to red, per level).
   Zoom: + and - (or Ctrl-wheel), = for 100%.

3. Tables.  Click a node: its metric table.  Right-click it: profile tables
   by level, critical-path profiles (intra-, inter-application, global) by
   level, NPT profiles, the gprof table, synchronisation objects, time
   histograms, critical-path zeroing, the trace browser.  The toolbar
   buttons and single keys (m p c n g h z t) do the same for the selected
   node with the toolbar's metric, level and critical-path mode.  Click a
   column label to sort; CSV... exports; Side by side (Ctrl-B) puts a result
   beside another; double-click a row with a path to select that node.

4. Histograms and phases.  h plots the selected node's metric over time; a
   adds the selected node to the plot; o overlays every application, the
   comparison-mode ones on the active session's time base (paper Fig. 5).
   Drag across a plot to define a phase: the tables that follow the phase
   show it.  The toolbar's Phase box and the Phases menu select phases.

5. The trace browser (t, or right-click a plot, or double-click a
   critical-path entry): one lane per thread over a time range, events as
   ticks, messages and other dependences as lines between lanes, the
   critical path in thick red, the entry it was opened for in yellow.
   Point at a tick or line for what it is.  Zoom in / Zoom out / Whole run
   and Ctrl-wheel zoom; the wheel, the arrows, the scrollbar and a drag
   scroll.  At most 5000 events and arcs are shown: a red line says when
   the range held more (zoom in).

6. Long queries (a phase's tables, a critical path of a big session) run
   on the session's query thread: the pane says "computing" and the
   window stays live; Cancel (in the pane or the status bar) gives them
   up: their answers are dropped.  Critical paths on PVM slaves (Analyze
   menu) run in the window itself.

7. The Performance Consultant (w, the Consultant button, or Analyze >
   Performance Consultant): the W3 search over the session's sampled
   metrics, with its sample interval, phase, application, thresholds and
   hysteresis.  It draws the search history graph: every hypothesis and
   focus the search considered, blue if true, pink if tested false, green
   while being tested, grey if untested; the bottlenecks it reports are
   outlined.  Click a node: its explanation and evidence (or its value
   against its threshold and why), and its focus selected in the trees;
   right-click it to search again with a resource of its focus tried last.
   + - Fit 100% zoom the graph; "true only" hides the rest.  The line at
   the bottom is the data volume the search used.
}
    variable Keys {
        Ctrl-O  open a session            Ctrl-L  open a workload file
        Ctrl-S  save the workload         F5      run the workload
        Ctrl-E  export a table as CSV     Ctrl-W  close the current result
        Ctrl-B  side by side              Ctrl-Q  quit
        F1      this guide
        m  metric table        p  profile table       c  critical-path profile
        n  NPT profile         g  gprof table         h  time histogram
        a  add to histogram    o  overlay applications
        z  critical-path zeroing                      t  trace browser
        w  Performance Consultant (W3 search)
        +  zoom in   -  zoom out   =  100%
    }
}

proc ::ips2::gui::help::menu {m} {
    $m add command -label "Guide" -accelerator F1 -command ::ips2::gui::help::guide
    $m add command -label "Keyboard shortcuts" -command ::ips2::gui::help::keys
    $m add command -label "About ips2" -command ::ips2::gui::help::about
}

proc ::ips2::gui::help::Window {name title body} {
    set w .help$name
    if {[winfo exists $w]} {
        raise $w
        return $w
    }
    toplevel $w
    wm title $w $title
    text $w.t -wrap none -width 82 -height 40 -font TkFixedFont -yscrollcommand [list $w.y set] \
        -padx 8 -pady 8
    ttk::scrollbar $w.y -orient vertical -command [list $w.t yview]
    ttk::button $w.close -text Close -command [list destroy $w]
    pack $w.close -side bottom -pady 4
    pack $w.y -side right -fill y
    pack $w.t -fill both -expand 1
    $w.t insert end $body
    $w.t configure -state disabled
    bind $w <Escape> [list destroy $w]
    return $w
}

proc ::ips2::gui::help::guide {} {
    variable Guide
    Window guide "ips2 gui - guide" $Guide
}

proc ::ips2::gui::help::keys {} {
    variable Keys
    Window keys "ips2 gui - keyboard shortcuts" [string trim $Keys \n]
}

proc ::ips2::gui::help::about {} {
    tk_messageBox -title "About ips2" -message "ips2 - the master analyst" -detail \
        "A rebuild of IPS-2 (Miller, Irvin et al.): performance measurement of parallel and distributed programs, several applications at once.  See README.md and docs/ANALYSTS.md."
}

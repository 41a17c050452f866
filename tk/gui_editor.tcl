# gui_editor.tcl - the workload editor of the master analyst window (paper
# §3: "the user describes what application processes and external data
# collectors to run, where to run them, and what command lines to use, or
# old traces to replay"): machines, applications (mode), their processes
# (machine and command line), replays of old sessions (replay or comparison
# mode), collectors and options, kept as the dict ips2::workload::read
# makes (docs/ANALYSTS.md §1).  Load and save workload files (saved in the
# workload language, paths absolute); Run and Replay through ips2::run with
# a progress bar and a live status per slave; the session opens when done.
#
#   ips2::gui::editor::build W          the editor into frame W
#   ips2::gui::editor::load FILE ?VARS? a workload file (VARS: {NAME VALUE ...})
#   ips2::gui::editor::save FILE        the workload as a workload file
#   ips2::gui::editor::text             the workload language text of the workload
#   ips2::gui::editor::addMachine / addApplication / addProcess / addReplay / addCollector
#   ips2::gui::editor::run ?-session DIR? ?-pvm HOW?   run it; returns the session dir
#   ips2::gui::editor::confirmCompare ?-session DIR? ?-pvm HOW?   show the open
#                                       session's command lines, run them again
#                                       beside it only if the user says so
#   ips2::gui::editor::workload         the workload dict

package require Tcl 8.6
package require Tk 8.6
package require ips2::workload 1.0
package provide ips2::gui::editor 1.0

namespace eval ::ips2::gui::editor {
    # W: the workload dict; Run: dict state idle|running|done session DIR
    # machines {M {stage S fraction F text T}}.
    variable W
    variable Run
    variable Tree ""
    variable Status ""
    variable Form
    # Confirm: the answer of the compare dialog, run or cancel
    variable Confirm ""
    variable SessionDir ""
    variable Pvm auto
    variable Vars ""
    array set Form {}
}

proc ::ips2::gui::editor::Empty {} {
    dict create file "" options {interval 100 timeout 600} machines {} applications {} \
        replays {} collectors {}
}

proc ::ips2::gui::editor::build {f} {
    variable W
    variable Tree
    variable Run
    set W [Empty]
    set Run [dict create state idle session "" machines {}]
    ttk::frame $f.bar
    foreach {name label command} {
        machine "+ Machine" addMachineDialog
        app "+ Application" addApplicationDialog
        process "+ Process" addProcessDialog
        replay "+ Replay" addReplayDialog
        collector "+ Collector" addCollectorDialog
        edit "Edit" EditSelected
        remove "Remove" RemoveSelected
    } {
        ttk::button $f.bar.$name -text $label -command ::ips2::gui::editor::$command -style Toolbutton
        pack $f.bar.$name -side left
    }
    pack $f.bar -fill x
    ttk::frame $f.files
    ttk::button $f.files.load -text "Open..." -command ::ips2::gui::editor::LoadDialog
    ttk::button $f.files.save -text "Save as..." -command ::ips2::gui::editor::SaveDialog
    ttk::label $f.files.lvars -text "Variables:"
    ttk::entry $f.files.vars -textvariable ::ips2::gui::editor::Vars -width 24
    pack $f.files.load $f.files.save $f.files.lvars -side left -padx 2
    pack $f.files.vars -side left -fill x -expand 1 -padx 2
    pack $f.files -fill x -pady 2
    set Tree $f.tv
    ttk::treeview $Tree -columns {what where mode command} -displaycolumns {where mode command} \
        -yscrollcommand [list $f.y set] -selectmode browse
    ttk::scrollbar $f.y -orient vertical -command [list $Tree yview]
    $Tree heading #0 -text Item
    $Tree heading where -text Machine
    $Tree heading mode -text Mode
    $Tree heading command -text "Command line / session"
    $Tree column #0 -width 150
    $Tree column where -width 80
    $Tree column mode -width 80
    $Tree column command -width 260
    bind $Tree <Double-Button-1> ::ips2::gui::editor::EditSelected
    bind $Tree <Delete> ::ips2::gui::editor::RemoveSelected
    # The run panel: session, PVM, buttons, progress and the slaves.
    ttk::labelframe $f.run -text "Run" -padding 4
    ttk::label $f.run.ls -text "Session directory:"
    ttk::entry $f.run.session -textvariable ::ips2::gui::editor::SessionDir
    ttk::label $f.run.lp -text PVM:
    ttk::combobox $f.run.pvm -values {auto join private} -width 8 -state readonly \
        -textvariable ::ips2::gui::editor::Pvm
    ttk::button $f.run.go -text "Run (F5)" -command ::ips2::gui::editor::run
    ttk::button $f.run.replay -text "Replay..." -command ::ips2::gui::editor::ReplayDialog
    ttk::button $f.run.compare -text "Compare with a new run..." \
        -command ::ips2::gui::editor::confirmCompare
    ttk::progressbar $f.run.bar -mode determinate -maximum 100 -style Ips2.Horizontal.TProgressbar
    ttk::label $f.run.status -textvariable ::ips2::gui::editor::Status -anchor w
    ttk::treeview $f.run.slaves -columns {stage progress last} -height 4 -selectmode none
    $f.run.slaves heading #0 -text Machine
    $f.run.slaves heading stage -text Stage
    $f.run.slaves heading progress -text Progress
    $f.run.slaves heading last -text "Last event"
    $f.run.slaves column #0 -width 80
    $f.run.slaves column stage -width 80
    $f.run.slaves column progress -width 70
    $f.run.slaves column last -width 240
    grid $f.run.ls $f.run.session - $f.run.lp $f.run.pvm -sticky ew -padx 2
    grid $f.run.go $f.run.replay $f.run.compare $f.run.bar - -sticky ew -padx 2 -pady 2
    grid $f.run.status - - - - -sticky ew
    grid $f.run.slaves - - - - -sticky nsew
    grid columnconfigure $f.run 3 -weight 1
    pack $f.run -side bottom -fill x
    pack $f.y -side right -fill y
    pack $Tree -fill both -expand 1
    set ::ips2::gui::editor::Widgets $f
    Refresh
}

proc ::ips2::gui::editor::workload {} {
    variable W
    return $W
}

proc ::ips2::gui::editor::clear {} {
    variable W
    set W [Empty]
    Refresh
}

# --- the model ----------------------------------------------------------------------

# load FILE ?VARS?: a workload file into the editor; a mistake is said as
# FILE:LINE: ... in the status bar.
proc ::ips2::gui::editor::load {file {vars ""}} {
    variable W
    variable Vars
    if {$vars eq ""} { set vars [ParseVars $Vars] }
    if {[catch {ips2::workload::read $file -vars $vars} w]} {
        ::ips2::gui::status $w error
        return 0
    }
    set W $w
    Refresh
    ::ips2::gui::status "workload $file: [dict size [dict get $w applications]] applications,\
        [dict size [dict get $w machines]] machines"
    if {[winfo exists .pw.left.workload]} { .pw.left select .pw.left.workload }
    return 1
}

proc ::ips2::gui::editor::ParseVars {text} {
    set vars {}
    foreach word $text {
        if {[regexp {^([A-Za-z_][A-Za-z0-9_]*)=(.*)$} $word -> name value]} {
            dict set vars $name $value
        }
    }
    return $vars
}

proc ::ips2::gui::editor::addMachine {name host} {
    variable W
    dict set W machines $name [dict create host $host line 0]
    Refresh
}

proc ::ips2::gui::editor::addApplication {name {mode active}} {
    variable W
    if {![dict exists $W applications $name]} {
        dict set W applications $name [dict create mode $mode line 0 processes {}]
    } else {
        dict set W applications $name mode $mode
    }
    Refresh
}

proc ::ips2::gui::editor::Mention {machine} {
    variable W
    if {![dict exists $W machines $machine]} {
        dict set W machines $machine [dict create host $machine line 0]
    }
}

# addProcess APP MACHINE COMMAND ?CWD? ?TIMEOUT? ?ENV?
proc ::ips2::gui::editor::addProcess {app machine command {cwd ""} {timeout ""} {env {}}} {
    variable W
    if {![dict exists $W applications $app]} { addApplication $app }
    Mention $machine
    if {$cwd eq ""} { set cwd [pwd] }
    if {$timeout eq ""} { set timeout [dict get $W options timeout] }
    set ps [dict get $W applications $app processes]
    lappend ps [dict create index [llength $ps] machine $machine cwd $cwd env $env timeout $timeout \
                    command $command line 0]
    dict set W applications $app processes $ps
    Refresh
}

proc ::ips2::gui::editor::addReplay {session {mode comparison} {prefix ""} {apps {}}} {
    variable W
    if {$prefix eq "" && $mode eq "comparison" && [dict size [dict get $W applications]]} {
        set prefix old-
    }
    dict lappend W replays [dict create session [file normalize $session] mode $mode apps $apps \
                                prefix $prefix line 0]
    Refresh
}

proc ::ips2::gui::editor::addCollector {machine kind {interval 100}} {
    variable W
    Mention $machine
    dict lappend W collectors [dict create machine $machine kind $kind interval $interval line 0]
    Refresh
}

# Refresh: the tree view and the preview trees show the workload.
proc ::ips2::gui::editor::Refresh {} {
    variable W
    variable Tree
    if {$Tree eq "" || ![winfo exists $Tree]} return
    $Tree delete [$Tree children {}]
    $Tree insert {} end -id machines -text Machines -open 1
    dict for {name m} [dict get $W machines] {
        $Tree insert machines end -id [list machine $name] -text $name \
            -values [list machine [dict get $m host] "" "host [dict get $m host]"]
    }
    $Tree insert {} end -id apps -text Applications -open 1
    dict for {name a} [dict get $W applications] {
        $Tree insert apps end -id [list app $name] -text $name -open 1 \
            -values [list app "" [dict get $a mode] "[llength [dict get $a processes]] processes"]
        foreach p [dict get $a processes] {
            $Tree insert [list app $name] end -id [list process $name [dict get $p index]] \
                -text "process [dict get $p index]" \
                -values [list process [dict get $p machine] "" [join [dict get $p command] " "]]
        }
    }
    $Tree insert {} end -id replays -text Replays -open 1
    set i 0
    foreach r [dict get $W replays] {
        set apps [expr {[llength [dict get $r apps]] ? [join [dict get $r apps] ,] : "all"}]
        $Tree insert replays end -id [list replay $i] -text "[file tail [dict get $r session]] ($apps)" \
            -values [list replay "" [dict get $r mode] \
                         "[dict get $r session][expr {[dict get $r prefix] ne "" ? "  prefix [dict get $r prefix]" : ""}]"]
        incr i
    }
    $Tree insert {} end -id collectors -text Collectors -open 1
    set i 0
    foreach c [dict get $W collectors] {
        $Tree insert collectors end -id [list collector $i] -text [dict get $c kind] \
            -values [list collector [dict get $c machine] "" "every [dict get $c interval] ms"]
        incr i
    }
    $Tree insert {} end -id options -text Options -open 1
    dict for {k v} [dict get $W options] {
        $Tree insert options end -id [list option $k] -text $k -values [list option "" "" $v]
    }
    ::ips2::gui::tree::showWorkload $W
}

# --- the workload language ------------------------------------------------------------

# text: the workload as a workload file (ANALYSTS.md §1), paths absolute.
proc ::ips2::gui::editor::text {} {
    variable W
    set out [list "# ips2 workload, saved by ips2 gui [clock format [clock seconds] -format {%Y-%m-%d %H:%M:%S}]"]
    dict for {k v} [dict get $W options] { lappend out [list option $k $v] }
    dict for {name m} [dict get $W machines] { lappend out [list machine $name -host [dict get $m host]] }
    dict for {name a} [dict get $W applications] {
        set body {}
        foreach p [dict get $a processes] {
            set line [list process [dict get $p machine] -cwd [dict get $p cwd]]
            if {[llength [dict get $p env]]} { lappend line -env [dict get $p env] }
            lappend line -timeout [dict get $p timeout] -- {*}[dict get $p command]
            lappend body "    $line"
        }
        lappend out "application [list $name] -mode [dict get $a mode] \{\n[join $body \n]\n\}"
    }
    foreach r [dict get $W replays] {
        set line [list replay [dict get $r session] -mode [dict get $r mode]]
        if {[llength [dict get $r apps]]} { lappend line -apps [dict get $r apps] }
        if {[dict get $r prefix] ne ""} { lappend line -prefix [dict get $r prefix] }
        lappend out $line
    }
    foreach c [dict get $W collectors] {
        lappend out [list collector [dict get $c machine] [dict get $c kind] -interval [dict get $c interval]]
    }
    return [join $out \n]\n
}

proc ::ips2::gui::editor::save {file} {
    set ch [open $file w]
    puts -nonewline $ch [text]
    close $ch
    ::ips2::gui::status "saved the workload as $file"
}

proc ::ips2::gui::editor::LoadDialog {} {
    set file [tk_getOpenFile -title "Open a workload file" -filetypes {{Workloads .tcl} {All *}}]
    if {$file ne ""} { load $file }
}

proc ::ips2::gui::editor::SaveDialog {} {
    set file [tk_getSaveFile -title "Save the workload" -defaultextension .tcl \
                  -filetypes {{Workloads .tcl} {All *}}]
    if {$file ne ""} { save $file }
}

# --- dialogs ------------------------------------------------------------------------

# Dialog TITLE FIELDS: a modal form; FIELDS {{KEY LABEL DEFAULT ?CHOICES?} ...};
# returns the values as a dict, or "" when cancelled.
proc ::ips2::gui::editor::Dialog {title fields} {
    variable Form
    set d .editorDialog
    catch {destroy $d}
    toplevel $d
    wm title $d $title
    wm transient $d .
    array unset Form
    set row 0
    foreach field $fields {
        lassign $field key label default choices
        set Form($key) $default
        ttk::label $d.l$row -text $label
        if {[llength $choices]} {
            ttk::combobox $d.e$row -values $choices -textvariable ::ips2::gui::editor::Form($key) -width 40
        } else {
            ttk::entry $d.e$row -textvariable ::ips2::gui::editor::Form($key) -width 50
        }
        grid $d.l$row $d.e$row -sticky ew -padx 4 -pady 2
        incr row
    }
    ttk::frame $d.b
    ttk::button $d.b.ok -text OK -command {set ::ips2::gui::editor::Form(_done) ok}
    ttk::button $d.b.cancel -text Cancel -command {set ::ips2::gui::editor::Form(_done) cancel}
    pack $d.b.cancel $d.b.ok -side right -padx 4
    grid $d.b - -sticky e -pady 4
    bind $d <Return> {set ::ips2::gui::editor::Form(_done) ok}
    bind $d <Escape> {set ::ips2::gui::editor::Form(_done) cancel}
    wm protocol $d WM_DELETE_WINDOW {set ::ips2::gui::editor::Form(_done) cancel}
    focus $d.e0
    set Form(_done) ""
    vwait ::ips2::gui::editor::Form(_done)
    set ok [expr {$Form(_done) eq "ok"}]
    destroy $d
    if {!$ok} { return "" }
    set values {}
    foreach field $fields { dict set values [lindex $field 0] [string trim $Form([lindex $field 0])] }
    return $values
}

proc ::ips2::gui::editor::Apps {} {
    variable W
    dict keys [dict get $W applications]
}

proc ::ips2::gui::editor::Machines {} {
    variable W
    set ms [dict keys [dict get $W machines]]
    if {"localhost" ni $ms} { lappend ms localhost }
    return $ms
}

proc ::ips2::gui::editor::addMachineDialog {} {
    set v [Dialog "Add a machine" {{name Name ""} {host "Host (default: the name)" ""}}]
    if {$v eq "" || [dict get $v name] eq ""} return
    set host [dict get $v host]
    addMachine [dict get $v name] [expr {$host eq "" ? [dict get $v name] : $host}]
}

proc ::ips2::gui::editor::addApplicationDialog {} {
    set v [Dialog "Add an application" {{name Name ""} {mode Mode active {active}}}]
    if {$v eq "" || [dict get $v name] eq ""} return
    addApplication [dict get $v name] [dict get $v mode]
}

proc ::ips2::gui::editor::addProcessDialog {{app ""}} {
    variable W
    if {$app eq ""} { set app [lindex [Apps] end] }
    set v [Dialog "Add a process" [list [list app Application $app [Apps]] \
        [list machine Machine [lindex [Machines] 0] [Machines]] {command "Command line" ""} \
        [list cwd "Working directory" [pwd]] {count Copies 1} \
        [list timeout "Timeout (s)" [dict get $W options timeout]]]]
    if {$v eq "" || [dict get $v command] eq "" || [dict get $v app] eq ""} return
    set n [dict get $v count]
    if {![string is integer -strict $n] || $n < 1} { set n 1 }
    set command [dict get $v command]
    if {[catch {llength $command}]} {
        ::ips2::gui::status "the command line is not a list of words: $command" error
        return
    }
    set first [lindex $command 0]
    if {[string first / $first] >= 0 && [file pathtype $first] ne "absolute"} {
        set command [lreplace $command 0 0 [file normalize [file join [dict get $v cwd] $first]]]
    }
    for {set i 0} {$i < $n} {incr i} {
        addProcess [dict get $v app] [dict get $v machine] $command [dict get $v cwd] [dict get $v timeout]
    }
}

proc ::ips2::gui::editor::addReplayDialog {} {
    set dir [tk_chooseDirectory -title "A session to replay" -mustexist 1]
    if {$dir eq ""} return
    set v [Dialog "Replay $dir" {{mode Mode comparison {replay comparison}} {prefix "Name prefix" old-}
                                  {apps "Applications (empty: all)" ""}}]
    if {$v eq ""} return
    addReplay $dir [dict get $v mode] [dict get $v prefix] [dict get $v apps]
}

proc ::ips2::gui::editor::addCollectorDialog {} {
    set v [Dialog "Add a collector" [list [list machine Machine [lindex [Machines] 0] [Machines]] \
                                         {kind Kind os {os hw}} {interval "Interval (ms)" 100}]]
    if {$v eq ""} return
    addCollector [dict get $v machine] [dict get $v kind] [dict get $v interval]
}

# The id of the tree's selected row ({machine NAME}, {process APP INDEX},
# ...), or "" when none is.
proc ::ips2::gui::editor::Selected {} {
    variable Tree
    $Tree selection
}

proc ::ips2::gui::editor::EditSelected {} {
    variable W
    set id [Selected]
    if {$id eq ""} return
    switch -- [lindex $id 0] {
        machine {
            set name [lindex $id 1]
            set v [Dialog "Machine $name" [list [list host Host [dict get $W machines $name host]]]]
            if {$v ne ""} { dict set W machines $name host [dict get $v host] }
        }
        app {
            set name [lindex $id 1]
            set v [Dialog "Application $name" [list [list mode Mode [dict get $W applications $name mode] {active}]]]
            if {$v ne ""} { dict set W applications $name mode [dict get $v mode] }
        }
        process {
            lassign $id - app index
            set ps [dict get $W applications $app processes]
            set p [lindex $ps $index]
            set v [Dialog "Process $app.$index" [list [list machine Machine [dict get $p machine] [Machines]] \
                [list command "Command line" [dict get $p command]] [list cwd "Working directory" [dict get $p cwd]] \
                [list timeout "Timeout (s)" [dict get $p timeout]]]]
            if {$v ne ""} {
                Mention [dict get $v machine]
                lset ps $index [dict merge $p $v]
                dict set W applications $app processes $ps
            }
        }
        replay {
            set i [lindex $id 1]
            set rs [dict get $W replays]
            set r [lindex $rs $i]
            set v [Dialog "Replay [dict get $r session]" [list [list mode Mode [dict get $r mode] {replay comparison}] \
                [list prefix "Name prefix" [dict get $r prefix]] [list apps "Applications (empty: all)" [dict get $r apps]]]]
            if {$v ne ""} {
                lset rs $i [dict merge $r $v]
                dict set W replays $rs
            }
        }
        option {
            set k [lindex $id 1]
            set v [Dialog "Option $k" [list [list value $k [dict get $W options $k]]]]
            if {$v ne "" && [string is integer -strict [dict get $v value]]} {
                dict set W options $k [dict get $v value]
            }
        }
    }
    Refresh
}

proc ::ips2::gui::editor::RemoveSelected {} {
    variable W
    set id [Selected]
    if {$id eq ""} return
    switch -- [lindex $id 0] {
        machine { dict unset W machines [lindex $id 1] }
        app { dict unset W applications [lindex $id 1] }
        process {
            lassign $id - app index
            set ps [lreplace [dict get $W applications $app processes] $index $index]
            set i 0
            set ps [lmap p $ps { dict set p index $i; incr i; set p }]
            dict set W applications $app processes $ps
        }
        replay { dict set W replays [lreplace [dict get $W replays] [lindex $id 1] [lindex $id 1]] }
        collector { dict set W collectors [lreplace [dict get $W collectors] [lindex $id 1] [lindex $id 1]] }
    }
    Refresh
}

# --- running ------------------------------------------------------------------------

proc ::ips2::gui::editor::NewSessionDir {name} {
    set stamp [clock format [clock seconds] -format %Y%m%d-%H%M%S]
    set dir [file join [pwd] sessions $name.$stamp]
    set n 1
    while {[file exists $dir]} { set dir [file join [pwd] sessions $name.$stamp-[incr n]] }
    return $dir
}

# run ?-session DIR? ?-pvm HOW?: runs the workload with ips2::run (the
# slaves report progress, the window stays live); the session opens when
# it is done.  Returns the session directory, or "" when it cannot start.
proc ::ips2::gui::editor::run {args} {
    variable W
    variable Run
    variable SessionDir
    variable Pvm
    set o [dict merge [list -session $SessionDir -pvm $Pvm] $args]
    if {[dict get $Run state] eq "running"} {
        ::ips2::gui::status "a run is going on: one run at a time" error
        return ""
    }
    if {![dict size [dict get $W applications]] && ![llength [dict get $W replays]]} {
        ::ips2::gui::status "nothing to run: add an application or a replay (Workload tab)" error
        return ""
    }
    if {[catch {package require ips2} message]} {
        ::ips2::gui::status "the master package \"ips2\" cannot be loaded: $message" error
        return ""
    }
    set dir [dict get $o -session]
    if {$dir eq ""} {
        set name [expr {[dict get $W file] ne "" ? [file rootname [file tail [dict get $W file]]] : "gui"}]
        set dir [NewSessionDir $name]
    }
    file mkdir [file dirname [file normalize $dir]]
    ::ips2::gui::closeSession
    set Run [dict create state running session $dir machines {} result {}]
    Slaves
    set ::ips2::gui::editor::Status "running into $dir"
    ::ips2::gui::status "running the workload into $dir"
    if {[winfo exists .pw.left.workload]} { .pw.left select .pw.left.workload }
    set code [catch {ips2::run $W -session $dir -pvm [dict get $o -pvm] \
                         -progress ::ips2::gui::editor::Progress -done ::ips2::gui::editor::Done} result]
    if {$code} {
        dict set Run state failed
        set ::ips2::gui::editor::Status "the run did not start: $result"
        ::ips2::gui::status "the run did not start: $result" error
        return ""
    }
    return $dir
}

proc ::ips2::gui::editor::state {} {
    variable Run
    return $Run
}

# Progress EVENT: one event of ips2::run (ANALYSTS.md §6) shown on the
# machine's line; the bar shows the machines' mean progress.
proc ::ips2::gui::editor::Progress {event} {
    variable Run
    if {![dict exists $event machine] || ![dict exists $event event]} return
    set m [dict get $event machine]
    set what [dict get $event event]
    if {$m eq "master"} {
        set ::ips2::gui::editor::Status "pvmd: [dict remove $event machine event]"
        return
    }
    set s [expr {[dict exists $Run machines $m] ? [dict get $Run machines $m] : {stage spawned fraction 0 started 0 exited 0 text ""}}]
    set get [list apply {{event key} { expr {[dict exists $event $key] ? [dict get $event $key] : ""} }} $event]
    switch -- $what {
        spawned { dict set s text "slave spawned on [{*}$get host]"; dict set s fraction 0.02 }
        hello { dict set s text "slave pid [{*}$get pid] on [{*}$get host]"; dict set s fraction 0.05 }
        started {
            dict incr s started
            dict set s text "[{*}$get app].[{*}$get index] started, pid [{*}$get pid]"
        }
        exited {
            dict incr s exited
            dict set s text "[{*}$get app].[{*}$get index] ended: [{*}$get status]"
        }
        stage {
            lassign [dict get $s stage] was
            set before [dict get $s text]
            set stage [{*}$get stage]
            set done [{*}$get done]
            set total [{*}$get total]
            dict set s stage $stage
            set part [expr {[string is double -strict $done] && [string is double -strict $total] && $total > 0
                            ? double($done) / $total : 0.0}]
            set base [dict get {starting 0.05 running 0.1 reducing 0.5 packing 0.85 idle 0.95} $stage]
            set span [dict get {starting 0.05 running 0.4 reducing 0.35 packing 0.1 idle 0.05} $stage]
            if {$stage eq "running" && [dict get $s started] > 0} {
                set part [expr {double([dict get $s exited]) / [dict get $s started]}]
            }
            dict set s fraction [expr {$base + $span * $part}]
            dict set s text "$stage[expr {$total ne "" && $total > 0 ? " $done of $total" : ""}]"
            if {$was eq "done"} { ;# its results are in; it packs the traces after (slave/README.md)
                dict set s stage done
                dict set s fraction 1.0
                if {$stage ne "packing"} { dict set s text $before }
            }
        }
        problem { dict set s text "problem: [{*}$get text]" }
        reductions { dict set s text "reductions received, [{*}$get bytes] bytes"; dict set s fraction 0.97 }
        done { dict set s stage done; dict set s fraction 1.0; dict set s text done }
        packed { dict set s text "traces packed ([{*}$get packed] streams, [{*}$get raw] kept raw)" }
        died { dict set s stage died; dict set s fraction 1.0; dict set s text "slave died while [{*}$get stage]: [{*}$get text]" }
        default { dict set s text "$what [dict remove $event machine event]" }
    }
    dict set Run machines $m $s
    Slaves
}

# Slaves: the per-machine lines and the bar.
proc ::ips2::gui::editor::Slaves {} {
    variable Run
    set f $::ips2::gui::editor::Widgets.run
    if {![winfo exists $f.slaves]} return
    set sum 0.0
    set n 0
    dict for {m s} [dict get $Run machines] {
        set values [list [dict get $s stage] [::format %.0f%% [expr {100 * [dict get $s fraction]}]] [dict get $s text]]
        if {[$f.slaves exists $m]} {
            $f.slaves item $m -values $values
        } else {
            $f.slaves insert {} end -id $m -text $m -values $values
        }
        set sum [expr {$sum + [dict get $s fraction]}]
        incr n
    }
    foreach id [$f.slaves children {}] {
        if {![dict exists $Run machines $id]} { $f.slaves delete $id }
    }
    set pct [expr {$n ? 100.0 * $sum / $n : 0}]
    if {[dict get $Run state] eq "done"} { set pct 100 }
    $f.bar configure -value $pct
    ::ips2::gui::progress [expr {int($pct)}] 100
}

# Done RESULT: the run is over; its session opens.
proc ::ips2::gui::editor::Done {result} {
    variable Run
    dict set Run state done
    dict set Run result $result
    Slaves
    set dir [expr {[dict exists $result session] ? [dict get $result session] : [dict get $Run session]}]
    set problems [expr {[dict exists $result problems] ? [dict get $result problems] : {}}]
    set ::ips2::gui::editor::Status "done: $dir, [llength $problems] problems"
    if {[::ips2::gui::openSession $dir] && [dict exists $Run then]} {
        {*}[dict get $Run then]
    }
    if {[llength $problems]} {
        ::ips2::gui::status "run done with [llength $problems] problems: [lindex $problems 0]" error
    }
}

# ReplayDialog: replay old sessions (replay or comparison mode) in a new
# session, without active applications.
proc ::ips2::gui::editor::ReplayDialog {} {
    variable W
    set dir [tk_chooseDirectory -title "A session to replay" -mustexist 1]
    if {$dir eq ""} return
    set v [Dialog "Replay $dir" {{mode Mode comparison {replay comparison}} {more "Other sessions (directories)" ""}}]
    if {$v eq ""} return
    set W [Empty]
    set sessions [list $dir {*}[dict get $v more]]
    set i 0
    foreach s $sessions {
        addReplay $s [dict get $v mode] [expr {[llength $sessions] > 1 ? "s[incr i]-" : ""}]
    }
    run
}

# fromSession DIR: the workload that ran a session again (its active
# applications' processes, machines and hosts, from its manifest), with
# that session replayed beside it in comparison mode (prefix old-): a new
# run compared with the old one (paper §4.2).
proc ::ips2::gui::editor::fromSession {dir} {
    variable W
    package require ips2::manifest 1.0
    set m [ips2::manifest::read [file join $dir manifest.tcl]]
    set W [Empty]
    # The old session's histogram interval, so that the curves compare.
    set s $::ips2::gui::State(session)
    if {$s ne "" && ![catch {dict get [$s info] interval} ns] && $ns >= 1000000} {
        dict set W options interval [expr {$ns / 1000000}]
    }
    dict for {name mach} [dict get $m machines] {
        dict set W machines $name [dict create host [dict get $mach host] line 0]
    }
    set active {}
    dict for {app a} [dict get $m applications] {
        if {[dict get $a mode] eq "active"} { lappend active $app }
    }
    foreach p [dict get $m processes] {
        set app [dict get $p app]
        if {$app ni $active} continue
        set command [dict get $p command]
        set cwd [expr {[file pathtype [lindex $command 0]] eq "absolute"
                       ? [file dirname [lindex $command 0]] : [pwd]}]
        addProcess $app [dict get $p machine] $command $cwd
    }
    if {![llength $active]} {
        ::ips2::gui::status "$dir: no active application to run again" error
        return 0
    }
    addReplay $dir comparison old- $active
    return 1
}

# compareCommands DIR: what "Compare with a new run" would start for the
# session DIR, from its manifest: {{app APP index I machine M host H
# command {WORD ...}} ...}, the processes of its active applications.
proc ::ips2::gui::editor::compareCommands {dir} {
    package require ips2::manifest 1.0
    set m [ips2::manifest::read [file join $dir manifest.tcl]]
    set out {}
    foreach p [dict get $m processes] {
        set app [dict get $p app]
        if {[dict get $m applications $app mode] ne "active"} continue
        set machine [dict get $p machine]
        lappend out [dict create app $app index [dict get $p index] machine $machine \
                         host [dict get $m machines $machine host] command [dict get $p command]]
    }
    return $out
}

# ShellWord WORD: WORD as a shell would take it, so that a person reads
# the command line as it will run: quoted when it has anything but plain
# characters, with control characters made visible.
proc ::ips2::gui::editor::ShellWord {word} {
    if {$word ne "" && [regexp {^[A-Za-z0-9_./=:,@+%-]+$} $word]} { return $word }
    set shown ""
    foreach c [split $word ""] {
        if {$c eq "'"} {
            append shown {'\''}
        } elseif {[string is control $c]} {
            append shown [::format {\x%02x} [scan $c %c]]
        } else {
            append shown $c
        }
    }
    return '$shown'
}

# confirmCompare ?-session DIR? ?-pvm HOW?: "Compare with a new run" as
# the menu and the button do it.  A session may come from someone else, and
# running it again runs its manifest's command lines: they are shown first,
# and only "Run them" runs them (compareWithNewRun); Cancel, Escape or
# closing the dialog runs nothing.  Returns what compareWithNewRun returns,
# or "".
proc ::ips2::gui::editor::confirmCompare {args} {
    variable Confirm
    set dir $::ips2::gui::State(dir)
    if {$dir eq ""} {
        ::ips2::gui::status "no session open to compare with" error
        return ""
    }
    if {[catch {compareCommands $dir} commands]} {
        ::ips2::gui::status "$dir: $commands" error
        return ""
    }
    if {![llength $commands]} {
        ::ips2::gui::status "$dir: no active application to run again" error
        return ""
    }
    set d .compareConfirm
    catch {destroy $d}
    toplevel $d
    wm title $d "Compare with a new run"
    wm transient $d .
    set apps [lsort -unique [lmap c $commands { dict get $c app }]]
    ttk::label $d.what -justify left -wraplength 640 -text "Running [file tail $dir] again starts\
        these [llength $commands] command lines ([llength $apps] applications), as its manifest\
        gives them. Run them only if you trust where the session comes from."
    ::text $d.commands -width 100 -height [expr {min(20, [llength $commands] + 1)}] -wrap none \
        -yscrollcommand [list $d.ys set] -xscrollcommand [list $d.xs set]
    ttk::scrollbar $d.ys -orient vertical -command [list $d.commands yview]
    ttk::scrollbar $d.xs -orient horizontal -command [list $d.commands xview]
    foreach c $commands {
        set line "[dict get $c app].[dict get $c index] on [dict get $c machine]"
        if {[dict get $c host] ne [dict get $c machine]} { append line " ([dict get $c host])" }
        append line ":  " [join [lmap w [dict get $c command] { ShellWord $w }] " "]
        $d.commands insert end $line\n
    }
    $d.commands configure -state disabled
    ttk::frame $d.b
    ttk::button $d.b.run -text "Run them" -command {set ::ips2::gui::editor::Confirm run}
    ttk::button $d.b.cancel -text Cancel -command {set ::ips2::gui::editor::Confirm cancel}
    pack $d.b.cancel $d.b.run -side right -padx 4
    grid $d.what - -sticky w -padx 4 -pady 4
    grid $d.commands $d.ys -sticky nsew -padx {4 0}
    grid $d.xs -sticky ew -padx {4 0}
    grid $d.b - -sticky e -pady 4
    grid columnconfigure $d 0 -weight 1
    grid rowconfigure $d 1 -weight 1
    bind $d <Escape> {set ::ips2::gui::editor::Confirm cancel}
    wm protocol $d WM_DELETE_WINDOW {set ::ips2::gui::editor::Confirm cancel}
    focus $d.b.cancel
    set Confirm ""
    vwait ::ips2::gui::editor::Confirm
    set answer $Confirm
    destroy $d
    if {$answer ne "run"} {
        ::ips2::gui::status "compare with a new run cancelled: nothing was run"
        return ""
    }
    compareWithNewRun {*}$args
}

# compareWithNewRun ?-session DIR? ?-pvm HOW?: run the open session's
# workload again and open the new session with the old one in comparison
# mode, showing the overlay of every application's CPU.
proc ::ips2::gui::editor::compareWithNewRun {args} {
    variable Run
    set dir $::ips2::gui::State(dir)
    if {$dir eq ""} {
        ::ips2::gui::status "no session open to compare with" error
        return ""
    }
    if {![fromSession $dir]} { return "" }
    set o [dict merge [list -session [file join [file dirname $dir] [file tail $dir]-compare-[clock format [clock seconds] -format %H%M%S]]] $args]
    set new [run {*}$o]
    if {$new ne ""} { dict set Run then ::ips2::gui::ShowOverlay }
    return $new
}

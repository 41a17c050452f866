# workload.tcl - reads a workload file (docs/ANALYSTS.md §1) into a dict.
#
# The file is Tcl, sourced in a safe interpreter (dsl.tcl) whose commands
# are Tcl's safe core plus the workload commands:
#
#   machine NAME ?-host HOST?
#   application NAME ?-mode active? ?-after {APP ...}?
#           ?-stop-when {APP ... ended}? ?-signal NAME? ?-grace MS?
#           { process ... ; ... }
#   process MACHINE ?-cwd DIR? ?-env {NAME VALUE ...}? ?-timeout SECONDS? ?-filter FILE?
#           ?-count N? ?-spawn N? ?-after {APP ...}? ?-ready {tcp PORT}|{file PATH}?
#           ?-ready-timeout SECONDS? ?--? COMMAND ?ARG ...?   (inside an application)
#   replay SESSION-DIR ?-mode replay|comparison? ?-apps {APP ...}? ?-prefix STRING?
#   collector MACHINE KIND ?-interval MS?             (KIND: os | hw)
#   option interval MS | option timeout SECONDS
#
# Each command checks its words as it runs; a mistake raises
# "FILE:LINE: expected ..." (error code {IPS2 DSL FILE LINE}).  What can only
# be checked at the end (an application without processes, replayed names
# that clash with active ones) names the line of the command concerned.
# Variables given with -vars are set in the interpreter before the file
# runs, so one file serves several builds (`set bin` in the demo).
#
# The result, the contract with ips2::run (master/, ANALYSTS.md §1):
#
#   file          the workload file, normalized
#   options       {interval MS timeout SECONDS}
#   machines      {NAME {host HOST line N} ...}  every machine declared or
#                 used, in order of first mention; line 0 = not declared
#   applications  {NAME {mode active line N after {APP ...} stop STOP
#                        processes {PROCESS ...}} ...}
#   STOP          {} or {when {APP ...} signal NAME grace MS}: once every
#                 process of those applications ended, the application's
#                 processes get SIGNAL, and SIGKILL MS later if still there
#   PROCESS       {index I machine M cwd DIR env {NAME VALUE ...}
#                  timeout SECONDS command {WORD ...} line N
#                  after {APP ...} ready READY readytimeout SECONDS
#                  spawn {} | {size N rank K}}
#                 after: its application's -after and its own, merged;
#                 it starts once every process of those applications is
#                 ready.  READY: {} (ready once started), {tcp PORT} or
#                 {file ABSOLUTE-PATH} (relative to its cwd).  spawn: one
#                 of N PVM tasks the slave starts together with pvm_spawn
#                 (-spawn N: siblings, as pvm_siblings sees them)
#                 one per process to run (-count N gives N), index 0, 1, ...
#                 within the application; cwd absolute; a relative command
#                 path with a "/" resolved against cwd, a bare name left to
#                 PATH; timeout defaulted from the options
#   replays       {{session DIR mode MODE apps {APP ...} prefix STRING line N} ...}
#                 session absolute; apps {} = all of them
#   collectors    {{machine M kind KIND interval MS line N} ...}

package require Tcl 8.6
package require ips2::dsl 1.0
package provide ips2::workload 1.0

namespace eval ::ips2::workload {
    namespace export read
    # Reading(SLAVE): the dict being built while SLAVE sources its file,
    # plus "current" (the application whose body runs, or "") and
    # "explicit" (the options set by the file).
    variable Reading
    array set Reading {}
    variable Defaults {interval 100 timeout 600}
}

# read FILE ?-vars {NAME VALUE ...}?
proc ::ips2::workload::read {file args} {
    variable Reading
    set vars {}
    foreach {opt value} $args {
        switch -- $opt {
            -vars   { set vars $value }
            default { return -code error "read: unknown option \"$opt\": expected -vars" }
        }
    }
    if {[llength $args] % 2} { return -code error "read: option \"[lindex $args end]\" has no value" }
    set path [file normalize $file]
    set slave [ips2::dsl::create $file]
    set Reading($slave) [dict create file $path dir [file dirname $path] \
                             machines {} applications {} replays {} collectors {} \
                             options {} current "" lines {}]
    try {
        foreach {name value} $vars {
            interp eval $slave [list set $name $value]
        }
        foreach name {machine process replay collector option} {
            ips2::dsl::command $slave $name [list ::ips2::workload::Cmd[string totitle $name] $slave]
        }
        ips2::dsl::block $slave application [list ::ips2::workload::AppBegin $slave] \
            [list ::ips2::workload::AppEnd $slave]
        ips2::dsl::source $slave
        return [Finish $slave $file]
    } finally {
        unset -nocomplain Reading($slave)
        ips2::dsl::destroy $slave
    }
}

# --- checking words -----------------------------------------------------------

proc ::ips2::workload::Fail {slave message} {
    ips2::dsl::fail $slave $message
}

# Name: a machine's or application's name, which becomes file names in the
# session (ips2::dsl::checkName: no "/", no "..", at most 200 characters).
proc ::ips2::workload::Name {slave what value} {
    ips2::dsl::checkName $slave $what $value
}

# Positive: a decimal number > 0 (an integer if asked), as a number: "010"
# is ten, not octal eight; "1.5" stays a fraction.
proc ::ips2::workload::Positive {slave what value {integer 0}} {
    if {$integer} {
        set ok [regexp {^[0-9]+$} $value]
        set kind "a positive integer"
        if {$ok} { scan $value %lld value }
    } else {
        set ok [regexp {^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$} $value]
        set kind "a positive number"
        if {$ok} {
            if {[regexp {^[0-9]+$} $value]} { scan $value %lld value } else { scan $value %f value }
        }
    }
    if {!$ok || $value <= 0 || $value == Inf} { Fail $slave "expected $what as $kind, got \"$value\"" }
    return $value
}

# Options SLAVE COMMAND WORDS SPEC: parses "-name value" pairs among WORDS
# (all of them) against SPEC, a dict option -> description; returns the
# dict of options given.  A repeated option is a mistake.
proc ::ips2::workload::Options {slave command words spec} {
    set given {}
    while {[llength $words]} {
        set words [lassign $words opt]
        if {![dict exists $spec $opt]} {
            Fail $slave "expected [Choices [dict keys $spec]] in \"$command\", got \"$opt\""
        }
        if {![llength $words]} {
            Fail $slave "expected [dict get $spec $opt] after $opt"
        }
        if {[dict exists $given $opt]} {
            Fail $slave "expected $opt only once in \"$command\""
        }
        set words [lassign $words value]
        dict set given $opt $value
    }
    return $given
}

proc ::ips2::workload::Choices {words} {
    if {[llength $words] < 2} { return [lindex $words 0] }
    return "[join [lrange $words 0 end-1] ", "] or [lindex $words end]"
}

proc ::ips2::workload::Line {slave} {
    ips2::dsl::line $slave
}

# Mention: a machine named by a process or collector; declared later or
# never, it is a host of its name.
proc ::ips2::workload::Mention {slave machine} {
    variable Reading
    if {![dict exists $Reading($slave) machines $machine]} {
        dict set Reading($slave) machines $machine [dict create host $machine line 0]
    }
}

# Apps: the applications named by OPTION (a list of names, at least one,
# each once); whether they exist is checked at the end.
proc ::ips2::workload::Apps {slave option value} {
    if {[catch {llength $value} n] || $n == 0} {
        Fail $slave "expected $option {APP ...}, got \"[ips2::dsl::Shown $value]\""
    }
    set apps {}
    foreach app $value {
        Name $slave "an application name in $option" $app
        if {$app ni $apps} { lappend apps $app }
    }
    return $apps
}

# Ready: {tcp PORT} (something listens on PORT on the process's machine) or
# {file PATH} (PATH exists; relative to the process's cwd).
proc ::ips2::workload::Ready {slave value cwd} {
    if {[catch {llength $value} n] || $n != 2 || [lindex $value 0] ni {tcp file}} {
        Fail $slave "expected -ready {tcp PORT} or {file PATH}, got \"[ips2::dsl::Shown $value]\""
    }
    lassign $value kind arg
    if {$kind eq "tcp"} {
        if {![regexp {^[0-9]{1,5}$} $arg] || [scan $arg %d] < 1 || [scan $arg %d] > 65535} {
            Fail $slave "expected a TCP port (1 to 65535) in -ready, got \"[ips2::dsl::Shown $arg]\""
        }
        return [list tcp [scan $arg %d]]
    }
    if {$arg eq ""} { Fail $slave "expected a path in -ready {file PATH}, got \"\"" }
    return [list file [file normalize [file join $cwd $arg]]]
}

# Signal: a signal name for -signal, without "SIG".
proc ::ips2::workload::Signal {slave value} {
    set name [string toupper [regsub {(?i)^SIG} $value ""]]
    if {$name ni {TERM INT HUP QUIT KILL USR1 USR2}} {
        Fail $slave "expected -signal TERM, INT, HUP, QUIT, KILL, USR1 or USR2,\
            got \"[ips2::dsl::Shown $value]\""
    }
    return $name
}

# --- commands -------------------------------------------------------------------

proc ::ips2::workload::CmdMachine {slave args} {
    variable Reading
    if {![llength $args]} { Fail $slave "expected a machine name after \"machine\"" }
    set args [lassign $args name]
    Name $slave "a machine name" $name
    set opts [Options $slave machine $args {-host "a host name"}]
    set host $name
    if {[dict exists $opts -host]} {
        set host [ips2::dsl::checkHost $slave "a host name after -host" [dict get $opts -host]]
    }
    set line [Line $slave]
    if {[dict exists $Reading($slave) machines $name]
            && [dict get $Reading($slave) machines $name line] != 0} {
        Fail $slave "expected machine \"$name\" to be declared once\
            (it was at line [dict get $Reading($slave) machines $name line])"
    }
    dict set Reading($slave) machines $name [dict create host $host line $line]
    return
}

proc ::ips2::workload::AppBegin {slave args} {
    variable Reading
    if {[dict get $Reading($slave) current] ne ""} {
        Fail $slave "expected process commands in application\
            \"[dict get $Reading($slave) current]\", got another application"
    }
    if {![llength $args]} { Fail $slave "expected an application name after \"application\"" }
    set args [lassign $args name]
    Name $slave "an application name" $name
    set opts [Options $slave application $args {-mode "active" -after "a list of applications"
        -stop-when "{APP ... ended}" -signal "a signal name" -grace "milliseconds"}]
    if {[dict exists $opts -mode] && [dict get $opts -mode] ne "active"} {
        Fail $slave "expected -mode active (old sessions come in with \"replay\"),\
            got \"[dict get $opts -mode]\""
    }
    set after {}
    if {[dict exists $opts -after]} {
        set after [Apps $slave -after [dict get $opts -after]]
    }
    set stop {}
    if {[dict exists $opts -stop-when]} {
        set when [dict get $opts -stop-when]
        if {[catch {llength $when} n] || $n < 2 || [lindex $when end] ne "ended"} {
            Fail $slave "expected -stop-when {APP ... ended}, got \"[ips2::dsl::Shown $when]\""
        }
        set stop [dict create when [Apps $slave -stop-when [lrange $when 0 end-1]] \
                      signal TERM grace 2000]
        if {[dict exists $opts -signal]} {
            dict set stop signal [Signal $slave [dict get $opts -signal]]
        }
        if {[dict exists $opts -grace]} {
            dict set stop grace [Positive $slave "-grace" [dict get $opts -grace] 1]
        }
    } elseif {[dict exists $opts -signal] || [dict exists $opts -grace]} {
        Fail $slave "expected -signal and -grace only with -stop-when"
    }
    if {[dict exists $Reading($slave) applications $name]} {
        Fail $slave "expected application \"$name\" to be declared once\
            (it was at line [dict get $Reading($slave) applications $name line])"
    }
    dict set Reading($slave) applications $name \
        [dict create mode active line [Line $slave] after $after stop $stop processes {}]
    dict set Reading($slave) current $name
    return
}

proc ::ips2::workload::AppEnd {slave} {
    variable Reading
    dict set Reading($slave) current ""
}

proc ::ips2::workload::CmdProcess {slave args} {
    variable Reading
    set app [dict get $Reading($slave) current]
    if {$app eq ""} {
        Fail $slave "expected \"process\" inside an application's body"
    }
    if {![llength $args]} { Fail $slave "expected a machine name after \"process\"" }
    set args [lassign $args machine]
    Name $slave "a machine name" $machine
    set spec {-cwd "a directory" -env "a list {NAME VALUE ...}" -timeout "seconds"
              -count "a number of processes" -spawn "a number of PVM tasks"
              -after "a list of applications"
              -ready "{tcp PORT} or {file PATH}" -ready-timeout "seconds"
              -filter "a filter file"}
    set words {}
    while {[llength $args]} {
        set word [lindex $args 0]
        if {$word eq "--"} {
            set args [lrange $args 1 end]
            break
        }
        if {![string match -* $word]} break
        lappend words {*}[lrange $args 0 1]
        set args [lrange $args 2 end]
        if {![dict exists $spec $word]} break
    }
    set opts [Options $slave process $words $spec]
    if {![llength $args]} {
        Fail $slave "expected a command line after the options of \"process\""
    }
    set dir [dict get $Reading($slave) dir]
    set cwd $dir
    if {[dict exists $opts -cwd]} {
        if {[dict get $opts -cwd] eq ""} { Fail $slave "expected a directory after -cwd, got \"\"" }
        set cwd [file normalize [file join $dir [dict get $opts -cwd]]]
    }
    set env {}
    if {[dict exists $opts -env]} {
        set list [dict get $opts -env]
        if {[catch {llength $list} n] || $n % 2} {
            Fail $slave "expected -env {NAME VALUE ...} with a value for each name"
        }
        foreach {name value} $list {
            if {![regexp {^[A-Za-z_][A-Za-z0-9_]*$} $name]} {
                Fail $slave "expected an environment variable name in -env, got \"$name\""
            }
            if {$name in {IPS2_SESSION IPS2_APP}} {
                Fail $slave "expected -env without $name (the slave sets it)"
            }
            dict set env $name $value
        }
    }
    if {[dict exists $opts -filter]} {
        # a procedure filter (docs/ANALYSTS.md §9): IPS2_FILTER, relative to this file
        if {[dict get $opts -filter] eq ""} { Fail $slave "expected a filter file after -filter, got \"\"" }
        dict set env IPS2_FILTER [file normalize [file join $dir [dict get $opts -filter]]]
    }
    set timeout ""
    if {[dict exists $opts -timeout]} {
        set timeout [Positive $slave "-timeout" [dict get $opts -timeout]]
    }
    set count 1
    if {[dict exists $opts -count]} {
        set count [Positive $slave "-count" [dict get $opts -count] 1]
        if {$count > 10000} { Fail $slave "expected -count of at most 10000, got $count" }
    }
    set spawn 0
    if {[dict exists $opts -spawn]} {
        set spawn [Positive $slave "-spawn" [dict get $opts -spawn] 1]
        if {$spawn > 1000} { Fail $slave "expected -spawn of at most 1000, got $spawn" }
        if {[dict exists $opts -count]} { Fail $slave "expected -spawn or -count, not both" }
        if {[dict exists $opts -ready]} { Fail $slave "expected -ready without -spawn" }
        set count $spawn
    }
    set after {}
    if {[dict exists $opts -after]} {
        set after [Apps $slave -after [dict get $opts -after]]
    }
    set ready {}
    if {[dict exists $opts -ready]} {
        set ready [Ready $slave [dict get $opts -ready] $cwd]
    }
    set readytimeout 60
    if {[dict exists $opts -ready-timeout]} {
        if {![llength $ready]} { Fail $slave "expected -ready-timeout only with -ready" }
        set readytimeout [Positive $slave "-ready-timeout" [dict get $opts -ready-timeout]]
    }
    set command $args
    set exe [lindex $command 0]
    if {$exe eq ""} { Fail $slave "expected a program to run, got \"\"" }
    if {[string first / $exe] >= 0 && [file pathtype $exe] ne "absolute"} {
        lset command 0 [file normalize [file join $cwd $exe]]
    }
    Mention $slave $machine
    set line [Line $slave]
    set procs [dict get $Reading($slave) applications $app processes]
    for {set i 0} {$i < $count} {incr i} {
        set group [expr {$spawn ? [list size $spawn rank $i] : {}}]
        lappend procs [dict create index [llength $procs] machine $machine cwd $cwd env $env \
                           timeout $timeout command $command line $line \
                           after $after ready $ready readytimeout $readytimeout spawn $group]
    }
    dict set Reading($slave) applications $app processes $procs
    return
}

proc ::ips2::workload::CmdReplay {slave args} {
    variable Reading
    if {![llength $args] || [string match -* [lindex $args 0]]} {
        Fail $slave "expected a session directory after \"replay\""
    }
    set args [lassign $args session]
    if {$session eq ""} { Fail $slave "expected a session directory after \"replay\", got \"\"" }
    set opts [Options $slave replay $args {-mode "replay or comparison" -apps "a list of applications"
                                          -prefix "a prefix for the applications' names"}]
    set mode replay
    if {[dict exists $opts -mode]} {
        set mode [dict get $opts -mode]
        if {$mode ni {replay comparison}} {
            Fail $slave "expected -mode replay or comparison, got \"$mode\""
        }
    }
    set apps {}
    if {[dict exists $opts -apps]} {
        if {[catch {llength [dict get $opts -apps]}]} {
            Fail $slave "expected -apps {APP ...}, got \"[dict get $opts -apps]\""
        }
        foreach app [dict get $opts -apps] {
            lappend apps [Name $slave "an application name in -apps" $app]
        }
    }
    set prefix ""
    if {[dict exists $opts -prefix]} {
        set prefix [dict get $opts -prefix]
        # the prefix begins the replayed applications' names
        if {$prefix ne "" && ![regexp {^[A-Za-z0-9_][A-Za-z0-9_.-]*$} $prefix]} {
            Fail $slave "expected -prefix of letters, digits, \"_\", \".\" and \"-\", got \"$prefix\""
        }
    }
    set dir [dict get $Reading($slave) dir]
    dict lappend Reading($slave) replays \
        [dict create session [file normalize [file join $dir $session]] mode $mode apps $apps \
             prefix $prefix line [Line $slave]]
    return
}

proc ::ips2::workload::CmdCollector {slave args} {
    variable Reading
    if {[llength $args] < 2} { Fail $slave "expected \"collector MACHINE KIND ?-interval MS?\"" }
    set args [lassign $args machine kind]
    Name $slave "a machine name" $machine
    if {$kind ni {os hw}} { Fail $slave "expected a collector kind, os or hw, got \"$kind\"" }
    set opts [Options $slave collector $args {-interval "milliseconds"}]
    set interval ""
    if {[dict exists $opts -interval]} {
        set interval [Positive $slave "-interval" [dict get $opts -interval] 1]
    }
    Mention $slave $machine
    dict lappend Reading($slave) collectors \
        [dict create machine $machine kind $kind interval $interval line [Line $slave]]
    return
}

proc ::ips2::workload::CmdOption {slave args} {
    variable Reading
    if {[llength $args] != 2} { Fail $slave "expected \"option interval MS\" or \"option timeout SECONDS\"" }
    lassign $args name value
    switch -- $name {
        interval { set value [Positive $slave "the interval in milliseconds" $value 1] }
        timeout  { set value [Positive $slave "the timeout in seconds" $value] }
        default  { Fail $slave "expected an option, interval or timeout, got \"$name\"" }
    }
    if {[dict exists $Reading($slave) lines $name]} {
        Fail $slave "expected option $name once (it was set at line [dict get $Reading($slave) lines $name])"
    }
    dict set Reading($slave) lines $name [Line $slave]
    dict set Reading($slave) options $name $value
    return
}

# --- the end of the file ------------------------------------------------------

proc ::ips2::workload::Finish {slave file} {
    variable Reading
    variable Defaults
    set r $Reading($slave)
    set options [dict merge $Defaults [dict get $r options]]
    set last [LastLine [dict get $r file]]

    set apps {}
    dict for {name app} [dict get $r applications] {
        if {![llength [dict get $app processes]]} {
            ips2::dsl::failat $file [dict get $app line] \
                "expected at least one process in application \"$name\""
        }
        set procs {}
        foreach p [dict get $app processes] {
            if {[dict get $p timeout] eq ""} { dict set p timeout [dict get $options timeout] }
            set after [dict get $app after]
            foreach a [dict get $p after] {
                if {$a ni $after} { lappend after $a }
            }
            dict set p after $after
            lappend procs $p
        }
        dict set app processes $procs
        dict set apps $name $app
    }
    set collectors {}
    foreach c [dict get $r collectors] {
        if {[dict get $c interval] eq ""} { dict set c interval [dict get $options interval] }
        lappend collectors $c
    }
    Order $file $apps
    foreach replay [dict get $r replays] {
        foreach app [dict get $replay apps] {
            set name [dict get $replay prefix]$app
            if {[dict exists $apps $name]} {
                ips2::dsl::failat $file [dict get $replay line] \
                    "expected replayed application \"$name\" not to clash with the active one\
                     of line [dict get $apps $name line] (use -prefix)"
            }
        }
    }
    if {![dict size $apps] && ![llength [dict get $r replays]]} {
        ips2::dsl::failat $file $last "expected at least one application or replay in the workload"
    }
    dict create file [dict get $r file] options $options machines [dict get $r machines] \
        applications $apps replays [dict get $r replays] collectors $collectors
}

# Order: -after and -stop-when name active applications other than their
# own, and -after makes no cycle (which would start nothing).
proc ::ips2::workload::Order {file apps} {
    dict for {name app} $apps {
        foreach p [dict get $app processes] {
            foreach a [dict get $p after] {
                if {![dict exists $apps $a]} {
                    ips2::dsl::failat $file [dict get $p line] \
                        "expected -after to name an application of the workload, got \"$a\""
                }
                if {$a eq $name} {
                    ips2::dsl::failat $file [dict get $p line] \
                        "expected -after to name another application than \"$name\""
                }
            }
        }
        if {[dict size [dict get $app stop]]} {
            foreach a [dict get $app stop when] {
                if {![dict exists $apps $a] || $a eq $name} {
                    ips2::dsl::failat $file [dict get $app line] \
                        "expected -stop-when to name another application of the workload,\
                         got \"$a\""
                }
            }
        }
    }
    # a cycle: take away the applications whose -after are all taken away;
    # what stays holds a cycle, found by following -after among them
    set deps {}
    dict for {name app} $apps {
        set d {}
        foreach p [dict get $app processes] {
            foreach a [dict get $p after] {
                if {$a ni $d} { lappend d $a }
            }
        }
        dict set deps $name $d
    }
    set left $deps
    set changed 1
    while {$changed} {
        set changed 0
        dict for {name d} $left {
            set free 1
            foreach a $d {
                if {[dict exists $left $a]} { set free 0; break }
            }
            if {$free} { dict unset left $name; set changed 1 }
        }
    }
    if {[dict size $left]} {
        set n [lindex [dict keys $left] 0]
        set path {}
        while {$n ni $path} {
            lappend path $n
            foreach a [dict get $left $n] {
                if {[dict exists $left $a]} { set n $a; break }
            }
        }
        set cycle [concat [lrange $path [lsearch $path $n] end] $n]
        ips2::dsl::failat $file [dict get $apps $n line] \
            "expected -after without a cycle, got [join $cycle { after }]"
    }
}

# LastLine: the number of the file's last line (where "missing" is found).
proc ::ips2::workload::LastLine {path} {
    set f [open $path {RDONLY NONBLOCK}]
    try {
        set text [::read $f]
    } finally {
        close $f
    }
    set n [regexp -all \n [string trimright $text \n]]
    return [expr {$n + 1}]
}

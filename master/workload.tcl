# workload.tcl - reads a workload file (docs/ANALYSTS.md §1) into a dict.
#
# The file is Tcl, sourced in a safe interpreter (dsl.tcl) whose commands
# are Tcl's safe core plus the workload commands:
#
#   machine NAME ?-host HOST?
#   application NAME ?-mode active? { process ... ; ... }
#   process MACHINE ?-cwd DIR? ?-env {NAME VALUE ...}? ?-timeout SECONDS?
#           ?-count N? ?--? COMMAND ?ARG ...?          (inside an application)
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
#   applications  {NAME {mode active line N processes {PROCESS ...}} ...}
#   PROCESS       {index I machine M cwd DIR env {NAME VALUE ...}
#                  timeout SECONDS command {WORD ...} line N}
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
    variable NameRE {^[A-Za-z0-9_][A-Za-z0-9_.-]*$}
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

proc ::ips2::workload::Name {slave what value} {
    variable NameRE
    if {![regexp $NameRE $value]} {
        Fail $slave "expected $what (letters, digits, \"_\", \".\" and \"-\"), got \"$value\""
    }
    return $value
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

# --- commands -------------------------------------------------------------------

proc ::ips2::workload::CmdMachine {slave args} {
    variable Reading
    if {![llength $args]} { Fail $slave "expected a machine name after \"machine\"" }
    set args [lassign $args name]
    Name $slave "a machine name" $name
    set opts [Options $slave machine $args {-host "a host name"}]
    set host $name
    if {[dict exists $opts -host]} {
        set host [dict get $opts -host]
        if {$host eq "" || [regexp {\s} $host]} {
            Fail $slave "expected a host name after -host, got \"$host\""
        }
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
    set opts [Options $slave application $args {-mode "active"}]
    if {[dict exists $opts -mode] && [dict get $opts -mode] ne "active"} {
        Fail $slave "expected -mode active (old sessions come in with \"replay\"),\
            got \"[dict get $opts -mode]\""
    }
    if {[dict exists $Reading($slave) applications $name]} {
        Fail $slave "expected application \"$name\" to be declared once\
            (it was at line [dict get $Reading($slave) applications $name line])"
    }
    dict set Reading($slave) applications $name \
        [dict create mode active line [Line $slave] processes {}]
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
              -count "a number of processes"}
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
    set timeout ""
    if {[dict exists $opts -timeout]} {
        set timeout [Positive $slave "-timeout" [dict get $opts -timeout]]
    }
    set count 1
    if {[dict exists $opts -count]} {
        set count [Positive $slave "-count" [dict get $opts -count] 1]
        if {$count > 10000} { Fail $slave "expected -count of at most 10000, got $count" }
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
        lappend procs [dict create index [llength $procs] machine $machine cwd $cwd env $env \
                           timeout $timeout command $command line $line]
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
        if {$prefix ne "" && ![regexp {^[A-Za-z0-9_.-]+$} $prefix]} {
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

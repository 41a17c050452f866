# manifest.tcl - a session's manifest.tcl (docs/ANALYSTS.md §3): the
# resolved workload and what happened, as data.  Written as one command per
# line; read back in a safe interpreter (dsl.tcl) that knows only these
# commands, so a manifest never runs code, and a bad one is reported as
# "FILE:LINE: expected ...".  This is the one reader of manifests: the
# command line's, ips2::run's (replays) and the session loader's
# (master/session_dir.c, through load).
#
#   ips2::manifest::read FILE       -> MANIFEST (the first mistake is an error)
#   ips2::manifest::load FILE ?NAME? -> {MANIFEST PROBLEMS}: every bad
#                                   command is one problem "NAME:LINE: ...",
#                                   left out, and the rest is read
#   ips2::manifest::format MANIFEST -> the text of manifest.tcl
#   ips2::manifest::write FILE MANIFEST     (atomically: FILE.tmp, then rename)
#   ips2::manifest::save_phase FILE NAME START END   (a phase the user defined)
#
# MANIFEST, a dict (every key present; read returns them in this order):
#
#   version       1
#   session       START-REAL-NS (CLOCK_REALTIME of the session's time 0)
#   machines      {NAME {host HOST offset REAL-MINUS-MONO-NS ?clock {OFFSET ERROR RTT N}?} ...}
#                 (clock: the slave's measure of its machine's clock minus the
#                 master's, its error bound and round trip in ns, the
#                 exchanges made; docs/CLOCKS.md)
#   applications  {NAME {mode active|replay|comparison source DIR-OR-""} ...}
#   processes     {{app A machine M index I pid P command {WORD ...}
#                   status {exited N}|{signal N}|{failed TEXT}|timeout} ...}
#   replayed      {APP {session DIR shift NS} ...}
#   phases        {NAME {start NS end NS} ...}
#
# read checks every word (integers, modes, statuses) and that processes,
# replayed applications and phases name what the manifest declares.  A
# received session is not trusted: machine and application names are
# names as the workload reader takes them (ips2::dsl::checkName: they
# become file names, SESSION/reductions/MACHINE.red and the like, so no
# "/" and no ".."), hosts are host names, and the file is read under the
# reader's limits (dsl.tcl).

package require Tcl 8.6
package require ips2::dsl 1.0
package provide ips2::manifest 1.0

namespace eval ::ips2::manifest {
    namespace export read load format write save_phase
    variable Version 1
    # Reading(SLAVE): the manifest being read, plus "lines" (where each
    # process, replayed and phase entry came from, for the checks at the
    # end) and "problems" (load: what was left out; read: unused).
    variable Reading
    array set Reading {}
}

proc ::ips2::manifest::read {file} {
    Read $file $file 0
}

proc ::ips2::manifest::load {file {name ""}} {
    if {$name eq ""} { set name $file }
    Read $file $name 1
}

# Read FILE NAME TOLERANT: read's and load's reading.  Tolerant, each bad
# command is a problem and the rest is read (ips2::dsl::sourceEach), and so
# are the end's checks; the problems name a bad integer by its word in the
# command's usage, as the session's problem list always has.
proc ::ips2::manifest::Read {file name tolerant} {
    variable Reading
    set slave [ips2::dsl::create $file $name]
    set Reading($slave) [dict create version "" session "" machines {} applications {} \
                             processes {} replayed {} phases {} lines {} problems {} \
                             tolerant $tolerant]
    try {
        foreach command {ips2-session session machine clock application process replayed phase} {
            ips2::dsl::command $slave $command \
                [list ::ips2::manifest::Cmd[string map {- {}} [string totitle $command]] $slave]
        }
        if {!$tolerant} {
            ips2::dsl::source $slave
            return [Finish $slave $name]
        }
        ips2::dsl::sourceEach $slave [list ::ips2::manifest::Problem $slave]
        set m [Finish $slave $name]
        return [list $m [dict get $Reading($slave) problems]]
    } finally {
        unset -nocomplain Reading($slave)
        ips2::dsl::destroy $slave
    }
}

proc ::ips2::manifest::Problem {slave message} {
    variable Reading
    dict lappend Reading($slave) problems $message
}

proc ::ips2::manifest::format {m} {
    set lines [list "# ips2 session manifest (docs/ANALYSTS.md §3): data, read in a safe interpreter"]
    lappend lines [list ips2-session [dict get $m version]]
    lappend lines [list session [dict get $m session]]
    dict for {name mach} [dict get $m machines] {
        lappend lines [list machine $name [dict get $mach host] [dict get $mach offset]]
        if {[dict exists $mach clock]} {
            lappend lines [list clock $name {*}[dict get $mach clock]]
        }
    }
    dict for {name app} [dict get $m applications] {
        lappend lines [list application $name [dict get $app mode] [dict get $app source]]
    }
    foreach p [dict get $m processes] {
        lappend lines [list process [dict get $p app] [dict get $p machine] [dict get $p index] \
                           [dict get $p pid] [dict get $p command] {*}[dict get $p status]]
    }
    dict for {app r} [dict get $m replayed] {
        lappend lines [list replayed $app [dict get $r session] [dict get $r shift]]
    }
    dict for {name ph} [dict get $m phases] {
        lappend lines [list phase $name [dict get $ph start] [dict get $ph end]]
    }
    return [join $lines \n]\n
}

proc ::ips2::manifest::write {file m} {
    set tmp $file.tmp
    set f [open $tmp w]
    try {
        fconfigure $f -encoding utf-8 -translation lf
        puts -nonewline $f [format $m]
    } on error {message options} {
        close $f
        file delete $tmp
        return -options $options $message
    }
    close $f
    file rename -force $tmp $file
}

# Records (or redefines) phase NAME in the manifest FILE, so that the
# session reopens with it.
proc ::ips2::manifest::save_phase {file name start end} {
    set m [read $file]
    dict set m phases $name [dict create start $start end $end]
    write $file $m
}

# --- reading ------------------------------------------------------------------

proc ::ips2::manifest::Fail {slave message} {
    ips2::dsl::fail $slave $message
}

proc ::ips2::manifest::Args {slave command n usage args} {
    if {[llength $args] != $n} { Fail $slave "expected \"$command $usage\"" }
}

proc ::ips2::manifest::Started {slave command} {
    variable Reading
    if {[dict get $Reading($slave) version] eq ""} {
        Fail $slave "expected \"ips2-session 1\" before \"$command\""
    }
}

# Integer SLAVE WHAT WORD VALUE ?NEGATIVE?: a decimal integer (negative if
# allowed) as a number; WHAT says it for people, WORD is its name in the
# command's usage (load's problems use it).
proc ::ips2::manifest::Integer {slave what word value {negative 1}} {
    variable Reading
    set re [expr {$negative ? {^-?[0-9]+$} : {^[0-9]+$}}]
    if {![regexp $re $value]} {
        set kind [expr {$negative ? "an integer" : "a non-negative integer"}]
        if {[dict get $Reading($slave) tolerant]} {
            Fail $slave "expected $word ($kind) but got \"$value\""
        }
        Fail $slave "expected $what as $kind, got \"$value\""
    }
    scan $value %lld n
    return $n
}

proc ::ips2::manifest::Once {slave key name what} {
    variable Reading
    if {[dict exists $Reading($slave) $key $name]} {
        Fail $slave "expected $what \"$name\" once"
    }
}

# Entry SLAVE COMMAND USAGE KEY WHAT EMPTY ARGS: the checks every entry
# named by its first word (machine, application, replayed, phase) begins
# with: a line after "ips2-session", with the words USAGE names, whose name
# is not empty (EMPTY says it, "" where an empty one is let through) and
# not already under KEY (WHAT says what it names).  Returns the words.
proc ::ips2::manifest::Entry {slave command usage key what empty args} {
    Started $slave $command
    Args $slave $command [llength $usage] $usage {*}$args
    set name [lindex $args 0]
    if {$empty ne "" && $name eq ""} { Fail $slave "expected $empty, got \"\"" }
    Once $slave $key $name $what
    return $args
}

proc ::ips2::manifest::CmdIps2session {slave args} {
    variable Reading
    variable Version
    Args $slave ips2-session 1 VERSION {*}$args
    if {[dict get $Reading($slave) version] ne ""} { Fail $slave "expected \"ips2-session\" once" }
    if {[lindex $args 0] ne $Version} {
        Fail $slave "expected manifest version $Version, got \"[lindex $args 0]\""
    }
    dict set Reading($slave) version $Version
    return
}

proc ::ips2::manifest::CmdSession {slave args} {
    variable Reading
    Started $slave session
    Args $slave session 1 START-REAL-NS {*}$args
    if {[dict get $Reading($slave) session] ne ""} { Fail $slave "expected \"session\" once" }
    dict set Reading($slave) session [Integer $slave "the session's start in ns" START-REAL-NS [lindex $args 0] 0]
    return
}

proc ::ips2::manifest::CmdMachine {slave args} {
    variable Reading
    lassign [Entry $slave machine "NAME HOST REAL-MINUS-MONO-NS" machines machine \
                 "a machine name" {*}$args] name host offset
    ips2::dsl::checkName $slave "a machine name" $name
    ips2::dsl::checkHost $slave "a host name for machine \"$name\"" $host
    set offset [Integer $slave "the machine's clock offset in ns" REAL-MINUS-MONO-NS $offset]
    dict set Reading($slave) machines $name [dict create host $host offset $offset]
    return
}

# clock MACHINE OFFSET ERROR RTT N: after its machine line.
proc ::ips2::manifest::CmdClock {slave args} {
    variable Reading
    Started $slave clock
    Args $slave clock 5 "MACHINE OFFSET-NS ERROR-NS RTT-NS EXCHANGES" {*}$args
    lassign $args name offset error rtt n
    if {![dict exists $Reading($slave) machines $name]} {
        Fail $slave "expected a machine declared before its clock, got \"$name\""
    }
    set c [list [Integer $slave "the clock offset in ns" OFFSET-NS $offset] \
               [Integer $slave "the clock error bound in ns" ERROR-NS $error 0] \
               [Integer $slave "the clock round trip in ns" RTT-NS $rtt 0] \
               [Integer $slave "the clock exchanges" EXCHANGES $n 0]]
    dict set Reading($slave) machines $name clock $c
    return
}

proc ::ips2::manifest::CmdApplication {slave args} {
    variable Reading
    lassign [Entry $slave application "NAME MODE SOURCE" applications application \
                 "an application name" {*}$args] name mode source
    ips2::dsl::checkName $slave "an application name" $name
    if {$mode ni {active replay comparison}} {
        Fail $slave "expected a mode, active, replay or comparison, got \"$mode\""
    }
    if {$mode eq "active" && $source ne ""} {
        Fail $slave "expected no source session for active application \"$name\", got \"$source\""
    }
    dict set Reading($slave) applications $name [dict create mode $mode source $source]
    return
}

proc ::ips2::manifest::CmdProcess {slave args} {
    variable Reading
    Started $slave process
    if {[llength $args] < 6} { Fail $slave "expected \"process APP MACHINE INDEX PID {COMMAND ...} STATUS\"" }
    set status [lassign $args app machine index pid command]
    set index [Integer $slave "the process's index" INDEX $index 0]
    set pid [Integer $slave "the process's pid" PID $pid 0]
    if {[catch {llength $command}]} {
        Fail $slave "expected the command as a list {WORD ...}, got \"$command\""
    }
    set how [lindex $status 0]
    switch -- $how {
        exited - signal {
            if {[llength $status] != 2} { Fail $slave "expected \"$how N\" as the process's status" }
            set status [list $how [Integer $slave "the $how status" N [lindex $status 1] 0]]
        }
        failed {
            if {[llength $status] != 2} { Fail $slave "expected \"failed TEXT\" as the process's status" }
        }
        timeout {
            if {[llength $status] != 1} { Fail $slave "expected \"timeout\" alone as the process's status" }
        }
        default {
            Fail $slave "expected a status, exited N, signal N, failed TEXT or timeout, got \"$status\""
        }
    }
    set key [list $app $index]
    if {[dict exists $Reading($slave) lines process $key]} {
        Fail $slave "expected process $index of application \"$app\" once\
            (it was at line [dict get $Reading($slave) lines process $key])"
    }
    dict set Reading($slave) lines process $key [ips2::dsl::line $slave]
    dict lappend Reading($slave) processes [dict create app $app machine $machine index $index \
                                               pid $pid command $command status $status]
    return
}

proc ::ips2::manifest::CmdReplayed {slave args} {
    variable Reading
    lassign [Entry $slave replayed "APP SESSION-DIR SHIFT-NS" replayed "replayed application" \
                 "" {*}$args] app session shift
    set shift [Integer $slave "the time shift in ns" SHIFT-NS $shift]
    dict set Reading($slave) lines replayed $app [ips2::dsl::line $slave]
    dict set Reading($slave) replayed $app [dict create session $session shift $shift]
    return
}

proc ::ips2::manifest::CmdPhase {slave args} {
    variable Reading
    lassign [Entry $slave phase "NAME START-NS END-NS" phases phase "a phase name" {*}$args] \
        name start end
    set start [Integer $slave "the phase's start in ns" START-NS $start]
    set end [Integer $slave "the phase's end in ns" END-NS $end]
    if {$end < $start} { Fail $slave "expected the phase's end ($end) not before its start ($start)" }
    dict set Reading($slave) phases $name [dict create start $start end $end]
    return
}

# Finish: what only the whole file can tell.  Tolerant, each mistake is a
# problem and the entry it is about is left out.
proc ::ips2::manifest::Finish {slave file} {
    variable Reading
    set m $Reading($slave)
    set lines [dict get $m lines]
    set fail [list ::ips2::manifest::Finishing $slave $file]
    if {[dict get $m version] eq ""} {
        {*}$fail 1 "expected \"ips2-session 1\": not an ips2 session manifest"
    }
    if {[dict get $m session] eq ""} {
        {*}$fail 1 "expected a \"session START-REAL-NS\" line"
    }
    set processes {}
    foreach p [dict get $m processes] {
        set line [dict get $lines process [list [dict get $p app] [dict get $p index]]]
        if {![dict exists $m applications [dict get $p app]]} {
            {*}$fail $line "expected a declared application, got \"[dict get $p app]\""
        } elseif {![dict exists $m machines [dict get $p machine]]} {
            {*}$fail $line "expected a declared machine, got \"[dict get $p machine]\""
        } else {
            lappend processes $p
        }
    }
    dict set m processes $processes
    dict for {app r} [dict get $m replayed] {
        set line [dict get $lines replayed $app]
        if {![dict exists $m applications $app]} {
            {*}$fail $line "expected a declared application, got \"$app\""
        } elseif {[dict get $m applications $app mode] eq "active"} {
            {*}$fail $line "expected a replayed application, got active \"$app\""
        } else {
            continue
        }
        dict unset m replayed $app
    }
    dict remove $m lines problems tolerant
}

# Finishing SLAVE FILE LINE MESSAGE: a mistake found at the end: an error,
# or when tolerant a problem.
proc ::ips2::manifest::Finishing {slave file line message} {
    variable Reading
    if {![dict get $Reading($slave) tolerant]} { ips2::dsl::failat $file $line $message }
    Problem $slave "$file:$line: $message"
}

# cli.tcl - the `ips2` command line (docs/ANALYSTS.md §7): Tcl over the
# master package `ips2` (master/, ANALYSTS.md §6), the workload reader and
# the formatters of this folder.
#
#   ips2 run WORKLOAD ?-session DIR? ?-set NAME=VALUE ...? ?-pvm auto|join|private? ?-search?
#   ips2 replay SESSION ... ?-mode replay|comparison? ?-session DIR? ?-pvm HOW?
#   ips2 record ?-session DIR? ?-app NAME? ?-timeout S? ?-pvm HOW? ?-filter FILE? COMMAND ?ARG ...?
#   ips2 report SESSION TABLE ?options? ?-format text|csv|json?
#        (TABLE cp, cp-zero, cp-path, cp-imbalance: the critical path;
#        messages, master-worker: message patterns over the PAG)
#   ips2 tree SESSION ?APP|physical? ?-level LEVEL? ?-format text|json?
#   ips2 histogram SESSION NODE -metric M ?-width MS? ?-phase P? ?-format text|csv|json?
#   ips2 phase SESSION NAME START:END   (saved in the manifest; a query's
#        -phase START:END is its own and writes nothing)
#   ips2 search SESSION ?-interval MS? ?-phase P? ?-app A? ?-threshold NAME=VALUE ...?
#        ?-format text|json?   (the W3 search: bottlenecks, history graph, accounting)
#   ips2 sessions ?DIR?
#   ips2 check WORKLOAD ?-set NAME=VALUE ...?
#   ips2 filter SESSION ?-target-size BYTES? ?-target-overhead PCT? ?-o FILE?
#   ips2 gui ?WORKLOAD|SESSION ...?
#   ips2 help ?COMMAND?      ips2 COMMAND --help
#
# Results go to stdout, progress and messages to stderr.  Exit status: 0
# done (a session with problems is done: they are listed), 1 failed (also a
# run or replay whose machines all failed), 2 a usage mistake.
# ips2::cli::main ARGV returns the status; the `ips2` script exits with it.
#
# Each command is a procedure Cmd<Name> taking its parsed options; the
# Commands table below gives its usage, its options and its help text, from
# which both the option parser and --help are made.

package require Tcl 8.6
package require ips2::workload 1.0
package require ips2::manifest 1.0
package require ips2::format 1.0
package require json::write
package provide ips2::cli 1.0

namespace eval ::ips2::cli {
    namespace export main
    # Commands: name -> {summary TEXT args USAGE min N max N
    #                    options {-opt {VALUE-NAME HELP} ...} help TEXT ?rest 1?}
    # An option whose VALUE-NAME is "" is a flag; "*" after it: repeatable.
    variable Commands {
        run {
            summary "run a workload, reduce, print trees and key tables"
            args "WORKLOAD" min 1 max 1
            options {
                -session {DIR "the session directory to create (default: ./sessions/NAME.DATE-TIME)"}
                -set {NAME=VALUE* "set a variable of the workload file before it runs (repeatable)"}
                -pvm {HOW "auto (join a running pvmd, else start a private one; the default), join or private"}
                -times {WHICH "raw (as recorded: the default, or \$IPS2_TIMES) or compensated (the probes' calibrated cost removed)"}
                -search {"" "then run the W3 search and print its report (as ips2 search)"}
                -full {"" "print every table after the summary: the trees, the multi-application and NPT tables, gprof per application"}
            }
            help "Runs the applications of a workload file under a private PVM (or the
user's), reduces their traces on each machine and prints a summary: the
applications, their processes, the procedures that took the most CPU, the
critical path's length and top entries, and the problems.  With -full, then the
logical and physical trees, the multi-application metric table, an NPT profile
and a gprof table per application; with -search, the W3 search's bottlenecks too.
The session directory keeps everything; reopen it with report, tree, histogram
and search."
        }
        replay {
            summary "replay old sessions side by side (replay or comparison mode)"
            args "SESSION ..." min 1 max -1
            options {
                -mode {MODE "replay (times as recorded, the default) or comparison (shifted to start together)"}
                -session {DIR "the session directory to create (default: ./sessions/replay.DATE-TIME)"}
                -pvm {HOW "auto (join a running pvmd, else start a private one; the default), join or private"}
                -times {WHICH "raw (as recorded: the default, or \$IPS2_TIMES) or compensated (the probes' calibrated cost removed)"}
                -full {"" "print every table after the summary, as run -full"}
            }
            help "Replays the traces of old sessions side by side in a new session and prints
what run prints.  In comparison mode each session's time base is shifted so that
they all start at time 0 (the IPS-2 paper, section 4.2)."
        }
        record {
            summary "run one command traced (as uftrace record does) into a session"
            args "COMMAND ?ARG ...?" min 1 max -1 rest 1
            options {
                -session {DIR "the session directory to create (default: ./sessions/NAME.DATE-TIME)"}
                -app {NAME "the application's name (default: the program's file name)"}
                -timeout {SECONDS "stop the command after this long (default 600)"}
                -pvm {HOW "auto (join a running pvmd, else start a private one; the default), join or private"}
                -filter {FILE "a procedure filter (count, exclude, include, depth, time lines; docs/ANALYSTS.md), as IPS2_FILTER"}
                -times {WHICH "raw (as recorded: the default, or \$IPS2_TIMES) or compensated (the probes' calibrated cost removed)"}
            }
            help "Runs one command traced, as a workload of one application on this host,
and reduces its traces into a session that report, tree, histogram and gui read.
Programs built with ips2cc trace only when asked (by run, by record, or by
IPS2_SESSION), so that a build's own test programs leave nothing behind.  The
command's standard output and error are copied out when it has ended (its standard
input is /dev/null); ips2 record exits with the command's exit status, or 128 + N
if a signal N ended it.  The words after COMMAND are its own, options included."
        }
        filter {
            summary "propose a procedure filter that keeps a session's trace or overhead under a target"
            args "SESSION" min 1 max 1
            options {
                -target-size {BYTES "the procedure records' raw size to stay under (16 bytes a traced call)"}
                -target-overhead {PCT "the estimated tracing cost to stay under, % of the run's CPU (default 5)"}
                -o {FILE "the filter file to write (default SESSION/ips2.filter)"}
            }
            help "Reads a session's calls and mean inclusive times per procedure and the
measured cost of a procedure record (the trace headers' cost_ns), and writes a filter
file (IPS2_FILTER, ips2 record -filter) that counts only the procedures with the shortest
calls, as few as it takes to bring the estimate under the target (as Score-P's
scorep-score does).  Each procedure gets a line: count NAME, or a comment when traced,
with its calls, traced calls, mean time and estimated cost.  Prints a summary."
        }
        report {
            summary "print one table of a session (text, CSV or JSON)"
            args "SESSION TABLE" min 2 max 2
            options {
                -node {NODE "the tree node: app:A, app:A/machine:M/process:PID/..., machine:M/..., physical, or an application's or machine's name"}
                -apps {APPS "multi: the applications, a list, one column each (default: all)"}
                -level {LEVEL "profile, npt: machine, process, thread or procedure"}
                -metric {METRIC "profile: the metric (default cpu)"}
                -by {GROUPING "profile, npt: node (a row per node, the default) or name (rows of one name merged); cp -level procedure: name (the default) or node"}
                -phase {PHASE "restrict to a phase: its name (ips2 phase saves one), or START:END in seconds (this query's only)"}
                -mode {MODE "cp tables: intra, inter (the default with -app) or global (the default)"}
                -app {APP "cp tables: the application of an intra or inter critical path; messages, master-worker: channels with an end in it"}
                -procedure {NAME "cp-zero: the procedure that would take no time; latency: the procedure whose histogram to print"}
                -sort {COLUMN "latency: the column to sort by, largest first (default total)"}
                -process {PATH "cp-zero: the process that would take no time (app:A/machine:M/process:PID)"}
                -inclusive {"" "cp-zero -procedure: the procedure and everything it calls"}
                -pvm {HOW "cp tables: auto (the default: in this process for a reopened session), private (on PVM slaves, one per machine) or none"}
                -times {WHICH "raw (as recorded: the default, or \$IPS2_TIMES) or compensated (the probes' calibrated cost removed)"}
                -format {FORMAT "text (default), csv or json"}
            }
            help "Prints one table of a session.  TABLE is one of:
  metrics     every metric of one node (-node, default the whole workload)
  multi       the multi-application metric table, one column per application
  profile     one metric for every node of a level under a node, sorted
  npt         normalized processor time profile (-level process or procedure)
  gprof       GNU gprof's flat profile and call graph of a node
  processes   the processes of the session and how they ended
  objects     the synchronisation objects waited for under a node, by their names
  latency     per procedure under a node: count, mean, p50, p90, p99, max of its
              inclusive wall time (-sort COLUMN); -procedure F: F's latency histogram
  phases      the phases defined in the session
  problems    what went wrong, one line per problem
  clocks      each machine's clock against the master's: the offset its slave measured at
              start and its error bound, and what the messages corrected after (docs/CLOCKS.md)
  cp          critical-path profile (-mode, -app, -level machine|process|thread|procedure,
              -by name|node, -node, -phase): each item's contribution to the path, message delays
              as their own entries; the header gives path length, elapsed time, ratio
  cp-zero     critical-path zeroing: the path's length if -procedure F (or -process P)
              took no time (the diffusion run again without it); -inclusive: F and
              every procedure it calls
  cp-path     the critical path itself, one segment per line (CPU, message, sync ...)
  cp-imbalance critical-path imbalance per procedure: max(CP time - average time, 0)
  messages    message channels (-app, -phase): receive, late-sender and late-receiver waits
  master-worker  master-worker groups (-app, -phase): each worker's busy time and waits,
              the group's imbalance (max - mean busy) / max busy"
        }
        tree {
            summary "print the logical and physical trees of a session"
            args "SESSION ?APP|physical?" min 1 max 2
            options {
                -level {LEVEL "show the tree down to machine, process, thread or procedure (the default)"}
                -format {FORMAT "text (default) or json"}
            }
            help "Prints the logical tree of an application, the physical tree, or (with no
tree named) every logical tree and then the physical tree.  Marks give IPS-2's node
shapes: /\\ program, \[\] machine, () process, <> collector, ~ thread, - procedure."
        }
        histogram {
            summary "print the time histogram of a metric of a node"
            args "SESSION NODE" min 2 max 2
            options {
                -metric {METRIC "the metric (default cpu)"}
                -width {MS "the buckets' width in ms, at least (default: the session's sample interval)"}
                -times {WHICH "raw (as recorded: the default, or \$IPS2_TIMES) or compensated (the probes' calibrated cost removed)"}
                -phase {PHASE "restrict to a phase: its name (ips2 phase saves one), or START:END in seconds (this query's only)"}
                -format {FORMAT "text (default), csv or json"}
            }
            help "Prints the time histogram of one metric of a node: one line per bucket,
with a bar, then a sparkline; csv and json give the buckets as data."
        }
        export {
            summary "write a session's traces for Vampir, Perfetto and flame graphs"
            args "SESSION OUT" min 2 max 2
            options {
                -format {FORMAT "otf2 (the default; OUT a directory), json (trace-event JSON) or folded (flame-graph stacks); OUT - is standard output for json and folded"}
            }
            help "Writes a session's traces in formats other tools open (docs/ANALYSTS.md §8):
  otf2    an OTF2 archive OUT/traces.otf2 (Vampir, otf2-print): machines, processes
          and threads, procedures as regions, messages as point-to-point sends and
          receives paired as the PAG pairs them, locks as lock events
  json    trace-event JSON (Perfetto, chrome://tracing): a slice per procedure call,
          process and thread names, messages and other dependences as flows, the
          critical path as its own track
  folded  folded stacks (flamegraph.pl, speedscope): \"app;f;g N\", N the stack's self
          CPU time in microseconds
The traces are read one stream at a time (ips2-export)."
        }
        phase {
            summary "save a named phase in a session"
            args "SESSION NAME START:END" min 3 max 3
            options {}
            help "Defines phase NAME of a session as the interval START:END (seconds from the
session's start) and saves it in the session's manifest, so that every later
query, and the GUI, can name it: -phase NAME.  A -phase START:END given to a
query is that query's alone and writes nothing.  Prints the session's phases."
        }
        search {
            summary "find the bottlenecks of a session (the W3 search)"
            args "SESSION" min 1 max 1
            options {
                -interval {MS "the sample interval in ms (default 100, never finer than the histograms)"}
                -phase {PHASE "search only a phase: its name, or START:END in seconds"}
                -app {APP "search one application (default: the whole workload)"}
                -threshold {NAME=VALUE* "set a threshold: a constant (highSyncThreshold=0.3) or a hypothesis's (cpuBound=0.5) (repeatable)"}
                -format {FORMAT "text (default) or json"}
            }
            help "Runs the W3 search (Hollingsworth's Performance Consultant, as the thesis's
Chapter 4 ran it over IPS-2 traces) over the session's reduced time histograms: why
(hypotheses), where (code, process, synchronisation object, machine, application) and
when (the interval a bottleneck holds in), seeded by the critical path.  Prints the
bottlenecks found, each with its explanation and evidence, the search history graph
and the data-volume accounting (thesis Figs 4.2-4.7).  json prints the issue's JSON
(without the evidence tables)."
        }
        gui {
            summary "the master analyst window (Tcl/Tk)"
            args "?WORKLOAD|SESSION ...?" min 0 max -1
            options {}
            help "Opens the master analyst window: a workload file goes to the workload editor,
the first session directory is opened (trees, tables, histograms, critical paths),
later ones are added to the workload as replays in comparison mode.  Needs a display."
        }
        sessions {
            summary "list the sessions of a directory"
            args "?DIR?" min 0 max 1
            options {}
            help "Lists the sessions under DIR (default ./sessions): when each started,
its applications, its processes and its problems."
        }
        check {
            summary "read a workload file and print what it would run"
            args "WORKLOAD" min 1 max 1
            options {
                -set {NAME=VALUE* "set a variable of the workload file before it runs (repeatable)"}
            }
            help "Reads a workload file without running it and prints what it would run; a
mistake is reported as FILE:LINE: what was expected."
        }
        help {
            summary "print the commands, or the help of one"
            args "?COMMAND?" min 0 max 1
            options {}
            help "Prints the commands, or the help of one."
        }
    }
    variable SessionsDir sessions
    # Shown(MACHINE): {STAGE WHEN-MS DONE?}, the last progress line shown.
    variable Shown
    array set Shown {}
    # Outcome: MACHINE -> "" (its slave finished) or why it failed, from
    # the progress events of the run in hand.
    variable Outcome {}
}

# --- entry, usage, errors -------------------------------------------------------

# A reader that went away (`ips2 report ... | head` once head has its
# lines; Tcl ignores SIGPIPE, so a write fails with EPIPE instead): ips2
# stops quietly with the status of a command that SIGPIPE ended, 128 + 13,
# as a shell reports it.
proc ::ips2::cli::main {argv} {
    if {[catch {Main $argv} status options]} {
        if {![BrokenPipe $options]} { return -options $options $status }
        return 141
    }
    return $status
}

proc ::ips2::cli::BrokenPipe {options} {
    expr {[dict exists $options -errorcode] && [lrange [dict get $options -errorcode] 0 1] eq {POSIX EPIPE}}
}

proc ::ips2::cli::Main {argv} {
    variable Commands
    if {![llength $argv] || [lindex $argv 0] in {-h --help -help}} {
        puts [Overview]
        return [expr {[llength $argv] ? 0 : 2}]
    }
    set argv [lassign $argv command]
    if {![dict exists $Commands $command]} {
        puts stderr "ips2: unknown command \"$command\": expected [join [dict keys $Commands] {, }]"
        puts stderr "Try \"ips2 --help\"."
        return 2
    }
    set own $argv
    if {[dict exists $Commands $command rest]} {
        # the words from COMMAND on are the command's own, --help included
        set own [lrange $argv 0 [expr {[lindex [Parse $command $argv 1] 0] - 1}]]
    }
    if {[lsearch -exact $own --help] >= 0 || [lsearch -exact $own -h] >= 0} {
        puts [Help $command]
        return 0
    }
    set code [catch {Parse $command $argv} parsed options]
    if {$code} {
        puts stderr "ips2 $command: $parsed"
        puts stderr "Usage: [Usage $command]"
        return 2
    }
    lassign $parsed words opts
    if {[dict exists $opts -times]} {
        # the reductions this command makes (slaves inherit IPS2_* variables)
        set times [dict get $opts -times]
        if {$times ni {raw compensated}} {
            puts stderr "ips2 $command: expected -times raw or compensated, got \"$times\""
            puts stderr "Usage: [Usage $command]"
            return 2
        }
        set ::env(IPS2_TIMES) $times
    }
    set code [catch {Cmd[string totitle $command] $words $opts} message options]
    if {$code == 2} {
        return $message ;# the command's own exit status (record)
    }
    if {$code == 1} {
        if {[BrokenPipe $options]} { return 141 }
        set ecode [dict get $options -errorcode]
        if {[lindex $ecode 0] eq "IPS2CLI" && [lindex $ecode 1] eq "USAGE"} {
            puts stderr "ips2 $command: $message"
            puts stderr "Usage: [Usage $command]"
            return 2
        }
        if {[lindex $ecode 0] ni {IPS2 IPS2CLI} && [info exists ::env(IPS2_DEBUG)]} {
            puts stderr [dict get $options -errorinfo]
        }
        puts stderr "ips2 $command: $message"
        return 1
    }
    return 0
}

proc ::ips2::cli::Usage {command} {
    variable Commands
    set c [dict get $Commands $command]
    set options ""
    dict for {opt spec} [dict get $c options] {
        lassign $spec value
        set value [string trimright $value *]
        append options [expr {$value eq "" ? " ?$opt?" : " ?$opt $value?"}]
    }
    if {[dict exists $c rest]} {
        return "ips2 $command$options [dict get $c args]"
    }
    return "ips2 $command [dict get $c args]$options"
}

proc ::ips2::cli::Help {command} {
    variable Commands
    set c [dict get $Commands $command]
    set out [list "Usage: [Usage $command]" "" [dict get $c help]]
    if {[dict size [dict get $c options]]} {
        lappend out "" "Options:"
        dict for {opt spec} [dict get $c options] {
            lassign $spec value help
            set value [string trimright $value *]
            lappend out [::format "  %-22s %s" "$opt $value" $help]
        }
    }
    return [join $out \n]
}

proc ::ips2::cli::Overview {} {
    variable Commands
    set out [list "Usage: ips2 COMMAND ?ARG ...?" "" \
                 "ips2 measures parallel and distributed programs built with ips2cc." "" "Commands:"]
    dict for {name c} $Commands {
        lappend out [::format "  %-10s %s" $name [dict get $c summary]]
    }
    lappend out "" "\"ips2 COMMAND --help\" tells more about one."
    return [join $out \n]
}

# Usage error from inside a command.
proc ::ips2::cli::UsageError {message} {
    return -code error -level 2 -errorcode {IPS2CLI USAGE} $message
}

proc ::ips2::cli::Fail {message} {
    return -code error -level 2 -errorcode {IPS2CLI FAIL} $message
}

# Parse COMMAND ARGV: {WORDS OPTIONS}; options and words may mix; "--"
# ends the options, and so does the first word of a command whose spec
# says "rest 1" (the words after it are another program's).  A repeatable
# option's value is a list.  With where, only the index in ARGV of the
# first word, unchecked (the length of ARGV if none).
proc ::ips2::cli::Parse {command argv {where 0}} {
    variable Commands
    set c [dict get $Commands $command]
    set spec [dict get $c options]
    set rest [expr {[dict exists $c rest] && [dict get $c rest]}]
    set words {}
    set opts {}
    set n [llength $argv]
    while {[llength $argv]} {
        set at [expr {$n - [llength $argv]}]
        set argv [lassign $argv word]
        if {$word eq "--"} {
            if {$where} { return [list [expr {$at + 1}]] }
            lappend words {*}$argv
            break
        }
        if {$rest && !([string match -* $word] && [string length $word] > 1)} {
            if {$where} { return [list $at] }
            lappend words $word {*}$argv
            break
        }
        if {$where} {
            if {[dict exists $spec $word] && [lindex [dict get $spec $word] 0] ne ""} {
                set argv [lrange $argv 1 end]
            }
            continue
        }
        if {[string match -* $word] && [string length $word] > 1} {
            if {![dict exists $spec $word]} {
                if {[dict size $spec]} {
                    error "unknown option \"$word\": expected [join [dict keys $spec] {, }]"
                }
                error "unknown option \"$word\": $command takes none"
            }
            set value [lindex [dict get $spec $word] 0]
            if {$value eq ""} {
                dict set opts $word 1
                continue
            }
            if {![llength $argv]} { error "$word needs a value ([string trimright $value *])" }
            set argv [lassign $argv v]
            if {[string index $value end] eq "*"} {
                dict lappend opts $word $v
            } else {
                dict set opts $word $v
            }
            continue
        }
        lappend words $word
    }
    if {$where} { return [list $n] }
    set n [llength $words]
    set max [dict get $c max]
    if {$n < [dict get $c min]} { error "expected [dict get $c args]" }
    if {$max >= 0 && $n > $max} { error "too many arguments: [lrange $words $max end]" }
    list $words $opts
}

proc ::ips2::cli::Opt {opts name {default ""}} {
    expr {[dict exists $opts $name] ? [dict get $opts $name] : $default}
}

proc ::ips2::cli::Format {opts allowed} {
    set format [Opt $opts -format text]
    if {$format ni $allowed} {
        UsageError "unknown format \"$format\": expected [join $allowed {, }]"
    }
    return $format
}

# Vars OPTS: the -set NAME=VALUE options as a dict.
proc ::ips2::cli::Vars {opts} {
    set vars {}
    foreach setting [Opt $opts -set] {
        if {![regexp {^([A-Za-z_][A-Za-z0-9_]*)=(.*)$} $setting -> name value]} {
            UsageError "expected -set NAME=VALUE, got \"$setting\""
        }
        dict set vars $name $value
    }
    return $vars
}

# --- the master package ---------------------------------------------------------

proc ::ips2::cli::Master {} {
    if {[catch {package require ips2} message]} {
        Fail "the master package \"ips2\" cannot be loaded: $message"
    }
}

# Open DIR ?QUIET?: the session of DIR; its problems (what went wrong in
# the run, or a bad manifest or reductions file) are said on stderr, so
# that a table with holes says why, unless QUIET.
proc ::ips2::cli::Open {dir {quiet 0}} {
    Master
    if {![file isdirectory $dir]} { Fail "$dir: no such session directory" }
    if {![file isfile [file join $dir manifest.tcl]]} {
        Fail "$dir: not a session directory (no manifest.tcl)"
    }
    set session [ips2::open $dir]
    if {!$quiet} {
        foreach p [$session problems] { Say "problem: $p" }
    }
    return $session
}

# Progress EVENT: what ips2::run reports while it works (an event dict,
# ANALYSTS.md §6), one line on stderr each, so that a terminal or a log
# reads it alike.  A stage (running, reducing, packing, ...) is shown when
# it starts and when its work is all done, and in between at most every
# two seconds, with how far it got.
proc ::ips2::cli::Progress {event} {
    variable Shown
    variable Outcome
    if {[catch {dict get $event event} what] || [catch {dict get $event machine} machine]} {
        Say $event
        return
    }
    set get [list apply {{event key} {
        expr {[dict exists $event $key] ? [dict get $event $key] : ""}
    }} $event]
    switch -- $what {
        spawned { Say "$machine: slave spawned on [{*}$get host]" }
        hello   { Say "$machine: slave running, pid [{*}$get pid] on [{*}$get host]" }
        clock   {
            Say [::format "%s: clock %+.3f ms from the master's, within %.3f ms" $machine \
                     [expr {[{*}$get offset] / 1e6}] [expr {[{*}$get error] / 1e6}]]
        }
        started { Say "$machine: [{*}$get app].[{*}$get index] started, pid [{*}$get pid]" }
        exited  { Say "$machine: [{*}$get app].[{*}$get index] (pid [{*}$get pid]) ended: [{*}$get status]" }
        ready   {
            if {[{*}$get ok]} {
                Say "$machine: [{*}$get app].[{*}$get index] ready"
            } else {
                Say "$machine: [{*}$get app].[{*}$get index] not ready: [{*}$get text]"
            }
        }
        note    { Say "$machine: [{*}$get text]" }
        stopping {
            Say "$machine: [{*}$get app].[{*}$get index] (pid [{*}$get pid]) stopped:\
                 [{*}$get signal], SIGKILL after [{*}$get grace] ms"
        }
        stage {
            set stage [{*}$get stage]
            set done [{*}$get done]
            set total [{*}$get total]
            set now [clock milliseconds]
            set counted [expr {[string is entier -strict $done] && [string is entier -strict $total]
                               && $total > 0}]
            if {![info exists Shown($machine)] || [lindex $Shown($machine) 0] ne $stage} {
                set Shown($machine) [list $stage $now 0]
                Say "$machine: $stage"
            }
            lassign $Shown($machine) - last finished
            if {$counted && $done >= $total && !$finished} {
                set Shown($machine) [list $stage $now 1]
                Say "$machine: $stage done ($total)"
            } elseif {$counted && $done < $total && $now - $last >= 2000} {
                set Shown($machine) [list $stage $now 0]
                Say "$machine: $stage [expr {100 * $done / $total}]% ($done of $total)"
            }
        }
        problem    { Say "$machine: problem: [{*}$get text]" }
        reductions { Say "$machine: reductions received, [{*}$get bytes] bytes" }
        packed {
            set raw [{*}$get raw]
            Say [::format "%s: traces packed (%d streams%s, %.2f s CPU)" $machine [{*}$get packed] \
                     [expr {$raw ? ", $raw kept raw" : ""}] [{*}$get cpu]]
        }
        done {
            Say "$machine: done"
            dict set Outcome $machine [expr {[{*}$get ok] eq "0" ? "its slave failed" : ""}]
        }
        died {
            Say "$machine: slave died while [{*}$get stage]: [{*}$get text]"
            dict set Outcome $machine "slave died while [{*}$get stage]: [{*}$get text]"
        }
        default    { Say "$machine: $what [dict remove $event machine event]" }
    }
}

proc ::ips2::cli::Say {text} {
    puts stderr "ips2: $text"
    flush stderr
}

proc ::ips2::cli::NewSessionDir {name} {
    variable SessionsDir
    set stamp [clock format [clock seconds] -format %Y%m%d-%H%M%S]
    set dir [file join $SessionsDir $name.$stamp]
    set n 1
    while {[file exists $dir]} { set dir [file join $SessionsDir $name.$stamp-[incr n]] }
    return $dir
}

# Node SESSION NAME: a node path of the session: "physical", a path with
# "kind:name" parts, or the bare name of an application (app:NAME) or
# else of a machine (machine:NAME, in the physical tree).
proc ::ips2::cli::Node {session name} {
    if {$name eq "" || $name eq "physical" || [string first : $name] >= 0} { return $name }
    if {$name in [$session apps]} { return app:$name }
    if {$name in [$session machines]} { return machine:$name }
    UsageError "no node \"$name\": expected physical, a path (app:A/machine:M/...), one of the applications [join [$session apps] {, }] or one of the machines [join [$session machines] {, }]"
}

# Phase SESSION SPEC: the name of a phase for -phase: a phase of the
# session, or START:END in seconds defined here for this query only (the
# session on disk is not written: `ips2 phase` saves a phase).
proc ::ips2::cli::Phase {session spec} {
    if {$spec ne "" && [set range [Range $spec -phase]] ne ""} {
        $session phase $spec {*}$range -save 0
    }
    return $spec
}

# Range SPEC OPTION: {START END} in ns of START:END in seconds, or "" if
# SPEC is not of that form.
proc ::ips2::cli::Range {spec option} {
    set num {[0-9]+(?:\.[0-9]*)?}
    if {![regexp "^($num):($num)\$" $spec -> from to]} { return "" }
    set start [expr {entier(round($from * 1e9))}]
    set end [expr {entier(round($to * 1e9))}]
    if {$end <= $start} {
        UsageError "expected [string trim "$option START:END"] with END after START, got \"$spec\""
    }
    list $start $end
}

proc ::ips2::cli::PhaseArgs {session opts} {
    set p [Phase $session [Opt $opts -phase]]
    expr {$p eq "" ? {} : [list -phase $p]}
}

# --- commands -----------------------------------------------------------------

proc ::ips2::cli::CmdHelp {words opts} {
    variable Commands
    if {![llength $words]} {
        puts [Overview]
        return
    }
    set command [lindex $words 0]
    if {![dict exists $Commands $command]} { UsageError "unknown command \"$command\"" }
    puts [Help $command]
}

proc ::ips2::cli::CmdCheck {words opts} {
    set w [ips2::workload::read [lindex $words 0] -vars [Vars $opts]]
    puts [WorkloadText $w]
}

# WorkloadText: what a workload would run, for people.
proc ::ips2::cli::WorkloadText {w} {
    set out [list "workload [dict get $w file]" \
                 "options: interval [dict get $w options interval] ms, timeout [dict get $w options timeout] s"]
    dict for {name m} [dict get $w machines] {
        lappend out "machine $name on host [dict get $m host]"
    }
    set rows {}
    dict for {app a} [dict get $w applications] {
        foreach p [dict get $a processes] {
            lappend rows [list $app [dict get $p index] [dict get $p machine] [dict get $p timeout] \
                              [ips2::format::commandLine [dict get $p command]]]
        }
    }
    if {[llength $rows]} {
        lappend out "" [string trimright [ips2::format::table \
            [dict create columns {{application ""} {index ""} {machine ""} {timeout s} {command ""}} \
                 rows $rows]]]
    }
    foreach r [dict get $w replays] {
        set apps [expr {[llength [dict get $r apps]] ? [join [dict get $r apps] ", "] : "all applications"}]
        lappend out "replay [dict get $r session] ([dict get $r mode] mode): $apps[expr {[dict get $r prefix] ne "" ? ", prefixed [dict get $r prefix]" : ""}]"
    }
    foreach c [dict get $w collectors] {
        lappend out "collector [dict get $c kind] on [dict get $c machine] every [dict get $c interval] ms"
    }
    join $out \n
}

proc ::ips2::cli::CmdRun {words opts} {
    set file [lindex $words 0]
    set w [ips2::workload::read $file -vars [Vars $opts]]
    Master
    set dir [Opt $opts -session]
    if {$dir eq ""} { set dir [NewSessionDir [file rootname [file tail $file]]] }
    RunAndSummarise $w $dir [Opt $opts -pvm auto] [Opt $opts -search 0] [Opt $opts -full 0]
}

proc ::ips2::cli::CmdReplay {words opts} {
    set mode [Opt $opts -mode replay]
    if {$mode ni {replay comparison}} { UsageError "expected -mode replay or comparison, got \"$mode\"" }
    set replays {}
    set i 0
    foreach s $words {
        if {![file isfile [file join $s manifest.tcl]]} { Fail "$s: not a session directory (no manifest.tcl)" }
        # Two sessions of the same workload have the same application names.
        set prefix [expr {[llength $words] > 1 ? "s[incr i]-" : ""}]
        lappend replays [dict create session [file normalize $s] mode $mode apps {} prefix $prefix line 0]
    }
    set w [dict create file "" options {interval 100 timeout 600} machines {} applications {} \
               replays $replays collectors {}]
    Master
    set dir [Opt $opts -session]
    if {$dir eq ""} { set dir [NewSessionDir replay] }
    RunAndSummarise $w $dir [Opt $opts -pvm auto] 0 [Opt $opts -full 0]
}

# CmdRecord: the command as a one-process workload file read like any
# other (names and paths checked the same way), run and reduced; then its
# output is copied out and its exit status becomes ours.
proc ::ips2::cli::CmdRecord {words opts} {
    set exe [lindex $words 0]
    set app [Opt $opts -app [regsub -all {[^A-Za-z0-9_.-]} [file tail $exe] _]]
    if {[string first / $exe] < 0 && [set found [auto_execok $exe]] ne ""} {
        lset words 0 [lindex $found 0]
    }
    set timeout [Opt $opts -timeout 600]
    set env {}
    if {[set filter [Opt $opts -filter ""]] ne ""} {
        if {![file isfile $filter] || ![file readable $filter]} { Fail "$filter: no readable filter file" }
        set env [list -env [list IPS2_FILTER [file normalize $filter]]]
    }
    set text [join [list "machine local -host localhost" [list option timeout $timeout] \
                        [list application $app [list process local -cwd [pwd] {*}$env -- {*}$words]]] \n]
    set tmp [file tempfile file record.tcl]
    try {
        puts $tmp $text
        close $tmp
        set w [ips2::workload::read $file]
    } finally {
        file delete $file
    }
    Master
    set pvm [Opt $opts -pvm auto]
    if {$pvm ni {auto join private}} { UsageError "expected -pvm auto, join or private, got \"$pvm\"" }
    set dir [Opt $opts -session]
    if {$dir eq ""} { set dir [NewSessionDir $app] }
    file mkdir [file dirname [file normalize $dir]]
    set session [ips2::run $w -session $dir -pvm $pvm]
    try {
        set problems [$session problems]
        set t [$session table processes -columns status]
        set status [lindex [dict get $t rows] 0 0]
    } finally {
        $session close
    }
    foreach {name channel} {stdout stdout stderr stderr} {
        set f [file join $dir output local $app.0.$name]
        if {[file isfile $f]} {
            set in [open $f rb]
            fconfigure $channel -translation binary
            fcopy $in $channel
            close $in
            flush $channel
        }
    }
    foreach p $problems { puts stderr "ips2: problem: $p" }
    Say "session [file normalize $dir]"
    switch -regexp -matchvar m -- $status {
        {^exited (\d+)$} { return -code return [lindex $m 1] }
        {^signal (\d+)$} { return -code return [expr {128 + [lindex $m 1]}] }
    }
    Fail "$exe: $status"
}

proc ::ips2::cli::RunAndSummarise {w dir pvm {search 0} {full 0}} {
    # A run (or replay) whose machines all failed, their slaves dead (the
    # pvmd killed) or failing, has no results: it fails, naming why; one
    # that some machine finished is done, its problems listed.
    variable Outcome
    if {$pvm ni {auto join private}} { UsageError "expected -pvm auto, join or private, got \"$pvm\"" }
    file mkdir [file dirname [file normalize $dir]]
    Say "session $dir"
    set Outcome {}
    set session [ips2::run $w -session $dir -pvm $pvm -progress ::ips2::cli::Progress]
    try {
        set failed [dict filter $Outcome value ?*]
        if {[dict size $failed] && [dict size $failed] == [dict size $Outcome]} {
            set why [lmap {machine text} $failed { string cat $machine ": " $text }]
            Fail "no machine finished ([join $why {; }]); session $dir"
        }
        puts -nonewline [Summary $session $dir $full]
        if {$search} {
            puts -nonewline "\n== W3 search\n[SearchText [$session search] $dir]"
        }
        flush stdout
        # The slaves pack the traces beside the analysis (slave/README.md):
        # the results above are complete; closing the session waits for the
        # packing, so that the command returns with the session compact.
        if {[llength [set packing [ips2::packing]]]} {
            Say "results complete; waiting for [join $packing {, }] to finish packing the traces"
        }
    } finally {
        $session close
    }
}

# Summary SESSION DIR FULL: what run and replay print, a few dozen lines
# whatever the run's size (problems apart): the problems, the applications
# (processes, threads, elapsed, CPU, how their processes ended), the first
# ten processes, the ten procedures that took the most CPU, the critical
# path's length and top five entries, and how to get more.  FULL: then
# every table: the trees, the multi-application metric table, the NPT
# profile of the workload and a gprof table per application.
proc ::ips2::cli::Summary {session dir full} {
    set apps [$session apps]
    set out "session [file normalize $dir]: [llength $apps] applications\
        ([join $apps {, }]) on [llength [$session machines]] machines\n"
    # the process-time clock of every time below (ips2::format::clockLines)
    set header [ClockHeader $session physical {}]
    append out [join $header \n] \n
    append out [TimesLine $session]
    set problems [$session problems]
    if {[llength $problems]} {
        append out "\n== problems\n"
        foreach p $problems { append out "$p\n" }
        foreach p $problems { puts stderr "ips2: problem: $p" }
    }
    append out "\n== applications\n" [ips2::format::table [Applications $session $apps]]
    set t [$session table processes -columns {application index machine pid status cpu}]
    append out "\n== processes\n" [Top $t 10 processes]
    append out "\n== procedures by CPU\n" \
        [Top [$session profile physical -level procedure -metric cpu -by name] 10 \
             "profile -level procedure -by name"]
    if {[catch {$session cp -level procedure} t]} {
        append out "\n== critical path\nnot computed: $t\n"
    } else {
        append out "\n== critical path ([dict get $t mode], procedure level)\n" \
            [::format "length %.3f ms, elapsed %.3f ms, ratio %.3f\n" [expr {[dict get $t length] / 1e6}] \
                 [expr {[dict get $t elapsed] / 1e6}] [dict get $t ratio]]
        append out [Top [Columns $t {name time percent}] 5 "cp -level procedure"]
        set warnings [dict get $t warnings]
        if {[llength $warnings]} {
            append out "[llength $warnings] ends found no partner, the first: [lindex $warnings 0]\n"
        }
    }
    if {!$full} {
        append out "\n== more\n" \
            "  ips2 run ... -full             every tree, the multi-application and NPT tables, gprof per application\n" \
            "  ips2 report SESSION TABLE      one table: metrics, profile, npt, gprof, cp, ... (ips2 report --help)\n" \
            "  ips2 tree SESSION              the logical and physical trees\n"
        return $out
    }
    foreach app $apps {
        append out "\n== logical tree of $app\n" [ips2::format::tree [$session tree logical $app]]
    }
    append out "\n== physical tree\n" [ips2::format::tree [$session tree physical]]
    append out "\n== multi-application metric table\n" \
        [ips2::format::table [$session metrics -apps $apps] -header $header]
    append out "\n== NPT profile, processes of the workload\n" \
        [ips2::format::table [$session npt physical -level process] -header $header]
    foreach app $apps {
        append out "\n== gprof of $app\n" [Gprof $session app:$app {} text]
    }
    return $out
}

# Applications SESSION APPS: a row per application: its processes,
# threads, elapsed time and CPU (the multi-application table's), and how
# its processes ended ("2 exited 0, 1 signal 9").
proc ::ips2::cli::Applications {session apps} {
    set m [$session metrics -apps $apps]
    set value [dict create]
    foreach row [dict get $m rows] {
        foreach app $apps v [lrange $row 2 end] { dict set value $app [lindex $row 0] $v }
    }
    set ended [dict create]
    foreach row [dict get [$session table processes -columns {application status}] rows] {
        lassign $row app status
        set n [expr {[dict exists $ended $app $status] ? [dict get $ended $app $status] : 0}]
        dict set ended $app $status [incr n]
    }
    set rows [lmap app $apps {
        set how {}
        if {[dict exists $ended $app]} {
            dict for {status n} [dict get $ended $app] { lappend how "$n $status" }
        }
        list $app {*}[lmap k {processes threads elapsed cpu} { dict get $value $app $k }] [join $how ", "]
    }]
    dict create columns {{application ""} {processes ""} {threads ""} {elapsed ns} {cpu ns} {ended ""}} \
        rows $rows
}

# Columns TABLE NAMES: the table with only the columns named, in that order.
proc ::ips2::cli::Columns {t names} {
    set at [lmap name $names { lsearch -exact -index 0 [dict get $t columns] $name }]
    dict set t columns [lmap i $at { lindex [dict get $t columns] $i }]
    dict set t rows [lmap row [dict get $t rows] { lmap i $at { lindex $row $i } }]
    return $t
}

# Top TABLE N WHAT: the table's first N rows as text, and a line saying how
# many more `ips2 report SESSION WHAT` has.
proc ::ips2::cli::Top {t n what} {
    set rows [dict get $t rows]
    set text [ips2::format::table [dict create columns [dict get $t columns] rows [lrange $rows 0 [expr {$n - 1}]]]]
    if {[llength $rows] > $n} {
        append text "([expr {[llength $rows] - $n}] more: ips2 report SESSION $what)\n"
    }
    return $text
}

# Gprof SESSION NODE PHASEARGS FORMAT: the gprof tables of a node: as text
# in GNU gprof's layout (the master makes it), or the flat profile and the
# call graph as CSV (one after the other) or JSON ({"flat": .., "graph": ..}).
proc ::ips2::cli::Gprof {session node phase format} {
    set header [ClockHeader $session $node $phase]
    if {$format eq "text"} {
        # the clock's lines in the header paragraph, after GNU's first line
        set text [$session gprof $node {*}$phase -format text]
        return [string cat "Flat profile:\n\n" [join $header \n] \n \
                    [string range $text [string length "Flat profile:\n\n"] end]]
    }
    set g [$session gprof $node {*}$phase]
    if {$format eq "csv"} {
        return "[ips2::format::table [dict get $g flat] -format csv]\n[ips2::format::table [dict get $g graph] -format csv]"
    }
    set flat [string trimright [ips2::format::table [dict get $g flat] -format json]]
    set graph [string trimright [ips2::format::table [dict get $g graph] -format json]]
    set lines [lmap l $header { json::write string $l }]
    return "\{\"header\": \[[join $lines {, }]\],\n \"flat\": $flat,\n \"graph\": $graph\}\n"
}

# CmdFilter: the proposer (ANALYSTS.md "Filters").  Per procedure name:
# calls, counted (calls already counted only), incl_wall; traced calls are
# calls - counted, their mean the inclusive wall time over them.  A traced
# call costs 2 records: 16 raw bytes and 2 x cost_ns (the header's measured
# cost of one record).  Procedures are counted shortest mean first (the
# least detail lost for the cost saved) until the estimates are under the
# targets; main is never counted.
proc ::ips2::cli::CmdFilter {words opts} {
    set dir [lindex $words 0]
    set size [Opt $opts -target-size ""]
    set overhead [Opt $opts -target-overhead [expr {$size eq "" ? 5 : ""}]]
    if {$size ne "" && (![string is wide -strict $size] || $size < 0)} {
        UsageError "expected -target-size BYTES (a number), got \"$size\""
    }
    if {$overhead ne "" && (![string is double -strict $overhead] || $overhead < 0)} {
        UsageError "expected -target-overhead PCT (a number), got \"$overhead\""
    }
    set out [Opt $opts -o [file join $dir ips2.filter]]
    set session [Open $dir 1]
    try {
        set procs {}
        foreach metric {calls counted incl_wall} {
            set t [$session profile physical -level procedure -metric $metric -by name]
            foreach row [dict get $t rows] { dict set procs [lindex $row 0] $metric [lindex $row 2] }
        }
        set cpu 0
        foreach row [dict get [$session metrics physical] rows] {
            if {[lindex $row 0] eq "cpu"} { set cpu [lindex $row 1] }
        }
    } finally {
        $session close
    }
    set cost [RecordCost $dir]
    # name calls traced mean(ns, -1 n/a) cost(ns) per procedure
    set list {}
    dict for {name d} $procs {
        set calls [dict get $d calls]
        set traced [expr {$calls - [dict get $d counted]}]
        set mean [expr {$traced > 0 ? double([dict get $d incl_wall]) / $traced : -1}]
        lappend list [list $name $calls $traced $mean [expr {2.0 * $cost * $traced}]]
    }
    set list [lsort -real -index 3 [lsort -integer -decreasing -index 1 $list]]
    set bytes 0
    set spent 0.0
    foreach p $list {
        incr bytes [expr {16 * [lindex $p 2]}]
        set spent [expr {$spent + [lindex $p 4]}]
    }
    set before [list $bytes $spent]
    set counted {}
    foreach p $list {
        lassign $p name calls traced mean c
        set over [expr {($size ne "" && $bytes > $size) ||
                        ($overhead ne "" && $cpu > 0 && 100.0 * $spent / $cpu > $overhead)}]
        if {!$over && $traced > 0} break
        if {$name eq "main"} continue
        dict set counted $name 1
        incr bytes [expr {-16 * $traced}]
        set spent [expr {$spent - $c}]
    }
    set pct [list apply {{spent cpu} {
        expr {$cpu > 0 ? [format %.2f%% [expr {100.0 * $spent / $cpu}]] : "n/a"}
    }}]
    set f [open $out w]
    puts $f "# ips2 filter [file normalize $dir]"
    puts $f "# targets: size [expr {$size eq "" ? "none" : "$size bytes"}], overhead [expr {$overhead eq "" ? "none" : "$overhead%"}];\
        a traced call: 16 bytes, [expr {2 * $cost}] ns (cost_ns $cost per record)"
    puts $f "# estimated: [lindex $before 0] -> $bytes bytes of procedure records,\
        [{*}$pct [lindex $before 1] $cpu] -> [{*}$pct $spent $cpu] of [format %.3f [expr {$cpu / 1e9}]] s CPU"
    foreach p $list {
        lassign $p name calls traced mean c
        set why [format "calls %d, traced %d, mean %s, cost %.3f ms" $calls $traced \
                     [expr {$mean < 0 ? "n/a" : [format "%.0f ns" $mean]}] [expr {$c / 1e6}]]
        if {[dict exists $counted $name]} {
            puts $f [format "%-40s # %s: counted" "count $name" $why]
        } else {
            puts $f [format "%-40s # %s: traced" "# $name" $why]
        }
    }
    close $f
    puts "procedures counted: [dict size $counted] of [llength $list]"
    puts "procedure records: [lindex $before 0] -> $bytes bytes[expr {$size eq "" ? "" : " (target $size)"}]"
    puts "tracing cost: [{*}$pct [lindex $before 1] $cpu] -> [{*}$pct $spent $cpu] of the CPU[expr {$overhead eq "" ? "" : " (target $overhead%)"}]"
    puts "filter: $out"
}

# RecordCost DIR: the measured cost of one procedure record (cost_ns[0]
# of a thread stream's header, FORMAT.md section 2), the largest over the
# session's streams; 30 ns if none says.
proc ::ips2::cli::RecordCost {dir} {
    set cost 0
    foreach f [glob -nocomplain [file join $dir traces * *.ips2] [file join $dir traces * *.raw]] {
        if {[string match *.proc.* [file tail $f]]} continue
        if {[catch {open $f rb} ch]} continue ;# a raw stream packed meanwhile
        set head [read $ch 100]
        close $ch
        if {[binary scan $head a7x89iu magic c] == 2 && $magic eq "IPS2TRC" && $c > $cost} {
            set cost $c
        }
    }
    return [expr {$cost > 0 ? $cost : 30}]
}

proc ::ips2::cli::CmdReport {words opts} {
    lassign $words dir table
    set tables {metrics multi profile npt gprof processes phases problems objects messages
        master-worker cp cp-zero cp-path cp-imbalance clocks latency}
    if {$table ni $tables} {
        UsageError "unknown table \"$table\": expected [join $tables {, }]"
    }
    set format [Format $opts {text csv json}]
    if {$table eq "clocks"} {
        puts -nonewline [ips2::format::table [Clocks $dir] -format $format]
        return
    }
    set session [Open $dir [expr {$table eq "problems"}]]
    try {
        set node [Node $session [Opt $opts -node physical]]
        set phase [PhaseArgs $session $opts]
        lassign [Times $session $opts $table $phase] times phase
        switch -- $table {
            metrics { set t [$session metrics $node {*}$phase] }
            multi {
                set apps [Opt $opts -apps [$session apps]]
                set t [$session metrics -apps $apps {*}$phase]
            }
            profile {
                set t [$session profile $node -level [Opt $opts -level procedure] \
                           -metric [Opt $opts -metric cpu] -by [Opt $opts -by node] {*}$phase]
            }
            npt {
                set t [$session npt $node -level [Opt $opts -level process] \
                           -by [Opt $opts -by node] {*}$phase]
            }
            gprof {
                if {$node eq "physical" && [llength [$session apps]] == 1} {
                    set node app:[lindex [$session apps] 0]
                }
                set text [Gprof $session $node $phase $format]
                if {$format eq "text"} {
                    # GNU's layout: its title, the clock and what the times are,
                    # then the times' kind, above the flat profile's columns
                    regsub -line {^(  %   cumulative)} $text "Times: $times.\n\\1" text
                }
                puts -nonewline $text
                return
            }
            processes {
                set t [$session table processes -columns {application index machine pid status cpu command}]
            }
            phases - problems {
                set t [$session table $table]
                if {$table eq "problems"} { dict lappend t rows {*}[CpProblems $session] }
            }
            objects { set t [$session objects $node {*}$phase] }
            messages - master-worker {
                set which [expr {$table eq "messages" ? "channels" : "groups"}]
                set t [$session messages -app [Opt $opts -app ""] {*}$phase -table $which]
            }
            cp - cp-zero - cp-path - cp-imbalance {
                puts -nonewline [CriticalPath $session $table $node $phase $opts $format]
                return
            }
            latency {
                package require ips2::latency 1.0
                puts -nonewline [ips2::latency::report $session $node $phase $opts $format]
                return
            }
        }
        set header {}
        if {$table in {metrics multi profile npt}} { set header [ClockHeader $session $node $phase] }
        # which times (docs/PERTURBATION.md): in text always, in JSON beside a clock header
        if {$table ni {processes phases problems} && ($format eq "text" || [llength $header])} {
            lappend header "times: $times"
        }
        puts -nonewline [ips2::format::table $t -format $format -header $header]
    } finally {
        $session close
    }
}

# TimesLine SESSION: the run summary's line saying which times its tables
# show, and, for raw times, the probes' share of the traced CPU when it is
# large enough to mislead (docs/PERTURBATION.md).
proc ::ips2::cli::TimesLine {session} {
    set tm [$session times]
    set line "times: [dict get $tm times]"
    if {[dict get $tm times] eq "raw"} {
        set cpu 0
        foreach row [dict get [$session metrics physical] rows] {
            if {[lindex $row 0] eq "cpu"} { set cpu [lindex $row 1] }
        }
        set share [expr {$cpu > 0 ? double([dict get $tm probe_ns]) / $cpu : 0}]
        if {$share >= 0.1} {
            append line [::format " (the probes took %.0f%% of the traced CPU time: -times compensated removes them)" \
                             [expr {$share * 100}]]
        }
    }
    return "$line\n"
}

# Times SESSION OPTS TABLE PHASEARGS: {TIMES PHASEARGS}, which times a
# table of the session shows (raw or compensated, REDUCTION.md
# "Compensated times") and the phase arguments that give them: the
# session's reductions when they hold the times asked for (-times, else
# IPS2_TIMES, else the session's own); else the traces are reduced again with
# them (as for a phase; over the whole session without one).  The
# critical path's PAG is built once, with the run's reductions.
proc ::ips2::cli::Times {session opts table phase} {
    set have [dict get [$session times] times]
    set want [Opt $opts -times [expr {[info exists ::env(IPS2_TIMES)] ? $::env(IPS2_TIMES) : $have}]]
    if {$want ni {raw compensated} || $have eq $want || $table in {processes phases problems}} {
        return [list $have $phase]
    }
    if {[string match cp* $table]} {
        UsageError "the critical path of this session was built with $have times: run it with -times $want"
    }
    if {![llength $phase]} {
        set name "times:$want"
        $session phase $name -1000000000000000000 1000000000000000000 -save 0
        set phase [list -phase $name]
    }
    return [list $want $phase]
}

# Clocks DIR: the clocks table of session DIR (docs/CLOCKS.md): per
# machine, the offset of its clock from the master's that its slave
# measured (the manifest's clock line), its error bound, the round trip
# and exchanges it came from; then what the message pass did to the run's
# part files (ips2::clocks): its shift, the machine's message pairings with
# the others, how many ran backwards before, the worst, and how many
# still do.  n/a: not measured (a session from before, a slave that could
# not), or no part file.
proc ::ips2::cli::Clocks {dir} {
    Master
    set file [file join $dir manifest.tcl]
    if {![file isfile $file]} { Fail "$dir: not a session directory (no manifest.tcl)" }
    set m [ips2::manifest::read $file]
    set files {}
    dict for {name mach} [dict get $m machines] {
        set f [file join $dir pag $name.pag]
        if {[file isfile $f]} { lappend files $f }
    }
    set pass {}
    if {[llength $files]} {
        if {[catch {ips2::clocks {*}$files} got]} { Fail "$dir: $got" }
        foreach d $got { dict set pass [dict get $d machine] $d }
    }
    set rows {}
    dict for {name mach} [dict get $m machines] {
        set row [list $name [dict get $mach host]]
        if {[dict exists $mach clock]} {
            lappend row {*}[dict get $mach clock]
        } else {
            lappend row n/a n/a n/a n/a
        }
        if {[dict exists $pass $name]} {
            set d [dict get $pass $name]
            foreach k {shift pairs backwards worst after} { lappend row [dict get $d $k] }
        } else {
            lappend row n/a n/a n/a n/a n/a
        }
        lappend rows $row
    }
    return [dict create columns {{machine ""} {host ""} {offset ns} {error ns} {"round trip" ns}
        {exchanges ""} {"message shift" ns} {"message pairs" ""} {backwards ""} {worst ns}
        {"backwards after" ""}} rows $rows]
}

# ClockHeader SESSION NODE PHASEARGS: the header lines of a table of NODE
# that say which process-time clock its times come from (and warn about
# procedures too short for it: ips2::format::clockLines).
proc ::ips2::cli::ClockHeader {session node phase} {
    if {$node eq ""} { set node physical }
    ips2::format::clockLines [$session clock $node {*}$phase]
}

# CriticalPath SESSION TABLE NODE PHASEARGS OPTS FORMAT: the text of a cp,
# cp-zero, cp-path or cp-imbalance table (ANALYSTS.md §6).  Text has a
# header line as the paper's critical-path tables (Figs. 6, 7, 10, 12,
# 13): the mode and application, the path's length, the elapsed time and
# their ratio; the session's unmatched ends are said on stderr.
proc ::ips2::cli::CriticalPath {session table node phase opts format} {
    set q {}
    foreach opt {-mode -app -pvm} {
        if {[dict exists $opts $opt]} { lappend q $opt [dict get $opts $opt] }
    }
    set what [expr {[dict exists $opts -app] ? [dict get $opts -app] : ""}]
    set node [expr {$node eq "physical" ? "" : $node}]
    switch -- $table {
        cp {
            set by [expr {[dict exists $opts -by] ? [list -by [dict get $opts -by]] : {}}]
            set t [$session cp {*}[expr {$node ne "" ? [list $node] : {}}] {*}$q \
                       -level [Opt $opts -level process] {*}$by {*}$phase]
            set title [::format "critical path (%s%s), %s level: length %.3f ms, elapsed %.3f ms, ratio %.3f" \
                           [dict get $t mode] [expr {[dict get $t app] ne "" ? ", [dict get $t app]" : ""}] \
                           [dict get $t level] [expr {[dict get $t length] / 1e6}] \
                           [expr {[dict get $t elapsed] / 1e6}] [dict get $t ratio]]
        }
        cp-zero {
            foreach opt {-procedure -process} {
                if {[dict exists $opts $opt]} { lappend q $opt [dict get $opts $opt] }
            }
            if {![dict exists $opts -procedure] && ![dict exists $opts -process]} {
                UsageError "cp-zero needs -procedure NAME or -process PATH"
            }
            if {[dict exists $opts -inclusive]} { lappend q -inclusive }
            set t [$session table cp-zero {*}$q]
            set thing [lindex [dict get $t rows] 0 0]
            if {[dict get $t inclusive] && [llength [dict get $t zeroed]] > 1} {
                append thing " ([join [lrange [dict get $t zeroed] 1 end] {, }])"
            }
            set title "critical-path zeroing ([dict get $t mode][expr {[dict get $t app] ne "" ? ", [dict get $t app]" : ""}]): if $thing took no time"
        }
        cp-path {
            if {$format in {text csv}} {
                # a server's path is long: its rows go out as they are made
                $session cp-path {*}$q {*}$phase -write stdout -format $format \
                    -head [list ::ips2::cli::PathHead $session $what $node $phase $format]
                return ""
            }
            set t [$session cp-path {*}$q {*}$phase]
            set title [PathTitle $t [llength [dict get $t rows]]]
        }
        cp-imbalance {
            set t [$session cp-imbalance {*}[expr {$node ne "" ? [list $node] : {}}] {*}$q {*}$phase]
            set title [::format "critical-path imbalance (%s%s): path length %.3f ms" [dict get $t mode] \
                           [expr {[dict get $t app] ne "" ? ", [dict get $t app]" : ""}] \
                           [expr {[dict get $t length] / 1e6}]]
        }
    }
    set header [CpHeader $session $t $what $node [expr {$table eq "cp-zero" ? {} : $phase}] $format]
    if {$format eq "text"} {
        return [ips2::format::table $t -format text -title $title -header $header]
    }
    if {$format eq "json"} {
        dict set t segments [llength [dict get $t rows]]
        if {$table eq "cp-zero"} {
            foreach k {procedure process} { dict set t $k [Opt $opts -$k] }
            foreach k {length new_length saved percent} v [lrange [lindex [dict get $t rows] 0] 1 end] {
                dict set t $k $v
            }
        }
        return [CpJson $t $title [dict get {cp {mode app level by via length elapsed ratio begin end}
            cp-zero {mode app procedure process inclusive zeroed length new_length saved percent}
            cp-path {mode app length segments} cp-imbalance {mode app length}} $table] $header]
    }
    return [ips2::format::table $t -format $format -header $header]
}

# CpHeader SESSION T WHAT NODE PHASEARGS FORMAT: the header lines of a
# critical-path table T (its warnings said on stderr first): the clock of
# the path's node or, for an intra-application path, of its application,
# and in text which times the PAG's CPU arcs hold (REDUCTION.md
# "Compensated times").
proc ::ips2::cli::CpHeader {session t what node phase format} {
    CpWarnings $session [dict get $t warnings]
    set intra [expr {[dict get $t mode] eq "intra" && $what ne ""}]
    set header [ClockHeader $session [expr {$intra ? "app:$what" : $node}] $phase]
    if {$format eq "text"} { lappend header "times: [dict get [$session times] times]" }
    return $header
}

# PathTitle T SEGMENTS: the title of a cp-path table.
proc ::ips2::cli::PathTitle {t segments} {
    ::format "critical path (%s%s): length %.3f ms, %d segments" [dict get $t mode] \
        [expr {[dict get $t app] ne "" ? ", [dict get $t app]" : ""}] \
        [expr {[dict get $t length] / 1e6}] $segments
}

# PathHead SESSION WHAT NODE PHASEARGS FORMAT T: what a streamed cp-path writes
# before its rows (tcl_cpa.c's -head): in text its title and header lines,
# in csv nothing.  T is the path's dict without rows.
proc ::ips2::cli::PathHead {session what node phase format t} {
    set header [CpHeader $session $t $what $node $phase $format]
    if {$format ne "text"} { return "" }
    return [join [concat [list [PathTitle $t [dict get $t segments]]] $header] \n]\n
}

# CpWarnings SESSION WARNINGS: the critical path's warnings (unmatched
# ends ...) said on stderr once per session: the ones said are kept in
# SESSION/pag/warnings-said (one a line), and a later command whose
# warnings were all said points to `report problems` in one line.  A
# session that cannot be written to is told every time.
proc ::ips2::cli::CpWarnings {session warnings} {
    if {![llength $warnings]} return
    set dir [dict get [$session info] dir]
    set file [file join $dir pag warnings-said]
    set said {}
    if {![catch {open $file r} f]} {
        set said [split [string trimright [read $f] \n] \n]
        close $f
    }
    set new [lmap w $warnings { expr {$w in $said ? [continue] : $w} }]
    set where "ips2 report [list $dir] problems"
    if {![llength $new]} {
        Say "critical path: [llength $warnings] warnings, said before: $where lists them"
        return
    }
    Say "critical path: [llength $new] warnings (ends that found no partner ...), the first: [lindex $new 0]; $where lists them all"
    catch {
        set f [open $file a]
        puts $f [join $new \n]
        close $f
    }
}

# CpProblems SESSION: the critical path's warnings, for the problems
# table (in this process, "" if the session has no critical path).
proc ::ips2::cli::CpProblems {session} {
    if {![llength [glob -nocomplain -directory [file join [dict get [$session info] dir] pag] *.pag]]
        || [catch {$session cp -mode global -level machine -pvm none} t]} {
        return {}
    }
    lmap w [dict get $t warnings] { list "critical path: $w" }
}

# CpJson TABLE TITLE KEYS ?HEADER?: a critical-path table as JSON, its header as
# fields before the columns: the text's title, the answer's KEYS (times
# in ns, as in the rows), the warnings (an array of strings) and the
# clock's HEADER lines ("header": an array of strings).
proc ::ips2::cli::CpJson {t title keys {header {}}} {
    set fields [list "\"title\": [json::write string $title]"]
    foreach k $keys {
        set v [dict get $t $k]
        if {$k eq "zeroed"} {
            lappend fields "\"zeroed\": \[[join [lmap n $v { json::write string $n }] {, }]\]"
        } elseif {$k eq "inclusive"} {
            lappend fields "\"inclusive\": [expr {$v ? "true" : "false"}]"
        } else {
            lappend fields "[json::write string $k]: [expr {[ips2::format::JsonNumber $v] && $k ni {app procedure process}
                                                         ? $v : [json::write string $v]}]"
        }
    }
    lappend fields "\"warnings\": \[[join [lmap w [dict get $t warnings] { json::write string $w }] {, }]\]"
    set body [ips2::format::table [dict remove $t title] -format json -header $header]
    return "\{[join $fields ",\n "],\n [string range $body 1 end]"
}

proc ::ips2::cli::CmdTree {words opts} {
    lassign $words dir which
    set format [Format $opts {text json}]
    set session [Open $dir]
    try {
        set level [expr {[dict exists $opts -level] ? [list -level [dict get $opts -level]] : {}}]
        if {$which eq ""} {
            set trees [lmap app [$session apps] { $session tree logical $app {*}$level }]
            lappend trees [$session tree physical {*}$level]
        } elseif {$which eq "physical"} {
            set trees [list [$session tree physical {*}$level]]
        } elseif {$which in [$session apps]} {
            set trees [list [$session tree logical $which {*}$level]]
        } else {
            UsageError "no tree \"$which\": expected physical or one of the applications [join [$session apps] {, }]"
        }
        set texts [lmap t $trees { ips2::format::tree $t -format $format }]
        if {$format eq "json"} {
            puts "\[[join [lmap t $texts { string trimright $t }] ",\n "]\]"
        } else {
            puts -nonewline [join $texts \n]
        }
    } finally {
        $session close
    }
}

proc ::ips2::cli::CmdHistogram {words opts} {
    lassign $words dir name
    set format [Format $opts {text csv json}]
    set session [Open $dir]
    try {
        set node [Node $session $name]
        set metric [Opt $opts -metric cpu]
        set width {}
        if {[dict exists $opts -width]} {
            set ms [dict get $opts -width]
            if {![string is double -strict $ms] || $ms <= 0} {
                UsageError "expected -width as milliseconds > 0, got \"$ms\""
            }
            set width [list -width [expr {entier(round($ms * 1e6))}]]
        }
        lassign [Times $session $opts histogram [PhaseArgs $session $opts]] times phase
        set t [$session histogram $node -metric $metric {*}$width {*}$phase]
        puts -nonewline [ips2::format::histogram $t -format $format \
                             -title "$metric of $node ($times times)"]
    } finally {
        $session close
    }
}

# export: ips2-export (export/) beside bin/ips2 writes the files; its line
# on stderr says what it wrote.
set ::ips2::cli::Here [file dirname [file normalize [info script]]]

proc ::ips2::cli::CmdExport {words opts} {
    variable Here
    lassign $words dir out
    set format [Opt $opts -format otf2]
    if {$format ni {otf2 json folded}} {
        UsageError "unknown format \"$format\": expected otf2, json, folded"
    }
    if {![file isfile [file join $dir manifest.tcl]]} {
        Fail "$dir: not a session directory (no manifest.tcl)"
    }
    set prog [file join [file dirname [file dirname $Here]] bin ips2-export]
    if {![file executable $prog]} { set prog ips2-export }
    set code [catch {exec $prog -format $format $dir $out >@ stdout} text options]
    set text [string map {"ips2-export: " ""} [string trim $text]]
    if {$code && [lindex [dict get $options -errorcode] 0] ne "NONE"} { Fail $text }
    foreach line [split $text \n] {
        Say [expr {[string match "warning: *" $line] ? $line : "wrote $line"}]
    }
}

proc ::ips2::cli::CmdPhase {words opts} {
    lassign $words dir name spec
    if {[set range [Range $spec ""]] eq ""} {
        UsageError "expected START:END in seconds, got \"$spec\""
    }
    if {[Range $name ""] ne ""} {
        UsageError "expected a name for the phase, not an interval: \"$name\""
    }
    set session [Open $dir]
    try {
        $session phase $name {*}$range
        puts -nonewline [ips2::format::table [$session table phases]]
    } finally {
        $session close
    }
}

# gui: the window is the GUI's package (tk/, lib/ips2-gui), over this one;
# it is loaded here, when asked for, and never by the master package.
# --- the W3 search -----------------------------------------------------------------

proc ::ips2::cli::CmdSearch {words opts} {
    set format [Format $opts {text json}]
    set args {}
    if {[dict exists $opts -interval]} {
        set ms [dict get $opts -interval]
        if {![string is double -strict $ms] || $ms <= 0} {
            UsageError "expected -interval MS, a positive number, got \"$ms\""
        }
        lappend args -interval $ms
    }
    if {[dict exists $opts -app]} { lappend args -app [dict get $opts -app] }
    set thresholds {}
    foreach setting [Opt $opts -threshold] {
        if {![regexp {^([A-Za-z_][A-Za-z0-9_]*)=(.+)$} $setting -> name value]
            || ![string is double -strict $value]} {
            UsageError "expected -threshold NAME=VALUE with a number, got \"$setting\""
        }
        lappend thresholds $name $value
    }
    if {[llength $thresholds]} { lappend args -threshold $thresholds }
    set dir [lindex $words 0]
    set session [Open $dir]
    try {
        set r [$session search {*}[PhaseArgs $session $opts] {*}$args]
        if {$format eq "json"} {
            puts -nonewline [SearchJson $r]
        } else {
            puts -nonewline [SearchText $r $dir]
        }
    } finally {
        $session close
    }
}

# Focus text: "code compute, process app:A/...", or "the whole program".
proc ::ips2::cli::FocusText {focus} {
    set parts {}
    foreach h {code process sync machine application} {
        if {[dict exists $focus $h]} { lappend parts "$h [dict get $focus $h]" }
    }
    expr {[llength $parts] ? [join $parts {, }] : "the whole program"}
}

proc ::ips2::cli::Seconds {interval} {
    format "%.2f-%.2f s" {*}$interval
}

# SearchText RESULT DIR: the readable report: the bottlenecks with their
# explanation and evidence (at most 10 rows each), the history graph's
# tested nodes as a tree, and the accounting in the thesis's two tables.
proc ::ips2::cli::SearchText {r dir} {
    set bottlenecks [dict get $r bottlenecks]
    set out "W3 search of [file normalize $dir]\n"
    if {![llength $bottlenecks]} {
        append out "\nNo bottleneck: nothing is above its threshold.\n"
    }
    set i 0
    foreach b $bottlenecks {
        append out "\n[incr i]. [dict get $b hypothesis] at [FocusText [dict get $b focus]],\
            [Seconds [dict get $b interval]]: [format %.4g [dict get $b value]]\
            (threshold [format %.4g [dict get $b threshold]])\n"
        append out "   path: [join [dict get $b path] { > }]\n"
        append out "   [dict get $b explanation]\n"
        set ev [dict get $b evidence]
        if {[dict exists $ev columns] && [llength [dict get $ev rows]]} {
            set rows [dict get $ev rows]
            set more [expr {[llength $rows] - 10}]
            dict set ev rows [lrange $rows 0 9]
            foreach line [split [string trimright [ips2::format::table $ev]] \n] {
                append out "     $line\n"
            }
            if {$more > 0} { append out "     ($more more rows)\n" }
        }
    }
    set shg [dict get $r shg]
    set children {}
    set untested 0
    foreach n $shg {
        dict lappend children [dict get $n parent] [dict get $n id]
        if {[dict get $n state] eq "untested"} { incr untested }
    }
    append out "\n== search history graph: [llength $shg] nodes ($untested not tested)\n"
    set byid {}
    foreach n $shg { dict set byid [dict get $n id] $n }
    set lines {}
    SearchTree $byid $children -1 0 lines
    append out [join $lines \n] \n
    set a [dict get $r accounting]
    set pct [list apply {{part whole} {
        expr {$whole > 0 ? [format "%.1f%%" [expr {100.0 * $part / $whole}]] : "-"}
    }}]
    append out "\n== data volume (thesis Figs 4.2-4.7)\n"
    set t1 [dict create columns {{{Total Counters} {}} {{Counters Used} {}} {{Total Samples} {}} {{Samples Used} {}}} \
                rows [list [list [dict get $a total_counters] \
                                "[dict get $a counters_used] ([{*}$pct [dict get $a counters_used] [dict get $a total_counters]])" \
                                [dict get $a total_samples] \
                                "[dict get $a samples_used] ([{*}$pct [dict get $a samples_used] [dict get $a total_samples]])"]]]
    append out [ips2::format::table $t1]
    set t2 [dict create columns {{{DI Samples} {}} {{DI Size (KB)} {}} {{Trace Size (KB)} {}} {Ratio {}}} \
                rows [list [list [dict get $a samples_used] [format %.1f [expr {[dict get $a di_bytes] / 1000.0}]] \
                                [format %.1f [expr {[dict get $a trace_bytes] / 1000.0}]] \
                                [format %.0f [dict get $a ratio]]]]]
    append out [ips2::format::table $t2]
    return $out
}

# SearchTree BYID CHILDREN ID DEPTH LINESVAR: the tested nodes under ID.
proc ::ips2::cli::SearchTree {byid children id depth linesVar} {
    upvar $linesVar lines
    if {![dict exists $children $id]} { return }
    foreach c [dict get $children $id] {
        set n [dict get $byid $c]
        if {[dict get $n state] eq "untested"} { continue }
        set value ""
        if {[dict get $n threshold] != 0} {
            set value " [format %.4g [dict get $n value]]/[format %.4g [dict get $n threshold]]"
        }
        lappend lines "[string repeat {  } $depth]\[[dict get $n state]\] [dict get $n hypothesis]\
            ([FocusText [dict get $n focus]], [Seconds [dict get $n interval]])$value: [dict get $n why]"
        SearchTree $byid $children $c [expr {$depth + 1}] lines
    }
}

proc ::ips2::cli::JsonFocus {focus} {
    set parts {}
    foreach h {code process sync machine application} {
        if {[dict exists $focus $h]} {
            lappend parts "[json::write string $h]: [json::write string [dict get $focus $h]]"
        }
    }
    return "\{[join $parts {, }]\}"
}

proc ::ips2::cli::JsonNumber {v} {
    if {[string is entier -strict $v]} { return $v }
    set s [format %.17g $v]
    if {![string match {*[.eE]*} $s]} { append s .0 }
    return $s
}

# SearchJson RESULT: issue 11 item 9's JSON (the evidence tables left out).
proc ::ips2::cli::SearchJson {r} {
    set bs {}
    foreach b [dict get $r bottlenecks] {
        set path [lmap h [dict get $b path] { json::write string $h }]
        lappend bs "\{\"hypothesis\": [json::write string [dict get $b hypothesis]],\
            \"path\": \[[join $path {, }]\],\
            \"focus\": [JsonFocus [dict get $b focus]],\
            \"interval\": \[[join [lmap x [dict get $b interval] { JsonNumber $x }] {, }]\],\
            \"value\": [JsonNumber [dict get $b value]],\
            \"threshold\": [JsonNumber [dict get $b threshold]],\
            \"explanation\": [json::write string [dict get $b explanation]]\}"
    }
    set ns {}
    foreach n [dict get $r shg] {
        lappend ns "\{\"id\": [dict get $n id], \"parent\": [dict get $n parent],\
            \"hypothesis\": [json::write string [dict get $n hypothesis]],\
            \"focus\": [JsonFocus [dict get $n focus]],\
            \"interval\": \[[join [lmap x [dict get $n interval] { JsonNumber $x }] {, }]\],\
            \"state\": [json::write string [dict get $n state]]\}"
    }
    set a [dict get $r accounting]
    set acc {}
    foreach k {total_counters counters_used total_samples samples_used bytes_per_sample di_bytes
               trace_bytes ratio} {
        lappend acc "\"$k\": [JsonNumber [dict get $a $k]]"
    }
    return "\{\"bottlenecks\": \[[join $bs ",\n  "]\],\n \"shg\": \[[join $ns ",\n  "]\],\n \"accounting\": \{[join $acc {, }]\}\}\n"
}

proc ::ips2::cli::CmdGui {words opts} {
    if {[catch {package require ips2::gui} message]} { Fail "the window cannot open: $message" }
    ips2::gui::main $words
}

# sessions: read with the manifest reader alone (no master package), so
# that it lists sessions also where the master cannot load; a bad manifest
# is named on stderr and the others are listed.
proc ::ips2::cli::CmdSessions {words opts} {
    variable SessionsDir
    set dir [expr {[llength $words] ? [lindex $words 0] : $SessionsDir}]
    if {![file isdirectory $dir]} { Fail "$dir: no such directory" }
    set rows {}
    set bad 0
    foreach sub [lsort [glob -nocomplain -types d -directory $dir *]] {
        set file [file join $sub manifest.tcl]
        if {![file isfile $file]} continue
        if {[catch {ips2::manifest::read $file} m]} {
            puts stderr "ips2 sessions: $m"
            incr bad
            continue
        }
        set started [clock format [expr {[dict get $m session] / 1000000000}] -format {%Y-%m-%d %H:%M:%S}]
        set apps [lmap {name a} [dict get $m applications] {
            expr {[dict get $a mode] eq "active" ? $name : "$name ([dict get $a mode])"}
        }]
        set n [llength [dict get $m processes]]
        set failed 0
        foreach p [dict get $m processes] {
            if {[dict get $p status] ne {exited 0}} { incr failed }
        }
        set problems 0
        set log [file join $sub log]
        if {[file isfile $log]} {
            set f [open $log {RDONLY NONBLOCK}]
            set problems [llength [lsearch -all -not -exact [split [read $f] \n] ""]]
            close $f
        }
        lappend rows [list [file tail $sub] $started [join $apps ", "] $n $failed $problems]
    }
    puts -nonewline [ips2::format::table [dict create \
        columns {{session ""} {started ""} {applications ""} {processes ""} {"not exit 0" ""} {problems ""}} \
        rows $rows]]
    if {$bad} { Fail "$bad session(s) with a bad manifest (named above)" }
}

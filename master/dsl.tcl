# dsl.tcl - the safe interpreters in which ips2 reads its Tcl data files
# (workload files and session manifests, docs/ANALYSTS.md §1 and §3), and
# where a mistake in them is reported as "FILE:LINE: what was expected".
#
# A file is sourced in a fresh safe interpreter (interp create -safe: no
# files, no exec, no sockets, no environment) whose only extra commands are
# the reader's, as aliases into this interpreter.  A command of the file is
# located through TIP 280's [info frame], asked of the safe interpreter from
# inside the alias: the innermost frame of the file gives the line, also
# inside loops and procedures the file defines.  A "block" command (one whose
# last argument is a script, e.g. `application NAME { process ... }`) is a
# small procedure in the safe interpreter that runs its body in the caller's
# frame with uplevel; frames inside such a body count lines from the body,
# so the block records where its body starts in the file and locations
# inside it are offset from there.  Errors that are not the reader's (an
# unknown command, a Tcl error in the file's own code) are located too: at
# the innermost line the error information names.
#
# Limits.  A data file may come from someone else (a received session, a
# workload to check), so reading one is bounded: a file larger than the
# file limit is not read; one reading (source or sourceEach) runs under
# Tcl's interpreter limits, a time limit (0.5 s, plus 2 s per 100 kB of
# file) and a command count; after, vwait and update (no event loop is
# served here), interp and trace are refused.  Values cannot be bounded by
# an interpreter limit (one "append s $s" doubles a value, and past 2 GB
# tclsh aborts), so every command of a reading is seen by enterstep and
# leavestep traces of the hidden command that runs it (ips2-guard): a
# command whose words take more than the value limit (1 MiB), or one of
# Tcl's builders ("string repeat", "lrepeat", "format", "string map",
# "join", ...) that could build more, is refused before it runs, and one
# whose result is larger after; and as Tcl's parser joins a word's
# substitutions before any trace sees them, the substitutions of any text
# times the largest value is kept under 64 MiB (Joined).  The trace's
# callback, ips2-step, is protected from the file: a command naming it is
# refused.  A limit that stops a reading is a located error like the others.
#
#   ips2::dsl::create FILE ?NAME?   -> SLAVE: a safe interpreter for FILE
#                                   (messages name it NAME, by default FILE)
#   ips2::dsl::command SLAVE NAME PREFIX     alias NAME to a command prefix
#   ips2::dsl::block SLAVE NAME BEGIN END    NAME ... BODY: BEGIN ..., BODY, END
#   ips2::dsl::source SLAVE         evaluates FILE in SLAVE
#   ips2::dsl::sourceEach SLAVE ONPROBLEM    evaluates FILE one top-level
#                                   command at a time: a failing one is a
#                                   problem, ONPROBLEM MESSAGE, and the rest
#                                   is read
#   ips2::dsl::line SLAVE           line of the file's command being run
#   ips2::dsl::fail SLAVE MESSAGE   raises "FILE:LINE: MESSAGE"
#   ips2::dsl::failat FILE LINE MESSAGE
#   ips2::dsl::destroy SLAVE
#   ips2::dsl::checkName SLAVE WHAT VALUE   fails unless VALUE is a name
#                                   (of a machine, application...: it may
#                                   become a file name, so no "/", no "..")
#   ips2::dsl::checkHost SLAVE WHAT VALUE   fails unless VALUE is a host name
#   ips2::dsl::limits ?NAME VALUE ...?      the limits (a dict: seconds,
#                                   seconds_per_100kb, commands, file_bytes,
#                                   value_bytes, join_bytes); sets those given
#
# Located errors have the error code {IPS2 DSL FILE LINE}.

package require Tcl 8.6
package provide ips2::dsl 1.0

namespace eval ::ips2::dsl {
    namespace export create command block source sourceEach line fail failat destroy \
        checkName checkHost limits
    # State(SLAVE): dict with file (as messages name it), path (normalized),
    # names (the reader's commands), bases (a stack: first file line of each
    # block body being run), at (sourceEach: the first line of the
    # command being run, else "") and limited (whether the reading's
    # limits are set: once per interpreter).
    variable State
    array set State {}
    variable Seen
    array set Seen {}
    variable Limits [dict create seconds 0.5 seconds_per_100kb 2.0 commands 2000000 \
                         file_bytes [expr {16 << 20}] value_bytes [expr {1 << 20}] \
                         join_bytes [expr {64 << 20}]]
    # A name that may become a file name: not "", ".", "..", nothing with
    # "/"; at most NameMax characters.
    variable NameRE {^[A-Za-z0-9_][A-Za-z0-9_.-]*$}
    variable NameMax 200
    # A host name or address as PVM takes it: no spaces, no "=" (PVM's host
    # options), no leading "-" (a command's option).
    variable HostRE {^[A-Za-z0-9_:][A-Za-z0-9_.:-]*$}
    variable HostMax 255
    # Commands a data file may not run: no event loop is served while it is
    # read, and the reading's limits and guard stay as they are.
    variable Refused {after vwait update interp trace}
}

proc ::ips2::dsl::limits {args} {
    variable Limits
    if {[llength $args] % 2} { return -code error "limits: expected NAME VALUE pairs" }
    foreach {name value} $args {
        if {![dict exists $Limits $name]} {
            return -code error "limits: expected one of [dict keys $Limits], got \"$name\""
        }
        if {![string is double -strict $value] || $value <= 0} {
            return -code error "limits: expected a positive number for $name, got \"$value\""
        }
        dict set Limits $name $value
    }
    return $Limits
}

proc ::ips2::dsl::create {file {name ""}} {
    variable State
    set slave [interp create -safe]
    if {$name eq ""} { set name $file }
    set State($slave) [dict create file $name path [file normalize $file] names {} bases {} at "" \
                           limited 0]
    # Seen(SLAVE,refs), Seen(SLAVE,largest): see Joined
    variable Seen
    set Seen($slave,refs) 0
    set Seen($slave,largest) 0
    # The file's own typing errors: an unknown command is located like the
    # reader's commands are.
    interp alias $slave unknown {} ::ips2::dsl::Unknown $slave
    # The guard: every command run while ips2-guard (hidden, so the file
    # cannot call, replace or untrace it) runs is seen by ips2-step first.
    interp alias $slave ::ips2-step {} ::ips2::dsl::Step $slave
    interp alias $slave ::ips2-guard {} ::ips2::dsl::Guard $slave
    interp eval $slave {trace add execution ::ips2-guard {enterstep leavestep} ::ips2-step}
    interp hide $slave ips2-guard
    variable Refused
    foreach command $Refused {
        interp hide $slave $command
        interp alias $slave $command {} ::ips2::dsl::Refuse $slave $command
    }
    return $slave
}

proc ::ips2::dsl::destroy {slave} {
    variable State
    variable Seen
    unset -nocomplain State($slave) Seen($slave,refs) Seen($slave,largest)
    if {[interp exists $slave]} { interp delete $slave }
}

proc ::ips2::dsl::command {slave name prefix} {
    variable State
    dict lappend State($slave) names $name
    interp alias $slave $name {} {*}$prefix
}

# block SLAVE NAME BEGIN END: NAME takes a name, options and a script last.
# BEGIN is called with the arguments before the script (it checks them and
# may fail); then the script runs in the caller's frame; then END is called
# with no arguments, also when the script failed (after the error was
# located: the body's place in the file is known until END).
proc ::ips2::dsl::block {slave name begin end} {
    variable State
    dict lappend State($slave) names $name
    set b ::ips2::dsl::begin-$name
    set e ::ips2::dsl::end-$name
    interp alias $slave $b {} ::ips2::dsl::Begin $slave $name $begin
    interp alias $slave $e {} ::ips2::dsl::End $slave $end
    interp alias $slave ::ips2::dsl::located {} ::ips2::dsl::Located $slave
    interp eval $slave [list proc $name args [string map [list @B $b @E $e @N $name] {
        @B {*}[lrange $args 0 end-1] [lindex $args end]
        set code [catch {uplevel 1 [lindex $args end]} result options]
        if {$code == 1} {
            catch {::ips2::dsl::located $result $options} result options
        }
        @E
        return -options [dict remove $options -level] $result
    }]]
}

# Begin: checks the block's arguments through the reader's prefix, then
# records where its body starts: the block command's line plus the lines
# before the body in the command's text.
proc ::ips2::dsl::Begin {slave name prefix args} {
    variable State
    if {[llength $args] < 2} {
        fail $slave "expected a name and a script after \"$name\""
    }
    set body [lindex $args end]
    {*}$prefix {*}[lrange $args 0 end-1]
    lassign [Locate $slave] line cmd
    set base $line
    set at [string first $body $cmd]
    if {$line ne "?" && $at >= 0} {
        incr base [regexp -all \n [string range $cmd 0 $at-1]]
    }
    dict lappend State($slave) bases $base
    return
}

proc ::ips2::dsl::End {slave prefix} {
    variable State
    dict set State($slave) bases [lrange [dict get $State($slave) bases] 0 end-1]
    {*}$prefix
}

# Located: an error raised inside a block's body; the reader's errors are
# located already, others at the body's line that the error trace names
# (the uplevel of the body is the anchor, see ErrorLine).
proc ::ips2::dsl::Located {slave message options} {
    variable State
    set code [dict get $options -errorcode]
    if {[Ours $code $message]} {
        return -code error -errorcode $code $message
    }
    set bases [dict get $State($slave) bases]
    set line ?
    if {[llength $bases] && [lindex $bases end] ne "?"} {
        set rel [ErrorLine [dict get $options -errorinfo] {^\s*\("uplevel" body line (\d+)\)$}]
        if {$rel ne "?"} { set line [expr {[lindex $bases end] + $rel - 1}] }
    }
    failat [dict get $State($slave) file] $line [Explain $message $code]
}

# line SLAVE: the file's line of the command being run ("?" if unknown).
proc ::ips2::dsl::line {slave} {
    lindex [Locate $slave] 0
}

# Locate: {LINE CMD} of the innermost command of the file being run.  Walks
# the safe interpreter's frames from the innermost outwards: frames of other
# scripts (this file's block procedures) are skipped; a frame of the file
# itself gives the line; an "eval" frame met before it counts lines from the
# body of the innermost block.
proc ::ips2::dsl::Locate {slave} {
    variable State
    set path [dict get $State($slave) path]
    set bases [dict get $State($slave) bases]
    set depth [interp eval $slave {info frame}]
    set rel ""
    set relcmd ""
    for {set level [expr {$depth - 1}]} {$level >= 1} {incr level -1} {
        set f [interp eval $slave [list info frame $level]]
        switch -- [dict get $f type] {
            source {
                if {[dict get $f file] ne $path} continue
                if {$rel eq ""} {
                    return [list [dict get $f line] [dict get $f cmd]]
                }
                if {[llength $bases] && [lindex $bases end] ne "?"} {
                    return [list [expr {[lindex $bases end] + $rel - 1}] $relcmd]
                }
                return [list [dict get $f line] [dict get $f cmd]]
            }
            eval {
                if {$rel eq "" && [dict exists $f line]} {
                    set rel [dict get $f line]
                    set relcmd [dict get $f cmd]
                }
            }
        }
    }
    # sourceEach: the command being run starts at line "at" of the file
    set at [dict get $State($slave) at]
    if {$at ne ""} {
        return [list [expr {$rel ne "" ? $at + $rel - 1 : $at}] $relcmd]
    }
    return [list ? ""]
}

proc ::ips2::dsl::fail {slave message} {
    variable State
    failat [dict get $State($slave) file] [line $slave] $message
}

proc ::ips2::dsl::failat {file line message} {
    variable Raised "$file:$line: $message"
    return -code error -level 1 -errorcode [list IPS2 DSL $file $line] "$file:$line: $message"
}

# Ours ERRORCODE MESSAGE: whether an error is the reader's, located
# already: the file's own code can raise any error code, so the message
# must be the last one the reader raised.
proc ::ips2::dsl::Ours {errorcode message} {
    variable Raised
    expr {[lrange $errorcode 0 1] eq {IPS2 DSL} && [info exists Raised] && $message eq $Raised}
}

proc ::ips2::dsl::Unknown {slave name args} {
    variable State
    set names [lsort [dict get $State($slave) names]]
    set known [join [lrange $names 0 end-1] ", "]
    if {[llength $names] > 1} { append known " or " }
    append known [lindex $names end]
    if {[dict get $State($slave) at] ne ""} {
        # sourceEach: the problem says what Tcl says, then what was expected
        fail $slave "invalid command name \"$name\" (expected $known, or Tcl's own)"
    }
    fail $slave "expected a command ($known, or Tcl's own), got \"$name\""
}

# source SLAVE: evaluates the file in its safe interpreter.  Errors come out
# located: the reader's as they were raised, others at the innermost line
# of the file that the error information names.
proc ::ips2::dsl::source {slave} {
    variable State
    set file [dict get $State($slave) file]
    set path [dict get $State($slave) path]
    Readable $file $path
    # non-blocking, as sourceEach: a FIFO put there since Readable
    set f [open $path {RDONLY NONBLOCK}]
    fconfigure $f -translation binary
    set text [read $f]
    close $f
    Limit $slave $text
    set code [catch {interp invokehidden $slave ips2-guard source $path} result options]
    if {$code != 1} return
    set errorcode [dict get $options -errorcode]
    set anchor [string map [list @P [Quote $path]] {^\s*\(file "@P" line (\d+)\)$}]
    if {[Ours $errorcode $result]} {
        # the guard's, raised where no frame gives the line: the trace has it
        set prefix "$file:?: "
        if {[string first $prefix $result] == 0} {
            set line [ErrorLine [dict get $options -errorinfo] $anchor]
            if {$line ne "?"} {
                failat $file $line [string range $result [string length $prefix] end]
            }
        }
        return -code error -errorcode $errorcode $result
    }
    failat $file [ErrorLine [dict get $options -errorinfo] $anchor] [Explain $result $errorcode]
}

# sourceEach SLAVE ONPROBLEM: evaluates the file in its safe interpreter one
# top-level command at a time (a command ends at the first line where it is
# complete), so that a bad command is one problem, "FILE:LINE: MESSAGE"
# given to ONPROBLEM, and the commands after it are read.  A command left
# open at the end of the file is the last problem: the rest cannot be told
# apart.  A file that cannot be read is an error, as with source.
proc ::ips2::dsl::sourceEach {slave onproblem} {
    variable State
    set file [dict get $State($slave) file]
    set path [dict get $State($slave) path]
    Readable $file $path
    # non-blocking: a FIFO put there since Readable must not hang the reader
    set f [open $path {RDONLY NONBLOCK}]
    fconfigure $f -encoding utf-8
    set text [read $f]
    close $f
    Limit $slave $text
    set command ""
    set start 1
    set line 0
    try {
        foreach l [split $text \n] {
            incr line
            if {$command eq ""} { set start $line }
            append command $l \n
            if {![info complete $command]} continue
            dict set State($slave) at $start
            if {[catch {interp invokehidden $slave ips2-guard eval $command} result options]} {
                {*}$onproblem [Problem $slave $result $options]
                # a limit stops the reading: the interpreter runs no more
                if {[catch {interp eval $slave list}]} return
            }
            set command ""
        }
        if {[string trim $command] ne ""} {
            dict set State($slave) at $start
            catch {interp invokehidden $slave ips2-guard eval $command} result options
            {*}$onproblem [Problem $slave $result $options]
        }
    } finally {
        dict set State($slave) at ""
    }
}

# Problem: a failed command's message, located: the reader's as raised,
# others at the line of the command.
proc ::ips2::dsl::Problem {slave message options} {
    variable State
    if {[Ours [dict get $options -errorcode] $message]} { return $message }
    return "[dict get $State($slave) file]:[dict get $State($slave) at]: [Explain $message [dict get $options -errorcode]]"
}

# Readable FILE PATH: an error "FILE: cannot read: why" unless PATH is a
# readable regular file within the file limit.
proc ::ips2::dsl::Readable {file path} {
    variable Limits
    set why ""
    if {![file isfile $path] || ![file readable $path]} {
        set why [expr {[file exists $path] ? "not a readable file" : "no such file"}]
    } elseif {[file size $path] > [dict get $Limits file_bytes]} {
        set why "larger than [Bytes [dict get $Limits file_bytes]] ([file size $path] bytes)"
    }
    if {$why ne ""} {
        return -code error -level 2 -errorcode [list IPS2 DSL $file 0] "$file: cannot read: $why"
    }
}

# Limit SLAVE TEXT: the interpreter limits of the reading of a file of
# text TEXT, set once for the life of SLAVE (one file, one budget); the
# substitutions of its text count for the guard (see Joined).
proc ::ips2::dsl::Limit {slave text} {
    variable State
    variable Limits
    if {[dict get $State($slave) limited]} return
    dict set State($slave) limited 1
    variable Seen
    set Seen($slave,refs) [regexp -all {[$\[]} $text]
    set size [string length $text]
    set seconds [expr {[dict get $Limits seconds] + [dict get $Limits seconds_per_100kb] * $size / 1e5}]
    set end [expr {[clock milliseconds] + entier(1000 * $seconds)}]
    interp limit $slave time -seconds [expr {$end / 1000}] -milliseconds [expr {$end % 1000}] \
        -granularity 1
    set used [interp eval $slave {info cmdcount}]
    interp limit $slave command -value [expr {$used + entier([dict get $Limits commands])}]
}

# Guard SLAVE HOW ARG: runs the file (source ARG) or one command of it
# (eval ARG) in SLAVE, under the guard's enterstep trace (see create).
proc ::ips2::dsl::Guard {slave how arg} {
    switch -- $how {
        source { interp invokehidden $slave source $arg }
        eval { interp eval $slave $arg }
    }
}

# Step SLAVE COMMAND ARGS: the guard's look at each command, before it
# runs (enterstep: the values it takes, what a builder would build, the
# guard's own name, which no command of the file may use) and after
# (leavestep: the value it made, e.g. by "append" to a variable).
proc ::ips2::dsl::Step {slave command args} {
    variable Limits
    variable Seen
    set max [dict get $Limits value_bytes]
    if {[lindex $args end] eq "leavestep"} {
        set size [string length [lindex $args 1]]
        if {$size > $Seen($slave,largest)} {
            if {$size > $max} {
                fail $slave "expected values of at most [Bytes $max] (a value of $size characters)"
            }
            set Seen($slave,largest) $size
            Joined $slave
        }
        return
    }
    set size [string length $command]
    if {$size > $max} {
        fail $slave "expected values of at most [Bytes $max] (a command of $size characters)"
    }
    if {$size > $Seen($slave,largest)} {
        set Seen($slave,largest) $size
        Joined $slave
    }
    # a text has at most as many substitutions as characters
    if {$size > $Seen($slave,refs)} {
        set refs [regexp -all {[$\[]} $command]
        if {$refs > $Seen($slave,refs)} {
            set Seen($slave,refs) $refs
            Joined $slave
        }
    }
    if {[string first ips2-step $command] >= 0} {
        fail $slave "expected no command naming ips2-step (the reader's own)"
    }
    set built [Builds [string range $command 0 31] $command]
    if {$built > $max} {
        fail $slave "expected values of at most [Bytes $max] (\"[lindex $command 0]\" would build\
            $built characters)"
    }
}

# Joined SLAVE: Tcl's parser joins a word's substitutions ("$s$s$s...")
# before any trace sees the command, and past 2 GB tclsh aborts.  A script
# that runs is the file's text or a word some command was given first (a
# body, a procedure's, a string to eval), so the most substitutions of any
# text seen so far (Seen(SLAVE,refs)) times the largest value or word seen
# so far (Seen(SLAVE,largest)) bounds what one substitution can make: the
# reading stops before that bound passes the join limit (64 MiB: a data
# file never joins more, and a join of hundreds of MB takes seconds to
# allocate on a busy host).
proc ::ips2::dsl::Joined {slave} {
    variable Limits
    variable Seen
    set r $Seen($slave,refs)
    set v $Seen($slave,largest)
    set most [dict get $Limits join_bytes]
    if {$r * $v > $most} {
        fail $slave "expected values of at most [Bytes [expr {$most / max(1, $r)}]] where a text\
            has $r substitutions (values of $v characters could make more than [Bytes $most])"
    }
}

# Builds HEAD COMMAND: at most how many characters COMMAND would build, if
# it is one of Tcl's commands that build more than they are given (HEAD:
# its first characters); 0 for the others, whose values are their words'.
proc ::ips2::dsl::Builds {head command} {
    if {![regexp {^(?:::)?(string\s+(?:repeat|map)|lrepeat|format|binary\s+format|join|regsub)\s} \
              $head -> name] || ![string is list $command]} {
        return 0
    }
    set words [lrange $command 1 end]
    # words a builder would refuse itself are left to it
    if {[catch {BuildsWords $name $words $command} n]} { return 0 }
    return $n
}

proc ::ips2::dsl::BuildsWords {name words command} {
    switch -glob -- $name {
        {string*repeat} {
            lassign [lrange $words 1 2] value count
            if {![string is wide -strict $count]} { return 0 }
            return [expr {$count * max(1, [string length $value])}]
        }
        lrepeat {
            set count [lindex $words 0]
            if {![string is wide -strict $count]} { return 0 }
            return [expr {$count * max(1, [string length [lrange $words 1 end]])}]
        }
        format - binary* {
            # widths, precisions and counts: every number of the format,
            # and the arguments when "*" takes one from them
            set spec [lindex $words [expr {$name eq "format" ? 0 : 1}]]
            set n 0
            foreach number [regexp -all -inline {[0-9]+} $spec] {
                set number [string trimleft $number 0]
                if {[string length $number] > 15} { return 1000000000000000000 }
                if {$number ne ""} { set n [expr {max($n, $number)}] }
            }
            if {[string first * $spec] >= 0} {
                foreach word $words {
                    if {[string is wide -strict $word]} { set n [expr {max($n, abs($word))}] }
                }
            }
            return [expr {$n + [string length $command]}]
        }
        {string*map} {
            # each character of the text may become the longest value
            set words [lrange $words 1 end]
            if {[lindex $words 0] eq "-nocase"} { set words [lrange $words 1 end] }
            lassign $words map text
            set longest 1
            foreach {key value} $map { set longest [expr {max($longest, [string length $value])}] }
            return [expr {[string length $text] * $longest}]
        }
        join {
            lassign $words list separator
            return [expr {[string length $list] + [llength $list] * [string length $separator]}]
        }
        regsub {
            # each match (empty ones too) may become the substitution, whose
            # & and \N are a match each
            while {[string match -* [lindex $words 0]]} {
                set option [lindex $words 0]
                set words [lrange $words [expr {$option eq "-start" ? 2 : 1}] end]
                if {$option eq "--"} break
            }
            lassign $words - text substitution
            set n [string length $text]
            set matches [regexp -all {&|\\[0-9]} $substitution]
            return [expr {$n + ($n + 1) * ([string length $substitution] + $matches * $n)}]
        }
    }
    return 0
}

# Refuse SLAVE NAME ARGS: a command data files may not run.
proc ::ips2::dsl::Refuse {slave name args} {
    switch -- $name {
        after - vwait - update {
            fail $slave "expected no \"$name\": a data file is read, no event loop is served"
        }
        default { fail $slave "expected no \"$name\": not available in a data file" }
    }
}

proc ::ips2::dsl::Bytes {n} {
    if {$n >= (1 << 20) && $n % (1 << 20) == 0} { return "[expr {$n >> 20}] MiB" }
    if {$n >= 1024 && $n % 1024 == 0} { return "[expr {$n >> 10}] KiB" }
    return "$n bytes"
}

proc ::ips2::dsl::Quote {text} {
    regsub -all {[][\\.*+?(){}^$|]} $text {\\&}
}

# ErrorLine INFO ANCHOR: the line named in an error trace.  ANCHOR is a
# regexp whose group is a line number (the outermost match counts): the
# file's "(file PATH line N)", or a block body's "("uplevel" body line N)".
# The loop bodies inside it add their lines (their scripts are taken to
# start on their command's line, as braced bodies do).
proc ::ips2::dsl::ErrorLine {info anchor} {
    set lines [split $info \n]
    set line ?
    for {set at [llength $lines]} {[incr at -1] >= 0} {} {
        if {[regexp $anchor [lindex $lines $at] -> line]} break
    }
    if {$line eq "?"} { return ? }
    for {set i [expr {$at - 1}]} {$i >= 0} {incr i -1} {
        set text [lindex $lines $i]
        if {[regexp {^\s*\("(?:foreach|for|while|lmap|catch|try|eval|dict for)" (?:body )?line (\d+)\)$} \
                 $text -> n]} {
            incr line [expr {$n - 1}]
        } elseif {[regexp {^\s*\(} $text]} {
            break
        }
    }
    return $line
}

# Shown VALUE: VALUE for a message, at most 80 characters of it.
proc ::ips2::dsl::Shown {value} {
    if {[string length $value] <= 80} { return $value }
    return "[string range $value 0 59]... ([string length $value] characters)"
}

# checkName SLAVE WHAT VALUE: a name that may become a file name (a
# machine's reductions, traces and log; an application's outputs).
proc ::ips2::dsl::checkName {slave what value} {
    variable NameRE
    variable NameMax
    if {![regexp $NameRE $value]} {
        fail $slave "expected $what (letters, digits, \"_\", \".\" and \"-\"), got \"[Shown $value]\""
    }
    if {[string length $value] > $NameMax} {
        fail $slave "expected $what of at most $NameMax characters, got [string length $value]"
    }
    return $value
}

# checkHost SLAVE WHAT VALUE: a host name (or address) PVM is given.
proc ::ips2::dsl::checkHost {slave what value} {
    variable HostRE
    variable HostMax
    if {![regexp $HostRE $value] || [string length $value] > $HostMax} {
        fail $slave "expected $what, got \"[Shown $value]\""
    }
    return $value
}

# Explain MESSAGE ?ERRORCODE?: Tcl's parse errors and the reading's
# limits, said as what was expected.
proc ::ips2::dsl::Explain {message {errorcode ""}} {
    variable Limits
    switch -- [lrange $errorcode 0 2] {
        {TCL LIMIT TIME} {
            return "expected the file to be read within its time limit (a loop that does not end?)"
        }
        {TCL LIMIT COMMANDS} {
            return "expected the file to be read in at most [dict get $Limits commands] commands\
                (a loop that does not end?)"
        }
    }
    switch -- $message {
        "missing close-brace" { return "expected a close brace \"\}\" for the command starting here" }
        "missing close-bracket" { return "expected a close bracket \"\]\" for the command starting here" }
        "missing \"" { return "expected a closing quote for the command starting here" }
        "extra characters after close-brace" { return "expected a space after a close brace" }
        "extra characters after close-quote" { return "expected a space after a closing quote" }
    }
    return $message
}

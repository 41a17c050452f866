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
#
# Located errors have the error code {IPS2 DSL FILE LINE}.

package require Tcl 8.6
package provide ips2::dsl 1.0

namespace eval ::ips2::dsl {
    namespace export create command block source sourceEach line fail failat destroy
    # State(SLAVE): dict with file (as messages name it), path (normalized),
    # names (the reader's commands), bases (a stack: first file line of each
    # block body being run) and at (sourceEach: the first line of the
    # command being run, else "").
    variable State
    array set State {}
}

proc ::ips2::dsl::create {file {name ""}} {
    variable State
    set slave [interp create -safe]
    if {$name eq ""} { set name $file }
    set State($slave) [dict create file $name path [file normalize $file] names {} bases {} at ""]
    # The file's own typing errors: an unknown command is located like the
    # reader's commands are.
    interp alias $slave unknown {} ::ips2::dsl::Unknown $slave
    return $slave
}

proc ::ips2::dsl::destroy {slave} {
    variable State
    unset -nocomplain State($slave)
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
    if {[lrange $code 0 1] eq {IPS2 DSL}} {
        return -code error -errorcode $code $message
    }
    set bases [dict get $State($slave) bases]
    set line ?
    if {[llength $bases] && [lindex $bases end] ne "?"} {
        set rel [ErrorLine [dict get $options -errorinfo] {^\s*\("uplevel" body line (\d+)\)$}]
        if {$rel ne "?"} { set line [expr {[lindex $bases end] + $rel - 1}] }
    }
    failat [dict get $State($slave) file] $line [Explain $message]
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
    return -code error -level 1 -errorcode [list IPS2 DSL $file $line] "$file:$line: $message"
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
    set code [catch {interp invokehidden $slave source $path} result options]
    if {$code != 1} return
    set errorcode [dict get $options -errorcode]
    if {[lrange $errorcode 0 1] eq {IPS2 DSL}} {
        return -code error -errorcode $errorcode $result
    }
    set anchor [string map [list @P [Quote $path]] {^\s*\(file "@P" line (\d+)\)$}]
    failat $file [ErrorLine [dict get $options -errorinfo] $anchor] [Explain $result]
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
            if {[catch {interp eval $slave $command} result options]} {
                {*}$onproblem [Problem $slave $result $options]
            }
            set command ""
        }
        if {[string trim $command] ne ""} {
            dict set State($slave) at $start
            catch {interp eval $slave $command} result options
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
    if {[lrange [dict get $options -errorcode] 0 1] eq {IPS2 DSL}} { return $message }
    return "[dict get $State($slave) file]:[dict get $State($slave) at]: [Explain $message]"
}

# Readable FILE PATH: an error "FILE: cannot read: why" unless PATH is a
# readable file.
proc ::ips2::dsl::Readable {file path} {
    if {![file isfile $path] || ![file readable $path]} {
        set why [expr {[file exists $path] ? "not a readable file" : "no such file"}]
        return -code error -level 2 -errorcode [list IPS2 DSL $file 0] "$file: cannot read: $why"
    }
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

# Explain: Tcl's parse errors, said as what was expected.
proc ::ips2::dsl::Explain {message} {
    switch -- $message {
        "missing close-brace" { return "expected a close brace \"\}\" for the command starting here" }
        "missing close-bracket" { return "expected a close bracket \"\]\" for the command starting here" }
        "missing \"" { return "expected a closing quote for the command starting here" }
        "extra characters after close-brace" { return "expected a space after a close brace" }
        "extra characters after close-quote" { return "expected a space after a closing quote" }
    }
    return $message
}

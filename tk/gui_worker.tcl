# gui_worker.tcl - the query worker of the master analyst window: a tclsh
# that opens the window's session with the master package and answers its
# queries one at a time, so that a long one (a phase's re-reduction, a
# critical path, a trace browser's timeline) never stops the window's
# event loop.  Started and spoken to by gui_query.tcl:
#
#   env PVM_TMP=DIR tclsh gui_worker.tcl SESSION-DIR AUTO-PATH-LIST ?own-pvm-tmp?
#
# (the window gives each worker a PVM_TMP of its own, so that a private
# pvmd the worker starts and its slaves can be found and ended if the
# worker is killed: gui_query.tcl; with own-pvm-tmp the worker removes
# that directory when it ends.)
#
# Requests on stdin:  "ID LENGTH\n" then LENGTH characters: the words of a
#                     session subcommand (a Tcl list: metrics app:A -phase P).
# Answers on stdout:  "ID CODE LENGTH\n" then LENGTH characters: the result
#                     (CODE 0) or the error message (CODE 1).
# Both ways UTF-8, LENGTH in characters.  The worker ends at end of input,
# after closing its session (and a private pvmd it started).
#
# Test-only (tests/gui): when the environment has IPS2_GUI_WORKER_TEST=1,
# two more query words simulate what the tests cannot otherwise cause on
# demand: "test-exit CODE" exits at once without an answer (a query that
# crashes the worker) and "test-busy MS" answers "busy" after MS
# milliseconds during which the worker serves nothing (a long C call).
# Without that variable they are unknown words like any other.

namespace eval ::ips2::gui::worker {}

proc ::ips2::gui::worker::answer {id code text} {
    puts -nonewline stdout "$id $code [string length $text]\n$text"
    flush stdout
}

# TestHook ID WORDS: 1 if WORDS were a test-only query, answered (see above).
proc ::ips2::gui::worker::TestHook {id words} {
    if {![info exists ::env(IPS2_GUI_WORKER_TEST)] || $::env(IPS2_GUI_WORKER_TEST) ne "1"} {
        return 0
    }
    switch -- [lindex $words 0] {
        test-exit { exit [lindex $words 1] }
        test-busy {
            after [lindex $words 1]
            answer $id 0 busy
            return 1
        }
    }
    return 0
}

proc ::ips2::gui::worker::main {argv} {
    lassign $argv dir paths own
    foreach p $paths {
        if {$p ni $::auto_path} { lappend ::auto_path $p }
    }
    fconfigure stdin -encoding utf-8 -translation lf -blocking 1
    fconfigure stdout -encoding utf-8 -translation lf -buffering full
    set opened [expr {![catch {package require ips2} message] && ![catch {ips2::open $dir} message]}]
    set session [expr {$opened ? $message : ""}]
    while {[gets stdin header] >= 0} {
        if {![regexp {^([0-9]+) ([0-9]+)$} $header -> id length]} {
            answer 0 1 "query worker: a request header \"$header\" (expected ID LENGTH)"
            continue
        }
        set words [read stdin $length]
        if {[string length $words] != $length} {
            answer $id 1 "query worker: a request of $length characters ended after [string length $words]"
            break
        }
        if {!$opened} {
            answer $id 1 "$dir: $message"
            continue
        }
        if {[TestHook $id $words]} continue
        set code [catch {$session {*}$words} result]
        answer $id [expr {$code ? 1 : 0}] $result
    }
    if {$opened} { catch {$session close} }
    if {$own eq "own-pvm-tmp" && [info exists ::env(PVM_TMP)]} {
        catch {file delete -force $::env(PVM_TMP)}
    }
}

::ips2::gui::worker::main $argv

# gui_worker.tcl - the query worker of the master analyst window: a tclsh
# that opens the window's session with the master package and answers its
# queries one at a time, so that a long one (a phase's re-reduction, a
# critical path, a trace browser's timeline) never stops the window's
# event loop.  Started and spoken to by gui_query.tcl:
#
#   tclsh gui_worker.tcl SESSION-DIR AUTO-PATH-LIST
#
# Requests on stdin:  "ID LENGTH\n" then LENGTH characters: the words of a
#                     session subcommand (a Tcl list: metrics app:A -phase P).
# Answers on stdout:  "ID CODE LENGTH\n" then LENGTH characters: the result
#                     (CODE 0) or the error message (CODE 1).
# Both ways UTF-8, LENGTH in characters.  The worker ends at end of input.

namespace eval ::ips2::gui::worker {}

proc ::ips2::gui::worker::answer {id code text} {
    puts -nonewline stdout "$id $code [string length $text]\n$text"
    flush stdout
}

proc ::ips2::gui::worker::main {argv} {
    lassign $argv dir paths
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
        set code [catch {$session {*}$words} result]
        answer $id [expr {$code ? 1 : 0}] $result
    }
    if {$opened} { catch {$session close} }
}

::ips2::gui::worker::main $argv

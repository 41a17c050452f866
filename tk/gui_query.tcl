# gui_query.tcl - the master analyst window's queries, answered without
# stopping its event loop.  The master package's commands are synchronous
# C calls: a phase's re-reduction or a critical path of a session of
# millions of events takes seconds.  So the window's session is opened a
# second time in a worker process (gui_worker.tcl, a tclsh reading
# requests on a pipe) and every table query goes there; its answer comes
# back through a file event and calls the asker's callback.  Queries are
# answered in the order asked (phase definitions go the same way, so a
# query after a phase sees it).  Without a worker (it could not start, or
# it died twice) a query runs in the window's own session at idle time.
#
#   ips2::gui::query::start DIR          a worker on session DIR (stops the old one)
#   ips2::gui::query::stop               no worker; pending callbacks are dropped
#   ips2::gui::query::ask WORDS CALLBACK ?LABEL?
#       runs "$session {*}WORDS"; later calls {*}CALLBACK CODE RESULT MS
#       (CODE 0 or 1, MS the milliseconds from asking to answer); returns an id
#   ips2::gui::query::tell WORDS         the same for the worker's session only
#                                        (the window's has done it already)
#   ips2::gui::query::pending            the number of queries under way
#   ips2::gui::query::cancel             kill the worker, fail what is pending,
#                                        start a new one for what comes next
#   ips2::gui::query::wait ?SECONDS?     serve events until nothing is pending (tests)
#   ips2::gui::query::mode               worker | local | none

package require Tcl 8.6
package provide ips2::gui::query 1.0

namespace eval ::ips2::gui::query {
    # W: chan (the pipe or ""), pid, dir, buf (answers read, not yet
    # whole), serial, local (1: no worker, run here), deaths.
    variable W
    array set W {chan "" pid "" dir "" buf "" serial 0 local 0 deaths 0}
    # Pending(ID): {CALLBACK START-MS WORDS LABEL}
    variable Pending
    array set Pending {}
    variable Script [file join [file dirname [file normalize [info script]]] gui_worker.tcl]
    # The widgets told when the number of pending queries changes.
    variable Watchers {}
}

proc ::ips2::gui::query::mode {} {
    variable W
    if {$W(dir) eq ""} { return none }
    expr {$W(local) ? "local" : "worker"}
}

proc ::ips2::gui::query::Tclsh {} {
    set exe [info nameofexecutable]
    if {[string match tclsh* [file tail $exe]]} { return $exe }
    foreach name {tclsh8.6 tclsh} {
        set found [auto_execok $name]
        if {$found ne ""} { return [lindex $found 0] }
    }
    error "no tclsh to run the query worker"
}

proc ::ips2::gui::query::start {dir} {
    variable W
    stop
    set W(dir) $dir
    set W(local) 0
    set W(deaths) 0
    if {[catch Spawn message]} {
        set W(local) 1
        ::ips2::gui::status "queries run in the window (the query worker did not start: $message)" error
    }
}

proc ::ips2::gui::query::Spawn {} {
    variable W
    variable Script
    set chan [open |[list [Tclsh] $Script $W(dir) $::auto_path 2>@stderr] r+]
    fconfigure $chan -blocking 0 -buffering full -encoding utf-8 -translation lf
    fileevent $chan readable [list ::ips2::gui::query::Readable $chan]
    set W(chan) $chan
    set W(pid) [pid $chan]
    set W(buf) ""
    # A new worker learns the phases the window's session has.
    foreach p [::ips2::gui::phases] {
        tell [list phase {*}[lrange $p 0 2]]
    }
}

proc ::ips2::gui::query::stop {} {
    variable W
    variable Pending
    Close
    array unset Pending
    set W(dir) ""
    Changed
}

# Close ?KILL?: the worker goes: its input ends, so it closes its session
# (and a private pvmd it started for critical paths) and exits; it is
# killed if it has not within 5 s, or at once with KILL (Cancel: it is
# busy with a query).
proc ::ips2::gui::query::Close {{kill 0}} {
    variable W
    if {$W(chan) eq ""} return
    set chan $W(chan)
    set pids $W(pid)
    set W(chan) ""
    set W(pid) ""
    set W(buf) ""
    catch {fileevent $chan readable {}}
    if {$kill} {
        Kill $chan $pids
        return
    }
    if {[catch {chan close $chan write}]} {
        Kill $chan $pids
        return
    }
    set timer [after 5000 [list ::ips2::gui::query::Kill $chan $pids]]
    fileevent $chan readable [list ::ips2::gui::query::Drain $chan $timer]
}

proc ::ips2::gui::query::Drain {chan timer} {
    if {[catch {read $chan}] || [eof $chan]} {
        after cancel $timer
        catch {close $chan}
    }
}

proc ::ips2::gui::query::Kill {chan pids} {
    foreach pid $pids { catch {exec kill -TERM $pid} }
    catch {fconfigure $chan -blocking 0}
    catch {close $chan}
}

proc ::ips2::gui::query::ask {words callback {label ""}} {
    variable W
    variable Pending
    set id [incr W(serial)]
    set Pending($id) [list $callback [clock milliseconds] $words $label]
    Changed
    if {$W(chan) eq "" && $W(dir) ne "" && !$W(local)} {
        if {[catch Spawn message]} { set W(local) 1 }
    }
    if {$W(chan) ne "" && ![catch {
        puts -nonewline $W(chan) "$id [string length $words]\n$words"
        flush $W(chan)
    }]} {
        return $id
    }
    after idle [list ::ips2::gui::query::Local $id]
    return $id
}

proc ::ips2::gui::query::tell {words} {
    variable W
    if {$W(chan) eq "" && ($W(local) || $W(dir) eq "")} return
    ask $words {apply {{code result ms} {
        if {$code} { ::ips2::gui::status $result error }
    }}}
}

# Local ID: a query run in the window's own session.
proc ::ips2::gui::query::Local {id} {
    variable Pending
    if {![info exists Pending($id)]} return
    set session [::ips2::gui::session]
    if {$session eq ""} {
        Deliver $id 1 "no session open"
        return
    }
    set words [lindex $Pending($id) 2]
    set code [catch {$session {*}$words} result]
    Deliver $id [expr {$code ? 1 : 0}] $result
}

proc ::ips2::gui::query::Readable {chan} {
    variable W
    if {$chan ne $W(chan)} return
    if {[catch {read $chan} data]} { set data "" }
    append W(buf) $data
    while {[regexp {^([0-9]+) ([01]) ([0-9]+)\n} $W(buf) header id code length]} {
        set start [string length $header]
        if {[string length $W(buf)] < $start + $length} break
        set result [string range $W(buf) $start [expr {$start + $length - 1}]]
        set W(buf) [string range $W(buf) [expr {$start + $length}] end]
        Deliver $id $code $result
        if {$chan ne $W(chan)} return
    }
    # What is left must be the start of an answer: anything else (a library
    # writing on the worker's stdout) makes the worker useless.
    set nl [string first \n $W(buf)]
    set head [expr {$nl < 0 ? $W(buf) : [string range $W(buf) 0 [expr {$nl - 1}]]}]
    if {($nl >= 0 && ![regexp {^[0-9]+ [01] [0-9]+$} $head])
            || ($nl < 0 && ![regexp {^[0-9]*( [01]?( [0-9]*)?)?$} $head])} {
        ::ips2::gui::status "query worker: its output does not read as an answer (expected \"ID CODE LENGTH\", got \"[string range $head 0 40]\"): queries run in the window from now on" error
        set W(local) 1
        Died
        return
    }
    if {[eof $chan]} { Died }
}

# Died: the worker ended by itself: what was pending runs again in a new
# worker (once), then here.
proc ::ips2::gui::query::Died {} {
    variable W
    variable Pending
    Close
    incr W(deaths)
    if {$W(deaths) > 1 && !$W(local)} {
        set W(local) 1
        ::ips2::gui::status "the query worker died twice: queries run in the window from now on" error
    }
    foreach id [lsort -integer [array names Pending]] {
        set p $Pending($id)
        unset Pending($id)
        ask [lindex $p 2] [lindex $p 0] [lindex $p 3]
    }
}

proc ::ips2::gui::query::Deliver {id code result} {
    variable Pending
    if {![info exists Pending($id)]} return
    lassign $Pending($id) callback start
    unset Pending($id)
    Changed
    set ms [expr {[clock milliseconds] - $start}]
    if {[catch {{*}$callback $code $result $ms} message]} {
        ::ips2::gui::status "showing an answer: $message" error
    }
}

proc ::ips2::gui::query::pending {} {
    variable Pending
    array size Pending
}

# cancel: what is under way is given up (the worker is killed; the next
# query starts a new one).
proc ::ips2::gui::query::cancel {} {
    variable W
    variable Pending
    if {![array size Pending]} return
    Close 1
    set ids [lsort -integer [array names Pending]]
    foreach id $ids { Deliver $id 1 "cancelled" }
    ::ips2::gui::status "[llength $ids] queries cancelled"
}

proc ::ips2::gui::query::wait {{seconds 300}} {
    variable Pending
    set limit [expr {[clock milliseconds] + 1000 * $seconds}]
    while {[array size Pending]} {
        if {[clock milliseconds] > $limit} { error "queries still under way after $seconds s" }
        after 20 [list set ::ips2::gui::query::Tick 1]
        vwait ::ips2::gui::query::Tick
    }
}

# watch CMD: CMD is called with the number of pending queries when it changes.
proc ::ips2::gui::query::watch {cmd} {
    variable Watchers
    lappend Watchers $cmd
}

proc ::ips2::gui::query::Changed {} {
    variable Watchers
    variable Pending
    foreach cmd $Watchers { catch {{*}$cmd [array size Pending]} }
}

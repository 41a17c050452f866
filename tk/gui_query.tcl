# gui_query.tcl - the master analyst window's queries, answered without
# stopping its event loop.  Every table query goes to the window's own
# session with "$session async WORDS CALLBACK" (master/tcl_async.c): the
# long ones (a critical path, a phase's re-reduction, a trace browser's
# timeline) run on the session's background thread, the others in their
# turn in the window, and the answers come back as events in the order
# asked (so a query after a phase sees it).  Critical paths on PVM slaves
# (Analyze menu) are the exception: libpvm is not thread-safe, so they run
# in the window when their turn comes, as the synchronous commands do.
# Cancel drops the answers still to come (a query under way finishes on
# the session's thread; what it computed stays for the next one).
#
#   ips2::gui::query::start DIR          queries go to the window's session on DIR
#   ips2::gui::query::stop               no session; pending callbacks are dropped
#   ips2::gui::query::ask WORDS CALLBACK ?LABEL?
#       runs "$session {*}WORDS"; later calls {*}CALLBACK CODE RESULT MS
#       (CODE 0 or 1, MS the milliseconds from asking to answer); returns an id
#   ips2::gui::query::pending            the number of queries under way
#   ips2::gui::query::cancel             fail what is pending ("cancelled")
#   ips2::gui::query::wait ?SECONDS?     serve events until nothing is pending (tests)
#   ips2::gui::query::mode               worker (the session's query thread) | none
#   ips2::gui::query::watch CMD          CMD is told the number pending when it changes

package require Tcl 8.6
package provide ips2::gui::query 1.0

namespace eval ::ips2::gui::query {
    # W: dir (the session's directory, "" when none), serial (the last id).
    variable W
    array set W {dir "" serial 0}
    # Pending(ID): {CALLBACK START-MS WORDS LABEL}.
    variable Pending
    array set Pending {}
    # The widgets told when the number of pending queries changes.
    variable Watchers {}
}

proc ::ips2::gui::query::mode {} {
    variable W
    expr {$W(dir) eq "" ? "none" : "worker"}
}

proc ::ips2::gui::query::start {dir} {
    variable W
    stop
    set W(dir) $dir
}

proc ::ips2::gui::query::stop {} {
    variable W
    variable Pending
    if {[array size Pending]} {
        catch {[::ips2::gui::session] cancel}
    }
    array unset Pending
    set W(dir) ""
    Changed
}

proc ::ips2::gui::query::ask {words callback {label ""}} {
    variable W
    variable Pending
    set id [incr W(serial)]
    set Pending($id) [list $callback [clock milliseconds] $words $label]
    Changed
    set session [::ips2::gui::session]
    if {$session eq "" || $W(dir) eq ""} {
        after idle [list ::ips2::gui::query::Deliver $id 1 "no session open"]
    } elseif {[catch {$session async $words [list ::ips2::gui::query::Deliver $id]} message]} {
        after idle [list ::ips2::gui::query::Deliver $id 1 $message]
    }
    return $id
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

# cancel: what is under way is given up: its answers are dropped.
proc ::ips2::gui::query::cancel {} {
    variable Pending
    if {![array size Pending]} return
    catch {[::ips2::gui::session] cancel}
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

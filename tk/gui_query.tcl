# gui_query.tcl - the master analyst window's queries, answered without
# stopping its event loop.  The master package's commands are synchronous
# C calls: a phase's re-reduction or a critical path of a session of
# millions of events takes seconds.  So the window's session is opened a
# second time in a worker process (gui_worker.tcl, a tclsh reading
# requests on a pipe) and every table query goes there; its answer comes
# back through a file event and calls the asker's callback.  Queries are
# answered in the order asked (phase definitions go the same way, so a
# query after a phase sees it).  Without a worker (it could not start, or
# its output was not an answer) a query runs in the window's own session
# at idle time.
#
# A worker that dies fails the query it was answering ("the query worker
# died answering it"): that query is never run again, neither in a new
# worker nor in the window (it may crash or freeze it); the queries after
# it go to a new worker.
#
# Each worker gets a PVM_TMP directory of its own (ips2gui.PID.N under
# TMPDIR or /tmp), so a private pvmd it starts for critical paths on PVM
# slaves (-pvm private), and the slaves of that pvmd, are known by it: a
# worker is ended by closing its input (it then closes its session, and
# with it the pvmd, and exits); if it has not within a grace period (5 s;
# 0.5 s on Cancel, when it is busy with a query) it is killed, then every
# process whose environment names its PVM_TMP (the pvmd, its slaves) is
# killed and the directory removed.  Linux: processes are found in /proc.
#
#   ips2::gui::query::start DIR          a worker on session DIR (stops the old one)
#   ips2::gui::query::stop               no worker; pending callbacks are dropped
#   ips2::gui::query::ask WORDS CALLBACK ?LABEL? ?TELL?
#       runs "$session {*}WORDS"; later calls {*}CALLBACK CODE RESULT MS
#       (CODE 0 or 1, MS the milliseconds from asking to answer); returns an id
#   ips2::gui::query::tell WORDS         the same for the worker's session only
#                                        (the window's has done it already)
#   ips2::gui::query::pending            the number of queries under way
#   ips2::gui::query::cancel             end the worker, fail what is pending,
#                                        start a new one for what comes next
#   ips2::gui::query::wait ?SECONDS?     serve events until nothing is pending (tests)
#   ips2::gui::query::ending             the number of workers being ended
#   ips2::gui::query::finish ?SECONDS?   serve events until no worker is being ended
#   ips2::gui::query::mode               worker | local | none
#   ips2::gui::query::vmdir              the current worker's PVM_TMP (or "")
#   ips2::gui::query::vmProcesses DIR    pids of the processes whose PVM_TMP is DIR
#
# Test-only: with IPS2_GUI_WORKER_TEST=1 in the environment, the worker
# also takes the query words "test-exit CODE" (it exits at once, as if the
# query had crashed it) and "test-busy MS" (it is busy MS milliseconds);
# see gui_worker.tcl.

package require Tcl 8.6
package provide ips2::gui::query 1.0

namespace eval ::ips2::gui::query {
    # W: chan (the pipe or ""), pid, vmdir (its PVM_TMP), gen (the worker's
    # number), dir (the session), buf (answers read, not yet whole),
    # serial, local (1: no worker, run here), deaths (workers that died in
    # a row, without an answer in between).
    variable W
    array set W {chan "" pid "" vmdir "" gen 0 dir "" buf "" serial 0 local 0 deaths 0}
    # Pending(ID): {CALLBACK START-MS WORDS LABEL GEN TELL}, GEN the worker
    # it was sent to (0: run here), TELL 1 for tell's.
    variable Pending
    array set Pending {}
    # Ending(KEY): {CHAN PIDS VMDIR TIMER} of a worker being ended (CHAN ""
    # once it is gone and its VMDIR is being cleared).
    variable Ending
    array set Ending {}
    # Milliseconds a worker is given to end by itself once its input is
    # closed: when idle (close) and when busy with a query (cancel).
    variable Grace
    array set Grace {close 5000 cancel 500}
    variable Script [file join [file dirname [file normalize [info script]]] gui_worker.tcl]
    # The widgets told when the number of pending queries changes.
    variable Watchers {}
}

proc ::ips2::gui::query::mode {} {
    variable W
    if {$W(dir) eq ""} { return none }
    expr {$W(local) ? "local" : "worker"}
}

proc ::ips2::gui::query::vmdir {} {
    variable W
    return $W(vmdir)
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

# NewVmDir: a new, empty directory for a worker's PVM_TMP (short: the
# pvmd's Unix socket path lives in it).
proc ::ips2::gui::query::NewVmDir {} {
    variable W
    set base [expr {[info exists ::env(TMPDIR)] && [file isdirectory $::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}]
    for {set i 0} {$i < 100} {incr i} {
        set dir [file join $base ips2gui.[pid].[incr W(gen)]]
        if {[file exists $dir]} continue
        file mkdir $dir
        file attributes $dir -permissions 0700
        return $dir
    }
    error "no new directory for the query worker's PVM_TMP in $base"
}

proc ::ips2::gui::query::Spawn {} {
    variable W
    variable Script
    set vmdir [NewVmDir]
    if {[catch {
        open |[list env PVM_TMP=$vmdir [Tclsh] $Script $W(dir) $::auto_path own-pvm-tmp 2>@stderr] r+
    } chan options]} {
        catch {file delete -force $vmdir}
        return -options $options $chan
    }
    fconfigure $chan -blocking 0 -buffering full -encoding utf-8 -translation lf
    fileevent $chan readable [list ::ips2::gui::query::Readable $chan]
    set W(chan) $chan
    set W(pid) [pid $chan]
    set W(vmdir) $vmdir
    set W(buf) ""
    # A new worker learns the phases the window's session has.
    foreach p [::ips2::gui::phases] {
        tell [list phase {*}[lrange $p 0 2]]
    }
}

proc ::ips2::gui::query::stop {} {
    variable W
    variable Pending
    # A worker busy with a query it is no longer asked would answer it
    # first: it is given the short grace.
    Close [expr {[array size Pending] > 0}]
    array unset Pending
    set W(dir) ""
    Changed
}

# Close ?BUSY?: the worker goes: its input ends, so it closes its session
# (and a private pvmd it started for critical paths) and exits; if it has
# not within the grace period (the short one when BUSY), it is killed and
# its PVM_TMP cleared (End).
proc ::ips2::gui::query::Close {{busy 0}} {
    variable W
    variable Ending
    variable Grace
    if {$W(chan) eq ""} return
    set chan $W(chan)
    set key w$W(gen)
    set Ending($key) [list $chan $W(pid) $W(vmdir) ""]
    set W(chan) ""
    set W(pid) ""
    set W(vmdir) ""
    set W(buf) ""
    catch {fileevent $chan readable {}}
    if {[catch {chan close $chan write}]} {
        End $key 1
        return
    }
    set ms [expr {$busy ? $Grace(cancel) : $Grace(close)}]
    lset Ending($key) 3 [after $ms [list ::ips2::gui::query::End $key 1]]
    fileevent $chan readable [list ::ips2::gui::query::Drain $key]
}

proc ::ips2::gui::query::Drain {key} {
    variable Ending
    if {![info exists Ending($key)]} return
    set chan [lindex $Ending($key) 0]
    if {$chan eq ""} return
    if {[catch {read $chan}] || [eof $chan]} { End $key 0 }
}

# End KEY KILL: a worker being ended is gone (KILL: it is killed now);
# then what is left of its PVM virtual machine goes (Clear).
proc ::ips2::gui::query::End {key kill} {
    variable Ending
    if {![info exists Ending($key)]} return
    lassign $Ending($key) chan pids vmdir timer
    if {$chan eq ""} return
    after cancel $timer
    catch {fileevent $chan readable {}}
    if {$kill} {
        foreach pid $pids { catch {exec kill -KILL $pid} }
    }
    # The worker has ended or been killed: closing waits for it (reaps it).
    catch {fconfigure $chan -blocking 1}
    catch {close $chan}
    set Ending($key) [list "" $pids $vmdir ""]
    Clear $key $vmdir 0
}

# Clear KEY DIR ROUND: kills every process whose PVM_TMP is DIR (a pvmd the
# worker left, the slaves it spawned; one started while the last round
# killed is found by the next) until a round finds none, then removes DIR.
proc ::ips2::gui::query::Clear {key dir round} {
    variable Ending
    set pids [expr {$dir eq "" ? {} : [vmProcesses $dir]}]
    if {[llength $pids] && $round < 100} {
        foreach pid $pids { catch {exec kill -KILL $pid} }
        after 10 [list ::ips2::gui::query::Clear $key $dir [expr {$round + 1}]]
        return
    }
    if {[llength $pids]} {
        ::ips2::gui::status "query worker: processes [join $pids {, }] of its PVM (PVM_TMP $dir) do not end" error
    }
    if {$dir ne ""} { catch {file delete -force $dir} }
    unset -nocomplain Ending($key)
}

# vmProcesses DIR: the pids of the processes (other than this one) whose
# environment has PVM_TMP=DIR (a process without /proc/PID/environ, or
# whose environment cannot be read, is not counted).
proc ::ips2::gui::query::vmProcesses {dir} {
    set want PVM_TMP=$dir
    set found {}
    foreach p [glob -nocomplain -directory /proc -tails {[0-9]*}] {
        if {![string is digit -strict $p] || $p == [pid]} continue
        if {[catch {open /proc/$p/environ rb} f]} continue
        set ok [catch {read $f} env]
        catch {close $f}
        if {$ok == 0 && $want in [split $env \0]} { lappend found $p }
    }
    return $found
}

proc ::ips2::gui::query::ending {} {
    variable Ending
    array size Ending
}

# finish ?SECONDS?: serves events until no worker is being ended (the
# window's last act: its workers and their pvmds are gone when it exits).
proc ::ips2::gui::query::finish {{seconds 10}} {
    variable Ending
    set limit [expr {[clock milliseconds] + 1000 * $seconds}]
    while {[array size Ending] && [clock milliseconds] < $limit} {
        after 20 [list set ::ips2::gui::query::Tick 1]
        vwait ::ips2::gui::query::Tick
    }
    array size Ending
}

proc ::ips2::gui::query::ask {words callback {label ""} {tell 0}} {
    variable W
    variable Pending
    set id [incr W(serial)]
    set Pending($id) [list $callback [clock milliseconds] $words $label 0 $tell]
    Changed
    if {$W(chan) eq "" && $W(dir) ne "" && !$W(local)} {
        if {[catch Spawn message]} {
            set W(local) 1
            ::ips2::gui::status "queries run in the window (the query worker did not start: $message)" error
        }
    }
    if {$W(chan) ne "" && ![catch {
        puts -nonewline $W(chan) "$id [string length $words]\n$words"
        flush $W(chan)
    }]} {
        lset Pending($id) 4 $W(gen)
        return $id
    }
    if {$W(chan) ne ""} {
        # The worker's input is broken: it died; its end is read (Readable)
        # and this query goes to the next worker with the rest.
        lset Pending($id) 4 -1
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
    }}} "" 1
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
    variable Pending
    if {$chan ne $W(chan)} return
    if {[catch {read $chan} data]} { set data "" }
    append W(buf) $data
    while {[regexp {^([0-9]+) ([01]) ([0-9]+)\n} $W(buf) header id code length]} {
        set start [string length $header]
        if {[string length $W(buf)] < $start + $length} break
        set result [string range $W(buf) $start [expr {$start + $length - 1}]]
        set W(buf) [string range $W(buf) [expr {$start + $length}] end]
        # An answer to a query (not a tell) ends a run of deaths.
        if {[info exists Pending($id)] && ![lindex $Pending($id) 5]} { set W(deaths) 0 }
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
        Gone 0
        return
    }
    if {[eof $chan]} { Gone 1 }
}

# Gone DIED: the worker is no longer of use.  DIED: it ended by itself,
# while answering the first query sent to it that is still pending: that
# query fails, it is not asked again (it may have crashed the worker); the
# others are asked again (a new worker).  Else (its output was not an
# answer) all of them are asked again (here).
proc ::ips2::gui::query::Gone {died} {
    variable W
    variable Pending
    set gen $W(gen)
    Close
    set culprit ""
    if {$died} {
        incr W(deaths)
        foreach id [lsort -integer [array names Pending]] {
            if {[lindex $Pending($id) 4] == $gen} {
                set culprit $id
                break
            }
        }
    }
    foreach id [lsort -integer [array names Pending]] {
        if {![info exists Pending($id)]} continue
        lassign $Pending($id) callback start words label sent tell
        if {$id eq $culprit} {
            set what [expr {$label ne "" ? $label : $words}]
            set times [expr {$W(deaths) > 1 ? " ($W(deaths) workers in a row died)" : ""}]
            ::ips2::gui::status "the query worker died answering \"[string range $what 0 80]\": it failed; the queries after it go to a new worker$times" error
            Deliver $id 1 "the query worker died answering it (\"[string range $words 0 80]\"): not run again"
        } elseif {$sent == $gen || $sent == -1} {
            unset Pending($id)
            ask $words $callback $label $tell
        }
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

# cancel: what is under way is given up (the worker is ended, killed after
# the short grace; the next query starts a new one).
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

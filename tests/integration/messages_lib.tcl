# messages_lib.tcl - helpers of messages.test, files.test and preload.test:
# a session's events with their process, and the checks that both ends of
# every message pair by the keys of traces/FORMAT.md section 9.2.
#
# Sourced after lib.tcl; everything lives in ::msgtest.
#
#   session_events session    every event of the session's thread streams, in
#                             stream order, each dict with pid and stream added
#   select events kind ?pid?  the events of a kind (of one process)
#   x event i                 extra word i of an event
#   ok event                  1 if the event's call succeeded (errno word 0)
#   stream_check events       pairing of byte streams: a dict (see below)
#   dgram_check events        pairing of datagrams: a dict (see below)
#   event_string event skip   the string in the extra words after skip words

namespace eval ::msgtest {
    namespace import ::ips2test::*
    namespace export session_events select x ok stream_check dgram_check event_string \
        kinds_of pids_of
}

proc ::msgtest::session_events {session} {
    set all {}
    foreach f [streams $session] {
        set tail [file tail $f]
        set pid [lindex [split $tail .] 0]
        foreach e [events $f] {
            dict set e pid $pid
            dict set e stream $tail
            lappend all $e
        }
    }
    return $all
}

proc ::msgtest::select {events kind {pid ""}} {
    lmap e $events {
        if {[dict get $e kind] ne $kind} continue
        if {$pid ne "" && [dict get $e pid] ne $pid} continue
        set e
    }
}

proc ::msgtest::x {e i} {
    lindex [dict get $e extra] $i
}

# The errno word of the message and file kinds.
proc ::msgtest::ok {e} {
    set at [dict get {send 3 recv 3 dgram-send 3 dgram-recv 3 connect 1 accept 1 io-wait 1
        open 0 close 0 file-read 2 file-write 2 file-seek 3 file-sync 1} [dict get $e kind]]
    expr {[x $e $at] == 0}
}

# The processes (pids) whose streams hold events of kind.
proc ::msgtest::pids_of {events kind} {
    lsort -unique [lmap e [select $events $kind] { dict get $e pid }]
}

# The kinds present among events, sorted.
proc ::msgtest::kinds_of {events} {
    lsort -unique [lmap e $events { dict get $e kind }]
}

# Checks one side (sends or receives) of a byte stream: its ranges must
# tile [0, total).  Returns {total problems}.
proc ::msgtest::Tile {ranges what key} {
    set expect 0
    set problems {}
    foreach r [lsort -integer -index 0 $ranges] {
        lassign $r off n
        if {$off != $expect} {
            lappend problems "$what of $key: range at $off, expected $expect"
        }
        set expect [expr {$off + $n}]
    }
    list $expect $problems
}

# stream_check events: pairs the send and recv events of byte streams by
# key.  Counted: successful calls that moved bytes and did not peek.
# Returns a dict:
#   keys      key -> {sent S received R sends NS recvs NR}
#   problems  every gap or overlap on either side, every key whose totals
#             differ, and every send range not covered by recvs
proc ::msgtest::stream_check {events} {
    array set sends {}
    array set recvs {}
    foreach e $events {
        set kind [dict get $e kind]
        if {$kind ni {send recv} || ![ok $e] || [x $e 2] == 0 || ([x $e 5] & 0x100)} continue
        lappend ${kind}s([x $e 0]) [list [x $e 1] [x $e 2]]
    }
    set keys {}
    set problems {}
    foreach key [lsort -unique [concat [array names sends] [array names recvs]]] {
        set s [expr {[info exists sends($key)] ? $sends($key) : {}}]
        set r [expr {[info exists recvs($key)] ? $recvs($key) : {}}]
        lassign [Tile $s sends $key] sent p1
        lassign [Tile $r recvs $key] received p2
        lappend problems {*}$p1 {*}$p2
        if {$sent != $received} {
            lappend problems "key $key: sent $sent bytes, received $received"
        }
        # every send range is covered by the recv ranges that overlap it
        foreach range $s {
            lassign $range off n
            set covered 0
            foreach rr $r {
                lassign $rr roff rn
                set lo [expr {max($off, $roff)}]
                set hi [expr {min($off + $n, $roff + $rn)}]
                if {$hi > $lo} { incr covered [expr {$hi - $lo}] }
            }
            if {$covered != $n} {
                lappend problems "key $key: send \[$off, +$n) covered by $covered received bytes"
            }
        }
        dict set keys $key [dict create sent $sent received $received \
                                sends [llength $s] recvs [llength $r]]
    }
    dict create keys $keys problems $problems
}

# dgram_check events: pairs dgram-send and dgram-recv by (key, sequence).
# Counted: successful calls that did not peek.  Returns a dict:
#   pairs     number of datagrams whose two ends were found
#   keys      key -> datagrams paired under it
#   problems  every datagram with no other end, or with two, or whose sizes
#             differ, and every key 0
proc ::msgtest::dgram_check {events} {
    set problems {}
    array set dgram-send {}
    array set dgram-recv {}
    foreach e $events {
        set kind [dict get $e kind]
        if {$kind ni {dgram-send dgram-recv} || ![ok $e] || ([x $e 5] & 0x100)} continue
        set id [list [x $e 0] [x $e 1]]
        if {[x $e 0] == 0} { lappend problems "$kind with key 0 in [dict get $e stream]" }
        if {[info exists ${kind}($id)]} { lappend problems "two ${kind}s $id" }
        set ${kind}($id) [x $e 2]
    }
    set pairs 0
    set keys {}
    foreach id [array names dgram-send] {
        if {![info exists dgram-recv($id)]} {
            lappend problems "dgram-send $id: not received"
            continue
        }
        if {[set dgram-send($id)] != [set dgram-recv($id)]} {
            lappend problems "datagram $id: sent [set dgram-send($id)] bytes,\
                received [set dgram-recv($id)]"
        }
        incr pairs
        dict incr keys [lindex $id 0]
    }
    foreach id [array names dgram-recv] {
        if {![info exists dgram-send($id)]} { lappend problems "dgram-recv $id: never sent" }
    }
    dict create pairs $pairs keys $keys problems [lsort $problems]
}

# The NUL-padded string in the extra words of e after the first skip.
proc ::msgtest::event_string {e skip} {
    set bytes ""
    foreach w [lrange [dict get $e extra] $skip end] {
        append bytes [binary format w $w]
    }
    set nul [string first \0 $bytes]
    if {$nul >= 0} { set bytes [string range $bytes 0 $nul-1] }
    return $bytes
}

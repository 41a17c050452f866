# stream.tcl - one trace stream read back whole: its header fields and its
# events, and the wall time of a raw timer value found in an event's extra
# words (the start of a wait, say).  Sourced after lib.tcl:
#
#   source [file join [file dirname [info script]] stream.tcl]
#   set s [::ips2stream::readstream FILE]
#   dict get $s pid ppid image tid tsc_hz timer events ...
#   ::ips2stream::timer_wall $s TIMER
#   ::ips2stream::select EVENTS KIND
#   ::ips2stream::extra_text WORDS         ;# a string packed in extra words
#
# Events are dicts as ::ips2test::events makes them (kind wall_ns cpu_ns
# cpu_exact payload name extra), except that payload is a decimal number.

namespace eval ::ips2stream {
    namespace export readstream timer_wall select extra_text
}

proc ::ips2stream::readstream {file} {
    set s [dict create]
    set events {}
    foreach line [split [::ips2test::dump --tsv $file] \n] {
        if {$line eq ""} continue
        if {[string index $line 0] eq "#"} {
            lassign [split $line \t] - key value
            switch -- $key {
                pid - ppid - tid - image - tsc_hz - timer - app - exe { dict set s $key $value }
                ref {
                    regexp {timer (\d+) mono_ns (\d+)} $value -> t m
                    dict set s ref_timer $t
                    dict set s ref_mono $m
                }
            }
            continue
        }
        set extra [lassign [split $line \t] kind wall cpu exact payload name]
        lappend events [dict create kind $kind wall_ns $wall cpu_ns $cpu cpu_exact $exact \
                            payload [expr {$payload}] name $name extra $extra]
    }
    dict set s events $events
    return $s
}

# The wall time (ns) of a raw timer value of stream s, from the header's
# calibration alone (the reader also corrects at every SYNC, which the TSV
# does not show): good to some microseconds over a short run.
proc ::ips2stream::timer_wall {s timer} {
    if {[dict get $s timer] ne "tsc"} { return $timer }
    set ticks [expr {$timer - [dict get $s ref_timer]}]
    expr {[dict get $s ref_mono] + $ticks * 1000000000 / [dict get $s tsc_hz]}
}

# The events of one kind, in order.
proc ::ips2stream::select {events kind} {
    lmap e $events { if {[dict get $e kind] ne $kind} continue; set e }
}

# The string packed little-endian, NUL-padded, in extra words (decimal).
proc ::ips2stream::extra_text {words} {
    set text ""
    foreach w $words {
        for {set i 0} {$i < 8} {incr i} {
            set c [expr {($w >> (8 * $i)) & 0xff}]
            if {$c == 0} { return $text }
            append text [format %c $c]
        }
    }
    return $text
}

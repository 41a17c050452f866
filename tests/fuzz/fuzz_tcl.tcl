# fuzz_tcl.tcl - a fuzz target for ips2's Tcl readers (master/dsl.tcl under
# its limits): workload files (ips2::workload::read) and manifests
# (ips2::manifest::read and ::load).  Seeds are valid files
# (tests/fuzz/corpus-tcl: NAME.workload.tcl, NAME.manifest.tcl); each run
# mutates one seed (characters, words, lines, and snippets an attacker would
# try: endless loops, the event loop, values that grow, paths for names,
# the reader's own commands) and reads the mutant.  The reader must give a
# result or one clean error: located ("FILE:LINE: ..." or "FILE: cannot
# read: ...", error code {IPS2 DSL ...}), within the reader's time limit
# plus a margin.  Anything else (another error, a slow read) is a finding:
# the input is kept in the artifacts folder.  A crash or a hang of tclsh
# ends this script, so the caller runs it under a time limit; the input
# being read is then WORK/input.tcl.
#
#   tclsh fuzz_tcl.tcl ?-lib DIR? ?-seconds S | -count N? ?-seed N?
#                      ?-work DIR? ?-artifacts DIR? ?-limit SECONDS? CORPUS
#
#   -count 0 reads each seed once, unmutated (the smoke run).
#
# Prints one line: "fuzz_tcl: N runs in S s (R/s), E errors, K results,
# F findings"; exits 1 if there were findings.

package require Tcl 8.6

namespace eval ::fuzz_tcl {
    variable Snippets {
        {while 1 {}}
        {after 100000000}
        {vwait forever}
        {update}
        {set s x; while 1 {append s $s}}
        {set s x; while 1 {set s $s$s}}
        {string repeat x 3000000000}
        {lrepeat 100000000 x}
        {proc f {} {f}; f}
        {interp create x}
        {trace add execution machine enter x}
        {proc ips2-step args {}}
        {rename machine {}}
        {rename info {}}
        {namespace delete ::}
        {coroutine c while 1 {yield}}
        {info frame 0}
        {source /etc/passwd}
        {open /etc/passwd}
        {exec /bin/true}
        {machine ../../esc-alpha}
        {machine ../../esc-alpha localhost 0}
        {application ../x active {}}
        {machine a {h dx=/tmp/x} 0}
        {machine a -host -oProxyCommand=x}
        {ips2::dsl::located x {}}
        {return -code error -errorcode {IPS2 DSL x 1} forged}
        {error "x" "" {TCL LIMIT TIME}}
        {set ::errorInfo x}
        "\{"
        "\["
        "\""
        "\\"
        "\u0000"
        "\u00e9\u4e2d"
    }
    # a word joining thousands of large values, built by Tcl's parser
    lappend Snippets "set s \[string repeat x 1000000\]; set t [string repeat {$s} 3000]" \
        "proc j {} {upvar #0 s s; set t [string repeat {$s} 3000]}; j" \
        {set s [string repeat x 400000]; append s $s; append s $s}
    variable Chars [split "{}\[\]\$\"\\;# \t\n-./0a" ""]
    variable Stats
    array set Stats {runs 0 errors 0 results 0 findings 0}
}

proc ::fuzz_tcl::rand {n} {
    expr {int(rand() * $n)}
}

proc ::fuzz_tcl::pick {list} {
    lindex $list [rand [llength $list]]
}

# mutate TEXT: one to four edits of TEXT.
proc ::fuzz_tcl::mutate {text} {
    variable Snippets
    variable Chars
    set edits [expr {1 + [rand 4]}]
    for {set e 0} {$e < $edits} {incr e} {
        set lines [split $text \n]
        set n [llength $lines]
        set at [rand [expr {max(1, [string length $text])}]]
        switch -- [rand 10] {
            0 { set text [string replace $text $at $at] }
            1 { set text [string replace $text $at $at "[pick $Chars][string index $text $at]"] }
            2 { set text [string range $text 0 $at] }
            3 {
                set i [rand $n]
                set text [join [linsert $lines $i [pick $Snippets]] \n]
            }
            4 {
                set i [rand $n]
                set text [join [linsert $lines $i [lindex $lines [rand $n]]] \n]
            }
            5 {
                set i [rand $n]
                set text [join [lreplace $lines $i $i] \n]
            }
            6 {
                # a word of a line replaced by a snippet, a long word or a path
                set i [rand $n]
                set words [regexp -all -inline {\S+} [lindex $lines $i]]
                if {[llength $words]} {
                    set w [rand [llength $words]]
                    set with [pick [list ../../esc [string repeat x 300] -x {} 0 -1 \
                                        99999999999999999999 1e308 [pick $Snippets]]]
                    lset words $w $with
                    lset lines $i [join $words " "]
                    set text [join $lines \n]
                }
            }
            7 {
                set text "[string range $text 0 $at-1]\[[pick $Snippets]\][string range $text $at end]"
            }
            8 {
                set i [rand $n]
                set text [join [linsert $lines $i "if 1 \{[pick $Snippets]\}"] \n]
            }
            9 { set text [string replace $text $at $at [format %c [rand 256]]] }
        }
    }
    return $text
}

# read KIND FILE: reads FILE as KIND (workload or manifest): ok RESULT,
# error MESSAGE, or finding WHY.
proc ::fuzz_tcl::read {kind file} {
    variable Limit
    set t0 [clock milliseconds]
    switch -- $kind {
        workload { set code [catch {ips2::workload::read $file} result options] }
        manifest {
            set code [catch {ips2::manifest::read $file} result options]
            # the tolerant reader, too: never an error for a readable file
            if {[catch {ips2::manifest::load $file manifest.tcl} loaded lopts]} {
                return [list finding "load failed: $loaded ([dict get $lopts -errorcode])"]
            }
            if {[llength $loaded] != 2} { return [list finding "load gave no {MANIFEST PROBLEMS}"] }
            foreach problem [lindex $loaded 1] {
                if {![regexp {^manifest\.tcl:(\d+|\?): } $problem]} {
                    return [list finding "load: a problem not located: $problem"]
                }
            }
        }
    }
    set ms [expr {[clock milliseconds] - $t0}]
    # the readers' budget (twice for a manifest, read then load), plus 2 s
    if {$ms > 2000 * $Limit + 2000} { return [list finding "slow: $ms ms"] }
    if {$code == 0} { return [list ok $result] }
    set ec [dict get $options -errorcode]
    if {[lrange $ec 0 1] ne {IPS2 DSL}} {
        return [list finding "not a reader's error ($ec): $result"]
    }
    set q [string map {\\ \\\\ . \\. ( \\( ) \\) [ \\[ ] \\] * \\* + \\+ ? \\? ^ \\^ $ \\$ \{ \\\{ \} \\\} | \\|} $file]
    if {![regexp "^$q:(\\d+|\\?): " $result] && ![regexp "^$q: cannot read: " $result]} {
        return [list finding "not located: $result"]
    }
    return [list error $result]
}

proc ::fuzz_tcl::main {argv} {
    variable Stats
    variable Limit
    set opts [dict create -lib "" -seconds 10 -count "" -seed [clock milliseconds] -work "" \
                  -artifacts "" -limit 0.1]
    while {[llength $argv] > 1} {
        set argv [lassign $argv opt value]
        if {![dict exists $opts $opt]} { error "fuzz_tcl: unknown option $opt" }
        dict set opts $opt $value
    }
    if {[llength $argv] != 1} {
        puts stderr "usage: tclsh fuzz_tcl.tcl ?-lib DIR? ?-seconds S | -count N? ?-seed N?\
            ?-work DIR? ?-artifacts DIR? ?-limit SECONDS? CORPUS"
        return 2
    }
    set corpus [lindex $argv 0]
    if {[dict get $opts -lib] ne ""} {
        set ::auto_path [linsert $::auto_path 0 [file normalize [dict get $opts -lib]]]
    }
    package require ips2::workload
    package require ips2::manifest
    # a short time limit, so that endless loops cost little
    set Limit [dict get $opts -limit]
    ips2::dsl::limits seconds $Limit seconds_per_100kb $Limit
    set work [dict get $opts -work]
    if {$work eq ""} { set work [file join [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}] ips2-fuzz-tcl.[pid]] }
    file mkdir $work
    set artifacts [dict get $opts -artifacts]
    if {$artifacts eq ""} { set artifacts [file join [file dirname [info script]] crashes] }
    set seeds {}
    foreach f [lsort [glob -nocomplain -directory $corpus *.tcl]] {
        set kind [lindex [split [file tail $f] .] end-1]
        if {$kind ni {workload manifest}} continue
        set fd [open $f rb]
        lappend seeds [list $kind [::read $fd]]
        close $fd
    }
    if {![llength $seeds]} { error "fuzz_tcl: no NAME.workload.tcl or NAME.manifest.tcl in $corpus" }
    expr {srand([dict get $opts -seed])}
    set input [file join $work input.tcl]
    set count [dict get $opts -count]
    set end [expr {[clock milliseconds] + 1000 * [dict get $opts -seconds]}]
    set t0 [clock milliseconds]
    set i 0
    while 1 {
        if {$count eq ""} {
            if {[clock milliseconds] >= $end} break
        } elseif {$count == 0} {
            if {$i >= [llength $seeds]} break
        } elseif {$i >= $count} break
        lassign [lindex $seeds [expr {$i % [llength $seeds]}]] kind text
        if {$count ne "0"} { set text [mutate $text] }
        incr i
        set fd [open $input wb]
        puts -nonewline $fd $text
        close $fd
        lassign [read $kind $input] outcome what
        incr Stats(runs)
        switch -- $outcome {
            ok { incr Stats(results) }
            error { incr Stats(errors) }
            finding {
                incr Stats(findings)
                file mkdir $artifacts
                set keep [file join $artifacts tcl-[format %08x [expr {[string length $text] * 31 + $i}]].$kind.tcl]
                file copy -force $input $keep
                puts stderr "fuzz_tcl: $kind: $what (kept as $keep)"
            }
        }
    }
    file delete -force $work
    set secs [expr {max(0.001, ([clock milliseconds] - $t0) / 1000.0)}]
    puts [format "fuzz_tcl: %d runs in %.1f s (%.0f/s), %d errors, %d results, %d findings" \
              $Stats(runs) $secs [expr {$Stats(runs) / $secs}] $Stats(errors) $Stats(results) \
              $Stats(findings)]
    expr {$Stats(findings) ? 1 : 0}
}

exit [::fuzz_tcl::main $argv]

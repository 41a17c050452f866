# latency.tcl - `ips2 report SESSION latency`: the latency distributions of
# procedures (the session command's `latency` subcommand, master/latency.h)
# as text, CSV or JSON.
#
#   ips2::latency::report SESSION NODE PHASEARGS OPTS FORMAT
#   ips2::latency::Micro TABLE      its ns columns in microseconds (the GUI's too)
#
# Without -procedure: one row per procedure under the node (count, mean,
# p50, p90, p99, max and total of the inclusive wall times of its
# outermost activations), sorted by -sort (default total).  With -procedure
# NAME: that procedure's summary and its histogram (eight log-scale
# buckets per power of two, a bar each).  Text shows times in
# microseconds with three decimals (latencies are short; the tables' ms
# would round them away); CSV and JSON keep ns, as every table does.
# Reductions older than version 6 recorded no latency: their cells are
# "n/a", and a note on stderr says why.

package require Tcl 8.6
package require ips2::format 1.0
package provide ips2::latency 1.0

namespace eval ::ips2::latency {}

# Micro TABLE: the table with its ns columns in microseconds (unit "us").
proc ::ips2::latency::Micro {t} {
    set columns [dict get $t columns]
    set ns [lmap c $columns { expr {[lindex $c 1] eq "ns"} }]
    set rows [lmap row [dict get $t rows] {
        lmap cell $row is $ns {
            expr {$is && [string is double -strict $cell] ? [format %.3f [expr {$cell / 1e3}]] : $cell}
        }
    }]
    set columns [lmap c $columns is $ns { expr {$is ? [list [lindex $c 0] us] : $c} }]
    dict create columns $columns rows $rows
}

proc ::ips2::latency::NotRecorded {} {
    puts stderr "ips2: latency not available (n/a): reductions older than version 6 recorded none"
}

proc ::ips2::latency::report {session node phase opts format} {
    set sort [expr {[dict exists $opts -sort] ? [list -sort [dict get $opts -sort]] : {}}]
    if {![dict exists $opts -procedure]} {
        set t [$session latency $node {*}$phase {*}$sort]
        if {[lsearch -exact [join [dict get $t rows]] n/a] >= 0} { NotRecorded }
        if {$format ne "text"} { return [ips2::format::table $t -format $format] }
        set title "latency of the procedures under $node: inclusive wall time of each outermost activation"
        return [ips2::format::table [Micro $t] -format text -title $title]
    }
    set name [dict get $opts -procedure]
    set h [$session latency $node {*}$phase -procedure $name]
    if {![dict get $h available]} { NotRecorded }
    set keys {procedure available count mean p50 p90 p99 max total}
    switch -- $format {
        csv { return [ips2::format::table $h -format csv] }
        json {
            set fields [lmap k $keys {
                set v [dict get $h $k]
                if {$k eq "procedure"} { set v [json::write string $v] }
                if {$k eq "available"} { set v [expr {$v ? "true" : "false"}] }
                format {"%s": %s} $k $v
            }]
            set hist [string trimright [ips2::format::table $h -format json]]
            return "\{[join $fields {, }],\n \"histogram\": $hist\}\n"
        }
    }
    if {![dict get $h available]} {
        return "latency of $name under $node: not available\n"
    }
    set us [lmap k {mean p50 p90 p99 max} { format %s=%.3f $k [expr {[dict get $h $k] / 1e3}] }]
    set title "latency of $name under $node: [dict get $h count] activations, [join $us {, }] us"
    set most 0
    foreach row [dict get $h rows] { set most [expr {max($most, [lindex $row 2])}] }
    set rows [lmap row [dict get $h rows] {
        lassign $row low high count percent
        list [format %.3f [expr {$low / 1e3}]] [format %.3f [expr {($high + 1) / 1e3}]] $count \
            $percent [string repeat # [expr {$most ? int(round(40.0 * $count / $most)) : 0}]]
    }]
    set t [dict create columns {{from us} {below us} {count ""} {percent %} {"" ""}} rows $rows]
    ips2::format::table $t -format text -title $title
}

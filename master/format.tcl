# format.tcl - the front end's output: tables, trees and histograms of the
# master package (docs/ANALYSTS.md §6) as aligned text, CSV or JSON.
#
#   ips2::format::table TABLE ?-format text|csv|json? ?-title TEXT? ?-raw?
#                             ?-header LINES?
#   ips2::format::clockLines CLOCK
#   ips2::format::tree NODE ?-format text|json?
#   ips2::format::histogram TABLE ?-format text|csv|json? ?-title TEXT? ?-width N?
#   ips2::format::commandLine WORDS   a command as a shell reads it back
#
# A TABLE is the dict {columns {{NAME UNIT} ...} rows {{CELL ...} ...}}.
# -header gives lines that say how the table was measured (clockLines):
# text shows them under the title, JSON as "header": [LINE, ...]; CSV
# stays rows only.
#
# Text is for people: a title line, a header ("NAME (UNIT)"), a rule, one
# line per row, columns two spaces apart, no trailing blanks.  A column whose
# cells are all numbers (or empty) is right-aligned, any other (and one of
# names, see Names) left-aligned.
# Times are shown in ms with three decimals (unit "ns" -> "ms"), percentages
# with one decimal, other fractions with three; -raw shows cells as they
# are.  CSV (tcllib csv) and JSON are for programs: cells as they are,
# the header "NAME (UNIT)" in CSV; in JSON numbers stay numbers:
#   {"title": T, "columns": [{"name": N, "unit": U}, ...], "rows": [[...], ...]}
#
# A tree NODE is a dict with at least name and kind, and children (a list
# of nodes), as the master's trees are; a machine's host, a process's
# command (its program without the folder) and status, and a label are
# shown when present.  Text shows the
# node shapes of IPS-2's trees (paper §3, Fig. 2-3) as marks before the
# names:
#   /\ program (kind app, or physical: the whole workload)   [] machine
#   () process   <> collector   ~ thread   - procedure
# A table with a column named "unit" (a metric table) gives each row's
# unit-less numbers that row's unit, and shows an empty value (a metric not
# measured there, e.g. by no collector) as n/a; CSV leaves it empty, JSON
# says null.
#
# A histogram TABLE has the columns start, end (ns) and one metric; text
# draws one bar per bucket, scaled to the largest, and a sparkline.

package require Tcl 8.6
package require csv
package require json::write
package provide ips2::format 1.0

namespace eval ::ips2::format {
    namespace export table tree histogram commandLine clockLines
    variable Shapes [dict create physical "/\\" root "/\\" app "/\\" application "/\\" \
                         program "/\\" machine {[]} process () collector <> thread ~ procedure -]
    variable Spark {▁ ▂ ▃ ▄ ▅ ▆ ▇ █}
    # Columns of names, left-aligned in text even when the names are
    # numbers (pids, tids).
    variable Names {name path application machine metric command process thread procedure}
}

# --- options ------------------------------------------------------------------

# Options COMMAND ARGS SPEC: SPEC is a dict -name -> default; a flag's
# default is the string "flag" (given: 1, else 0).  Returns the dict of values.
proc ::ips2::format::Options {command arglist spec} {
    set args $arglist
    set values {}
    dict for {name default} $spec {
        dict set values $name [expr {$default eq "flag" ? 0 : $default}]
    }
    while {[llength $args]} {
        set args [lassign $args name]
        if {![dict exists $spec $name]} {
            return -code error -level 2 \
                "$command: unknown option \"$name\": expected [join [dict keys $spec] {, }]"
        }
        if {[dict get $spec $name] eq "flag"} {
            dict set values $name 1
            continue
        }
        if {![llength $args]} { return -code error -level 2 "$command: $name needs a value" }
        set args [lassign $args value]
        dict set values $name $value
    }
    return $values
}

proc ::ips2::format::CheckFormat {command format allowed} {
    if {$format ni $allowed} {
        return -code error -level 2 \
            "$command: unknown format \"$format\": expected [join $allowed {, }]"
    }
}

# Check TABLE: the table's columns and rows, or an error naming what is
# wrong with it.
proc ::ips2::format::Check {command t} {
    if {[catch {dict get $t columns} columns] || [catch {dict get $t rows} rows]} {
        return -code error -level 2 "$command: expected a table {columns {...} rows {...}}"
    }
    set n [llength $columns]
    foreach c $columns {
        if {[llength $c] < 1 || [llength $c] > 2} {
            return -code error -level 2 "$command: expected a column {NAME UNIT}, got \"$c\""
        }
    }
    set i 0
    foreach row $rows {
        if {[llength $row] != $n} {
            return -code error -level 2 \
                "$command: expected $n cells in row $i, got [llength $row]"
        }
        incr i
    }
    list $columns $rows
}

# --- cells --------------------------------------------------------------------

# IsNumber: a decimal number (what a table's numeric column holds; "0x1f"
# or "Inf" are text).
proc ::ips2::format::IsNumber {value} {
    regexp {^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$} $value
}

# DisplayUnit UNIT RAW: the unit shown in the text header.
proc ::ips2::format::DisplayUnit {unit raw} {
    if {!$raw && $unit eq "ns"} { return ms }
    return $unit
}

# Cell VALUE UNIT RAW: a cell as text.
proc ::ips2::format::Cell {value unit raw} {
    if {$raw || ![IsNumber $value]} { return $value }
    switch -- $unit {
        ns        { return [::format %.3f [expr {$value / 1e6}]] }
        % - percent { return [::format %.1f $value] }
    }
    if {[string is entier -strict $value]} { return $value }
    if {$value == round($value) && abs($value) < 1e15} { return [::format %.0f $value] }
    return [::format %.3f $value]
}

# --- tables -------------------------------------------------------------------

proc ::ips2::format::table {t args} {
    set o [Options table $args {-format text -title "" -raw flag -header {}}]
    CheckFormat table [dict get $o -format] {text csv json}
    lassign [Check table $t] columns rows
    set header [dict get $o -header]
    switch -- [dict get $o -format] {
        text {
            set title [join [concat [list [dict get $o -title]] $header] \n]
            Text $columns $rows [string trimleft $title \n] [dict get $o -raw]
        }
        csv  { Csv $columns $rows }
        json {
            set json [Json $columns $rows [dict get $o -title]]
            if {![llength $header]} { return $json }
            set lines [lmap l $header { json::write string $l }]
            string cat "\{\"header\": \[[join $lines {, }]\],\n " [string range $json 1 end]
        }
    }
}

# clockLines CLOCK: the header lines of a table whose times were measured
# with the process-time clock CLOCK (what `$session clock NODE` gives):
# "clock: METHOD (resolution R)", and a warning naming how many procedures
# and which (the shortest eight, then how many more) have mean durations
# (CPU time a call) within ten times of their clock's resolution.
proc ::ips2::format::clockLines {clock} {
    set lines [list "clock: [dict get $clock text]"]
    set short [dict get $clock short]
    set n [llength $short]
    if {$n} {
        set names [lmap p [lrange $short 0 7] {
            set ns [dict get $p mean]
            set mean [expr {$ns >= 1000000 ? [::format "%.3f ms" [expr {$ns / 1e6}]]
                            : $ns >= 1000 ? [::format "%.3f us" [expr {$ns / 1e3}]] : "$ns ns"}]
            ::format "%s (%s)" [dict get $p name] $mean
        }]
        if {$n > 8} { lappend names "and [expr {$n - 8}] more" }
        lappend lines [::format "warning: %d procedure%s within 10x the clock's resolution: %s" \
                           $n [expr {$n == 1 ? "'s mean duration is" : "s' mean durations are"}] \
                           [join $names {, }]]
    }
    return $lines
}

proc ::ips2::format::Text {columns rows title raw} {
    variable Names
    set header {}
    set units {}
    foreach c $columns {
        lassign $c name unit
        set shown [DisplayUnit $unit $raw]
        lappend header [expr {$shown eq "" ? $name : "$name ($shown)"}]
        lappend units $unit
    }
    # A column named "unit" (without a unit itself) gives the unit of the
    # unit-less numbers of its row, as in a metric table.
    set unitcol -1
    foreach c $columns {
        if {[lindex $c 0] eq "unit" && [lindex $c 1] eq ""} { set unitcol [lsearch -exact $columns $c] }
    }
    set cells [lmap row $rows {
        set rowunit [expr {$unitcol >= 0 ? [lindex $row $unitcol] : ""}]
        set i -1
        lmap value $row unit $units {
            incr i
            if {$i == $unitcol} {
                set text [DisplayUnit $value $raw]
            } elseif {$unitcol >= 0 && $value eq "" && [lindex $columns $i 0] ne "metric"} {
                set text n/a ;# no value: a metric never measured there
            } else {
                set text [Cell $value [expr {$unit eq "" ? $rowunit : $unit}] $raw]
            }
            string map {\n \\n \t \\t} $text
        }
    }]
    set n [llength $columns]
    set widths {}
    set right {}
    for {set i 0} {$i < $n} {incr i} {
        set w [string length [lindex $header $i]]
        set numeric 1
        foreach row $cells {
            set v [lindex $row $i]
            if {[string length $v] > $w} { set w [string length $v] }
            if {$v ni {"" n/a} && ![IsNumber $v]} { set numeric 0 }
        }
        lappend widths $w
        set name [lindex $columns $i 0]
        lappend right [expr {$numeric && [llength $rows] > 0 && $name ni $Names}]
    }
    set out {}
    if {$title ne ""} { lappend out $title }
    lappend out [Line $header $widths $right]
    lappend out [Line [lmap w $widths { string repeat - $w }] $widths $right]
    foreach row $cells { lappend out [Line $row $widths $right] }
    if {![llength $rows]} { lappend out "(no rows)" }
    return [join $out \n]\n
}

proc ::ips2::format::Line {cells widths right} {
    set parts {}
    foreach v $cells w $widths r $right {
        lappend parts [::format [expr {$r ? "%*s" : "%-*s"}] $w $v]
    }
    string trimright [join $parts "  "]
}

proc ::ips2::format::Csv {columns rows} {
    set out [list [csv::join [lmap c $columns {
        lassign $c name unit
        expr {$unit eq "" ? $name : "$name ($unit)"}
    }]]]
    foreach row $rows { lappend out [csv::join $row] }
    return [join $out \n]\n
}

# JsonNumber: whether a value is a number in JSON's syntax.
proc ::ips2::format::JsonNumber {value} {
    regexp {^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$} $value
}

# Json: a column whose cells are all JSON numbers (or empty: null) gives
# numbers, any other column strings, so that a column has one JSON type.
proc ::ips2::format::Json {columns rows title} {
    set numeric {}
    for {set i 0} {$i < [llength $columns]} {incr i} {
        set n 1
        foreach row $rows {
            set v [lindex $row $i]
            if {$v ne "" && ![JsonNumber $v]} { set n 0; break }
        }
        lappend numeric $n
    }
    set out "\{"
    if {$title ne ""} { append out "\"title\": [json::write string $title],\n " }
    set cols [lmap c $columns {
        lassign $c name unit
        ::format {{"name": %s, "unit": %s}} [json::write string $name] [json::write string $unit]
    }]
    append out "\"columns\": \[[join $cols {, }]\],\n \"rows\": \["
    set lines [lmap row $rows {
        set cells [lmap v $row n $numeric {
            expr {!$n ? [json::write string $v] : $v eq "" ? "null" : $v}
        }]
        string cat "\[" [join $cells ", "] "\]"
    }]
    if {[llength $lines]} { append out "\n  " [join $lines ",\n  "] "\n " }
    append out "\]\}\n"
}

# commandLine WORDS: the words joined by spaces, a word that is empty or
# holds anything but letters, digits and _@%+=:,./- in single quotes (a
# quote as '\''), so that an empty argument shows ('') and the line reads
# back in a shell; the processes table (tcl_tables.c) writes it alike.
proc ::ips2::format::commandLine {words} {
    join [lmap w $words {
        if {[regexp {^[A-Za-z0-9_@%+=:,./-]+$} $w]} {
            set w
        } else {
            string cat ' [string map {' '\\''} $w] '
        }
    }] " "
}

# --- trees --------------------------------------------------------------------

proc ::ips2::format::tree {node args} {
    set o [Options tree $args {-format text}]
    CheckFormat tree [dict get $o -format] {text json}
    if {[dict get $o -format] eq "json"} { return [JsonNode $node]\n }
    set out {}
    TreeText $node "" "" out
    return [join $out \n]\n
}

# Label NODE: how a node reads in text: its shape and name, then what else
# it says: a machine's host (if not its name), a process's command and
# status, or a label.
proc ::ips2::format::Label {node} {
    variable Shapes
    set kind [expr {[dict exists $node kind] ? [dict get $node kind] : ""}]
    set name [expr {[dict exists $node name] ? [dict get $node name] : "?"}]
    set text $name
    if {[dict exists $Shapes $kind]} {
        set text "[dict get $Shapes $kind] $name"
    } elseif {$kind ne ""} {
        set text "$kind $name"
    }
    set more {}
    if {[dict exists $node host] && [dict get $node host] ni [list "" $name]} {
        lappend more "on [dict get $node host]"
    }
    if {[dict exists $node command] && [dict get $node command] ne ""} {
        set command [dict get $node command]
        if {[catch {llength $command}]} {
            lappend more $command
        } else {
            lappend more [commandLine [lreplace $command 0 0 [file tail [lindex $command 0]]]]
        }
    }
    if {[dict exists $node status] && [dict get $node status] ne ""} {
        lappend more "\[[dict get $node status]\]"
    }
    if {[dict exists $node label] && [dict get $node label] ni [list "" $name]} {
        lappend more [dict get $node label]
    }
    if {[llength $more]} { append text "  " [join $more "  "] }
    return $text
}

proc ::ips2::format::TreeText {node lead childlead outVar} {
    upvar 1 $outVar out
    lappend out "$lead[Label $node]"
    set children [expr {[dict exists $node children] ? [dict get $node children] : {}}]
    set n [llength $children]
    set i 0
    foreach child $children {
        incr i
        if {$i == $n} {
            TreeText $child "$childlead`-- " "$childlead    " out
        } else {
            TreeText $child "$childlead|-- " "$childlead|   " out
        }
    }
}

proc ::ips2::format::JsonNode {node} {
    set parts {}
    dict for {key value} $node {
        if {$key eq "children"} continue
        if {$key ni {name kind path label} && [JsonNumber $value]} {
            lappend parts "[json::write string $key]: $value"
        } else {
            lappend parts "[json::write string $key]: [json::write string $value]"
        }
    }
    set children [expr {[dict exists $node children] ? [dict get $node children] : {}}]
    lappend parts "\"children\": \[[join [lmap c $children { JsonNode $c }] {, }]\]"
    return "\{[join $parts {, }]\}"
}

# --- histograms ---------------------------------------------------------------

proc ::ips2::format::histogram {t args} {
    set o [Options histogram $args {-format text -title "" -width 50}]
    CheckFormat histogram [dict get $o -format] {text csv json}
    lassign [Check histogram $t] columns rows
    if {[llength $columns] != 3} {
        return -code error "histogram: expected the columns start, end and one metric, got [llength $columns]"
    }
    switch -- [dict get $o -format] {
        csv  { return [Csv $columns $rows] }
        json { return [Json $columns $rows [dict get $o -title]] }
    }
    set width [dict get $o -width]
    lassign [lindex $columns 2] metric unit
    set max 0
    foreach row $rows {
        set v [lindex $row 2]
        if {[IsNumber $v] && $v > $max} { set max $v }
    }
    set shown [DisplayUnit $unit 0]
    set header [list "from (ms)" "to (ms)" [expr {$shown eq "" ? $metric : "$metric ($shown)"}]]
    set lines {}
    foreach row $rows {
        lassign $row from to v
        set bar ""
        if {$max > 0 && [IsNumber $v] && $v > 0} {
            set bar [string repeat # [expr {max(1, int(round($v * $width / double($max))))}]]
        }
        lappend lines [list [Cell $from ns 0] [Cell $to ns 0] [Cell $v $unit 0] $bar]
    }
    set widths {}
    foreach i {0 1 2} {
        set w [string length [lindex $header $i]]
        foreach l $lines { set w [expr {max($w, [string length [lindex $l $i]])}] }
        lappend widths $w
    }
    lappend widths 0
    set out {}
    if {[dict get $o -title] ne ""} { lappend out [dict get $o -title] }
    lappend out [Line [concat $header {""}] $widths {1 1 1 0}]
    lappend out [Line [list {*}[lmap w [lrange $widths 0 2] { string repeat - $w }] ""] $widths {1 1 1 0}]
    foreach l $lines { lappend out [Line $l $widths {1 1 1 0}] }
    if {![llength $rows]} {
        lappend out "(no buckets)"
    } else {
        lappend out "" [Sparkline [lmap row $rows { lindex $row 2 }] $max]
    }
    return [join $out \n]\n
}

# Sparkline VALUES MAX: one character per bucket, eight heights.
proc ::ips2::format::Sparkline {values max} {
    variable Spark
    set s ""
    foreach v $values {
        if {![IsNumber $v] || $v <= 0 || $max <= 0} {
            append s " "
        } else {
            append s [lindex $Spark [expr {max(0, min(7, int(ceil($v * 8 / double($max))) - 1))}]]
        }
    }
    return $s
}

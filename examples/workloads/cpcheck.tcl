# cpcheck.tcl - the critical path's invariant on a session (make demo):
# for the global path and every application's intra- and inter-application
# path, its length is at most the elapsed wall time plus the clock
# resolution.  Prints one line per path; exit status 1 if one is longer.
#
#   tclsh cpcheck.tcl BUILD-DIR SESSION-DIR

lassign $argv build dir
lappend auto_path [file join $build lib]
package require ips2

namespace eval ::cpcheck {
    variable resolution 1000 ;# ns
    proc main {dir} {
        variable resolution
        set s [ips2::open $dir]
        set bad 0
        set queries [list {-mode global}]
        foreach app [$s apps] { lappend queries [list -mode intra -app $app] [list -mode inter -app $app] }
        foreach q $queries {
            set t [$s cp {*}$q -level process]
            set ok [expr {[dict get $t length] <= [dict get $t elapsed] + $resolution}]
            if {!$ok} { incr bad }
            puts [format "critical path %-28s length %9.3f ms <= elapsed %9.3f ms: %s" $q \
                      [expr {[dict get $t length] / 1e6}] [expr {[dict get $t elapsed] / 1e6}] \
                      [expr {$ok ? "ok" : "NO"}]]
        }
        $s close
        return $bad
    }
}
exit [expr {[::cpcheck::main $dir] ? 1 : 0}]

# lib.tcl - helpers shared by the ips2 integration tests.
#
# A test file starts with
#
#   package require tcltest 2.5
#   namespace import ::tcltest::*
#   source [file join [file dirname [info script]] lib.tcl]
#
# and ends with [cleanupTests].  Everything here lives in ::ips2test.
# The tests use what `make` built in build/: build/bin/ips2cc, ips2c++,
# ips2-dump and build/lib/libips2.so.  Anything missing makes the tests that
# need it fail with the tool's own message; `make check` builds it all first.
#
# Variables:  root build bindir libdir progs ips2cc ips2cxx dump cc
# Procedures: tmpdir build run streams dump summary events grep readfile writefile

package require Tcl 8.6
package require tcltest 2.5

namespace eval ::ips2test {
    variable root    [file dirname [file dirname [file dirname [file normalize [info script]]]]]
    # IPS2_BUILD (set by `make B=DIR check`) names another build directory
    variable build   [file normalize [expr {[info exists ::env(IPS2_BUILD)]
                                           ? $::env(IPS2_BUILD) : [file join $root build]}]]
    variable bindir  [file join $build bin]
    variable libdir  [file join $build lib]
    variable progs   [file join $root tests integration progs]
    variable ips2cc  [file join $bindir ips2cc]
    variable ips2cxx [file join $bindir ips2c++]
    variable dump    [file join $bindir ips2-dump]
    # the C compiler for programs that link the build's static libraries:
    # built by `make check-asan`, they need its sanitizers (IPS2_SANITIZE)
    variable cc [list cc {*}[expr {[info exists ::env(IPS2_SANITIZE)] ? $::env(IPS2_SANITIZE) : ""}]]
    namespace export tmpdir build run streams dump summary events grep readfile writefile
    variable tmpdirs {}
    variable serial  0
    variable scratch ""   ;# run's stderr files

    # A test inherits no ips2 settings from the shell that ran it, and no
    # make flags from `make check` (the tests run make themselves).
    foreach name [array names ::env] {
        if {([string match IPS2_* $name] && $name ni {IPS2_TEST_TIMEOUT IPS2_KEEP_TMP IPS2_BUILD})
                || $name in {MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES}} {
            unset ::env($name)
        }
    }
}

# tmpdir ?name?: a new empty directory under build/tests/tmp, removed by
# cleanupTests unless IPS2_KEEP_TMP=1 is set (to look at a failure).
proc ::ips2test::tmpdir {{name t}} {
    variable build
    variable tmpdirs
    variable serial
    set dir [file join $build tests tmp [format %s.%d.%d $name [pid] [incr serial]]]
    file delete -force $dir
    file mkdir $dir
    lappend tmpdirs $dir
    return $dir
}

proc ::tcltest::cleanupTestsHook {} {
    if {[info exists ::env(IPS2_KEEP_TMP)] && $::env(IPS2_KEEP_TMP) eq "1"} return
    foreach dir $::ips2test::tmpdirs { file delete -force $dir }
    set ::ips2test::tmpdirs {}
    set ::ips2test::scratch ""
}

# build prog ?-dir dir? ?-cc compiler? ?-o name? ?flag ...?
#   Compiles tests/integration/progs/<prog> (a list of files in progs/ when
#   it holds more than one word; "prog" alone means prog.c) with ips2cc (or
#   -cc) into dir (default: a new tmpdir).  Returns the executable's path;
#   raises an error with the compiler's output when compiling fails.
proc ::ips2test::build {prog args} {
    variable progs
    variable ips2cc
    set dir ""
    set cc $ips2cc
    set out [file rootname [file tail [lindex $prog 0]]]
    set flags {}
    while {[llength $args]} {
        set args [lassign $args opt]
        switch -- $opt {
            -dir { set args [lassign $args dir] }
            -cc  { set args [lassign $args cc] }
            -o   { set args [lassign $args out] }
            default { lappend flags $opt }
        }
    }
    if {$dir eq ""} { set dir [tmpdir $out] }
    set srcs {}
    foreach file $prog {
        if {[file extension $file] eq ""} { append file .c }
        lappend srcs [file join $progs $file]
    }
    set exe [file join $dir $out]
    set r [run -- $cc {*}$flags -o $exe {*}$srcs]
    if {[dict get $r status] != 0} {
        error "compiling $prog failed ([dict get $r status]):\n[dict get $r stdout][dict get $r stderr]"
    }
    return $exe
}

# run ?-session dir? ?-app id? ?-env {NAME value ...}? ?-cwd dir?
#     ?-stdin text? ?-timeout seconds? ?--? command ?arg ...?
#   Runs command to its end and returns a dict:
#     status   exit status; 128+N when killed by signal N (as a shell says)
#     signal   the signal's name (SIGSEGV, ...) or ""
#     timedout 1 when the run was killed after -timeout seconds (default 120)
#     stdout stderr   everything the command wrote, kept apart
#   -session and -app set IPS2_SESSION and IPS2_APP; in -env an empty value
#   unsets the variable.  Standard input is /dev/null unless -stdin.  There
#   are no sleeps: it waits in the event loop for the command's stdout to
#   close (so a daemon it leaves behind holding stdout runs into the limit).
proc ::ips2test::run {args} {
    variable scratch
    variable serial
    set env {}
    set cwd ""
    set input [list < /dev/null]
    set limit 120
    while {[llength $args] && [string match -* [lindex $args 0]]} {
        set args [lassign $args opt]
        switch -- $opt {
            --       break
            -session { set args [lassign $args v]; dict set env IPS2_SESSION $v }
            -app     { set args [lassign $args v]; dict set env IPS2_APP $v }
            -env     { set args [lassign $args v]; set env [dict merge $env $v] }
            -cwd     { set args [lassign $args cwd] }
            -stdin   { set args [lassign $args v]; set input [list << $v] }
            -timeout { set args [lassign $args limit] }
            default  { error "run: unknown option $opt" }
        }
    }
    if {![llength $args]} { error "run: no command" }
    if {$scratch eq ""} { set scratch [tmpdir run] }
    set errfile [file join $scratch stderr.[incr serial]]

    # The child inherits ::env and the working directory at open.
    set saved {}
    dict for {name value} $env {
        dict set saved $name [array get ::env $name]
        if {$value eq ""} { unset -nocomplain ::env($name) } else { set ::env($name) $value }
    }
    set here [pwd]
    try {
        if {$cwd ne ""} { cd $cwd }
        set chan [open |[concat $args $input [list 2> $errfile]] r]
    } finally {
        cd $here
        dict for {name old} $saved {
            unset -nocomplain ::env($name)
            array set ::env $old
        }
    }

    variable output
    variable done
    set output($chan) ""
    set done($chan) ""
    fconfigure $chan -blocking 0 -translation binary
    fileevent $chan readable [list ::ips2test::Collect $chan]
    set timer [after [expr {int($limit * 1000)}] [list set ::ips2test::done($chan) timeout]]
    vwait ::ips2test::done($chan)
    after cancel $timer
    set timedout [expr {$done($chan) eq "timeout"}]
    if {$timedout} {
        foreach p [pid $chan] { catch {exec kill -KILL $p} }
    }
    set stdout [encoding convertfrom utf-8 $output($chan)]
    unset output($chan) done($chan)

    fconfigure $chan -blocking 1
    set status 0
    set signal ""
    if {[catch {close $chan} message options]} {
        set code [dict get $options -errorcode]
        switch -- [lindex $code 0] {
            CHILDSTATUS { set status [lindex $code 2] }
            CHILDKILLED {
                set signal [lindex $code 2]
                set status [expr {128 + [exec kill -l [string range $signal 3 end]]}]
            }
            default { error "run [lindex $args 0]: $message" }
        }
    }
    set stderr [readfile $errfile]
    file delete $errfile
    return [dict create status $status signal $signal timedout $timedout \
                stdout $stdout stderr $stderr]
}

proc ::ips2test::Collect {chan} {
    variable output
    variable done
    append output($chan) [read $chan]
    if {[eof $chan]} {
        fileevent $chan readable {}
        set done($chan) eof
    }
}

# --- traces ------------------------------------------------------------------
# libips2 writes into the session directory, per process image, a process
# stream <pid>.<image>.proc.raw (its module map) and one thread stream
# <pid>.<image>.<tid>[.<k>].raw per thread (instr/stream.c); ips2-pack turns
# each <name>.raw into <name>.ips2.  ips2-dump (traces/dump.c) reads both;
# these helpers use only its machine-readable modes, as its header comment
# defines them:
#   --summary  "calls <count> <name>" per procedure, "kind <name> <count>" per kind
#   --tsv      one event per line, tab-separated: kind, wall_ns, cpu_ns,
#              cpu_exact (0/1), payload (hex), name (or empty), extra words;
#              header lines start with "#"

# streams session: the thread streams (raw or packed) of a session, sorted.
proc ::ips2test::streams {session} {
    set files {}
    foreach f [lsort [glob -nocomplain -directory $session *.raw *.ips2]] {
        if {![string match *.proc.* [file tail $f]]} { lappend files $f }
    }
    return $files
}

# dump ?arg ...?: runs build/bin/ips2-dump with the arguments and returns
# its standard output; raises an error with its stderr when it fails.
proc ::ips2test::dump {args} {
    variable dump
    set r [run -- $dump {*}$args]
    if {[dict get $r status] != 0} {
        error "ips2-dump $args: exit [dict get $r status]: [dict get $r stderr]"
    }
    return [dict get $r stdout]
}

# summary file...: ips2-dump --summary over the files, as a dict with keys
# calls (procedure name -> calls) and kinds (kind name -> events).
proc ::ips2test::summary {args} {
    set result [dict create calls {} kinds {}]
    foreach line [split [dump --summary {*}$args] \n] {
        if {[regexp {^calls (\d+) (.+)$} $line -> n name]} {
            dict set result calls $name $n
        } elseif {[regexp {^kind (\S+) (\d+)$} $line -> name n]} {
            dict set result kinds $name $n
        }
    }
    return $result
}

# events file...: ips2-dump --tsv over the files, as a list of dicts with
# keys kind wall_ns cpu_ns cpu_exact payload name extra (a list).
proc ::ips2test::events {args} {
    set events {}
    foreach line [split [dump --tsv {*}$args] \n] {
        if {$line eq "" || [string index $line 0] eq "#"} continue
        set extra [lassign [split $line \t] kind wall cpu exact payload name]
        lappend events [dict create kind $kind wall_ns $wall cpu_ns $cpu cpu_exact $exact \
                            payload $payload name $name extra $extra]
    }
    return $events
}

# grep text regexp: the lines of text that match regexp, in order.
proc ::ips2test::grep {text re} {
    set lines {}
    foreach line [split $text \n] {
        if {[regexp -- $re $line]} { lappend lines $line }
    }
    return $lines
}

proc ::ips2test::readfile {path} {
    set f [open $path r]
    try { return [read $f] } finally { close $f }
}

proc ::ips2test::writefile {path text} {
    set f [open $path w]
    try { puts -nonewline $f $text } finally { close $f }
}

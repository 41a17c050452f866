# all.tcl - runs the GUI tests (tests/gui/*.test) under the X display the
# caller provides (tests/run-all runs this under xvfb-run), each file in
# its own tclsh under a time limit (tests/suite.tcl).
#
#   xvfb-run -a tclsh tests/gui/all.tcl ?-file gui.test? ?-match PATTERN? ?-verbose bpe?

set here [file dirname [file normalize [info script]]]
source [file join [file dirname $here] suite.tcl]
exit [ips2suite::run $here $argv]

# all.tcl - runs the ips2 integration tests (tests/integration/*.test),
# each file in its own tclsh under a time limit (tests/suite.tcl).
#
#   tclsh tests/integration/all.tcl ?tcltest options?
#   e.g.  -file ips2cc.test   -match {ips2cc-2.*}   -verbose bpe

set here [file dirname [file normalize [info script]]]
source [file join [file dirname $here] suite.tcl]
exit [ips2suite::run $here $argv]

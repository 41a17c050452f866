# freeport.tcl - prints a TCP port of 127.0.0.1 that nothing listens on now,
# for `make demo`'s server (the demo's default port may be taken).
set s [socket -server {} -myaddr 127.0.0.1 0]
puts [lindex [fconfigure $s -sockname] 2]
close $s

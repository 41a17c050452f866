# clientserver.tcl - the IPS-2 paper's section 5.3 in small: a
# multi-threaded server (a thread per client, csserver.c) on machine
# alpha, a producer client on beta and a consumer client on gamma
# (csclient.c).  The clients never talk to each other, only to the server;
# the server's consumer thread waits for the producer thread's items on a
# queue (mutex and condition variable), so the consumer's inter-application
# critical path runs through the producer.  Known work: the producer makes
# each item in produce_item (work ms), the server stores it (store_item)
# and prepares it for the consumer (fetch_item), the consumer uses it
# (consume_item).
#
#   ips2 report SESSION cp -mode inter -app producer -level process
#       the producer's path: the producer, the server's threads, message delays
#   ips2 report SESSION cp -mode intra -app server -level thread
#       the server alone: its threads
#
# Variables: bin (the programs' folder), port (a free TCP port), items
# (default 10), scale (multiplies every work, default 1).

if {![info exists bin]} { set bin ../../build/examples/workloads }
if {![info exists port]} { set port 7370 }
if {![info exists items]} { set items 10 }
if {![info exists scale]} { set scale 1 }
proc ms {n} { upvar scale scale; expr {$n * $scale} }

machine alpha -host localhost
machine beta -host localhost
machine gamma -host localhost
option interval 10
option timeout 60

application server {
    process alpha $bin/csserver -port $port -items $items -size 256 \
        -store [ms 2] -fetch [ms 2]
}
application producer {
    process beta $bin/csclient -role producer -port $port -items $items -size 256 -work [ms 3]
}
application consumer {
    process gamma $bin/csclient -role consumer -port $port -items $items -size 256 -work [ms 1]
}

# pvmpipe.tcl - a PVM pipeline with a late sender (pvmpipe.c): the
# producer (started here) spawns its consumer, makes 120 items of 20 ms of
# CPU each and sends them; the consumer waits for each.  PVM_EXPORT carries
# the session to the spawned consumer, so that it is traced with the
# producer.
# Truth: messageBottleneck / excessiveMessageWaiting / lateSender, the
# consumer waiting for the producer; no message waiting of the producer.
# Variables: bin, items (120), work (ms, 20).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists items]} { set items 120 }
if {![info exists work]} { set work 20 }

machine alpha -host localhost
option timeout 60

application pvmpipe {
    process alpha -env {PVM_EXPORT IPS2_SESSION:IPS2_APP} -- $bin/pvmpipe -items $items -work $work
}

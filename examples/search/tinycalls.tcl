# tinycalls.tcl - tiny procedures at a very high call rate (tinycalls.c):
# mix() called 8 million times in a tight loop after load_words()'s 150 ms.
# Truth: instBottleneck, the costliest procedure to trace mix; load_words
# not reported.  Every call is traced (IPS2_AUTOCOUNT off): the run-time
# mode would count mix only, which is the cure for this bottleneck.
# Variables: bin, calls (8000000).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists calls]} { set calls 8000000 }

machine alpha -host localhost
option interval 50
option timeout 60

application tinycalls {
    process alpha -env {IPS2_AUTOCOUNT off} $bin/tinycalls -calls $calls
}

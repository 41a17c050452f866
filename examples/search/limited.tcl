# limited.tcl - a client limited by a server: two applications, the demo's
# TCP programs (examples/workloads/tcpserver.c, tcpclient.c).  The client
# sends 150 requests one after the other, preparing each in 1 ms of CPU;
# the server handles each in handle_request(), 15 ms of CPU, before it
# answers.  So the client spends most of its time waiting for the server.
# Truth: limitedByApplication for the client, refined into the server
# (its process, handle_request); the client's prepare_request (1 ms a
# request) not reported.
# Variables: bin (examples/search's folder; the TCP programs are taken
# from workbin, default $bin/../workloads), port (a free TCP port),
# requests (150), work (ms, 15).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists workbin]} { set workbin $bin/../workloads }
if {![info exists port]} { set port 7391 }
if {![info exists requests]} { set requests 150 }
if {![info exists work]} { set work 15 }

machine alpha -host localhost
machine beta -host localhost
option timeout 60

application server {
    process alpha $workbin/tcpserver -port $port -clients 1 -requests $requests -size 64 \
        -reply 256 -work $work
}
application client {
    process beta $workbin/tcpclient -port $port -requests $requests -size 64 -reply 256 -work 1
}

# demo.tcl - the workload of `make demo` (docs/ANALYSTS.md §1): three
# applications on two machines played by one host: a TCP server and its
# clients (two applications talking to each other) and a pthread barrier
# application.  The programs (examples/workloads/*.c) do known work:
#   server   2 clients x 20 requests: handle_request 40 calls, 2 ms CPU each;
#            40 messages of 64 bytes in, 40 of 256 bytes out
#   client   2 processes, each prepare_request 20 calls, 1 ms CPU each;
#            20 messages of 64 bytes out, 20 of 256 bytes in
#   barrier  4 threads x 10 rounds: compute 40 calls, thread i (0-3)
#            2*(i+1) ms CPU a round; sync_round 40 calls
#
# Variables (ips2 run demo.tcl -set NAME=VALUE): bin, the folder of the
# built programs (make demo sets it), and port, the server's TCP port.

if {![info exists bin]} { set bin ../../build/examples/workloads }
if {![info exists port]} { set port 7346 }

machine alpha -host localhost
machine beta -host localhost
option interval 10
option timeout 60

application server {
    process alpha $bin/tcpserver -port $port -clients 2 -requests 20 -size 64 -reply 256 -work 2
}
application client {
    process beta -count 2 $bin/tcpclient -port $port -requests 20 -size 64 -reply 256 -work 1
}
application barrier {
    process alpha $bin/barrier -threads 4 -rounds 10 -work 2
}

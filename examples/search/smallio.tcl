# smallio.tcl - small synchronous writes (smallio.c): 32-byte write + fsync
# for 2.5 s in append_record(), after one short read of large blocks.
# Truth: ioBottleneck / excessiveIOBlockingTime / excessiveSmallIOops, code
# focus append_record; load_table and summarise not reported.
# Variables: bin, seconds (2.5).

if {![info exists bin]} { set bin ../../build/examples/search }
if {![info exists seconds]} { set seconds 2.5 }

machine alpha -host localhost
option timeout 60

application smallio {
    process alpha $bin/smallio -seconds $seconds
}

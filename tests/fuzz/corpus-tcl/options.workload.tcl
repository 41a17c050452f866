# every workload command and option, a procedure, a loop, a replay
proc node {i} { return n$i }
foreach i {1 2 3} { machine [node $i] -host localhost }
option interval 20
option timeout 5.5
collector n1 os -interval 50
collector n2 hw
application server -mode active {
    process n1 -cwd /tmp -env {LANG C DEPTH 3} -timeout 9 -- /bin/server -n 6 "two words"
    for {set k 0} {$k < 2} {incr k} { process [node 2] -count 3 ./client -k $k }
}
replay old/s1 -mode comparison -apps {server client} -prefix old-

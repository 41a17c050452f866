# ips2 session manifest (docs/ANALYSTS.md §3): data, read in a safe interpreter
ips2-session 1
session 1732233600123456789
machine alpha localhost 1732230000000000000
machine beta node-2 -5
application server active {}
application client active {}
application old-server comparison {/tmp/sessions/a b}
process server alpha 0 4242 {/bin/server -n 6} exited 0
process client beta 0 4243 {/bin/client {two words} \{brace {$dollar} {[bracket]} semi\;colon} signal 9
process client beta 1 0 /no/such failed {exec: No such file or directory}
process server alpha 1 4250 /bin/hang timeout
replayed old-server {/tmp/sessions/a b} 86400000000000
phase startup 0 1000000
phase {steady state} 1000000 5000000000

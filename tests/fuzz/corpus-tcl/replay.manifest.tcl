ips2-session 1
session 100
machine a localhost 0
application s1-x replay /tmp/old
application s2-x comparison /tmp/other
process s1-x a 0 12 {/bin/true} exited 0
process s2-x a 0 13 {/bin/true} exited 0
replayed s1-x /tmp/old 0
replayed s2-x /tmp/other -250

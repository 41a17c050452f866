# pkgIndex.tcl - the master package `ips2` (master/), a C extension.
package ifneeded ips2 1.0 [list load [file join $dir libips2tcl.so] Ips2]

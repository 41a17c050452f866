# pkgIndex.tcl - the master package `ips2` (master/): the C extension and
# its Tcl layer, installed together in one directory on auto_path.  Nothing
# here needs the GUI (tk/, package ips2::gui), which has its own index.
package ifneeded ips2           1.0 [list load [file join $dir libips2tcl.so] Ips2]
package ifneeded ips2::dsl      1.0 [list source [file join $dir dsl.tcl]]
package ifneeded ips2::workload 1.0 [list source [file join $dir workload.tcl]]
package ifneeded ips2::manifest 1.0 [list source [file join $dir manifest.tcl]]
package ifneeded ips2::format   1.0 [list source [file join $dir format.tcl]]
package ifneeded ips2::cli      1.0 [list source [file join $dir cli.tcl]]
package ifneeded ips2::latency  1.0 [list source [file join $dir latency.tcl]]

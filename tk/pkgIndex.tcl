# pkgIndex.tcl - the Tcl packages of ips2's front end (tk/), installed together
# in one directory on auto_path.  The master package `ips2` (master/) has its own.
package ifneeded ips2::dsl      1.0 [list source [file join $dir dsl.tcl]]
package ifneeded ips2::workload 1.0 [list source [file join $dir workload.tcl]]
package ifneeded ips2::manifest 1.0 [list source [file join $dir manifest.tcl]]
package ifneeded ips2::format   1.0 [list source [file join $dir format.tcl]]
package ifneeded ips2::cli      1.0 [list source [file join $dir cli.tcl]]

# pkgIndex.tcl - the Tcl packages of ips2's front end (tk/), installed together
# in one directory on auto_path.  The master package `ips2` (master/) has its own.
package ifneeded ips2::dsl      1.0 [list source [file join $dir dsl.tcl]]
package ifneeded ips2::workload 1.0 [list source [file join $dir workload.tcl]]
package ifneeded ips2::manifest 1.0 [list source [file join $dir manifest.tcl]]
package ifneeded ips2::format   1.0 [list source [file join $dir format.tcl]]
package ifneeded ips2::cli      1.0 [list source [file join $dir cli.tcl]]
package ifneeded ips2::gui            1.0 [list source [file join $dir gui.tcl]]
package ifneeded ips2::gui::tree      1.0 [list source [file join $dir gui_tree.tcl]]
package ifneeded ips2::gui::table     1.0 [list source [file join $dir gui_table.tcl]]
package ifneeded ips2::gui::histogram 1.0 [list source [file join $dir gui_histogram.tcl]]
package ifneeded ips2::gui::editor    1.0 [list source [file join $dir gui_editor.tcl]]
package ifneeded ips2::gui::trace     1.0 [list source [file join $dir gui_trace.tcl]]
package ifneeded ips2::gui::help      1.0 [list source [file join $dir gui_help.tcl]]

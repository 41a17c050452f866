# pkgIndex.tcl - the GUI's Tcl packages (tk/), installed together in one
# directory on auto_path beside the master package `ips2` (master/), which
# they use and which never loads them.
package ifneeded ips2::gui            1.0 [list source [file join $dir gui.tcl]]
package ifneeded ips2::gui::tree      1.0 [list source [file join $dir gui_tree.tcl]]
package ifneeded ips2::gui::table     1.0 [list source [file join $dir gui_table.tcl]]
package ifneeded ips2::gui::histogram 1.0 [list source [file join $dir gui_histogram.tcl]]
package ifneeded ips2::gui::editor    1.0 [list source [file join $dir gui_editor.tcl]]
package ifneeded ips2::gui::trace     1.0 [list source [file join $dir gui_trace.tcl]]
package ifneeded ips2::gui::help      1.0 [list source [file join $dir gui_help.tcl]]
package ifneeded ips2::gui::query     1.0 [list source [file join $dir gui_query.tcl]]
package ifneeded ips2::gui::consultant 1.0 [list source [file join $dir gui_consultant.tcl]]
package ifneeded ips2::gui::latency   1.0 [list source [file join $dir gui_latency.tcl]]

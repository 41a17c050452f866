/*
 * tcl_clocks.h - ::ips2::clocks, the message pass's corrections of a set
 * of part files (tcl_clocks.c).
 */
#ifndef IPS2_TCL_CLOCKS_H
#define IPS2_TCL_CLOCKS_H

#include <tcl.h>

int Ips2ClocksInit(Tcl_Interp *interp);

#endif /* IPS2_TCL_CLOCKS_H */

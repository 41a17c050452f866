/*
 * error.h - the trace library's own files reach the error formatter under
 * this name; it is public, declared in ips2_error.h.
 */
#include "ips2_error.h"

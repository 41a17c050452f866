/*
 * error.h - filling a caller's error buffer (IPS2_ERR_MAX bytes), the way
 * every function of the trace library reports what went wrong.
 */
#ifndef IPS2_ERROR_H
#define IPS2_ERROR_H

/* Formats into err unless err is NULL. */
void ips2_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* IPS2_ERROR_H */

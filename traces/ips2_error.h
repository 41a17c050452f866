/*
 * ips2_error.h - filling a caller's error buffer (IPS2_ERR_MAX bytes,
 * ips2_reader.h), the way every function of the trace library reports
 * what went wrong; the libraries above it (the master's model and tables)
 * report their errors the same way.
 */
#ifndef IPS2_ERROR_H
#define IPS2_ERROR_H

/* Formats into err unless err is NULL. */
void ips2_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* IPS2_ERROR_H */

/*
 * ips2_pack.h - compress a finished raw stream into the packed encoding.
 *
 * The slave analyst calls this after the traced process has ended; it runs
 * off the application's hot path.  Packing is lossless: a packed stream
 * reads back to exactly the events of the raw one.
 */
#ifndef IPS2_PACK_H
#define IPS2_PACK_H

/* Packs raw stream `raw_path` into `packed_path` (written via a temporary
 * name, then renamed).  Returns 0, or -1 with err (IPS2_ERR_MAX bytes) set;
 * a raw stream that ends in a corrupt record is packed up to that record
 * and the error is still reported. */
int ips2_pack_file(const char *raw_path, const char *packed_path, char *err);

#endif /* IPS2_PACK_H */

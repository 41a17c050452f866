/*
 * slave_cpa.h - ips2slave's side of the critical-path conversation
 * (ips2_proto.h, tags 300-399): keep a PAG part, run its worker of each
 * query, exchange path lengths with the peer slaves and walk the path back
 * (slave_cpa.c).  slave_main.c hands it every message of those tags.
 */
#ifndef IPS2_SLAVE_CPA_H
#define IPS2_SLAVE_CPA_H

struct slave_cpa;

/* A new, empty state; NULL on OOM.  master: the tid to report to. */
struct slave_cpa *slave_cpa_new(int master);
void slave_cpa_free(struct slave_cpa *c);

/* Handles the message in PVM's active receive buffer (tag in 300-399,
 * from src).  Problems are reported to the master in the reply messages;
 * never fatal to the slave. */
void slave_cpa_handle(struct slave_cpa *c, int tag, int src);

#endif /* IPS2_SLAVE_CPA_H */

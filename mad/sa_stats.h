/* The SA's answers counted by attribute and status, and the time from a
 * request's arrival to its answer as a histogram per attribute, for the
 * Prometheus page (daemon/metrics).  Read from the answer MAD itself, so
 * both places that answer (the receiver thread's Gets, the loop's other
 * requests) count alike; lock-free (relaxed atomics). */
#ifndef IBSM_SA_STATS_H
#define IBSM_SA_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/prom.h"

#define SA_STATS_ATTRS 20 /* the attributes the SA serves, then "other" */
enum sa_stats_status {
	SA_ST_SUCCESS,
	SA_ST_BUSY,
	SA_ST_UNSUPPORTED, /* method or attribute not supported */
	SA_ST_INVALID,	   /* a field, the request, a GID, components */
	SA_ST_NO_RECORDS,
	SA_ST_TOO_MANY, /* Get matching more than one record */
	SA_ST_NO_RESOURCES,
	SA_ST_DENIED,
	SA_ST_OTHER,
	SA_ST_N
};

struct sa_answer_stats {
	uint64_t n[SA_STATS_ATTRS][SA_ST_N];
	struct prom_hist lat[SA_STATS_ATTRS];
};

void sa_answer_stats_init(struct sa_answer_stats *st);
/* answer: the SA MAD about to be sent (its attribute and MAD status are
 * read from it); rx_us: when the request arrived (txn_now_us()'s clock,
 * 0: unknown, not timed). */
void sa_answer_stats_note(struct sa_answer_stats *st, const uint8_t *answer,
			  size_t len, int64_t rx_us);
/* ibsmd_sa_requests_total{attribute,status} and
 * ibsmd_sa_request_duration_seconds{attribute}; attributes never asked
 * are left out. */
void sa_answer_stats_write(struct prom_out *o,
			   const struct sa_answer_stats *st);

#endif

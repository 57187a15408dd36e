/* Deterministic LID assignment over the fabric model, shared by the daemon
 * and ibsmroute so both give the same LIDs on the same fabric, and the
 * guid2lid file (OpenSM's format) that carries LIDs across restarts. */
#ifndef IBSM_LIDS_H
#define IBSM_LIDS_H

#include <stdint.h>

#include "lib/fabric.h"

/* One guid2lid entry: port GUID (switch: node GUID) and its LID range. */
struct guid2lid_entry {
	uint64_t guid;
	uint16_t lo, hi;
};

struct guid2lid {
	struct guid2lid_entry *v;
	uint32_t n, cap;
	/* GUID -> position + 1 (0 = empty), open addressing; covers the
	 * first idx_n entries and is rebuilt when entries came in another
	 * way (the reader appends without it). */
	uint32_t *idx;
	uint32_t idx_cap, idx_n;
};

struct lids_stats {
	uint32_t ports;	   /* ports given a LID (reachable from the SM) */
	uint32_t kept;	   /* kept their valid existing LID */
	uint32_t from_map; /* took their LID from the guid2lid map */
	uint32_t fresh;	   /* got a new LID */
	uint32_t dropped;  /* had a LID that was invalid or clashed */
	uint32_t
	    unreachable; /* nodes not reachable from the SM: LIDs cleared */
};

/* Assigns LIDs to every port reachable from f->sm_node (port f->sm_port
 * when it is a CA), in three passes over the same breadth-first order
 * (from the SM node, switch ports in increasing number):
 *   1. keep a port's existing LID when it is non-zero, in the unicast
 *      range, aligned to 2^lmc and not claimed earlier in the
 *      order;
 *   2. else take the LID the guid2lid map (prev, may be NULL) records,
 *      under the same conditions;
 *   3. else the lowest free aligned LID.
 * CA/router ports get 2^lmc LIDs; a switch (port 0, LMC 0) uses one but
 * an aligned range of 2^lmc is reserved for it, as OpenSM does.
 * Ports of nodes not reachable from the SM lose their LIDs.  Pure function
 * of (topology, existing LIDs, map, lmc).  0, -EINVAL (no SM node, lmc > 7),
 * -ENOSPC (unicast LID space exhausted) or -ENOMEM. */
int lids_assign(struct fabric *f, const struct guid2lid *prev, uint8_t lmc,
		struct lids_stats *st);

/* Reads an OpenSM guid2lid file ("0x<guid> <lo> <hi>" per line, numbers
 * in C notation, blank lines and '#' comments ignored) into m (appending).
 * A damaged line, or a second line for a GUID, is skipped with a warning
 * naming it (the first such "path:line: message" also goes to err) and
 * the rest is used.  The number of lines skipped, or -errno (fopen,
 * -ENOMEM). */
int guid2lid_read(const char *path, struct guid2lid *m, char *err,
		  size_t errlen);
/* Adds (or replaces) one entry; constant time (hash index).  0 or
 * -ENOMEM. */
int guid2lid_put(struct guid2lid *m, uint64_t guid, uint16_t lo, uint16_t hi);
/* Entry for guid or NULL; constant time once the index is built. */
const struct guid2lid_entry *guid2lid_get(struct guid2lid *m, uint64_t guid);
void guid2lid_free(struct guid2lid *m);

#endif

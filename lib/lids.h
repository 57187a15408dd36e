/* Deterministic LID assignment over the fabric model, shared by the daemon
 * and ibsmroute so both give the same LIDs on the same fabric, and the
 * guid2lid file (OpenSM's format) that carries LIDs across restarts. */
#ifndef IBSM_LIDS_H
#define IBSM_LIDS_H

#include <stdint.h>

#include "lib/fabric.h"
#include "lib/namelist.h"

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
	/* What the switches' tables allow (docs/design.md §3.4): */
	uint32_t limit; /* LIDs below this fit every switch's LFT */
	const struct ib_node *limit_sw; /* the first switch with that limit */
	uint32_t small_switches; /* switches whose LFT cannot hold `needed` */
	uint32_t needed;	 /* LIDs the fabric needs at the asked LMC */
	uint8_t lmc;		 /* LMC the CA ports got (<= the asked one) */
	uint32_t no_lid;	 /* reachable ports left without a LID */
	struct namelist no_lid_names;
};

/* Assigns LIDs to every port reachable from f->sm_node (port f->sm_port
 * when it is a CA), below the limit the switches' tables set (the smallest
 * LinearFDBCap reported, in whole 64-LID blocks; none when no switch
 * reports one), in three passes over the same breadth-first order (from
 * the SM node, switch ports in increasing number):
 *   1. keep a port's existing LID when it is non-zero, in the unicast
 *      range, aligned to 2^lmc and not claimed earlier in the
 *      order;
 *   2. else take the LID the guid2lid map (prev, may be NULL) records,
 *      under the same conditions;
 *   3. else the lowest free aligned LID.
 * CA/router ports get 2^lmc LIDs; a switch (port 0, LMC 0) uses one but
 * an aligned range of 2^lmc is reserved for it, as OpenSM does.
 * When the ranges do not all fit below the limit, the largest smaller LMC
 * with which they do is used for every port (st->lmc); when not even one
 * LID each fits, the passes run over the switches first, then the CA
 * ports, and the CA ports last in that order get no LID (st->no_lid,
 * their first names in st->no_lid_names): every switch, and as many CA
 * ports as the limit holds, stay routable, and the same ports win at the
 * next run (they keep their LIDs, or find them in guid2lid).
 * Ports of nodes not reachable from the SM lose their LIDs.  Pure function
 * of (topology, switch caps, existing LIDs, map, lmc).  0, -EINVAL (no SM
 * node, lmc > 7) or -ENOMEM. */
int lids_assign(struct fabric *f, const struct guid2lid *prev, uint8_t lmc,
		struct lids_stats *st);

/* What did not fit, in one message naming LinearFDBCap, its value, a
 * switch and the LIDs needed (asked: the LMC asked for): > 0 with buf
 * filled, 0 when everything fit. */
int lids_limit_message(const struct lids_stats *st, uint8_t asked, char *buf,
		       size_t len);
/* Port p's link stays down: one end is a CA port that lids_assign left
 * without a LID (no room below the limit). */
bool lids_link_unrouted(const struct ib_port *p);

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

/* Verification of programmed unicast tables that trusts nothing but the
 * LFTs (node->lft) and the links: CA-to-CA delivery, hop counts, link
 * loads, up/down turn legality and the channel-dependency graph (one
 * vertex per directed switch-to-switch link, an edge for every pair of
 * consecutive links some route uses).  Works for any engine. */
#ifndef IBSM_CDG_H
#define IBSM_CDG_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric.h"
#include "lib/pool.h"

struct cdg_report {
	uint64_t pairs;		    /* CA port -> CA port LID pairs checked */
	uint64_t unreachable_pairs; /* of which not delivered (drop, loop,
				       wrong port) */
	/* CA port -> switch LID pairs not delivered */
	uint64_t sw_unreachable_pairs;
	uint32_t max_hops;	    /* links from source CA to dest CA */
	double avg_hops;
	/* CA-to-CA routes over the busiest directed switch-to-switch link */
	uint64_t max_link_routes;
	uint64_t illegal_turns;	    /* down->up turns (only with an order) */
	int acyclic;		    /* 1 acyclic, 0 cycle found */
	char why[256];		    /* first problem found, for the log */
};

/* Walks every destination LID (switch and CA LIDs, all LMC LIDs) from
 * every switch.  Source CA ports are the linked CA/router ports; a pair
 * is (source port, destination port's base LID), a port not to itself.
 * Hops count links from source CA to destination CA (2 on one switch).
 * order (NULL = skip the turn check): per switch index an up/down label,
 * a link a->b is up iff order[b] < order[a].  pool may be NULL.
 * 0, or -ENOMEM. */
int cdg_verify(const struct fabric *f, struct pool *pool,
	       const uint32_t *order, struct cdg_report *r);

/* Channel-dependency check only, for any engine's LFTs: 1 if acyclic,
 * 0 if a cycle exists (why says through which links), negative errno. */
int cdg_check(const struct fabric *f, struct pool *pool, char *why,
	      size_t whylen);

/* Channel-dependency check for multi-path forwarding (adaptive routing
 * port groups): fn fills out (ports 0..255) with every port switch index
 * sw may send LID lid out of; a dependency is recorded for every port of
 * every set followed by any port of the next switch's set.  Every
 * reachable and unreachable combination is included, so "acyclic" holds
 * for any choice the switches make.  1 acyclic, 0 cycle (why says
 * through which links), negative errno. */
typedef void (*cdg_set_fn)(void *ctx, uint32_t sw, uint16_t lid,
			   uint64_t out[4]);
int cdg_check_sets(const struct fabric *f, cdg_set_fn fn, void *ctx,
		   char *why, size_t whylen);

#endif

/* routing/verify: checks of programmed tables that trust nothing but the
 * LFTs (node->lft), the links and, for VLs, the SL2VL tables the caller
 * gives; they work for any engine and know none.  Three checks:
 *  - the LFT walk (verify_lft.c): from every CA port to every CA port and
 *    switch LID as a packet would go: delivered or not, loops, hop counts
 *    against the hop table, per-link load.  The engines fill their metrics
 *    with it, ibsmroute reports it.
 *  - the channel-dependency graph (cdg.c): one vertex per directed
 *    switch-to-switch link, an edge for every pair of consecutive links
 *    some route uses; with an up/down order also the turn check; also for
 *    the multi-path sets of adaptive-routing port groups.
 *  - the same over virtual lanes (cdg_vl.c, docs/design.md §5.2): one vertex
 *    per (directed link, VL), an edge from (a->b, v) to (b->c, w) when some
 *    route crosses b from a to c and a packet of some SL travels a->b on VL
 *    v and b->c on VL w.  Deadlock needs a cycle of buffers, so routes and
 *    SL2VL tables that give an acyclic graph here cannot deadlock,
 *    whatever SLs the paths use. */
#ifndef IBSM_VERIFY_H
#define IBSM_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"

/* --- the LFT walk (verify_lft.c) --- */

struct lft_check {
	/* CA port -> CA port, base LIDs, a port to itself excluded */
	uint64_t ca_pairs;
	uint64_t unreachable_pairs;  /* not delivered (dropped or looping) */
	uint64_t loop_pairs;	     /* of those, caught in a forwarding loop */
	uint64_t non_shortest_pairs; /* delivered, longer than the hop table */
	uint32_t max_hops;	     /* links crossed, CA to CA */
	double avg_hops;	     /* over delivered CA-to-CA pairs */
	/* CA port -> switch LID */
	uint64_t sw_pairs, sw_unreachable;
	/* CA port -> the extra LIDs of an LMC range not delivered */
	uint64_t lmc_unreachable;
	/* CA-to-CA routes (base-LID pairs, as counted above) crossing the
	 * busiest directed switch-to-switch link; links to CAs are left out,
	 * they always carry N-1.  Same definition as routing/verify/verify.h. */
	uint64_t max_link_routes;
	char first_error[256]; /* the lowest failing LID, "" if none */
	/* Channel dependencies of the CA-to-CA routes (ibdmchk's credit-loop
	 * check; routes from switches are left out, as ibdmchk does): 1 no
	 * cycle, 0 a cycle, described in cdg_why. */
	int cdg_acyclic;
	char cdg_why[160];
};

/* Walks the LFTs of f.  h may be NULL (no shortest-path check).  Each
 * destination LID is walked once from every switch with memoised
 * hops-to-destination per switch, so the cost is O(LIDs x switches), not
 * O(CA pairs): pairs are counted by multiplying with the number of CA
 * ports on each switch.  0 or -ENOMEM. */
int verify_lft(const struct fabric *f, const struct hops *h, struct pool *pool,
	       struct lft_check *out);

/* --- shift permutations (verify_shift.c) --- */

struct shift_report {
	uint32_t hosts;		  /* host ports in cabling order */
	uint32_t shifts;	  /* shifts walked */
	uint32_t shifts_total;	  /* hosts - 1 */
	double mean_busiest;	  /* mean over the shifts walked of the flows
				     over the busiest switch-to-switch link */
	uint32_t worst;		  /* the largest of those */
	uint32_t congestion_free; /* shifts whose busiest link has <= 1 */
	uint64_t undelivered;	  /* flows not delivered, over all shifts */
};

/* For every shift s (all of 1..hosts-1, or max_shifts of them evenly
 * spread when there are more; 0 = all), host i sends to host i + s mod
 * hosts over the base LIDs, hosts in cabling order (lib/ca_order.h).
 * pool may be NULL.  0 or -ENOMEM. */
int verify_shifts(const struct fabric *f, struct pool *pool,
		  uint32_t max_shifts, struct shift_report *r);

/* --- channel dependencies (cdg.c) --- */

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

/* --- channel dependencies over virtual lanes (cdg_vl.c) --- */

/* The VL switch sw sends SL sl on out port out, for a packet that came
 * in on port in (0..15). */
typedef uint8_t (*cdg_sl2vl_fn)(void *ctx, const struct ib_node *sw, uint8_t in,
				uint8_t out, uint8_t sl);

/* 1 acyclic, 0 a cycle (why names a link and VL on or behind it),
 * -ENOMEM.  The VL a packet has on a link is taken over every input port
 * packets to that LID enter the switch by (sources and upstream
 * switches). */
int cdg_check_vl(const struct fabric *f, cdg_sl2vl_fn fn, void *ctx, char *why,
		 size_t whylen);

#endif

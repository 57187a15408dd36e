/* Verification of unicast LFTs by walking them, as a packet would go, from
 * every CA port to every CA port and to every switch LID: delivered or not,
 * loops, hop counts against the hop table, and per-link load.  Used by the
 * engines to fill their metrics, by ibsmroute, and by tests. */
#ifndef IBSM_VERIFY_LFT_H
#define IBSM_VERIFY_LFT_H

#include <stdint.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"

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
	 * they always carry N-1.  Same definition as routing/verify/cdg.h. */
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

/* Copies the metrics that struct ucast_result carries (cdg_acyclic too). */
void verify_lft_to_result(const struct lft_check *c, struct ucast_result *r);

#endif

/* Unicast routing engines behind one small ops struct, chosen by name from
 * the configuration (routing.unicast).  An engine fills every switch's LFT
 * (node->lft, LIDs 0..fabric.max_lid) from the fabric model and the hop
 * tables; it does no I/O. */
#ifndef IBSM_UCAST_H
#define IBSM_UCAST_H

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"

struct ucast_params {
	/* routing.updown.* */
	const char *const *updown_roots; /* GUID strings or node names; NULL = auto */
	unsigned n_updown_roots;
	const char *updown_direction;	 /* "bfs" (default) or "dfs" */
	/* minhop: the fabric's LFTs hold the previous routes (a model edited
	 * after a failure); keep every entry whose port is still a min-hop
	 * port and route only the others, least loaded first, so a failure
	 * changes only the entries it must.  Other engines route afresh. */
	bool keep_lft;
};

struct ucast_result {
	uint32_t unreachable_pairs; /* CA-to-CA pairs with no route */
	uint32_t max_hops;
	double avg_hops;
	uint32_t max_link_routes;
	int cdg_acyclic;	    /* 1 yes, 0 no, -1 not checked */
	/* updown: the roots chosen (node pointers into the fabric) */
	struct ib_node **roots;
	uint32_t n_roots;
	/* updown: per switch index, the link label order and BFS rank
	 * (rank NULL with dfs directions) the tables were built on; port
	 * groups take their candidate sets from them (routing/pgroup/pgroup.h) */
	uint32_t *updown_order, *updown_rank;
	char error[256];	    /* why route() failed, for the log */
	/* time route() spent filling the metrics above (LFT walk), which
	 * ibsmroute leaves out of its routing "seconds" */
	double verify_seconds;
};

struct ucast_engine {
	const char *name;
	/* Fills the LFTs.  0, or negative errno with res->error set. */
	int (*route)(struct fabric *f, const struct hops *h, struct pool *pool,
		     const struct ucast_params *prm, struct ucast_result *res);
};

/* NULL if unknown. */
const struct ucast_engine *ucast_engine_find(const char *name);
void ucast_result_free(struct ucast_result *res);

#endif

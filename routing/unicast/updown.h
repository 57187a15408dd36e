/* up/down routing internals shared by updown_roots.c (root choice),
 * updown_dir.c (link directions), updown_paths.c (LFTs) and updown.c (the
 * engine).  Exposed so unit tests can check each step on its own. */
#ifndef IBSM_UPDOWN_H
#define IBSM_UPDOWN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/unicast/unicast.h"

/* Roots: the configured ones (GUID strings "0x..." or node descriptions),
 * or the automatic choice described at the top of updown_roots.c.  Fills
 * res->roots / res->n_roots (switch nodes, sorted by GUID).  0, or negative
 * errno with res->error set (unknown name, not a switch, no switches). */
int updown_pick_roots(const struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, struct pool *pool,
		      const struct ucast_params *prm, struct ucast_result *res);

/* Directions.  order[s] is a label, a permutation of 0..n-1: the link
 * a-b is "up" from a iff order[b] < order[a].  A total order makes the
 * orientation acyclic by construction; updown_check_dag() proves it from
 * the links anyway.  BFS: labels by (rank from the roots, GUID); DFS:
 * roots first, then DFS visit order with Sancho-Robles heuristics.
 * Switches no root reaches become extra roots (lowest GUID first).
 * rank (optional, [n]) receives the BFS rank. */
int updown_order_bfs(const struct fabric *f, const struct sw_graph *g,
		     struct ib_node *const *roots, uint32_t n_roots,
		     uint32_t *order, uint32_t *rank);
int updown_order_dfs(const struct fabric *f, const struct sw_graph *g,
		     const struct hops *h, struct ib_node *const *roots,
		     uint32_t n_roots, uint32_t *order);
/* 0 if the "up" orientation of every switch link is acyclic, else -ELOOP. */
int updown_check_dag(const struct sw_graph *g, const uint32_t *order);

static inline bool updown_is_up(const uint32_t *order, uint32_t from,
				uint32_t to)
{
	return order[to] < order[from];
}

/* Fills every switch's LFT (LIDs 0..max_lid) with shortest legal
 * up/down next hops, least loaded among equals.  With rank (BFS ranks,
 * may be NULL), a link between switches of the same rank is only used
 * going down: that is the rule ibdmchk -u checks (it calls any move that
 * does not lower the rank "down"), so its verdict and ours agree.
 * 0 or -ENOMEM. */
int updown_fill_lfts(struct fabric *f, const struct sw_graph *g,
		     struct pool *pool, const uint32_t *order,
		     const uint32_t *rank);

/* updn-roots.dump is written by dump_write_roots() (lib/dump.h) from
 * ucast_result.roots. */

#endif

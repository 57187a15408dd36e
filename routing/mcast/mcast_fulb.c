/* FULB-MC (fast universal load-balanced multicast, FULB-MC paper §3.1):
 * root rotation — the least loaded switch (groups whose trees hold it)
 * among those with the least worst-case hop count to the members — and
 * link rotation — the tree is grown bottom-up from each member's switch
 * along min-hop next hops towards the root, taking the least loaded one,
 * and reusing the path of a switch already visited, which keeps the tree
 * loop-free and of minimal height.  One color per tree, first free on all
 * its switches; no merging.
 *
 * Reading of "least loaded next hop" (written down, the paper gives no
 * tie rule): the next hop whose link carries the least EFI; on a tie, the
 * one that can go on towards the root over the less loaded link (a switch
 * already in the tree goes on for free), then the lower port.  Ties are
 * the common case on a leaf whose uplinks were balanced by earlier groups;
 * taking the first port there (as the core's mc_build_bottom_up does
 * without `onward`) piles the groups onto the links above the first uplink:
 * on ibsmgen's TaihuLight model, 128x32x40 with 4 processes per host, max
 * EFI 182 against SSSP-MC's 128; with the tie rule, 128 (the lower bound).
 * Still local information: one more hop of link loads. */
#include <errno.h>

#include "routing/mcast/mcast_baseline.h"

/* EFI of leaving switch s through adjacency entry e. */
static inline uint32_t edge_efi(const struct mc_ctx *c, uint32_t s, uint32_t e)
{
	return c->efi[c->port_base[s] + c->adj.port[e]];
}

/* Adjacency entry of cur's least loaded min-hop next hop, MC_NONE if none. */
static uint32_t next_hop(const struct mc_ctx *c, const struct mc_scratch *s,
			 uint32_t cur, uint32_t root)
{
	const uint8_t *rrow = c->h->d + (size_t)root * c->n_sw;
	uint64_t best_cost = UINT64_MAX;
	uint32_t best = MC_NONE;

	for (uint32_t e = c->adj.off[cur]; e < c->adj.off[cur + 1]; e++) {
		uint32_t v = c->adj.peer[e];
		if (rrow[v] != rrow[cur] - 1)
			continue;
		uint32_t l1 = edge_efi(c, cur, e);
		uint32_t l2 = v == root || mc_seen(s, v)
				  ? 0
				  : mc_continue_efi(c, v, rrow);
		uint64_t cost = ((uint64_t)l1 << 32) | l2;
		if (cost < best_cost) {
			best_cost = cost;
			best = e;
		}
	}
	return best;
}

/* Walks from every member's switch towards the root, stopping at a switch
 * already visited; parent links in scratch, then materialised in t. */
static int fulb_build(struct mc_ctx *c, uint32_t root, struct mc_group *g,
		      struct mc_tree *t)
{
	struct mcb_priv *p = c->engine_priv;
	struct mc_scratch *s = mc_scratch_get(c, 0);
	int rc;

	if (mc_tree_add(t, root, MC_NONE, 0, 0) == MC_NONE)
		return -ENOMEM;
	mc_mark(s, root);
	for (uint32_t i = 0; i < g->n_members; i++) {
		uint32_t first = mc_member_sw(g->members[i]), cur = first;

		if (cur == MC_NONE)
			return -EINVAL;
		while (!mc_seen(s, cur)) {
			uint32_t e = next_hop(c, s, cur, root);
			if (e == MC_NONE)
				return -EHOSTUNREACH;
			mc_mark(s, cur);
			s->parent[cur] = c->adj.peer[e];
			s->up_port[cur] = c->adj.port[e];
			p->down[cur] = c->adj.rport[e];
			cur = c->adj.peer[e];
		}
		if ((rc = mcb_add_chain(t, first, s->parent, s->up_port,
					p->down, p->chain)) < 0 ||
		    (rc = mc_tree_add_member(t, g->members[i])) < 0)
			return rc;
	}
	return 0;
}

static int fulb_route(struct mc_ctx *c, struct mc_group *g)
{
	uint32_t root = mcb_pick_root(c, g, true, "fulb");
	struct mc_tree *t;
	int rc;

	if (root == MC_NONE)
		return -EHOSTUNREACH;
	if (!(t = mc_tree_new(c)))
		return -ENOMEM;
	rc = fulb_build(c, root, g, t);
	if (rc < 0) {
		mc_tree_free(c, t);
		return rc;
	}
	return mcb_color_commit(c, t, g, "fulb");
}

const struct mc_engine mcast_engine_fulb = {
    .name = "fulb",
    .init = mcb_init,
    .fini = mcb_fini,
    .route = fulb_route,
};

/* MINIHOP-MC as OpenSM 3.3.23 does it (osm_mcast_mgr.c): the root is the
 * first switch with the smallest worst-case hop count to the members
 * (OpenSM walks its GUID-ordered switch table and keeps the first strict
 * minimum, so: the lowest GUID among the optimal switches); the tree is
 * grown top-down, each switch sending a member on the FIRST port (lowest
 * number) that has a min-hop path to it, never balancing, which is what
 * keeps OpenSM's trees loop-free.  minhop-rr (MINIHOP-MC-new of the FULB
 * paper) takes the least loaded optimal root instead.
 *
 * Built per member: the first-port path root -> member switch is attached
 * below its deepest switch already in the tree.  Where two first-port paths
 * of one group converge on a switch (possible on tori), OpenSM's recursion
 * would give that switch two parents; attaching below the existing node
 * keeps a tree of the same (minimal) height instead. */
#include <errno.h>

#include "routing/mcast/mcast_baseline.h"

/* First edge of switch s towards switch dst that brings it one hop nearer,
 * in port order (adjacency is sorted by port).  Hop rows are symmetric, so
 * row dst gives every switch's distance to dst. */
static uint32_t first_minhop_edge(const struct mc_ctx *c, uint32_t s,
				  uint32_t dst)
{
	const uint8_t *row = c->h->d + (size_t)dst * c->n_sw;
	uint8_t want = (uint8_t)(row[s] - 1);

	for (uint32_t e = c->adj.off[s]; e < c->adj.off[s + 1]; e++)
		if (row[c->adj.peer[e]] == want)
			return e;
	return MC_NONE;
}

/* Adds the first-port path from the root to switch dst. */
static int add_path(struct mc_ctx *c, struct mc_tree *t, uint32_t dst)
{
	struct mcb_priv *p = c->engine_priv;
	uint32_t n = 0, cur = t->root, k;

	p->path[n++] = cur;
	while (cur != dst) {
		uint32_t e = first_minhop_edge(c, cur, dst);
		if (e == MC_NONE || n >= c->n_sw)
			return -EHOSTUNREACH;
		p->chain[n] = e; /* edge into path[n] */
		cur = c->adj.peer[e];
		p->path[n++] = cur;
	}
	for (k = n - 1; !mc_tree_node(t, p->path[k]); k--)
		;
	for (uint32_t j = k + 1; j < n; j++) {
		uint32_t e = p->chain[j];
		struct mc_tnode *pn = mc_tree_node(t, p->path[j - 1]);

		if (mc_tree_add(t, p->path[j], (uint32_t)(pn - t->nodes),
				c->adj.rport[e], c->adj.port[e]) == MC_NONE)
			return -ENOMEM;
	}
	return 0;
}

static int minhop_build(struct mc_ctx *c, uint32_t root, struct mc_group *g,
			struct mc_tree *t)
{
	int rc;

	if (mc_tree_add(t, root, MC_NONE, 0, 0) == MC_NONE)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n_members; i++) {
		uint32_t sw = mc_member_sw(g->members[i]);

		if (sw == MC_NONE)
			return -EINVAL;
		if ((rc = add_path(c, t, sw)) < 0 ||
		    (rc = mc_tree_add_member(t, g->members[i])) < 0)
			return rc;
	}
	return 0;
}

static int minhop_route(struct mc_ctx *c, struct mc_group *g)
{
	const char *name = c->prm.root_rotation ? "minhop-rr" : "minhop";
	uint32_t root = mcb_pick_root(c, g, c->prm.root_rotation, name);
	struct mc_tree *t;
	int rc;

	if (root == MC_NONE)
		return -EHOSTUNREACH;
	if (!(t = mc_tree_new(c)))
		return -ENOMEM;
	if ((rc = minhop_build(c, root, g, t)) < 0) {
		mc_tree_free(c, t);
		return rc;
	}
	return mcb_color_commit(c, t, g, name);
}

const struct mc_engine mcast_engine_minhop = {
    .name = "minhop",
    .init = mcb_init,
    .fini = mcb_fini,
    .route = minhop_route,
};

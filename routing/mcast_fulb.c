/* FULB-MC (fast universal load-balanced multicast, FULB-MC paper §3.1):
 * root rotation — the least loaded switch (groups whose trees hold it)
 * among those with the least worst-case hop count to the members — and
 * link rotation — the tree is grown bottom-up from each member's switch
 * along min-hop next hops towards the root, taking the least loaded link
 * on a tie and reusing the path of a switch already visited, which keeps
 * the tree loop-free and of minimal height.  The walk is the core's
 * mc_build_bottom_up (MR4LMS builds its FBTC trees the same way).  One
 * color per tree, first free on all its switches; no merging. */
#include <errno.h>

#include "routing/mcast_baseline.h"

static int fulb_route(struct mc_ctx *c, struct mc_group *g)
{
	uint32_t root = mcb_pick_root(c, g, true, "fulb");
	struct mc_tree *t;
	int rc;

	if (root == MC_NONE)
		return -EHOSTUNREACH;
	if (!(t = mc_tree_new(c)))
		return -ENOMEM;
	rc = mc_build_bottom_up(c, root, g->members, g->n_members, t);
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

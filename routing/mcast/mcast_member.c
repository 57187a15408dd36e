/* Standard groups (docs/design.md §4.1): a member added to a routed group
 * extends its tree inside the group's own color, so the MLID never changes; a
 * tree of that color met on the way is merged in (mc_vmcg_route with the
 * group's tree and root kept, old links kept whatever multicast.merge
 * says, since other groups are using them). */
#include <errno.h>
#include <stdlib.h>

#include "routing/mcast/mcast.h"

int mcast_member_add(struct mc_ctx *c, uint32_t gid, struct ib_port *m)
{
	struct mc_group *g;
	struct mc_tree *t;
	uint32_t sw = m ? mc_member_sw(m) : MC_NONE;
	int rc;

	if (gid >= c->n_groups || !c->groups[gid].live)
		return -ENOENT;
	if (sw == MC_NONE)
		return -EINVAL;
	g = &c->groups[gid];
	if ((rc = mc_group_push_member(g, m)) <= 0)
		return rc;
	if (g->tree == MC_NONE) {
		rc = c->eng->route(c, g);
	} else if (mc_tree_node(t = &c->trees[g->tree], sw)) {
		rc = mc_tree_add_member_live(c, t, m);
	} else {
		uint32_t tid = t->id;
		rc = mc_vmcg_route(c, t->color, &tid, 1, NULL, true, true);
	}
	if (rc < 0)
		g->n_members--;
	return rc;
}

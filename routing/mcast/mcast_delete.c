/* Group deletion and member removal (MR4LMS Algorithm 6): the group leaves
 * its tree, the member ports no remaining group needs are dropped, and
 * switches left without downstream members are pruned leaf first.  A tree
 * with no group left gives its color back on all its switches. */
#include "routing/mcast/mcast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint8_t down_port(const struct mc_ctx *c, const struct mc_tnode *n)
{
	return c->f->switches[n->sw]->ports[n->up_port].remote->num;
}

static bool node_has_members(const struct mc_tnode *n)
{
	for (int w = 0; w < MC_MASK_WORDS; w++)
		if (n->members[w])
			return true;
	return false;
}

/* Member ports = exactly those of t's groups. */
static void tree_reset_members(struct mc_ctx *c, struct mc_tree *t)
{
	t->msw_valid = false;
	for (uint32_t k = 0; k < t->n_nodes; k++) {
		struct mc_tnode *n = &t->nodes[k];
		for (int w = 0; w < MC_MASK_WORDS; w++) {
			n->mask[w] &= ~n->members[w];
			n->members[w] = 0;
		}
	}
	for (uint32_t i = 0; i < t->n_groups; i++) {
		const struct mc_group *g = &c->groups[t->groups[i]];
		for (uint32_t j = 0; j < g->n_members; j++)
			(void)mc_tree_add_member(t, g->members[j]);
	}
}

/* Drops switches with no member and no child, repeatedly up the tree; the
 * root stays (it is what the height is measured from).  Then compacts the
 * node array, remapping parent indexes. */
static int tree_prune(struct mc_ctx *c, struct mc_tree *t)
{
	uint32_t n = t->n_nodes, *q, *remap, head = 0, tail = 0;
	bool *gone;
	int rc = 0;

	q = malloc((n + 1) * sizeof(*q));
	remap = malloc((n + 1) * sizeof(*remap));
	gone = calloc(n + 1, sizeof(*gone));
	if (!q || !remap || !gone) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < n; k++)
		if (t->nodes[k].parent != MC_NONE && !t->nodes[k].n_children &&
		    !node_has_members(&t->nodes[k]))
			q[tail++] = k;
	while (head < tail) {
		uint32_t k = q[head++];
		struct mc_tnode *x = &t->nodes[k], *p = &t->nodes[x->parent];
		gone[k] = true;
		mc_mask_clear(p->mask, down_port(c, x));
		p->n_children--;
		if (p->parent != MC_NONE && !p->n_children && !node_has_members(p))
			q[tail++] = x->parent;
	}
	uint32_t m = 0;
	for (uint32_t k = 0; k < n; k++)
		remap[k] = gone[k] ? MC_NONE : m++;
	m = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (gone[k])
			continue;
		struct mc_tnode nd = t->nodes[k];
		if (nd.parent != MC_NONE)
			nd.parent = remap[nd.parent];
		t->nodes[m++] = nd;
	}
	t->n_nodes = m;
	t->msw_valid = false;
	memset(t->slot, 0, t->slot_cap * sizeof(*t->slot));
	for (uint32_t k = 0; k < m; k++) {
		uint32_t i = (t->nodes[k].sw * 2654435761u) & (t->slot_cap - 1);
		while (t->slot[i])
			i = (i + 1) & (t->slot_cap - 1);
		t->slot[i] = k + 1;
	}
out:
	free(q);
	free(remap);
	free(gone);
	return rc;
}

/* Takes g off its tree; frees or prunes the tree.  g keeps its members. */
int mc_group_detach(struct mc_ctx *c, struct mc_group *g)
{
	struct mc_tree *t;
	int rc;

	if (g->tree == MC_NONE)
		return 0;
	t = &c->trees[g->tree];
	mc_tree_account(c, t, -1);
	mc_tree_paint(c, t, false);
	for (uint32_t i = 0; i < t->n_groups; i++)
		if (t->groups[i] == g->id) {
			t->groups[i] = t->groups[--t->n_groups];
			break;
		}
	g->tree = MC_NONE;
	if (!t->n_groups) {
		mc_tree_free(c, t);
		return 0;
	}
	tree_reset_members(c, t);
	rc = tree_prune(c, t);
	mc_tree_finish(c, t);
	mc_tree_paint(c, t, true);
	mc_tree_account(c, t, +1);
	return rc;
}

int mcast_group_remove(struct mc_ctx *c, uint32_t gid)
{
	struct mc_group *g;
	int rc;

	if (gid >= c->n_groups || !c->groups[gid].live)
		return -ENOENT;
	g = &c->groups[gid];
	rc = mc_group_detach(c, g);
	g->live = false;
	g->n_members = 0;
	c->live_groups--;
	c->free_groups[c->n_free_groups++] = g->id;
	return rc;
}

int mcast_member_remove(struct mc_ctx *c, uint32_t gid, struct ib_port *m)
{
	struct mc_group *g;
	struct mc_tree *t;
	uint32_t i;
	int rc;

	if (gid >= c->n_groups || !c->groups[gid].live)
		return -ENOENT;
	g = &c->groups[gid];
	for (i = 0; i < g->n_members && g->members[i] != m; i++)
		;
	if (i == g->n_members)
		return -ENOENT;
	if (g->n_members == 1)
		return mcast_group_remove(c, gid);
	g->members[i] = g->members[--g->n_members];
	if (g->tree == MC_NONE)
		return 0;
	t = &c->trees[g->tree];
	mc_tree_account(c, t, -1);
	mc_tree_paint(c, t, false);
	tree_reset_members(c, t);
	rc = tree_prune(c, t);
	mc_tree_finish(c, t);
	mc_tree_paint(c, t, true);
	mc_tree_account(c, t, +1);
	return rc;
}

/* Helpers shared by the baseline multicast engines: private buffers, root
 * choice (OpenSM's first optimal switch, or root rotation), chains from a
 * parent map into a tree, and coloring that fails instead of merging. */
#include "routing/mcast_baseline.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/log.h"

int mcb_init(struct mc_ctx *c)
{
	struct mcb_priv *p = calloc(1, sizeof(*p));
	size_t n = c->n_sw + 1;

	if (!p)
		return -ENOMEM;
	c->engine_priv = p;
	p->roots = malloc(n * sizeof(*p->roots));
	p->chain = malloc(n * sizeof(*p->chain));
	p->path = malloc(n * sizeof(*p->path));
	p->down = malloc(n);
	if (!p->roots || !p->chain || !p->path || !p->down)
		return -ENOMEM; /* mcast_create calls fini on failure */
	return 0;
}

void mcb_fini(struct mc_ctx *c)
{
	struct mcb_priv *p = c->engine_priv;

	if (!p)
		return;
	free(p->roots);
	free(p->msw);
	free(p->chain);
	free(p->path);
	free(p->down);
	free(p);
	c->engine_priv = NULL;
}

const char *mcb_mgid_str(const struct mc_group *g, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, g->mgid, buf, (socklen_t)len))
		snprintf(buf, len, "(unprintable MGID)");
	return buf;
}

static uint32_t lowest_guid(const struct mc_ctx *c, const uint32_t *roots,
			    uint32_t n)
{
	uint32_t best = roots[0];

	for (uint32_t i = 1; i < n; i++)
		if (c->f->switches[roots[i]]->guid < c->f->switches[best]->guid)
			best = roots[i];
	return best;
}

uint32_t mcb_pick_root(struct mc_ctx *c, const struct mc_group *g,
		       bool rotate, const char *engine)
{
	struct mcb_priv *p = c->engine_priv;
	char buf[64];

	if (g->n_members > p->cap_msw) {
		uint32_t *nm = realloc(p->msw, g->n_members * sizeof(*nm));
		if (!nm)
			return MC_NONE;
		p->msw = nm;
		p->cap_msw = g->n_members;
	}
	uint32_t nm = mc_member_switches(c, g->members, g->n_members, p->msw);
	uint32_t nr = mc_optimal_roots(c, p->msw, nm, p->roots, NULL);

	if (!nr) {
		log_err("%s: group %s: no switch reaches all %u members; group "
			"not routed", engine, mcb_mgid_str(g, buf, sizeof(buf)),
			g->n_members);
		return MC_NONE;
	}
	return rotate ? p->roots[0] : lowest_guid(c, p->roots, nr);
}

int mcb_add_chain(struct mc_tree *t, uint32_t sw, const uint32_t *parent,
		  const uint8_t *up_port, const uint8_t *down, uint32_t *chain)
{
	uint32_t n = 0, cur = sw;

	while (!mc_tree_node(t, cur)) {
		chain[n++] = cur;
		cur = parent[cur];
		if (cur == MC_NONE)
			return -EINVAL; /* the chain must end in the tree */
	}
	while (n--) {
		uint32_t x = chain[n];
		struct mc_tnode *pn = mc_tree_node(t, parent[x]);

		if (mc_tree_add(t, x, (uint32_t)(pn - t->nodes), up_port[x],
				down[x]) == MC_NONE)
			return -ENOMEM;
	}
	return 0;
}

int mcb_color_commit(struct mc_ctx *c, struct mc_tree *t, struct mc_group *g,
		     const char *engine)
{
	uint32_t col = mc_color_first_free(c, t);
	char buf[64];
	int rc;

	if (col == MC_NONE) {
		log_err("%s: group %s: all %u colors (MFT entries) are taken on "
			"some switch of its %u-switch tree rooted at 0x%016" PRIx64
			"; group not routed (baseline engines do not merge "
			"groups, use mr4lms or a larger multicast.mft_size)",
			engine, mcb_mgid_str(g, buf, sizeof(buf)), c->color_limit,
			t->n_nodes, c->f->switches[t->root]->guid);
		mc_tree_free(c, t);
		return -ENOSPC;
	}
	if ((rc = mc_tree_commit(c, t, col, g)) < 0)
		mc_tree_free(c, t);
	return rc;
}

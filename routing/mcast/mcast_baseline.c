/* Helpers shared by the baseline multicast engines: private buffers, root
 * choice (OpenSM's first optimal switch, or root rotation), chains from a
 * parent map into a tree, and coloring that fails instead of merging. */
#include "routing/mcast/mcast_baseline.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/log.h"

int mcb_init(struct mc_ctx *c)
{
	struct mcb_priv *p = calloc(1, sizeof(*p));
	size_t n = c->n_sw + 1;

	if (!p)
		return -ENOMEM;
	c->engine_priv = p;
	p->chain = malloc(n * sizeof(*p->chain));
	p->path = malloc(n * sizeof(*p->path));
	p->down = malloc(n);
	p->worst = malloc(n + 16);
	if (!p->chain || !p->path || !p->down || !p->worst)
		return -ENOMEM; /* mcast_create calls fini on failure */
	return 0;
}

void mcb_fini(struct mc_ctx *c)
{
	struct mcb_priv *p = c->engine_priv;

	if (!p)
		return;
	free(p->msw);
	free(p->chain);
	free(p->path);
	free(p->down);
	free(p->worst);
	free(p);
	c->engine_priv = NULL;
}

const char *mcb_mgid_str(const struct mc_group *g, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, g->mgid, buf, (socklen_t)len))
		snprintf(buf, len, "(unprintable MGID)");
	return buf;
}

/* worst[s] = max over the member switches of hops(s, m).  Hop rows are
 * symmetric, so row m is every switch's distance to m: a byte-wise max over
 * contiguous rows, 16 bytes at a time where SSE2 exists (x86-64 always);
 * GCC does not vectorise the plain loop at -O2.  Returns the minimum. */
static uint8_t worst_hops(const struct mc_ctx *c, const uint32_t *msw,
			  uint32_t nm, uint8_t *worst)
{
	uint32_t n = c->n_sw, s = 0;
	uint8_t best = HOPS_INF;

	memcpy(worst, c->h->d + (size_t)msw[0] * n, n);
	for (uint32_t i = 1; i < nm; i++) {
		const uint8_t *row = c->h->d + (size_t)msw[i] * n;

		s = 0;
#ifdef __SSE2__
		for (; s + 16 <= n; s += 16) {
			__m128i a =
			    _mm_loadu_si128((const __m128i *)(worst + s));
			__m128i b = _mm_loadu_si128((const __m128i *)(row + s));
			_mm_storeu_si128((__m128i *)(worst + s),
					 _mm_max_epu8(a, b));
		}
#endif
		for (; s < n; s++)
			worst[s] = worst[s] > row[s] ? worst[s] : row[s];
	}
	for (s = 0; s < n; s++)
		best = worst[s] < best ? worst[s] : best;
	return best;
}

/* Among the switches whose worst case equals best: rotate = least sw_load,
 * then lowest index (the order mc_optimal_roots sorts by); else the lowest
 * node GUID.  One pass, no sort: only the first candidate is ever used. */
static uint32_t choose_root(const struct mc_ctx *c, const uint8_t *worst,
			    uint8_t best, bool rotate)
{
	uint32_t pick = MC_NONE;

	for (uint32_t s = 0; s < c->n_sw; s++) {
		if (worst[s] != best)
			continue;
		if (pick == MC_NONE ||
		    (rotate ? c->sw_load[s] < c->sw_load[pick]
			    : c->f->switches[s]->guid <
				  c->f->switches[pick]->guid))
			pick = s;
	}
	return pick;
}

uint32_t mcb_pick_root(struct mc_ctx *c, const struct mc_group *g, bool rotate,
		       const char *engine)
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
	uint8_t best = nm ? worst_hops(c, p->msw, nm, p->worst) : HOPS_INF;

	if (best == HOPS_INF) {
		log_err("%s: group %s: no switch reaches all %u members; group "
			"not routed",
			engine, mcb_mgid_str(g, buf, sizeof(buf)),
			g->n_members);
		return MC_NONE;
	}
	return choose_root(c, p->worst, best, rotate);
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
		log_err(
		    "%s: group %s: all %u colors (MFT entries) are taken on "
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

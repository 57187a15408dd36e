/* VL-aware channel-dependency check: see verify.h.  Channels are the
 * directed switch-to-switch links, numbered per (switch, out port); a
 * vertex is channel * 16 + VL.  Edges are collected per destination LID
 * into one array, sorted and deduplicated, then Kahn's algorithm peels
 * vertices of in-degree 0: what remains lies on or behind a cycle. */
#include "routing/verify/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVL 16
#define NSL 16

struct vl_graph {
	const struct fabric *f;
	uint32_t *base;	 /* [n_switches + 1]: channel id = base[s] + port - 1 */
	uint64_t *edges; /* from << 32 | to */
	size_t n, cap;
};

static uint32_t chan(const struct vl_graph *g, const struct ib_node *sw,
		     unsigned port)
{
	return g->base[sw->sw_idx] + port - 1;
}

static int add_edge(struct vl_graph *g, uint32_t from, uint32_t to)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 4096;
		uint64_t *v = realloc(g->edges, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		g->edges = v;
		g->cap = cap;
	}
	g->edges[g->n++] = (uint64_t)from << 32 | to;
	return 0;
}

static uint8_t out_port(const struct ib_node *sw, uint16_t lid)
{
	return lid < sw->lft_size ? sw->lft[lid] : LFT_NO_PORT;
}

/* The port of switch b that traffic to lid leaves by, if it goes on to
 * another switch. */
static bool switch_hop(const struct ib_node *b, uint16_t lid, uint8_t *pb)
{
	*pb = out_port(b, lid);
	return *pb != LFT_NO_PORT && *pb != 0 && *pb <= b->nports &&
	       b->ports[*pb].remote &&
	       node_is_switch(b->ports[*pb].remote->node);
}

/* Whether packets to lid reach switch a through its port in: the switch
 * itself (port 0), a CA behind the port (a source), or a switch behind it
 * that routes lid to a. */
static bool feeds(const struct ib_node *a, unsigned in, uint16_t lid)
{
	const struct ib_port *rp = in ? a->ports[in].remote : NULL;

	if (!in)
		return true;
	if (!rp)
		return false;
	return !node_is_switch(rp->node) || out_port(rp->node, lid) == rp->num;
}

/* Dependencies through switch b for lid: from every switch a whose route
 * to lid enters b on port in, to b's out channel, for every SL and every
 * VL a's tables give that SL on a->b (from each input port that carries
 * packets to lid into a). */
static int deps_at(struct vl_graph *g, cdg_sl2vl_fn fn, void *ctx,
		   const struct ib_node *b, uint16_t lid)
{
	uint8_t pb, pa, scratch;
	int rc = 0;

	if (!switch_hop(b, lid, &pb))
		return 0;
	for (unsigned in = 1; in <= b->nports && rc == 0; in++) {
		const struct ib_port *rp = b->ports[in].remote;
		const struct ib_node *a = rp ? rp->node : NULL;
		if (!a || !node_is_switch(a) || out_port(a, lid) != rp->num ||
		    !switch_hop(a, lid, &scratch))
			continue;
		pa = rp->num;
		for (unsigned sl = 0; sl < NSL && rc == 0; sl++) {
			uint8_t w = fn(ctx, b, (uint8_t)in, pb, (uint8_t)sl);
			for (unsigned ain = 0; ain <= a->nports && rc == 0;
			     ain++) {
				if (ain == pa || !feeds(a, ain, lid))
					continue;
				uint8_t v =
				    fn(ctx, a, (uint8_t)ain, pa, (uint8_t)sl);
				rc =
				    add_edge(g, chan(g, a, pa) * NVL + (v & 15),
					     chan(g, b, pb) * NVL + (w & 15));
			}
		}
	}
	return rc;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Kahn's algorithm over the sorted, deduplicated edges; 1 acyclic. */
static int acyclic(struct vl_graph *g, uint32_t nv, uint32_t *stuck)
{
	uint32_t *indeg = calloc(nv, sizeof(*indeg)), *first = NULL;
	uint32_t *queue = NULL, head = 0, tail = 0, done = 0;
	int r = -ENOMEM;

	first = calloc(nv + 1u, sizeof(*first));
	queue = malloc(nv * sizeof(*queue));
	if (!indeg || !first || !queue)
		goto out;
	for (size_t i = 0; i < g->n; i++) {
		indeg[(uint32_t)g->edges[i]]++;
		first[(g->edges[i] >> 32) + 1]++;
	}
	for (uint32_t v = 0; v < nv; v++) {
		first[v + 1] += first[v];
		if (!indeg[v])
			queue[tail++] = v;
	}
	while (head < tail) {
		uint32_t v = queue[head++];
		done++;
		for (uint32_t e = first[v]; e < first[v + 1]; e++)
			if (--indeg[(uint32_t)g->edges[e]] == 0)
				queue[tail++] = (uint32_t)g->edges[e];
	}
	for (uint32_t v = 0; v < nv && done < nv; v++)
		if (indeg[v]) {
			*stuck = v;
			break;
		}
	r = done == nv;
out:
	free(indeg);
	free(first);
	free(queue);
	return r;
}

static void name_vertex(const struct vl_graph *g, uint32_t v, char *why,
			size_t len)
{
	uint32_t c = v / NVL, s = 0;

	while (s + 1 < g->f->n_switches && g->base[s + 1] <= c)
		s++;
	snprintf(why, len,
		 "a cycle of buffers through switch %s port %u, "
		 "VL %u",
		 g->f->switches[s]->desc, c - g->base[s] + 1, v % NVL);
}

int cdg_check_vl(const struct fabric *f, cdg_sl2vl_fn fn, void *ctx, char *why,
		 size_t whylen)
{
	struct vl_graph g = {.f = f};
	uint32_t stuck = 0, nv;
	size_t k = 0;
	int rc = 0;

	if (!(g.base = calloc(f->n_switches + 1u, sizeof(*g.base))))
		return -ENOMEM;
	for (uint32_t s = 0; s < f->n_switches; s++)
		g.base[s + 1] = g.base[s] + f->switches[s]->nports;
	nv = g.base[f->n_switches] * NVL;
	for (uint32_t lid = 1; lid <= f->max_lid && rc == 0; lid++)
		if (fabric_port_by_lid(f, (uint16_t)lid))
			for (uint32_t s = 0; s < f->n_switches && rc == 0; s++)
				rc = deps_at(&g, fn, ctx, f->switches[s],
					     (uint16_t)lid);
	if (rc == 0 && g.n) {
		qsort(g.edges, g.n, sizeof(*g.edges), cmp_u64);
		for (size_t i = 0; i < g.n; i++)
			if (!k || g.edges[i] != g.edges[k - 1])
				g.edges[k++] = g.edges[i];
		g.n = k;
	}
	if (rc == 0 && (rc = acyclic(&g, nv, &stuck)) == 0)
		name_vertex(&g, stuck, why, whylen);
	else if (rc == 1 && whylen)
		why[0] = '\0';
	free(g.base);
	free(g.edges);
	return rc;
}

/* Shared tree-building helpers: per-worker scratch, member switches,
 * worst-case hop rows (root candidates), and the bottom-up build along
 * min-hop next hops (FULB-MC §3.1, MR4LMS Algorithm 2). */
#include "routing/mcast/mcast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct mc_scratch *mc_scratch_get(struct mc_ctx *c, unsigned worker)
{
	struct mc_scratch *s = &c->scr[worker < c->n_scr ? worker : 0];

	if (++s->gen == 0) { /* wrapped: clear once every 4G uses */
		memset(s->stamp, 0, c->n_sw * sizeof(*s->stamp));
		/* key[] is cleared with the stamps it goes with */
		memset(s->key, 0, c->n_sw * sizeof(*s->key));
		s->gen = 1;
	}
	return s;
}

uint32_t mc_member_switches(const struct mc_ctx *c, struct ib_port *const *m,
			    uint32_t n, uint32_t *out)
{
	struct mc_scratch *s = mc_scratch_get((struct mc_ctx *)c, 0);
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t sw = mc_member_sw(m[i]);
		if (sw == MC_NONE || mc_seen(s, sw))
			continue;
		mc_mark(s, sw);
		out[k++] = sw;
	}
	return k;
}

/* Hop rows are symmetric (BFS over undirected links), so row m of the hop
 * table is "distance from every switch to m": the worst case over members
 * is a byte-wise max over contiguous rows, done 16 bytes at a time with
 * GCC vector extensions (-O2 does not vectorise it: the rows may alias). */
typedef uint8_t mc_v16 __attribute__((vector_size(16)));

void mc_row_max(uint8_t *restrict acc, const uint8_t *restrict row, uint32_t n)
{
	uint32_t s = 0;

	for (; s + 16 <= n; s += 16) {
		mc_v16 a, b;
		memcpy(&a, acc + s, 16);
		memcpy(&b, row + s, 16);
		mc_v16 m = (mc_v16)(a > b);
		a = (a & m) | (b & ~m);
		memcpy(acc + s, &a, 16);
	}
	for (; s < n; s++)
		acc[s] = acc[s] > row[s] ? acc[s] : row[s];
}

void mc_row_min(uint8_t *restrict acc, const uint8_t *restrict row, uint32_t n)
{
	uint32_t s = 0;

	for (; s + 16 <= n; s += 16) {
		mc_v16 a, b;
		memcpy(&a, acc + s, 16);
		memcpy(&b, row + s, 16);
		mc_v16 m = (mc_v16)(a < b);
		a = (a & m) | (b & ~m);
		memcpy(acc + s, &a, 16);
	}
	for (; s < n; s++)
		acc[s] = acc[s] < row[s] ? acc[s] : row[s];
}

uint8_t mc_worst_hops(struct mc_ctx *c, const uint32_t *msw, uint32_t nm,
		      uint8_t *worst)
{
	uint32_t n = c->n_sw;
	uint8_t best = HOPS_INF;

	memset(worst, 0, n);
	for (uint32_t i = 0; i < nm; i++)
		mc_row_max(worst, c->h->d + (size_t)msw[i] * n, n);
	for (uint32_t s = 0; s < n; s++)
		if (worst[s] < best)
			best = worst[s];
	return best;
}

static const struct mc_ctx *sort_ctx;

static int root_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t lx = sort_ctx->sw_load[x], ly = sort_ctx->sw_load[y];

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x < y ? -1 : x > y;
}

uint32_t mc_optimal_roots(struct mc_ctx *c, const uint32_t *msw, uint32_t nm,
			  uint32_t *roots, uint8_t *best)
{
	struct mc_scratch *s = &c->scr[0];
	uint8_t b = mc_worst_hops(c, msw, nm, s->bytes);
	uint32_t k = 0;

	if (best)
		*best = b;
	if (b == HOPS_INF)
		return 0;
	for (uint32_t i = 0; i < c->n_sw; i++)
		if (s->bytes[i] == b)
			roots[k++] = i;
	sort_ctx = c; /* the event loop thread only */
	qsort(roots, k, sizeof(*roots), root_cmp);
	return k;
}

/* Materialises the switches visited by the bottom-up walk (parent links in
 * scratch) into t: each chain is added from its first ancestor already in
 * the tree downwards, so parents always precede children. */
int mc_materialise(struct mc_scratch *s, struct mc_tree *t, uint32_t sw,
		   uint32_t *chain)
{
	uint32_t n = 0, cur = sw;

	while (!mc_tree_node(t, cur)) {
		chain[n++] = cur;
		cur = s->parent[cur];
	}
	while (n--) {
		uint32_t x = chain[n], p = s->parent[x];
		struct mc_tnode *pn = mc_tree_node(t, p);
		uint32_t pk = (uint32_t)(pn - t->nodes);
		if (mc_tree_add(t, x, pk, s->up_port[x], s->dport[x]) ==
		    MC_NONE)
			return -ENOMEM;
	}
	return 0;
}

/* Least EFI with which switch v goes on one hop nearer the root (row
 * rrow of the hop table), 0 if v is the root. */
uint32_t mc_continue_efi(const struct mc_ctx *c, uint32_t v,
			 const uint8_t *rrow)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t e = c->adj.off[v]; e < c->adj.off[v + 1]; e++)
		if (rrow[c->adj.peer[e]] == rrow[v] - 1 &&
		    c->efi[c->port_base[v] + c->adj.port[e]] < best)
			best = c->efi[c->port_base[v] + c->adj.port[e]];
	return best == UINT32_MAX ? 0 : best;
}

/* Next hop of cur towards root: the neighbour one hop nearer the root whose
 * link carries the least EFI; on a tie, the one that goes on towards the
 * root over the less loaded link (a switch already visited goes on for
 * free: FULB's tie rule, mcast_fulb.c), then the first port.  With a
 * color, neighbours usable in G_color (free, or held by a tree marked
 * `mark`) go first, then neighbours whose tree of that color carries
 * fewer groups. */
static uint32_t next_hop(struct mc_ctx *c, struct mc_scratch *s, uint32_t cur,
			 uint32_t root, uint32_t color, uint32_t mark,
			 bool onward, uint8_t *port, uint8_t *rport)
{
	const uint8_t *rrow = c->h->d + (size_t)root * c->n_sw;
	uint8_t want = (uint8_t)(rrow[cur] - 1);
	uint32_t best = MC_NONE, bpen = UINT32_MAX;
	uint64_t bload = UINT64_MAX;

	for (uint32_t e = c->adj.off[cur]; e < c->adj.off[cur + 1]; e++) {
		uint32_t v = c->adj.peer[e], pen = 0;
		if (rrow[v] != want)
			continue;
		if (color != MC_NONE && !mc_gc_usable(c, color, mark, v))
			pen =
			    1 + c->trees[mc_color_owner(c, v, color)].n_groups;
		if (pen > bpen)
			continue;
		uint64_t load =
		    (uint64_t)c->efi[c->port_base[cur] + c->adj.port[e]] << 32;
		if (onward && v != root && !mc_seen(s, v))
			load |= mc_continue_efi(c, v, rrow);
		if (pen < bpen || load < bload) {
			bpen = pen;
			bload = load;
			best = e;
		}
	}
	if (best == MC_NONE)
		return MC_NONE;
	*port = c->adj.port[best];
	*rport = c->adj.rport[best];
	return c->adj.peer[best];
}

static int build(struct mc_ctx *c, uint32_t root, uint32_t color, uint32_t mark,
		 bool onward, struct ib_port *const *m, uint32_t n,
		 struct mc_tree *t)
{
	struct mc_scratch *s = mc_scratch_get(c, 0);
	int rc;

	if (mc_tree_add(t, root, MC_NONE, 0, 0) == MC_NONE)
		return -ENOMEM;
	mc_mark(s, root);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t cur = mc_member_sw(m[i]);
		if (cur == MC_NONE)
			return -EINVAL;
		uint32_t first = cur;
		while (!mc_seen(s, cur)) {
			uint8_t p, rp;
			uint32_t nx = next_hop(c, s, cur, root, color, mark,
					       onward, &p, &rp);
			if (nx == MC_NONE)
				return -EHOSTUNREACH;
			mc_mark(s, cur);
			s->parent[cur] = nx;
			s->up_port[cur] = p;
			s->dport[cur] = rp; /* parent's down port */
			cur = nx;
		}
		if ((rc = mc_materialise(s, t, first, s->queue)) < 0)
			return rc;
		if ((rc = mc_tree_add_member(t, m[i])) < 0)
			return rc;
	}
	return 0;
}

int mc_build_bottom_up(struct mc_ctx *c, uint32_t root,
		       struct ib_port *const *m, uint32_t n, bool onward,
		       struct mc_tree *t)
{
	return build(c, root, MC_NONE, 0, onward, m, n, t);
}

int mc_build_bottom_up_in(struct mc_ctx *c, uint32_t root, uint32_t color,
			  uint32_t mark, struct ib_port *const *m, uint32_t n,
			  struct mc_tree *t)
{
	return build(c, root, color, mark, true, m, n, t);
}

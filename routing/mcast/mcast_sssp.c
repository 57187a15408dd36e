/* SSSP-MC (OpenSM's dfsssp multicast, as the FULB-MC paper §2.2 describes
 * it): from the root (OpenSM's first optimal switch, or the least loaded
 * one for sssp-rr, SSSP-MC-new) Dijkstra over ALL switches, whatever the
 * group size — which is the cost the papers contrast FULB and MR4LMS with —
 * and the group's tree is the union of the shortest paths to its member
 * switches.  Link weight = 2^32 per hop + the groups already on the link,
 * so path length always dominates (trees keep minimal height) and load
 * only breaks ties; the key is 64-bit so no realistic load can overflow
 * into the hop count.  One color per tree; no merging. */
#include <errno.h>

#include "routing/mcast/mcast_baseline.h"

#define SSSP_HOP (1ull << 32)

/* Binary min-heap over switch indexes keyed by s->key, positions in hpos;
 * equal keys pop in switch-index order so ties break like a port scan. */
struct heap {
	struct mc_scratch *s;
	uint32_t n;
};

static void heap_swap(struct heap *h, uint32_t i, uint32_t j)
{
	uint32_t a = h->s->heap[i], b = h->s->heap[j];

	h->s->heap[i] = b;
	h->s->heap[j] = a;
	h->s->hpos[b] = i;
	h->s->hpos[a] = j;
}

static bool heap_less(const struct heap *h, uint32_t i, uint32_t j)
{
	uint32_t a = h->s->heap[i], b = h->s->heap[j];
	uint64_t ka = h->s->key[a], kb = h->s->key[b];

	return ka < kb || (ka == kb && a < b);
}

static void heap_up(struct heap *h, uint32_t i)
{
	while (i && heap_less(h, i, (i - 1) / 2)) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(struct heap *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && heap_less(h, l, m))
			m = l;
		if (r < h->n && heap_less(h, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static uint32_t heap_pop(struct heap *h)
{
	uint32_t top = h->s->heap[0];

	h->n--;
	if (h->n) {
		heap_swap(h, 0, h->n);
		heap_down(h, 0);
	}
	h->s->hpos[top] = MC_NONE;
	return top;
}

/* Settles every switch; s->parent/up_port and down[] describe the tree.
 * stamp marks switches that entered the heap. */
static void dijkstra(struct mc_ctx *c, struct mc_scratch *s, uint32_t root,
		     uint8_t *down)
{
	struct heap h = {s, 0};

	s->key[root] = 0;
	s->parent[root] = MC_NONE;
	mc_mark(s, root);
	s->heap[h.n] = root;
	s->hpos[root] = h.n++;
	while (h.n) {
		uint32_t u = heap_pop(&h);
		uint32_t base = c->port_base[u];

		for (uint32_t e = c->adj.off[u]; e < c->adj.off[u + 1]; e++) {
			uint32_t v = c->adj.peer[e];
			uint64_t k = s->key[u] + SSSP_HOP +
				     c->efi[base + c->adj.port[e]];

			if (!mc_seen(s, v)) {
				mc_mark(s, v);
				s->key[v] = UINT64_MAX;
				s->hpos[v] = h.n;
				s->heap[h.n++] = v;
			} else if (s->hpos[v] == MC_NONE || k >= s->key[v]) {
				continue; /* settled, or no better */
			}
			s->key[v] = k;
			s->parent[v] = u;
			s->up_port[v] = c->adj.rport[e];
			down[v] = c->adj.port[e];
			heap_up(&h, s->hpos[v]);
		}
	}
}

static int sssp_route(struct mc_ctx *c, struct mc_group *g)
{
	const char *name = c->prm.root_rotation ? "sssp-rr" : "sssp";
	struct mcb_priv *p = c->engine_priv;
	uint32_t root = mcb_pick_root(c, g, c->prm.root_rotation, name);
	struct mc_scratch *s;
	struct mc_tree *t;
	int rc = 0;

	if (root == MC_NONE)
		return -EHOSTUNREACH;
	s = mc_scratch_get(c, 0);
	dijkstra(c, s, root, p->down);
	if (!(t = mc_tree_new(c)))
		return -ENOMEM;
	if (mc_tree_add(t, root, MC_NONE, 0, 0) == MC_NONE)
		rc = -ENOMEM;
	for (uint32_t i = 0; !rc && i < g->n_members; i++) {
		uint32_t sw = mc_member_sw(g->members[i]);

		rc = sw == MC_NONE || !mc_seen(s, sw)
			 ? -EHOSTUNREACH
			 : mcb_add_chain(t, sw, s->parent, s->up_port, p->down,
					 p->chain);
		if (!rc)
			rc = mc_tree_add_member(t, g->members[i]);
	}
	if (rc < 0) {
		mc_tree_free(c, t);
		return rc;
	}
	return mcb_color_commit(c, t, g, name);
}

const struct mc_engine mcast_engine_sssp = {
    .name = "sssp",
    .init = mcb_init,
    .fini = mcb_fini,
    .route = sssp_route,
};

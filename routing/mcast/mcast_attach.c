/* Incremental "extend" build of a virtual group's tree (MR4LMS §3.3.2,
 * strategy 2: keep the old trees and add branches).  The biggest old tree
 * is copied as it is; every other old tree of the vMcg is joined to it
 * whole by the shortest path in G_color from any of its switches, and
 * every member switch still outside by the shortest path from it; among
 * shortest paths the one with the least EFI summed over its links (a
 * first-found path would pile every join onto the first ports).  Only
 * the region between the pieces is searched, so joining a group to a
 * large merged tree costs what the new branch costs, not the tree's size.
 * A piece that cannot be reached without crossing a piece not yet joined
 * waits for the next round; if a round joins nothing the caller falls
 * back to the Dijkstra build of Algorithm 5 (mc_gc_build). */
#include "routing/mcast/mcast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct attach {
	struct mc_ctx *c;
	struct mc_scratch *s;
	uint32_t color, mark;
	struct mc_tree *t;	/* being built */
};

/* May the search step onto switch v?  Usable in G_color, and not a
 * switch of an old tree other than `self` that is not joined yet. */
static bool passable(const struct attach *a, uint32_t v, uint32_t self)
{
	uint32_t o = mc_color_owner(a->c, v, a->color);

	if (o == MC_NONE)
		return true;
	if (a->c->trees[o].mark != a->mark)
		return false;
	return o == self || mc_tree_node(a->t, v) != NULL;
}

/* Adds the search's chain from built switch x down to its source: x's
 * search parent first, under x, then each parent's parent. */
static int add_chain(struct attach *a, uint32_t x)
{
	struct mc_scratch *s = a->s;
	uint32_t pk = (uint32_t)(mc_tree_node(a->t, x) - a->t->nodes);

	for (uint32_t u = x; pk != MC_NONE && s->parent[u] != MC_NONE;
	     u = s->parent[u])
		pk = mc_tree_add(a->t, s->parent[u], pk, s->up_port[u], s->dport[u]);
	return pk == MC_NONE ? -ENOMEM : 0;
}

/* Pops the least key of the search heap (hn entries). */
static uint32_t heap_pop(struct mc_scratch *s, uint32_t *hn)
{
	uint32_t u = s->heap[0];

	s->heap[0] = s->heap[--*hn];
	s->hpos[s->heap[0]] = 0;
	if (*hn)
		mc_heap_down(s, 0, *hn);
	return u;
}

/* Relaxes the link from u through adjacency entry e: its weight is a hop
 * (MC_LINK_WEIGHT_BASE) plus the link's EFI, so the join takes a shortest
 * path and, among those, the least loaded one. */
static void relax(struct attach *a, uint32_t u, uint32_t e, uint32_t self,
		  uint32_t *hn)
{
	struct mc_ctx *c = a->c;
	struct mc_scratch *s = a->s;
	uint32_t v = c->adj.peer[e];
	uint64_t k = s->key[u] + MC_LINK_WEIGHT_BASE +
		     c->efi[c->port_base[u] + c->adj.port[e]];

	if ((mc_seen(s, v) && s->key[v] >> 63) || !passable(a, v, self))
		return; /* settled, or not usable */
	if (!mc_seen(s, v)) {
		mc_mark(s, v);
		s->key[v] = k;
		s->heap[*hn] = v;
		mc_heap_up(s, (*hn)++);
	} else if (k < s->key[v]) {
		s->key[v] = k;
		mc_heap_up(s, s->hpos[v]);
	} else {
		return;
	}
	s->parent[v] = u;
	s->up_port[v] = c->adj.port[e];	 /* the parent's port towards v */
	s->dport[v] = c->adj.rport[e];	 /* v's port towards the parent */
}

/* Search from the sources queued in s->queue[0..n) (already marked,
 * parent MC_NONE) until a built switch is settled; adds the path.
 * 1 joined, 0 not reachable now, -errno.  A settled switch has the top
 * bit of its key set. */
static int join_from(struct attach *a, uint32_t n, uint32_t self,
		     uint32_t *src_end)
{
	struct mc_ctx *c = a->c;
	struct mc_scratch *s = a->s;
	uint32_t hn = 0;

	for (uint32_t i = 0; i < n; i++) {
		s->key[s->queue[i]] = 0;
		s->heap[hn] = s->queue[i];
		mc_heap_up(s, hn++);
	}
	while (hn) {
		uint32_t u = heap_pop(s, &hn);
		s->key[u] |= 1ull << 63;
		if (s->parent[u] != MC_NONE && mc_tree_node(a->t, u)) {
			uint32_t x = u;
			while (s->parent[x] != MC_NONE)
				x = s->parent[x];
			*src_end = x;
			return add_chain(a, u) < 0 ? -ENOMEM : 1;
		}
		for (uint32_t e = c->adj.off[u]; e < c->adj.off[u + 1]; e++)
			relax(a, u, e, self, &hn);
	}
	return 0;
}

/* Adds old tree o, already reached at switch y (now in the tree), along
 * its own links, with its member ports. */
static int add_old_tree(struct attach *a, const struct mc_tree *o, uint32_t y)
{
	struct mc_ctx *c = a->c;
	uint32_t *q = a->s->queue, head = 0, tail = 0;

	q[tail++] = y;
	while (head < tail) {
		uint32_t u = q[head++];
		const struct mc_tnode *on = mc_tree_node(o, u);
		struct mc_tnode *nn = mc_tree_node(a->t, u);
		for (int w = 0; w < MC_MASK_WORDS; w++) {
			nn->members[w] |= on->members[w];
			nn->mask[w] |= on->members[w];
		}
		for (uint32_t e = c->adj.off[u]; e < c->adj.off[u + 1]; e++) {
			uint32_t v = c->adj.peer[e];
			if (!mc_mask_test(on->mask, c->adj.port[e]) ||
			    !mc_tree_node(o, v) || mc_tree_node(a->t, v))
				continue;
			uint32_t pk = (uint32_t)(mc_tree_node(a->t, u) - a->t->nodes);
			if (mc_tree_add(a->t, v, pk, c->adj.rport[e], c->adj.port[e]) == MC_NONE)
				return -ENOMEM;
			q[tail++] = v;
		}
	}
	a->t->msw_valid = false;
	return 0;
}

/* Joins old tree o (not built yet).  1 joined, 0 not now, -errno. */
static int join_tree(struct attach *a, const struct mc_tree *o)
{
	struct mc_scratch *s = mc_scratch_get(a->c, 0);
	uint32_t end = MC_NONE;
	int rc;

	a->s = s;
	for (uint32_t k = 0; k < o->n_nodes; k++) {
		uint32_t sw = o->nodes[k].sw;
		mc_mark(s, sw);
		s->parent[sw] = MC_NONE;
		s->queue[k] = sw;
	}
	if ((rc = join_from(a, o->n_nodes, o->id, &end)) <= 0)
		return rc;
	/* the chain ends at a switch of o: o joins from there */
	return add_old_tree(a, o, end) < 0 ? -ENOMEM : 1;
}

/* Joins member port m.  1 joined, 0 not now, -errno. */
static int join_member(struct attach *a, struct ib_port *m)
{
	uint32_t sw = mc_member_sw(m), end;
	int rc;

	if (!mc_tree_node(a->t, sw)) {
		if (!passable(a, sw, MC_NONE))
			return 0;
		a->s = mc_scratch_get(a->c, 0);
		mc_mark(a->s, sw);
		a->s->parent[sw] = MC_NONE;
		a->s->queue[0] = sw;
		if ((rc = join_from(a, 1, MC_NONE, &end)) <= 0)
			return rc;
	}
	return mc_tree_add_member(a->t, m) < 0 ? -EINVAL : 1;
}

static int copy_tree(struct mc_tree *dst, const struct mc_tree *src)
{
	dst->nodes = malloc(src->n_nodes * sizeof(*dst->nodes));
	dst->slot = malloc(src->slot_cap * sizeof(*dst->slot));
	if (!dst->nodes || !dst->slot)
		return -ENOMEM;
	memcpy(dst->nodes, src->nodes, src->n_nodes * sizeof(*dst->nodes));
	memcpy(dst->slot, src->slot, src->slot_cap * sizeof(*dst->slot));
	dst->n_nodes = dst->cap_nodes = src->n_nodes;
	dst->slot_cap = src->slot_cap;
	dst->root = src->root;
	return 0;
}

int mc_attach_build(struct mc_ctx *c, uint32_t color, uint32_t mark,
		    const uint32_t *trees, uint32_t nt,
		    struct ib_port *const *m, uint32_t nm, struct mc_tree *t)
{
	struct attach a = { .c = c, .color = color, .mark = mark, .t = t };
	uint32_t base = 0, left, done_m = 0;
	bool *joined = calloc(nt + 1, sizeof(bool));
	int rc = 0;

	if (!joined || !nt)
		return joined ? (free(joined), -EINVAL) : -ENOMEM;
	for (uint32_t i = 1; i < nt; i++)
		if (c->trees[trees[i]].n_nodes > c->trees[trees[base]].n_nodes)
			base = i;
	if ((rc = copy_tree(t, &c->trees[trees[base]])) < 0)
		goto out;
	joined[base] = true;
	left = nt - 1;
	while (left && rc >= 0) {
		uint32_t progress = 0;
		for (uint32_t i = 0; i < nt && rc >= 0; i++) {
			if (joined[i] || (rc = join_tree(&a, &c->trees[trees[i]])) <= 0)
				continue;
			joined[i] = true;
			left--;
			progress++;
		}
		if (!progress && rc >= 0)
			rc = -EAGAIN;
	}
	/* Members: a member already on a joined switch only needs its port. */
	bool *mdone = rc >= 0 ? calloc(nm + 1, sizeof(bool)) : NULL;
	if (rc >= 0 && !mdone)
		rc = -ENOMEM;
	while (rc >= 0 && done_m < nm) {
		uint32_t progress = 0;
		for (uint32_t i = 0; i < nm && rc >= 0; i++) {
			if (mdone[i] || (rc = join_member(&a, m[i])) <= 0)
				continue;
			mdone[i] = true;
			done_m++;
			progress++;
		}
		if (!progress && rc >= 0)
			rc = -EAGAIN;
	}
	free(mdone);
out:
	free(joined);
	return rc < 0 ? rc : 0;
}

/* Choosing one switch's port groups when it has more distinct candidate
 * sets than groups (pgroup.h).  An element is (candidate set S, static
 * port q) weighted by its DLIDs; a group G serves it iff q is in G and G
 * is inside S (|G| >= 2).  Covering the most weight with cap groups is
 * weighted maximum coverage: the greedy choice (best marginal weight
 * first, evaluated lazily from a heap since gains only shrink) is within
 * 1 - 1/e of the optimum.  The groups it considers: every candidate set,
 * the pairwise intersections of the heaviest sets, and every pair
 * {q, x} of a static port with another port of its set, the smallest
 * group that serves an element.  Chosen groups are then grown to the
 * intersection of the sets they serve, so a DLID gets as many ports as
 * the cap allows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/pgroup/pgroup.h"

#define MAX_ISECT_SETS 32 /* intersections among the heaviest sets only */

struct family {
	struct pg_set *g;
	uint32_t n, cap;
	uint32_t *slot, hcap;
};

static uint64_t fam_hash(const struct pg_set *s)
{
	uint64_t x = 0x84222325CBF29CE4ull;

	for (unsigned w = 0; w < PG_WORDS; w++)
		x = (x ^ s->m[w]) * 0x100000001B3ull;
	return x ^ x >> 31;
}

static int fam_rehash(struct family *f, uint32_t hcap)
{
	uint32_t *slot = calloc(hcap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (uint32_t id = 1; id <= f->n; id++) {
		uint32_t i = (uint32_t)fam_hash(&f->g[id - 1]) & (hcap - 1);
		while (slot[i])
			i = (i + 1) & (hcap - 1);
		slot[i] = id;
	}
	free(f->slot);
	f->slot = slot;
	f->hcap = hcap;
	return 0;
}

/* Adds s unless present or smaller than two ports. */
static int fam_add(struct family *f, const struct pg_set *s)
{
	uint32_t i;

	if (pg_count(s) < 2)
		return 0;
	if ((f->n + 1) * 2 > f->hcap &&
	    fam_rehash(f, f->hcap ? f->hcap * 2 : 64) < 0)
		return -ENOMEM;
	i = (uint32_t)fam_hash(s) & (f->hcap - 1);
	for (; f->slot[i]; i = (i + 1) & (f->hcap - 1))
		if (!memcmp(&f->g[f->slot[i] - 1], s, sizeof(*s)))
			return 0;
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 64;
		struct pg_set *v = realloc(f->g, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		f->g = v;
		f->cap = cap;
	}
	f->g[f->n++] = *s;
	f->slot[i] = f->n;
	return 0;
}

/* Sets in use, heaviest first (then by index): order[0..*n_used). */
static int rank_sets(const struct pg_elem *el, uint32_t n_el, uint32_t n_sets,
		     uint64_t *wt, uint32_t *order, uint32_t *n_used)
{
	uint32_t k = 0;

	memset(wt, 0, n_sets * sizeof(*wt));
	for (uint32_t e = 0; e < n_el; e++)
		wt[el[e].set] += el[e].weight;
	for (uint32_t s = 0; s < n_sets; s++)
		if (wt[s])
			order[k++] = s;
	/* insertion sort is fine: callers have a few hundred sets at most,
	 * and stable by index */
	for (uint32_t i = 1; i < k; i++) {
		uint32_t x = order[i], p = i;
		while (p && wt[order[p - 1]] < wt[x]) {
			order[p] = order[p - 1];
			p--;
		}
		order[p] = x;
	}
	*n_used = k;
	return 0;
}

static int build_family(const struct pg_set *sets, const uint32_t *order,
			uint32_t n_used, const struct pg_elem *el,
			uint32_t n_el, struct family *f)
{
	uint32_t top = n_used < MAX_ISECT_SETS ? n_used : MAX_ISECT_SETS;

	for (uint32_t i = 0; i < n_used; i++)
		if (fam_add(f, &sets[order[i]]) < 0)
			return -ENOMEM;
	for (uint32_t a = 0; a < top; a++)
		for (uint32_t b = a + 1; b < top; b++) {
			struct pg_set x;
			for (unsigned w = 0; w < PG_WORDS; w++)
				x.m[w] = sets[order[a]].m[w] &
					 sets[order[b]].m[w];
			if (fam_add(f, &x) < 0)
				return -ENOMEM;
		}
	for (uint32_t e = 0; e < n_el; e++) {
		const struct pg_set *s = &sets[el[e].set];
		for (unsigned w = 0; w < PG_WORDS; w++)
			for (uint64_t bits = s->m[w]; bits; bits &= bits - 1) {
				unsigned p = w * 64 +
					     (unsigned)__builtin_ctzll(bits);
				struct pg_set x = { { 0 } };
				if (p == el[e].port)
					continue;
				pg_add(&x, el[e].port);
				pg_add(&x, p);
				if (fam_add(f, &x) < 0)
					return -ENOMEM;
			}
	}
	return 0;
}

static inline bool serves(const struct pg_set *g, const struct pg_set *sets,
			  const struct pg_elem *e)
{
	return pg_has(g, e->port) && pg_subset(g, &sets[e->set]);
}

/* Uncovered elements by static port, so a group's gain looks only at
 * elements whose port it holds; covered ones are dropped from the lists
 * as they are met. */
struct by_port {
	uint32_t start[257], end[256];
	uint32_t *el;
};

static int by_port_build(struct by_port *b, const struct pg_elem *el,
			 uint32_t n_el)
{
	memset(b->start, 0, sizeof(b->start));
	b->el = malloc(((size_t)n_el + 1) * sizeof(*b->el));
	if (!b->el)
		return -ENOMEM;
	for (uint32_t e = 0; e < n_el; e++)
		b->start[el[e].port + 1]++;
	for (unsigned p = 0; p < 256; p++) {
		b->start[p + 1] += b->start[p];
		b->end[p] = b->start[p];
	}
	for (uint32_t e = 0; e < n_el; e++)
		b->el[b->end[el[e].port]++] = e;
	return 0;
}

/* Weight of the uncovered elements g serves; with mark, covers them. */
static uint64_t gain(const struct pg_set *g, const struct pg_set *sets,
		     const struct pg_elem *el, struct by_port *b,
		     uint8_t *covered, bool mark)
{
	uint64_t s = 0;

	for (unsigned w = 0; w < PG_WORDS; w++)
		for (uint64_t bits = g->m[w]; bits; bits &= bits - 1) {
			unsigned p = w * 64 + (unsigned)__builtin_ctzll(bits);
			for (uint32_t i = b->start[p]; i < b->end[p];) {
				uint32_t e = b->el[i];
				if (covered[e]) {
					b->el[i] = b->el[--b->end[p]];
					continue;
				}
				i++;
				if (!pg_subset(g, &sets[el[e].set]))
					continue;
				s += el[e].weight;
				covered[e] |= mark;
			}
		}
	return s;
}

/* Max-heap of family indexes by (bound, port count, lower index). */
struct heap {
	uint32_t *v, n;
	const uint64_t *bound;
	const struct family *f;
};

static bool heap_before(const struct heap *h, uint32_t a, uint32_t b)
{
	if (h->bound[a] != h->bound[b])
		return h->bound[a] > h->bound[b];
	unsigned ca = pg_count(&h->f->g[a]), cb = pg_count(&h->f->g[b]);
	if (ca != cb)
		return ca > cb;
	return a < b;
}

static void heap_down(struct heap *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && heap_before(h, h->v[l], h->v[m]))
			m = l;
		if (r < h->n && heap_before(h, h->v[r], h->v[m]))
			m = r;
		if (m == i)
			return;
		uint32_t t = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = t;
		i = m;
	}
}

static uint32_t heap_pop(struct heap *h)
{
	uint32_t top = h->v[0];

	h->v[0] = h->v[--h->n];
	heap_down(h, 0);
	return top;
}

static void heap_push(struct heap *h, uint32_t x)
{
	uint32_t i = h->n++;

	h->v[i] = x;
	while (i && heap_before(h, h->v[i], h->v[(i - 1) / 2])) {
		uint32_t p = (i - 1) / 2, t = h->v[i];
		h->v[i] = h->v[p];
		h->v[p] = t;
		i = p;
	}
}

/* Lazy greedy over the family; returns the number of groups chosen. */
static int greedy(const struct family *f, const struct pg_set *sets,
		  const struct pg_elem *el, uint32_t n_el, unsigned cap,
		  struct pg_set *out)
{
	uint64_t *bound = malloc(((size_t)f->n + 1) * sizeof(*bound));
	uint8_t *covered = calloc((size_t)n_el + 1, 1);
	struct heap h = { .v = malloc(((size_t)f->n + 1) * sizeof(uint32_t)),
			  .bound = bound, .f = f };
	struct by_port b = { .el = NULL };
	int k = -ENOMEM;

	if (!bound || !covered || !h.v || by_port_build(&b, el, n_el) < 0)
		goto out;
	for (uint32_t i = 0; i < f->n; i++) {
		bound[i] = gain(&f->g[i], sets, el, &b, covered, false);
		heap_push(&h, i);
	}
	k = 0;
	while ((unsigned)k < cap && h.n) {
		uint32_t x = heap_pop(&h);
		uint64_t g = gain(&f->g[x], sets, el, &b, covered, false);
		if (!g)
			continue;
		if (g < bound[x]) {
			bound[x] = g;
			heap_push(&h, x);
			continue;
		}
		out[k++] = f->g[x];
		gain(&f->g[x], sets, el, &b, covered, true);
	}
out:
	free(bound);
	free(covered);
	free(h.v);
	free(b.el);
	return k;
}

/* Each element to the serving group with the most ports (lowest index). */
static void assign(const struct pg_set *g, int ng, const struct pg_set *sets,
		   const struct pg_elem *el, uint32_t n_el, int32_t *choice)
{
	unsigned cnt[PG_MAX_GROUPS + 1];

	for (int i = 0; i < ng; i++)
		cnt[i] = pg_count(&g[i]);
	for (uint32_t e = 0; e < n_el; e++) {
		int best = -1;
		unsigned bc = 0;
		for (int i = 0; i < ng; i++)
			if (cnt[i] > bc && serves(&g[i], sets, &el[e])) {
				best = i;
				bc = cnt[i];
			}
		choice[e] = best;
	}
}

/* A group may grow to the intersection of the sets it serves. */
static void grow(struct pg_set *g, int ng, const struct pg_set *sets,
		 const struct pg_elem *el, uint32_t n_el, const int32_t *choice)
{
	for (int i = 0; i < ng; i++) {
		struct pg_set x;
		bool any = false;
		memset(&x, 0xFF, sizeof(x));
		for (uint32_t e = 0; e < n_el; e++) {
			if (choice[e] != i)
				continue;
			any = true;
			for (unsigned w = 0; w < PG_WORDS; w++)
				x.m[w] &= sets[el[e].set].m[w];
		}
		if (any)
			g[i] = x;
	}
}

static int whole_sets(const struct pg_set *sets, const uint32_t *order,
		      uint32_t n_used, const struct pg_elem *el, uint32_t n_el,
		      unsigned cap, struct pg_set *out, int32_t *choice,
		      uint32_t n_sets)
{
	int32_t *gid = malloc(((size_t)n_sets + 1) * sizeof(*gid));
	uint32_t k = n_used < cap ? n_used : cap;

	if (!gid)
		return -ENOMEM;
	for (uint32_t s = 0; s < n_sets; s++)
		gid[s] = -1;
	for (uint32_t i = 0; i < k; i++) {
		out[i] = sets[order[i]];
		gid[order[i]] = (int32_t)i;
	}
	for (uint32_t e = 0; e < n_el; e++)
		choice[e] = gid[el[e].set];
	free(gid);
	return (int)k;
}

int pgroup_select(const struct pg_set *sets, uint32_t n_sets,
		  const struct pg_elem *el, uint32_t n_el, unsigned cap,
		  bool whole_only, struct pg_set *out, int32_t *choice)
{
	uint64_t *wt = malloc(((size_t)n_sets + 1) * sizeof(*wt));
	uint32_t *order = malloc(((size_t)n_sets + 1) * sizeof(*order));
	struct family f = { 0 };
	uint32_t n_used;
	int ng = -ENOMEM;

	if (!wt || !order)
		goto out;
	rank_sets(el, n_el, n_sets, wt, order, &n_used);
	if (n_used <= cap || whole_only) {
		ng = whole_sets(sets, order, n_used, el, n_el, cap, out, choice,
				n_sets);
		goto out;
	}
	if (build_family(sets, order, n_used, el, n_el, &f) < 0)
		goto out;
	ng = greedy(&f, sets, el, n_el, cap, out);
	if (ng < 0)
		goto out;
	assign(out, ng, sets, el, n_el, choice);
	grow(out, ng, sets, el, n_el, choice);
	assign(out, ng, sets, el, n_el, choice);
out:
	free(wt);
	free(order);
	free(f.g);
	free(f.slot);
	return ng;
}

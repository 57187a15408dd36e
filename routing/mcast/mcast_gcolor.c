/* Searches inside G_color, the subgraph of switches where a color is free
 * (or held by the group's own trees): connectivity, bounded BFS for FCTB's
 * root test, the best root of a virtual group, and the Dijkstra build that
 * keeps old trees (MR4LMS §3.2, §3.3.2, Algorithm 5).  No hop tables here:
 * they describe G, not G_color. */
#include "routing/mcast/mcast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Queues u's neighbours usable in G_color and not seen yet, one hop
 * farther than u; returns how many of them carry the stamp mgen (member
 * switches marked before the search, 0 when none are). */
static uint32_t bfs_expand(const struct mc_ctx *c, struct mc_scratch *s,
			   uint32_t color, uint32_t mark, uint32_t u,
			   uint32_t *tail, uint32_t mgen)
{
	uint32_t hit = 0;

	for (uint32_t e = c->adj.off[u]; e < c->adj.off[u + 1]; e++) {
		uint32_t v = c->adj.peer[e];
		if (mc_seen(s, v) || !mc_gc_usable(c, color, mark, v))
			continue;
		hit += mgen && s->stamp[v] == mgen;
		mc_mark(s, v);
		s->dist[v] = s->dist[u] + 1;
		s->queue[(*tail)++] = v;
	}
	return hit;
}

bool mc_gc_connected(struct mc_ctx *c, unsigned worker, uint32_t color,
		     uint32_t mark, const uint32_t *msw, uint32_t nm)
{
	struct mc_scratch *s;
	uint32_t head = 0, tail = 0, found = 0;

	for (uint32_t i = 0; i < nm; i++)
		if (!mc_gc_usable(c, color, mark, msw[i]))
			return false;
	if (nm <= 1)
		return true;
	/* Member switches marked with this generation, visited with the next
	 * one: two generations per call. */
	s = mc_scratch_get(c, worker);
	uint32_t mgen = s->gen;
	for (uint32_t i = 0; i < nm; i++)
		s->stamp[msw[i]] = mgen;
	s = mc_scratch_get(c, worker);
	s->queue[tail++] = msw[0];
	mc_mark(s, msw[0]);
	s->dist[msw[0]] = 0;
	found = 1;
	while (head < tail && found < nm)
		found += bfs_expand(c, s, color, mark, s->queue[head++], &tail,
				    mgen);
	return found == nm;
}

/* One BFS from src bounded by depth `bound`, counting in key[] (valid when
 * key >> 32 == tag) how many member BFSes reached each switch.  Only
 * switches that every earlier BFS reached can still be roots, so the
 * count is bumped only when it equals idx. */
static uint32_t bounded_bfs(struct mc_ctx *c, struct mc_scratch *s,
			    uint32_t color, uint32_t mark, uint32_t src,
			    uint8_t bound, uint64_t tag, uint32_t idx)
{
	uint32_t head = 0, tail = 0, hits = 0;

	s = mc_scratch_get(c, (unsigned)(s - c->scr));
	s->queue[tail++] = src;
	mc_mark(s, src);
	s->dist[src] = 0;
	while (head < tail) {
		uint32_t u = s->queue[head++];
		uint64_t k = s->key[u];
		uint32_t cnt = (k >> 32) == tag ? (uint32_t)k : 0;
		if (cnt == idx) {
			s->key[u] = (tag << 32) | (idx + 1);
			hits++;
		}
		if (s->dist[u] < bound)
			bfs_expand(c, s, color, mark, u, &tail, 0);
	}
	return hits;
}

/* Whether every member switch is within bound hops of root in G_color:
 * a BFS from root that stops once all are found (the caller has checked
 * that the members are usable). */
static bool root_reaches(struct mc_ctx *c, unsigned worker, uint32_t color,
			 uint32_t mark, uint32_t root, const uint32_t *msw,
			 uint32_t nm, uint8_t bound)
{
	struct mc_scratch *s;
	uint32_t head = 0, tail = 0, found, mgen;

	if (!mc_gc_usable(c, color, mark, root))
		return false;
	/* member switches marked with one generation, visited with the
	 * next (as mc_gc_connected) */
	s = mc_scratch_get(c, worker);
	mgen = s->gen;
	for (uint32_t i = 0; i < nm; i++)
		s->stamp[msw[i]] = mgen;
	s = mc_scratch_get(c, worker);
	found = s->stamp[root] == mgen;
	s->queue[tail++] = root;
	mc_mark(s, root);
	s->dist[root] = 0;
	while (head < tail && found < nm) {
		uint32_t u = s->queue[head++];
		if (s->dist[u] < bound)
			found += bfs_expand(c, s, color, mark, u, &tail, mgen);
	}
	return found == nm;
}

/* The candidates still within bound of the first idx members (count ==
 * idx under tag), in their order, into out[]; their number. */
static uint32_t alive(const struct mc_scratch *s, const uint32_t *cand,
		      uint32_t nc, uint64_t tag, uint32_t idx, uint32_t *out)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nc; i++) {
		uint64_t k = s->key[cand[i]];
		if (((k >> 32) == tag ? (uint32_t)k : 0) == idx)
			out[n++] = cand[i];
	}
	return n;
}

uint32_t mc_gc_first_root(struct mc_ctx *c, unsigned worker, uint32_t color,
			  uint32_t mark, const uint32_t *msw, uint32_t nm,
			  uint8_t bound, const uint32_t *cand, uint32_t nc,
			  uint32_t *tmp)
{
	struct mc_scratch *s = &c->scr[worker < c->n_scr ? worker : 0];
	uint32_t n;
	uint64_t tag;

	for (uint32_t i = 0; i < nm; i++)
		if (!mc_gc_usable(c, color, mark, msw[i]))
			return MC_NONE;
	/* A fresh tag per call: the stamp generation is unique per call. */
	tag = mc_scratch_get(c, worker)->gen;
	for (uint32_t i = 0; i <= nm; i++) {
		if (!(n = alive(s, cand, nc, tag, i, tmp)))
			return MC_NONE;
		if (i == nm)
			return tmp[0];
		/* the first member's ball, then more while more candidates
		 * are left than members */
		if (!i || n > nm - i) {
			if (!bounded_bfs(c, s, color, mark, msw[i], bound, tag,
					 i))
				return MC_NONE;
			continue;
		}
		for (uint32_t r = 0; r < n; r++)
			if (root_reaches(c, worker, color, mark, tmp[r], msw,
					 nm, bound))
				return tmp[r];
		return MC_NONE;
	}
	return MC_NONE;
}

/* Unbounded BFS from src in G_color, raising worst[] (0xFF unreached is
 * kept by the caller's reached-count). */
static void worst_bfs(struct mc_ctx *c, struct mc_scratch *s, uint32_t color,
		      uint32_t mark, uint32_t src, uint8_t *worst,
		      uint32_t *reach)
{
	uint32_t head = 0, tail = 0;

	s = mc_scratch_get(c, (unsigned)(s - c->scr));
	s->queue[tail++] = src;
	s->stamp[src] = s->gen;
	s->dist[src] = 0;
	while (head < tail) {
		uint32_t u = s->queue[head++], d = s->dist[u];
		if (d > worst[u])
			worst[u] = (uint8_t)(d > 254 ? 254 : d);
		reach[u]++;
		for (uint32_t e = c->adj.off[u]; e < c->adj.off[u + 1]; e++) {
			uint32_t v = c->adj.peer[e];
			if (mc_seen(s, v) || !mc_gc_usable(c, color, mark, v))
				continue;
			mc_mark(s, v);
			s->dist[v] = d + 1;
			s->queue[tail++] = v;
		}
	}
}

/* Fallback: BFS from every member switch (exact, O(members * n)). */
static uint32_t best_root_all(struct mc_ctx *c, uint32_t color, uint32_t mark,
			      const uint32_t *msw, uint32_t nm)
{
	struct mc_scratch *s = &c->scr[0];
	uint32_t *reach = calloc(c->n_sw, sizeof(*reach));
	uint32_t best = MC_NONE;

	if (!reach)
		return MC_NONE;
	memset(s->worst, 0, c->n_sw);
	for (uint32_t i = 0; i < nm; i++)
		worst_bfs(c, s, color, mark, msw[i], s->worst, reach);
	for (uint32_t i = 0; i < c->n_sw; i++) {
		if (reach[i] != nm)
			continue;
		if (best == MC_NONE || s->worst[i] < s->worst[best] ||
		    (s->worst[i] == s->worst[best] &&
		     c->sw_load[i] < c->sw_load[best]))
			best = i;
	}
	free(reach);
	return best;
}

struct cand_job {
	struct mc_ctx *c;
	uint32_t color, mark;
	const uint32_t *msw, nm, *cand;
	uint32_t *worst; /* per candidate, MC_NONE if a member is missed */
};

/* BFS in G_color from candidate i: its worst distance to the members. */
static void cand_bfs(void *arg, size_t i, unsigned worker)
{
	struct cand_job *j = arg;
	struct mc_ctx *c = j->c;
	struct mc_scratch *s = mc_scratch_get(c, worker);
	uint32_t head = 0, tail = 0, src = j->cand[i], w = 0, found = 0;
	uint32_t vgen = s->gen;

	j->worst[i] = MC_NONE;
	if (!mc_gc_usable(c, j->color, j->mark, src))
		return;
	s->queue[tail++] = src;
	s->stamp[src] = vgen;
	s->dist[src] = 0;
	while (head < tail) {
		uint32_t u = s->queue[head++];
		for (uint32_t e = c->adj.off[u]; e < c->adj.off[u + 1]; e++) {
			uint32_t v = c->adj.peer[e];
			if (s->stamp[v] == vgen ||
			    !mc_gc_usable(c, j->color, j->mark, v))
				continue;
			s->stamp[v] = vgen;
			s->dist[v] = s->dist[u] + 1;
			s->queue[tail++] = v;
		}
	}
	for (uint32_t k = 0; k < j->nm; k++) {
		uint32_t m = j->msw[k];
		if (s->stamp[m] != vgen)
			return;
		w = s->dist[m] > w ? s->dist[m] : w;
		found++;
	}
	j->worst[i] = w;
}

/* Reading (MR4LMS §3.3.2, "BFS gives every switch's worst distance to the
 * vMcg's members; pick a root by it"): a BFS from every member is
 * O(members * n) and a merged group has thousands of members, so the
 * candidates are first the optimal roots of G (up to MC_ROOT_CANDS least
 * loaded), each evaluated by one BFS in G_color, in parallel; the best of
 * them is taken (when its G_color worst case equals its G one no better
 * root exists; otherwise it may be a hop worse than the best, a price
 * paid only by merged trees).  Only when no candidate reaches every
 * member does the exact search over all switches run. */
#define MC_ROOT_CANDS 32
uint32_t mc_gc_best_root(struct mc_ctx *c, uint32_t color, uint32_t mark,
			 const uint32_t *msw, uint32_t nm)
{
	uint32_t *cand = malloc((c->n_sw + 1) * sizeof(uint32_t));
	uint32_t worst[MC_ROOT_CANDS], nc, best = MC_NONE;
	uint8_t gbest;
	struct cand_job j = {.c = c,
			     .color = color,
			     .mark = mark,
			     .msw = msw,
			     .nm = nm,
			     .worst = worst};

	if (!cand)
		return MC_NONE;
	nc = mc_optimal_roots(c, msw, nm, cand, &gbest);
	if (nc > MC_ROOT_CANDS)
		nc = MC_ROOT_CANDS;
	j.cand = cand;
	pool_for(nc > 1 ? c->pool : NULL, nc, cand_bfs, &j);
	for (uint32_t i = 0; i < nc; i++)
		if (worst[i] != MC_NONE &&
		    (best == MC_NONE || worst[i] < worst[best]))
			best = i;
	if (best != MC_NONE)
		best = cand[best];
	else
		best = best_root_all(c, color, mark, msw, nm);
	free(cand);
	return best;
}

/* ---- Dijkstra with old trees kept ---- */

void mc_heap_up(struct mc_scratch *s, uint32_t i)
{
	uint32_t x = s->heap[i];
	uint64_t kx = s->key[x];

	while (i) {
		uint32_t p = (i - 1) / 2, y = s->heap[p];
		if (s->key[y] <= kx)
			break;
		s->heap[i] = y;
		s->hpos[y] = i;
		i = p;
	}
	s->heap[i] = x;
	s->hpos[x] = i;
}

void mc_heap_down(struct mc_scratch *s, uint32_t i, uint32_t n)
{
	uint32_t x = s->heap[i];
	uint64_t kx = s->key[x];

	for (;;) {
		uint32_t l = 2 * i + 1, m;
		if (l >= n)
			break;
		m = l + 1 < n && s->key[s->heap[l + 1]] < s->key[s->heap[l]]
			? l + 1
			: l;
		if (s->key[s->heap[m]] >= kx)
			break;
		s->heap[i] = s->heap[m];
		s->hpos[s->heap[i]] = i;
		i = m;
	}
	s->heap[i] = x;
	s->hpos[x] = i;
}

struct dj {
	struct mc_ctx *c;
	struct mc_scratch *s;
	uint32_t color, mark, hn, vgen,
	    sgen;	   /* vgen: in heap/seen, sgen: settled */
	uint32_t *settled; /* per switch: sgen when settled */
};

/* Relaxes v from u through edge e unless v is settled. */
static void dj_relax(struct dj *d, uint32_t u, uint32_t e)
{
	struct mc_ctx *c = d->c;
	struct mc_scratch *s = d->s;
	uint32_t v = c->adj.peer[e];
	uint64_t nk;

	if (d->settled[v] == d->sgen || !mc_gc_usable(c, d->color, d->mark, v))
		return;
	nk = s->key[u] + MC_LINK_WEIGHT_BASE +
	     c->efi[c->port_base[u] + c->adj.port[e]];
	if (s->stamp[v] != d->vgen) {
		s->stamp[v] = d->vgen;
		s->key[v] = nk;
		s->heap[d->hn] = v;
		mc_heap_up(s, d->hn++);
	} else if (nk < s->key[v]) {
		s->key[v] = nk;
		mc_heap_up(s, s->hpos[v]);
	} else {
		return;
	}
	s->parent[v] = u;
	s->up_port[v] = c->adj.rport[e];
	s->dport[v] = c->adj.port[e];
}

/* Settles the whole old tree of x along its own links, starting at x;
 * appends the switches it settles to out[] and returns how many. */
static uint32_t dj_claim_tree(struct dj *d, uint32_t x, uint32_t *out)
{
	struct mc_ctx *c = d->c;
	struct mc_scratch *s = d->s;
	const struct mc_tree *t = &c->trees[mc_color_owner(c, x, d->color)];
	uint32_t head = 0, tail = 0;

	out[tail++] = x;
	while (head < tail) {
		uint32_t u = out[head++];
		const struct mc_tnode *n = mc_tree_node(t, u);
		for (uint32_t e = c->adj.off[u]; e < c->adj.off[u + 1]; e++) {
			uint32_t v = c->adj.peer[e];
			if (!mc_mask_test(n->mask, c->adj.port[e]) ||
			    d->settled[v] == d->sgen ||
			    mc_color_owner(c, v, d->color) != t->id)
				continue;
			d->settled[v] = d->sgen;
			if (s->stamp[v] == d->vgen) {
				/* in the heap: lift to the top and pop it */
				s->key[v] = 0;
				mc_heap_up(s, s->hpos[v]);
				s->heap[0] = s->heap[--d->hn];
				s->hpos[s->heap[0]] = 0;
				if (d->hn)
					mc_heap_down(s, 0, d->hn);
			}
			s->stamp[v] = d->vgen;
			s->key[v] = s->key[u] + MC_LINK_WEIGHT_BASE;
			s->parent[v] = u;
			s->up_port[v] = c->adj.rport[e];
			s->dport[v] = c->adj.port[e];
			out[tail++] = v;
		}
	}
	return tail;
}

/* Pops the heap minimum. */
static uint32_t dj_pop(struct dj *d)
{
	struct mc_scratch *s = d->s;
	uint32_t u = s->heap[0];

	s->heap[0] = s->heap[--d->hn];
	s->hpos[s->heap[0]] = 0;
	if (d->hn)
		mc_heap_down(s, 0, d->hn);
	return u;
}

/* Runs the search until every member switch (ismem) is settled. */
static int dj_run(struct dj *d, bool keep_old, uint32_t root,
		  const uint8_t *ismem, uint32_t need, uint32_t *buf)
{
	struct mc_ctx *c = d->c;
	struct mc_scratch *s = d->s;
	uint32_t got = 0;

	s->stamp[root] = d->vgen;
	s->key[root] = 0;
	s->parent[root] = MC_NONE;
	s->heap[0] = root;
	s->hpos[root] = 0;
	d->hn = 1;
	while (d->hn && got < need) {
		uint32_t u = dj_pop(d), nb = 1;
		d->settled[u] = d->sgen;
		buf[0] = u;
		if (keep_old && d->mark &&
		    mc_color_owner(c, u, d->color) != MC_NONE)
			nb = dj_claim_tree(d, u, buf);
		for (uint32_t k = 0; k < nb; k++) {
			uint32_t x = buf[k];
			got += ismem[x];
			for (uint32_t e = c->adj.off[x]; e < c->adj.off[x + 1];
			     e++)
				dj_relax(d, x, e);
		}
	}
	return got < need ? -EHOSTUNREACH : 0;
}

int mc_gc_build(struct mc_ctx *c, unsigned worker, uint32_t color,
		uint32_t mark, bool keep_old, uint32_t root,
		struct ib_port *const *m, uint32_t n, struct mc_tree *t)
{
	struct dj d = {.c = c, .color = color, .mark = mark, .sgen = 1};
	uint32_t *buf = malloc((c->n_sw + 1) * sizeof(uint32_t)), need = 0;
	uint8_t *ismem = calloc(c->n_sw, 1);
	int rc;

	d.settled = calloc(c->n_sw, sizeof(uint32_t));
	if (!d.settled || !buf || !ismem) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t sw = mc_member_sw(m[i]);
		need += !ismem[sw];
		ismem[sw] = 1;
	}
	d.s = mc_scratch_get(c, worker);
	d.vgen = d.s->gen;
	if ((rc = dj_run(&d, keep_old, root, ismem, need, buf)) < 0)
		goto out;
	if (mc_tree_add(t, root, MC_NONE, 0, 0) == MC_NONE) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		rc = mc_materialise(d.s, t, mc_member_sw(m[i]), buf);
		if (rc == 0)
			rc = mc_tree_add_member(t, m[i]);
	}
out:
	free(d.settled);
	free(buf);
	free(ismem);
	return rc;
}

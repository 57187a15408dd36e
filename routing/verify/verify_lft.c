/* LFT walk: see verify.h.  Work is split by destination LID; for one
 * LID every switch gets a state (hops to the destination, dropped, or
 * looping) by following its LFT entry until a switch whose state is known,
 * so each switch is stepped once per LID.  CA sources are then counted per
 * switch, and the number of sources crossing each link is found by pushing
 * source counts down the forwarding tree in decreasing-distance order. */
#include "routing/verify/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NXT_NONE UINT32_MAX

enum {
	ST_UNK = 0xFF,
	ST_BUSY = 0xFE,
	ST_DROP = 0xFD,
	ST_LOOP = 0xFC,
	ST_MAXD = 0xFB
};

struct dest {
	uint16_t lid;
	bool is_sw, base; /* switch LID; first LID of its range */
	const struct ib_port *owner;
	int32_t t;	     /* switch that delivers it, -1 if none */
	uint8_t tport;	     /* t's port to it (0: t's own LID) */
	const uint8_t *prow; /* every switch's LFT entry for lid */
};

struct vacc {
	uint64_t ca_pairs, unreach, loops, nonshort, sum_hops;
	uint64_t sw_pairs, sw_unreach, lmc_unreach;
	uint32_t max_hops;
	uint32_t err_lid, err_sw; /* lowest failing LID (0 = none) */
	uint8_t err_state;
};

struct vworker {
	uint8_t *state;
	uint32_t *stack, *visited, *flow, *order;
	uint32_t nvis;
	uint64_t *links; /* CA-to-CA routes per switch port, by poff */
	uint64_t *dep;	 /* by poff: 256-bit mask of the next link's port */
	uint8_t *tp;	 /* LFT entries of one LID block, LID-major */
	struct vacc acc;
};

struct vjob {
	const struct fabric *f;
	const struct hops *h;
	uint32_t *nsrc; /* CA ports linked to each switch */
	uint32_t *poff; /* first port index of each switch */
	/* Flat copies of what a forwarding step reads, so a step is two
	 * array loads rather than a chain of pointers. */
	const uint8_t **lft;
	uint32_t *lft_size;
	uint8_t *nports;
	uint32_t *nxt; /* by poff + port: next switch, or NXT_NONE */
	uint64_t all_src;
	struct vworker *w;
};

static void dest_of(const struct fabric *f, uint16_t lid, struct dest *d)
{
	const struct ib_port *o = fabric_port_by_lid(f, lid);

	memset(d, 0, sizeof(*d));
	d->lid = lid;
	d->owner = o;
	d->t = -1;
	if (!o)
		return;
	d->base = o->lid == lid;
	d->is_sw = node_is_switch(o->node);
	if (d->is_sw) {
		d->t = o->node->sw_idx;
	} else if (o->remote && node_is_switch(o->remote->node)) {
		d->t = o->remote->node->sw_idx;
		d->tport = o->remote->num;
	}
}

/* One forwarding step at switch x: a final state (0, 1, ST_DROP), or
 * ST_UNK with *next set to the next switch. */
static uint8_t step(const struct vjob *j, const struct dest *d, uint32_t x,
		    uint32_t *next)
{
	uint8_t p;
	uint32_t n;

	p = d->prow[x];
	if (p > j->nports[x])
		return ST_DROP;
	if ((int32_t)x == d->t && p == d->tport)
		return d->is_sw ? 0 : 1;
	if (p == 0 || (n = j->nxt[j->poff[x] + p]) == NXT_NONE)
		return ST_DROP;
	*next = n;
	return ST_UNK;
}

static bool is_dist(uint8_t s)
{
	return s <= ST_MAXD;
}

static void walk(const struct vjob *j, const struct dest *d, struct vworker *w,
		 uint32_t x)
{
	uint32_t top = 0, cur = x, nx = 0;
	uint8_t base;

	for (;;) {
		uint8_t st = w->state[cur];
		if (st != ST_UNK) {
			base = st == ST_BUSY ? ST_LOOP : st;
			break;
		}
		w->visited[w->nvis++] = cur;
		st = step(j, d, cur, &nx);
		if (st != ST_UNK) {
			w->state[cur] = base = st;
			break;
		}
		w->state[cur] = ST_BUSY;
		w->stack[top++] = cur;
		cur = nx;
	}
	while (top) {
		if (is_dist(base))
			base = base < ST_MAXD ? base + 1 : ST_LOOP;
		w->state[w->stack[--top]] = base;
	}
}

static void note_error(struct vacc *a, const struct dest *d, uint32_t x,
		       uint8_t st)
{
	if (!a->err_lid || d->lid < a->err_lid) {
		a->err_lid = d->lid;
		a->err_sw = x;
		a->err_state = st;
	}
}

/* Counts the sources on switch x for destination d. */
static void count_at(const struct vjob *j, const struct dest *d, struct vacc *a,
		     uint32_t x, uint64_t cnt, uint8_t st)
{
	if (!is_dist(st)) {
		if (d->is_sw) {
			a->sw_pairs += cnt;
			a->sw_unreach += cnt;
		} else if (d->base) {
			a->ca_pairs += cnt;
			a->unreach += cnt;
			if (st == ST_LOOP)
				a->loops += cnt;
		} else {
			a->lmc_unreach += cnt;
		}
		note_error(a, d, x, st);
		return;
	}
	if (d->is_sw) {
		a->sw_pairs += cnt;
		return;
	}
	if (!d->base)
		return;
	uint32_t hops = (uint32_t)st + 1;
	a->ca_pairs += cnt;
	a->sum_hops += cnt * hops;
	if (hops > a->max_hops)
		a->max_hops = hops;
	if (j->h && hops > (uint32_t)hops_sw(j->h, x, (uint32_t)d->t) + 2)
		a->nonshort += cnt;
}

/* Pushes source counts down the forwarding tree of a CA destination and
 * adds the number of sources to every switch-to-switch link it uses. */
static void count_links(const struct vjob *j, const struct dest *d,
			struct vworker *w)
{
	uint32_t bucket[257] = {0}, n = 0;

	for (uint32_t i = 0; i < w->nvis; i++) {
		uint8_t st = w->state[w->visited[i]];
		if (is_dist(st) && st >= 2)
			bucket[st]++;
	}
	for (int b = 255; b >= 0; b--) { /* prefix sums, far first */
		uint32_t c = bucket[b];
		bucket[b] = n;
		n += c;
	}
	for (uint32_t i = 0; i < w->nvis; i++) {
		uint32_t x = w->visited[i];
		uint8_t st = w->state[x];
		if (is_dist(st) && st >= 2)
			w->order[bucket[st]++] = x;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = w->order[i], nx = 0, in;
		if (!w->flow[x])
			continue;
		step(j, d, x, &nx);
		w->flow[nx] += w->flow[x];
		in = j->poff[x] + d->prow[x];
		if (d->base)
			w->links[in] += w->flow[x];
		/* channel dependency: link x->nx then nx's next link */
		if (w->state[nx] >= 2 && is_dist(w->state[nx])) {
			uint8_t q = d->prow[nx];
			w->dep[(size_t)in * 4 + q / 64] |= 1ULL << (q % 64);
		}
	}
}

static void check_lid(struct vjob *j, struct vworker *w, uint16_t lid,
		      const uint8_t *prow)
{
	const struct fabric *f = j->f;
	struct dest d;

	dest_of(f, lid, &d);
	d.prow = prow;
	if (!d.owner || (d.owner->node->type != IB_NODE_SWITCH &&
			 d.owner->remote == NULL && d.t < 0))
		return;
	if (d.t < 0) { /* a CA port with no switch behind it */
		count_at(j, &d, &w->acc, 0, j->all_src, ST_DROP);
		return;
	}
	w->nvis = 0;
	for (uint32_t x = 0; x < f->n_switches; x++) {
		uint64_t cnt = j->nsrc[x];
		if (!cnt)
			continue;
		if (!d.is_sw && (int32_t)x == d.t)
			cnt--; /* the destination port itself */
		walk(j, &d, w, x);
		if (cnt)
			count_at(j, &d, &w->acc, x, cnt, w->state[x]);
		w->flow[x] = (uint32_t)cnt;
	}
	if (!d.is_sw)
		count_links(j, &d, w);
	for (uint32_t v = 0; v < w->nvis; v++) {
		w->state[w->visited[v]] = ST_UNK;
		w->flow[w->visited[v]] = 0;
	}
}

/* LIDs are checked in blocks of LID_BLOCK: the block's LFT entries are
 * first copied LID-major (one cache line read per switch per block), so
 * the walks, which jump between switches for one LID, stay in a few
 * kilobytes instead of touching one line of every switch's LFT per LID. */
#define LID_BLOCK 64

static void check_block(void *arg, size_t b, unsigned worker)
{
	struct vjob *j = arg;
	struct vworker *w = &j->w[worker];
	uint32_t n = j->f->n_switches, first = (uint32_t)b * LID_BLOCK + 1;
	uint32_t cnt = j->f->max_lid + 1 - first;

	if (cnt > LID_BLOCK)
		cnt = LID_BLOCK;
	for (uint32_t x = 0; x < n; x++) {
		const uint8_t *l = j->lft[x];
		for (uint32_t k = 0; k < cnt; k++)
			w->tp[(size_t)k * n + x] = first + k < j->lft_size[x]
						       ? l[first + k]
						       : LFT_NO_PORT;
	}
	for (uint32_t k = 0; k < cnt; k++)
		check_lid(j, w, (uint16_t)(first + k), w->tp + (size_t)k * n);
}

static int workers_init(struct vjob *j, unsigned nw, uint32_t nports)
{
	uint32_t n = j->f->n_switches + 1;

	j->w = calloc(nw, sizeof(*j->w));
	if (!j->w)
		return -ENOMEM;
	for (unsigned i = 0; i < nw; i++) {
		struct vworker *w = &j->w[i];
		w->state = malloc(n);
		w->stack = malloc(n * sizeof(uint32_t));
		w->visited = malloc(n * sizeof(uint32_t));
		w->order = malloc(n * sizeof(uint32_t));
		w->flow = calloc(n, sizeof(uint32_t));
		w->links = calloc(nports + 1, sizeof(uint64_t));
		w->dep = calloc(4 * ((size_t)nports + 1), sizeof(uint64_t));
		w->tp = malloc((size_t)LID_BLOCK * n);
		if (!w->state || !w->stack || !w->visited || !w->order ||
		    !w->flow || !w->links || !w->dep || !w->tp)
			return -ENOMEM;
		memset(w->state, ST_UNK, n);
	}
	return 0;
}

static void workers_free(struct vjob *j, unsigned nw)
{
	if (!j->w)
		return;
	for (unsigned i = 0; i < nw; i++) {
		free(j->w[i].state);
		free(j->w[i].stack);
		free(j->w[i].visited);
		free(j->w[i].order);
		free(j->w[i].flow);
		free(j->w[i].links);
		free(j->w[i].dep);
		free(j->w[i].tp);
	}
	free(j->w);
}

static void fill_next(struct vjob *j)
{
	const struct fabric *f = j->f;

	for (uint32_t s = 0; s < f->n_switches; s++) {
		const struct ib_node *sw = f->switches[s];
		j->lft[s] = sw->lft;
		j->lft_size[s] = sw->lft_size;
		j->nports[s] = sw->nports;
		j->nxt[j->poff[s]] = NXT_NONE;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct ib_port *r = sw->ports[p].remote;
			j->nxt[j->poff[s] + p] = r && node_is_switch(r->node)
						     ? (uint32_t)r->node->sw_idx
						     : NXT_NONE;
		}
	}
}

static uint32_t count_sources(struct vjob *j)
{
	const struct fabric *f = j->f;
	uint32_t nports = 0;

	for (uint32_t s = 0; s < f->n_switches; s++) {
		const struct ib_node *sw = f->switches[s];
		j->poff[s] = nports;
		nports += sw->nports + 1u;
		j->nsrc[s] = 0;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct ib_port *r = sw->ports[p].remote;
			if (r && !node_is_switch(r->node) && r->lid)
				j->nsrc[s]++;
		}
		j->all_src += j->nsrc[s];
	}
	return nports;
}

static void describe_error(const struct fabric *f, const struct vacc *a,
			   struct lft_check *out)
{
	const struct ib_port *o = fabric_port_by_lid(f, (uint16_t)a->err_lid);
	const struct ib_node *sw = f->switches[a->err_sw];

	snprintf(out->first_error, sizeof(out->first_error),
		 "LID %u ('%s' port %u) from switch 0x%016" PRIx64 " '%s': %s",
		 a->err_lid, o ? o->node->desc : "?", o ? o->num : 0,
		 sw ? sw->guid : 0, sw ? sw->desc : "?",
		 a->err_state == ST_LOOP ? "forwarding loop"
					 : "dropped (no route)");
}

/* Depth-first search for a cycle in the channel-dependency graph whose
 * vertices are directed switch-to-switch links (by poff) and whose edges
 * are the dependencies collected in dep.  1 acyclic, 0 cycle (why set),
 * -ENOMEM. */
static int cdg_acyclic(const struct vjob *j, const uint64_t *dep,
		       uint32_t nports, struct lft_check *out)
{
	uint8_t *color = calloc(nports + 1, 1); /* 0 new, 1 open, 2 done */
	uint32_t *stk = malloc((nports + 1) * sizeof(*stk));
	uint16_t *cur = malloc((nports + 1) * sizeof(*cur));
	int rc = 1;

	if (!color || !stk || !cur) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t r = 0; r < nports && rc == 1; r++) {
		uint32_t top = 0;
		if (color[r] || j->nxt[r] == NXT_NONE)
			continue;
		stk[top++] = r;
		cur[r] = 0;
		color[r] = 1;
		while (top && rc == 1) {
			uint32_t v = stk[top - 1], y = j->nxt[v], q = cur[v];
			const uint64_t *m = dep + (size_t)v * 4;
			while (q < 256 && !(m[q / 64] >> (q % 64) & 1))
				q++;
			if (q == 256) {
				color[v] = 2;
				top--;
				continue;
			}
			cur[v] = (uint16_t)(q + 1);
			uint32_t u = j->poff[y] + q;
			if (color[u] == 1) {
				const struct ib_node *sw = j->f->switches[y];
				snprintf(
				    out->cdg_why, sizeof(out->cdg_why),
				    "credit loop through switch 0x%016" PRIx64
				    " '%s' port %u",
				    sw->guid, sw->desc, q);
				rc = 0;
			} else if (!color[u]) {
				color[u] = 1;
				cur[u] = 0;
				stk[top++] = u;
			}
		}
	}
out:
	free(color);
	free(stk);
	free(cur);
	return rc;
}

static void merge(struct vjob *j, unsigned nw, uint32_t nports,
		  struct lft_check *out)
{
	struct vacc t = {0};
	uint64_t sum_hops = 0;

	for (unsigned i = 0; i < nw; i++) {
		struct vacc *a = &j->w[i].acc;
		t.ca_pairs += a->ca_pairs;
		t.unreach += a->unreach;
		t.loops += a->loops;
		t.nonshort += a->nonshort;
		sum_hops += a->sum_hops;
		t.sw_pairs += a->sw_pairs;
		t.sw_unreach += a->sw_unreach;
		t.lmc_unreach += a->lmc_unreach;
		if (a->max_hops > t.max_hops)
			t.max_hops = a->max_hops;
		if (a->err_lid && (!t.err_lid || a->err_lid < t.err_lid)) {
			t.err_lid = a->err_lid;
			t.err_sw = a->err_sw;
			t.err_state = a->err_state;
		}
	}
	for (uint32_t p = 0; p < nports; p++) {
		uint64_t s = 0;
		for (unsigned i = 0; i < nw; i++)
			s += j->w[i].links[p];
		if (s > out->max_link_routes)
			out->max_link_routes = s;
	}
	out->ca_pairs = t.ca_pairs;
	out->unreachable_pairs = t.unreach;
	out->loop_pairs = t.loops;
	out->non_shortest_pairs = t.nonshort;
	out->max_hops = t.max_hops;
	out->sw_pairs = t.sw_pairs;
	out->sw_unreachable = t.sw_unreach;
	out->lmc_unreachable = t.lmc_unreach;
	if (t.ca_pairs > t.unreach)
		out->avg_hops =
		    (double)sum_hops / (double)(t.ca_pairs - t.unreach);
	if (t.err_lid)
		describe_error(j->f, &t, out);
}

int verify_lft(const struct fabric *f, const struct hops *h, struct pool *pool,
	       struct lft_check *out)
{
	struct vjob j = {.f = f, .h = h};
	unsigned nw = pool_threads(pool);
	uint32_t nports;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!f->n_switches)
		return 0;
	if (h && h->n != f->n_switches)
		h = j.h = NULL;
	j.nsrc = calloc(f->n_switches + 1, sizeof(*j.nsrc));
	j.poff = calloc(f->n_switches + 1, sizeof(*j.poff));
	j.lft = calloc(f->n_switches + 1, sizeof(*j.lft));
	j.lft_size = calloc(f->n_switches + 1, sizeof(*j.lft_size));
	j.nports = calloc(f->n_switches + 1, 1);
	if (!j.nsrc || !j.poff || !j.lft || !j.lft_size || !j.nports)
		goto out;
	nports = count_sources(&j);
	j.nxt = malloc((nports + 1) * sizeof(*j.nxt));
	if (!j.nxt)
		goto out;
	fill_next(&j);
	if (workers_init(&j, nw, nports) < 0)
		goto out;
	pool_for(pool, ((size_t)f->max_lid + LID_BLOCK - 1) / LID_BLOCK,
		 check_block, &j);
	merge(&j, nw, nports, out);
	for (unsigned i = 1; i < nw; i++)
		for (size_t k = 0; k < 4 * (size_t)nports; k++)
			j.w[0].dep[k] |= j.w[i].dep[k];
	rc = cdg_acyclic(&j, j.w[0].dep, nports, out);
	if (rc >= 0) {
		out->cdg_acyclic = rc;
		rc = 0;
	}
out:
	workers_free(&j, nw);
	free(j.nsrc);
	free(j.poff);
	free(j.lft);
	free(j.lft_size);
	free(j.nports);
	free(j.nxt);
	return rc;
}

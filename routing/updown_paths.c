/* Up/down LFTs: for every destination switch, the legal next hops of every
 * switch (a search over the up-link DAG, parallel over destinations), then
 * for every destination LID the least loaded of them (parallel over source
 * switches: each switch only reads and writes its own route counters, so
 * the result does not depend on the thread count or the timing).
 *
 * One LFT entry per (switch, LID) cannot depend on how a packet arrived, so
 * a switch that some upper neighbour routes down into must itself route
 * down ("down mode"); others may go up ("up mode").  Modes are decided top
 * down (lowest label first), which makes every table path up* then down*:
 * - a switch is in down mode if an upper neighbour already routes into it,
 *   or if its shortest down-only path is no longer than going up;
 * - down mode: next hops are down neighbours one step closer on a
 *   down-only path, preferring ones that lose nothing by being forced into
 *   down mode (already forced, or no shorter legal path); they are forced;
 * - up mode: next hops are up neighbours whose final path is shortest.
 * On fat trees with the spines as roots this gives min-hop paths. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/updown.h"

#define INF16 0xFFFFu

struct path_scratch {
	uint16_t *dist_down;	/* shortest down-only path to the dest */
	uint16_t *dist_legal;	/* shortest legal path, any mode */
	uint16_t *len;		/* length of the path the tables will give */
	uint8_t *forced;
	uint32_t *q;
};

struct path_job {
	struct fabric *f;
	const struct sw_graph *g;
	const uint32_t *order, *by_order;
	uint32_t W;		/* mask words per switch */
	uint32_t first, count;	/* destination switches of this batch */
	uint64_t *mask;		/* [count][n][W] candidate ports */
	struct path_scratch *ws;
	/* destination LIDs grouped by their switch */
	uint32_t *lid_start;	/* [n + 1] */
	uint16_t *lids;
	uint8_t *lid_port;	/* [max_lid + 1] port at the dest switch */
	uint8_t *lid_ca;	/* [max_lid + 1] a CA/router LID */
	/* route counters, per switch port: CA-LID routes to the neighbour
	 * switch over all parallel cables, CA-LID routes out of the port,
	 * all routes (switch LIDs too) out of the port */
	uint32_t *port_base;	/* [n + 1] */
	uint32_t *nbr_cnt, *port_cnt, *all_cnt;
	uint8_t *grp;		/* lowest port number to the same neighbour */
};

static inline void mask_set(uint64_t *m, unsigned p)
{
	m[p >> 6] |= 1ull << (p & 63);
}

static void down_bfs(const struct path_job *j, struct path_scratch *w,
		     uint32_t d)
{
	const struct sw_graph *g = j->g;
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < g->n; s++)
		w->dist_down[s] = INF16;
	w->dist_down[d] = 0;
	w->q[tail++] = d;
	/* backwards: y reaches x going down iff y is up from x */
	while (head < tail) {
		uint32_t x = w->q[head++];
		for (uint32_t k = g->start[x]; k < g->start[x + 1]; k++) {
			uint32_t y = g->peer[k];
			if (updown_is_up(j->order, x, y) &&
			    w->dist_down[y] == INF16) {
				w->dist_down[y] = w->dist_down[x] + 1;
				w->q[tail++] = y;
			}
		}
	}
	/* legal = up* down*: up neighbours have lower labels, done first */
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t s = j->by_order[i];
		uint32_t v = w->dist_down[s];
		for (uint32_t k = g->start[s]; k < g->start[s + 1]; k++) {
			uint32_t u = g->peer[k];
			if (updown_is_up(j->order, s, u) &&
			    w->dist_legal[u] != INF16 && w->dist_legal[u] + 1u < v)
				v = w->dist_legal[u] + 1u;
		}
		w->dist_legal[s] = (uint16_t)v;
	}
}

/* Down mode at s: candidates one step closer on a down-only path. */
static void pick_down(const struct path_job *j, struct path_scratch *w,
		      uint32_t s, uint64_t *m)
{
	const struct sw_graph *g = j->g;
	uint16_t want = w->dist_down[s] - 1;
	unsigned found = 0;

	for (int pass = 0; pass < 2 && !found; pass++)
		for (uint32_t k = g->start[s]; k < g->start[s + 1]; k++) {
			uint32_t y = g->peer[k];
			if (updown_is_up(j->order, s, y) ||
			    w->dist_down[y] != want)
				continue;
			if (pass == 0 && !w->forced[y] &&
			    w->dist_legal[y] != w->dist_down[y])
				continue;
			mask_set(m, g->port[k]);
			w->forced[y] = 1;
			found++;
		}
	w->len[s] = w->dist_down[s];
}

static void plan_dest(void *arg, size_t b, unsigned worker)
{
	const struct path_job *j = arg;
	struct path_scratch *w = &j->ws[worker];
	const struct sw_graph *g = j->g;
	uint32_t d = j->first + (uint32_t)b;
	uint64_t *rows = j->mask + b * g->n * j->W;

	down_bfs(j, w, d);
	memset(w->forced, 0, g->n);
	memset(rows, 0, (size_t)g->n * j->W * sizeof(*rows));
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t s = j->by_order[i], up = INF16;
		uint64_t *m = rows + (size_t)s * j->W;
		if (s == d) {
			w->len[s] = 0;
			continue;
		}
		for (uint32_t k = g->start[s]; k < g->start[s + 1]; k++) {
			uint32_t u = g->peer[k];
			if (updown_is_up(j->order, s, u) && w->len[u] + 1u < up)
				up = w->len[u] + 1u;
		}
		if (w->dist_down[s] != INF16 &&
		    (w->forced[s] || w->dist_down[s] <= up)) {
			pick_down(j, w, s, m);
			continue;
		}
		w->len[s] = (uint16_t)up;
		if (up == INF16)
			continue;
		for (uint32_t k = g->start[s]; k < g->start[s + 1]; k++) {
			uint32_t u = g->peer[k];
			if (updown_is_up(j->order, s, u) && w->len[u] + 1u == up)
				mask_set(m, g->port[k]);
		}
	}
}

/* Least loaded candidate of switch s: fewest CA routes to the neighbour
 * switch, then on the port, then fewest routes of any kind on the port,
 * then the lowest port number.  CA routes come first because they carry
 * the traffic: switch-LID routes only break ties, so on a fat tree each
 * leaf spreads every remote leaf's hosts over all its up-links. */
static unsigned pick_port(const struct path_job *j, uint32_t s,
			  const uint64_t *m)
{
	uint32_t base = j->port_base[s];
	unsigned best = LFT_NO_PORT;
	uint64_t best_key = UINT64_MAX;

	for (uint32_t wd = 0; wd < j->W; wd++)
		for (uint64_t bits = m[wd]; bits; bits &= bits - 1) {
			unsigned p = wd * 64 + (unsigned)__builtin_ctzll(bits);
			uint64_t key =
				(uint64_t)j->nbr_cnt[base + j->grp[base + p]]
					<< 42 |
				(uint64_t)j->port_cnt[base + p] << 21 |
				j->all_cnt[base + p];
			if (key < best_key) {
				best_key = key;
				best = p;
			}
		}
	return best;
}

static void assign_switch(void *arg, size_t si, unsigned worker)
{
	const struct path_job *j = arg;
	uint32_t s = (uint32_t)si, base = j->port_base[s];
	uint8_t *lft = j->f->switches[s]->lft;

	(void)worker;
	for (uint32_t b = 0; b < j->count; b++) {
		uint32_t d = j->first + b;
		const uint64_t *m = j->mask + ((size_t)b * j->g->n + s) * j->W;
		for (uint32_t i = j->lid_start[d]; i < j->lid_start[d + 1]; i++) {
			uint16_t lid = j->lids[i];
			if (s == d) {
				lft[lid] = j->lid_port[lid];
				continue;
			}
			unsigned p = pick_port(j, s, m);
			if (p == LFT_NO_PORT)
				break;
			lft[lid] = (uint8_t)p;
			j->all_cnt[base + p]++;
			if (j->lid_ca[lid]) {
				j->port_cnt[base + p]++;
				j->nbr_cnt[base + j->grp[base + p]]++;
			}
		}
	}
}

/* Destination LIDs by switch: a switch's own LID (port 0) and each CA or
 * router port's LIDs (the switch port it hangs from). */
static int index_lids(struct path_job *j)
{
	const struct fabric *f = j->f;
	uint32_t n = j->g->n;
	int32_t *dsw = malloc(((size_t)f->max_lid + 1) * sizeof(*dsw));

	j->lid_start = calloc(n + 2, sizeof(*j->lid_start));
	j->lids = malloc(((size_t)f->max_lid + 1) * sizeof(*j->lids));
	j->lid_port = calloc((size_t)f->max_lid + 1, 1);
	j->lid_ca = calloc((size_t)f->max_lid + 1, 1);
	if (!dsw || !j->lid_start || !j->lids || !j->lid_port || !j->lid_ca) {
		free(dsw);
		return -ENOMEM;
	}
	for (uint32_t l = 0; l <= f->max_lid; l++) {
		struct ib_port *p = l ? fabric_port_by_lid(f, (uint16_t)l) : NULL;
		dsw[l] = -1;
		if (p && node_is_switch(p->node)) {
			dsw[l] = p->node->sw_idx;
		} else if (p && p->remote && node_is_switch(p->remote->node)) {
			dsw[l] = p->remote->node->sw_idx;
			j->lid_port[l] = p->remote->num;
			j->lid_ca[l] = 1;
		}
		if (dsw[l] >= 0)
			j->lid_start[dsw[l] + 1]++;
	}
	for (uint32_t s = 0; s < n; s++)
		j->lid_start[s + 1] += j->lid_start[s];
	uint32_t *fill = calloc(n + 1, sizeof(*fill));
	if (!fill) {
		free(dsw);
		return -ENOMEM;
	}
	for (uint32_t l = 0; l <= f->max_lid; l++)
		if (dsw[l] >= 0)
			j->lids[j->lid_start[dsw[l]] + fill[dsw[l]]++] =
				(uint16_t)l;
	free(fill);
	free(dsw);
	return 0;
}

static int alloc_counters(struct path_job *j)
{
	const struct fabric *f = j->f;
	uint32_t n = j->g->n, maxp = 0;

	j->port_base = malloc((n + 1) * sizeof(*j->port_base));
	if (!j->port_base)
		return -ENOMEM;
	j->port_base[0] = 0;
	for (uint32_t s = 0; s < n; s++) {
		uint32_t np = f->switches[s]->nports;
		j->port_base[s + 1] = j->port_base[s] + np + 1;
		maxp = np > maxp ? np : maxp;
	}
	j->W = maxp / 64 + 1;
	j->port_cnt = calloc(j->port_base[n] + 1, sizeof(*j->port_cnt));
	j->nbr_cnt = calloc(j->port_base[n] + 1, sizeof(*j->nbr_cnt));
	j->all_cnt = calloc(j->port_base[n] + 1, sizeof(*j->all_cnt));
	j->grp = calloc(j->port_base[n] + 1, 1);
	if (!j->port_cnt || !j->nbr_cnt || !j->all_cnt || !j->grp)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		struct ib_node *sw = f->switches[s];
		uint8_t *grp = j->grp + j->port_base[s];
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_node *peer = port_peer_node(sw, (uint8_t)p);
			grp[p] = (uint8_t)p;
			for (unsigned q = 1; q < p && peer; q++)
				if (port_peer_node(sw, (uint8_t)q) == peer) {
					grp[p] = (uint8_t)q;
					break;
				}
		}
	}
	return 0;
}

static int alloc_scratch(struct path_job *j, unsigned nw)
{
	uint32_t n = j->g->n + 1;

	j->ws = calloc(nw, sizeof(*j->ws));
	if (!j->ws)
		return -ENOMEM;
	for (unsigned w = 0; w < nw; w++) {
		struct path_scratch *s = &j->ws[w];
		s->dist_down = malloc(n * sizeof(uint16_t));
		s->dist_legal = malloc(n * sizeof(uint16_t));
		s->len = malloc(n * sizeof(uint16_t));
		s->forced = malloc(n);
		s->q = malloc(n * sizeof(uint32_t));
		if (!s->dist_down || !s->dist_legal || !s->len || !s->forced ||
		    !s->q)
			return -ENOMEM;
	}
	return 0;
}

static void free_job(struct path_job *j, unsigned nw)
{
	for (unsigned w = 0; j->ws && w < nw; w++) {
		free(j->ws[w].dist_down);
		free(j->ws[w].dist_legal);
		free(j->ws[w].len);
		free(j->ws[w].forced);
		free(j->ws[w].q);
	}
	free(j->ws);
	free((void *)j->by_order);
	free(j->mask);
	free(j->lid_start);
	free(j->lids);
	free(j->lid_port);
	free(j->lid_ca);
	free(j->port_base);
	free(j->port_cnt);
	free(j->nbr_cnt);
	free(j->all_cnt);
	free(j->grp);
}

/* Batches of destination switches bound the candidate masks to ~32 MiB. */
#define MASK_BUDGET (32u << 20)

static int reset_lfts(struct fabric *f)
{
	for (uint32_t s = 0; s < f->n_switches; s++) {
		struct ib_node *sw = f->switches[s];
		if (node_lft_reserve(sw, f->max_lid) < 0)
			return -ENOMEM;
		memset(sw->lft, LFT_NO_PORT, sw->lft_size);
	}
	return 0;
}

int updown_fill_lfts(struct fabric *f, const struct sw_graph *g,
		     struct pool *pool, const uint32_t *order)
{
	struct path_job j = { .f = f, .g = g, .order = order };
	unsigned nw = pool_threads(pool);
	uint32_t n = g->n, *by_order = malloc((n + 1) * sizeof(*by_order));
	int rc = -ENOMEM;

	j.by_order = by_order;
	if (!by_order || reset_lfts(f) < 0 || index_lids(&j) < 0 ||
	    alloc_counters(&j) < 0 || alloc_scratch(&j, nw) < 0)
		goto out;
	for (uint32_t s = 0; s < n; s++)
		by_order[order[s]] = s;
	size_t per_dest = (size_t)n * j.W * sizeof(uint64_t);
	uint32_t batch = (uint32_t)(MASK_BUDGET / (per_dest ? per_dest : 1));
	batch = batch < 1 ? 1 : batch > n ? n : batch;
	j.mask = malloc(batch * per_dest + 1);
	if (!j.mask)
		goto out;
	for (j.first = 0; j.first < n; j.first += batch) {
		j.count = n - j.first < batch ? n - j.first : batch;
		pool_for(pool, j.count, plan_dest, &j);
		pool_for(pool, n, assign_switch, &j);
	}
	rc = 0;
out:
	free_job(&j, nw);
	return rc;
}

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
 * With BFS ranks, "up mode" has two kinds: U climbs to a lower rank, M only
 * crosses same-rank links (lower GUID) before going down.  A same-rank link
 * is taken only into an M or D switch, so no packet climbs after crossing
 * one: the paths then also pass ibdmchk -u, which treats any move that
 * does not lower the rank as a move down.
 * On fat trees with the spines as roots this gives min-hop paths. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/updown.h"

#define INF16 0xFFFFu
/* What a switch does for one destination: climbs to a lower rank (U),
 * only crosses same-rank links or goes down (M), only goes down (D). */
#define MODE_U 0
#define MODE_M 1
#define MODE_D 2

struct lgraph;

struct path_scratch {
	uint16_t *dist_down;  /* shortest down-only path to the dest */
	uint16_t *dist_legal; /* shortest legal path, any mode */
	uint16_t *len;	      /* length of the path the tables will give */
	uint8_t *forced;
	uint8_t *mode; /* MODE_U, MODE_M or MODE_D per label */
	uint32_t *q;
	uint8_t *row; /* one LFT, for place_lids() */
};

struct path_job {
	struct fabric *f;
	const struct sw_graph *g;
	const struct lgraph *lg;
	const uint32_t *order, *by_order;
	uint32_t W;	       /* mask words per switch */
	uint32_t first, count; /* destination switches of this batch */
	uint32_t batch;	       /* destinations a batch holds at most */
	/* [n][batch][W] candidate ports: a switch's rows for every
	 * destination of the batch lie together, because assign_switch()
	 * reads them in that order for 144M (switch, destination) pairs on a
	 * 12,000-switch torus; plan_dest() writes each once */
	uint64_t *mask;
	struct path_scratch *ws;
	/* destination LIDs grouped by their switch */
	uint32_t *lid_start; /* [n + 1] */
	uint16_t *lids;
	uint8_t *lid_port; /* [max_lid + 1] port at the dest switch */
	uint8_t *lid_ca;   /* [max_lid + 1] a CA/router LID */
	uint8_t *lid_off;  /* [max_lid + 1] offset in its port's LMC range */
	uint32_t *lid_pos; /* [max_lid + 1] its index in lids[] */
	uint32_t *n_ca;	   /* [n] CA/router LIDs per destination */
	/* route counters, per switch port: CA-LID routes to the neighbour
	 * switch over all parallel cables, CA-LID routes out of the port,
	 * all routes (switch LIDs too) out of the port */
	uint32_t *port_base; /* [n + 1] */
	uint32_t *nbr_cnt, *port_cnt, *all_cnt;
	uint8_t *grp; /* lowest port number to the same neighbour */
};

/* Masks are one word below 64 ports: these keep GCC from turning a
 * one-word loop into a library call per (switch, destination). */
static inline void mask_zero(uint64_t *m, uint32_t W)
{
	m[0] = 0;
	if (W > 1)
		memset(m + 1, 0, (W - 1) * sizeof(*m));
}

static inline void mask_copy(uint64_t *d, const uint64_t *m, uint32_t W)
{
	d[0] = m[0];
	if (W > 1)
		memcpy(d + 1, m + 1, (W - 1) * sizeof(*m));
}

static inline void mask_set(uint64_t *m, unsigned p)
{
	m[p >> 6] |= 1ull << (p & 63);
}

/* The switch graph renumbered by label and split by direction, so each
 * per-destination pass walks only the links it needs, in label order,
 * over arrays indexed by label. */
struct lgraph {
	uint32_t *ustart, *dstart; /* [n + 1] */
	uint32_t *usend;	   /* [n] end of the strict up links */
	uint32_t *uadj, *dadj;	   /* peer label */
	uint8_t *uport, *dport;	   /* local port */
};

static int lgraph_build(struct lgraph *lg, const struct sw_graph *g,
			const uint32_t *order, const uint32_t *by_order,
			const uint32_t *rank)
{
	uint32_t n = g->n, m = g->start[n], nu = 0, nd = 0;

	lg->ustart = malloc((n + 1) * sizeof(uint32_t));
	lg->usend = malloc((n + 1) * sizeof(uint32_t));
	lg->dstart = malloc((n + 1) * sizeof(uint32_t));
	lg->uadj = malloc((m + 1) * sizeof(uint32_t));
	lg->dadj = malloc((m + 1) * sizeof(uint32_t));
	lg->uport = malloc(m + 1);
	lg->dport = malloc(m + 1);
	if (!lg->ustart || !lg->usend || !lg->dstart || !lg->uadj ||
	    !lg->dadj || !lg->uport || !lg->dport)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = by_order[i];
		lg->ustart[i] = nu;
		lg->dstart[i] = nd;
		/* up links to a lower rank first, then same-rank ones */
		for (int strict = 1; strict >= 0; strict--) {
			for (uint32_t k = g->start[s]; k < g->start[s + 1];
			     k++) {
				uint32_t t = g->peer[k], pl = order[t];
				int lower = rank ? rank[t] < rank[s] : 1;
				if (pl > i || lower != strict)
					continue;
				lg->uadj[nu] = pl;
				lg->uport[nu++] = g->port[k];
			}
			if (strict)
				lg->usend[i] = nu;
		}
		for (uint32_t k = g->start[s]; k < g->start[s + 1]; k++) {
			uint32_t pl = order[g->peer[k]];
			if (pl > i) {
				lg->dadj[nd] = pl;
				lg->dport[nd++] = g->port[k];
			}
		}
	}
	lg->ustart[n] = nu;
	lg->dstart[n] = nd;
	return 0;
}

static void lgraph_free(struct lgraph *lg)
{
	free(lg->ustart);
	free(lg->usend);
	free(lg->dstart);
	free(lg->uadj);
	free(lg->dadj);
	free(lg->uport);
	free(lg->dport);
}

/* Distances to the destination (label dl), indexed by label. */
static void down_bfs(const struct path_job *j, struct path_scratch *w,
		     uint32_t dl)
{
	const struct lgraph *lg = j->lg;
	uint32_t n = j->g->n, head = 0, tail = 0;

	for (uint32_t i = 0; i < n; i++)
		w->dist_down[i] = INF16;
	w->dist_down[dl] = 0;
	w->q[tail++] = dl;
	/* backwards: y reaches x going down iff y is up from x */
	while (head < tail) {
		uint32_t x = w->q[head++];
		for (uint32_t k = lg->ustart[x]; k < lg->ustart[x + 1]; k++) {
			uint32_t y = lg->uadj[k];
			if (w->dist_down[y] == INF16) {
				w->dist_down[y] = w->dist_down[x] + 1;
				w->q[tail++] = y;
			}
		}
	}
	/* legal = up* down*: up neighbours have lower labels, done first */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = w->dist_down[i];
		for (uint32_t k = lg->ustart[i]; k < lg->usend[i]; k++) {
			uint32_t u = lg->uadj[k];
			if (w->dist_legal[u] + 1u < v)
				v = w->dist_legal[u] + 1u;
		}
		w->dist_legal[i] = (uint16_t)v;
	}
}

/* Down mode at label i: candidates one step closer on a down-only path. */
static void pick_down(const struct path_job *j, struct path_scratch *w,
		      uint32_t i, uint64_t *m)
{
	const struct lgraph *lg = j->lg;
	uint16_t want = w->dist_down[i] - 1;
	unsigned found = 0;

	for (int pass = 0; pass < 2 && !found; pass++)
		for (uint32_t k = lg->dstart[i]; k < lg->dstart[i + 1]; k++) {
			uint32_t y = lg->dadj[k];
			if (w->dist_down[y] != want)
				continue;
			if (pass == 0 && !w->forced[y] &&
			    w->dist_legal[y] != w->dist_down[y])
				continue;
			mask_set(m, lg->dport[k]);
			w->forced[y] = 1;
			found++;
		}
	w->len[i] = w->dist_down[i];
}

/* Up link k of label i usable now?  A link to a lower rank always; a
 * same-rank link only into a switch that never climbs to a lower rank
 * for this destination (mode M or D), because a packet that crossed a
 * same-rank link must not go up any more (ibdmchk -u's rule). */
static inline bool up_usable(const struct lgraph *lg,
			     const struct path_scratch *w, uint32_t i,
			     uint32_t k)
{
	return k < lg->usend[i] || w->mode[lg->uadj[k]] != MODE_U;
}

/* Up mode at label i: the usable up links whose final path is shortest,
 * in one pass (a shorter one starts the set again).  Returns that length
 * (INF16 and an empty mask if none); *strict tells whether one of them
 * climbs to a lower rank. */
static uint32_t plan_up(const struct path_job *j, const struct path_scratch *w,
			uint32_t i, uint64_t *m, bool *strict)
{
	const struct lgraph *lg = j->lg;
	uint32_t up = INF16;

	*strict = false;
	for (uint32_t k = lg->ustart[i]; k < lg->ustart[i + 1]; k++) {
		uint32_t len = w->len[lg->uadj[k]] + 1u;
		if (len > up || !up_usable(lg, w, i, k))
			continue;
		if (len < up) {
			up = len;
			*strict = false;
			mask_zero(m, j->W);
		}
		mask_set(m, lg->uport[k]);
		*strict |= k < lg->usend[i];
	}
	return up;
}

static void plan_dest(void *arg, size_t b, unsigned worker)
{
	const struct path_job *j = arg;
	struct path_scratch *w = &j->ws[worker];
	uint32_t n = j->g->n, dl = j->order[j->first + (uint32_t)b], W = j->W;
	size_t stride = (size_t)j->batch * W;
	uint64_t *rows = j->mask + b * W;

	down_bfs(j, w, dl);
	memset(w->forced, 0, n);
	for (uint32_t i = 0; i < n; i++) {
		/* W <= 4: at most 255 ports */
		uint64_t *m = rows + (size_t)j->by_order[i] * stride,
			 mk[4] = {0};
		bool strict;
		w->mode[i] = MODE_D;
		if (i == dl) {
			w->len[i] = 0;
		} else {
			uint32_t up = plan_up(j, w, i, mk, &strict);
			if (w->dist_down[i] != INF16 &&
			    (w->forced[i] || w->dist_down[i] <= up)) {
				mask_zero(mk, W);
				pick_down(j, w, i, mk);
			} else {
				w->len[i] = (uint16_t)up;
				w->mode[i] = strict ? MODE_U : MODE_M;
			}
		}
		mask_copy(m, mk, W);
	}
}

static inline uint64_t port_key(const struct path_job *j, uint32_t base,
				unsigned p)
{
	return (uint64_t)j->nbr_cnt[base + j->grp[base + p]] << 42 |
	       (uint64_t)j->port_cnt[base + p] << 21 | j->all_cnt[base + p];
}

static inline void count_route(const struct path_job *j, uint32_t base,
			       unsigned p, uint16_t lid)
{
	j->all_cnt[base + p]++;
	if (j->lid_ca[lid]) {
		j->port_cnt[base + p]++;
		j->nbr_cnt[base + j->grp[base + p]]++;
	}
}

struct lmc_ctx {
	const struct path_job *j;
	const uint8_t *lft; /* in lids[] position order */
	const unsigned *c;  /* candidate ports */
	uint16_t lid;
};

/* Candidate i already taken by a lower LID of lid's port. */
static bool lmc_taken(void *arg, unsigned i)
{
	const struct lmc_ctx *x = arg;

	for (unsigned o = 1; o <= x->j->lid_off[x->lid]; o++)
		if (x->lft[x->j->lid_pos[x->lid - o]] == x->c[i])
			return true;
	return false;
}

/* A LID at offset > 0 of an LMC range: the candidate ucast_lmc_pick()
 * turns its base LID's by, so every offset is spread as the base LIDs
 * are; LFT_NO_PORT when the base LID left by none of m's ports. */
static unsigned lmc_port(const struct path_job *j, const uint64_t *m,
			 const uint8_t *lft, uint16_t lid)
{
	unsigned c[256], n = 0, bi = LFT_NO_PORT;
	uint8_t bp = lft[j->lid_pos[lid - j->lid_off[lid]]];
	struct lmc_ctx x = {j, lft, c, lid};

	for (uint32_t wd = 0; wd < j->W; wd++)
		for (uint64_t bits = m[wd]; bits; bits &= bits - 1) {
			c[n] = wd * 64 + (unsigned)__builtin_ctzll(bits);
			if (c[n] == bp)
				bi = n;
			n++;
		}
	if (bi == LFT_NO_PORT)
		return LFT_NO_PORT;
	return c[ucast_lmc_pick(n, bi, j->lid_off[lid], lmc_taken, &x)];
}

/* Least loaded candidate of switch s for LID lid: fewest CA routes to
 * the neighbour switch, then on the port, then fewest routes of any kind
 * on the port, then the lowest port number.  CA routes come first because
 * they carry the traffic: switch-LID routes only break ties, so on a fat
 * tree each leaf spreads every remote leaf's hosts over all its up-links.
 * A LID at offset > 0 of an LMC range goes where lmc_port() says, or else
 * takes a port none of the lower LIDs of its port leaves by where it can
 * (lft: s's choices so far, in lids[] position order, assign_switch()).
 * Counts the route. */
static unsigned pick_port(const struct path_job *j, uint32_t s,
			  const uint64_t *m, const uint8_t *lft, uint16_t lid)
{
	uint32_t base = j->port_base[s];
	unsigned best =
	    j->lid_off[lid] ? lmc_port(j, m, lft, lid) : LFT_NO_PORT;
	uint32_t words = best == LFT_NO_PORT ? j->W : 0;
	uint64_t best_key = UINT64_MAX;

	for (uint32_t wd = 0; wd < words; wd++)
		for (uint64_t bits = m[wd]; bits; bits &= bits - 1) {
			unsigned p = wd * 64 + (unsigned)__builtin_ctzll(bits);
			uint64_t key = port_key(j, base, p);
			for (unsigned o = 1; o <= j->lid_off[lid]; o++)
				if (lft[j->lid_pos[lid - o]] == p)
					key |= 1ull << 63;
			if (key < best_key) {
				best_key = key;
				best = p;
			}
		}
	if (best != LFT_NO_PORT)
		count_route(j, base, best, lid);
	return best;
}

/* A candidate of one (switch, destination), ordered like pick_port():
 * key, then port number. */
struct cand {
	uint64_t key;
	unsigned p;
};

/* Candidates of one (switch, destination) in port order; false when two
 * of them lead to the same neighbour (their keys move together, so the
 * caller scans per LID instead). */
static bool collect(const struct path_job *j, uint32_t base, const uint64_t *m,
		    struct cand *c, unsigned *n)
{
	*n = 0;
	for (uint32_t wd = 0; wd < j->W; wd++)
		for (uint64_t bits = m[wd]; bits; bits &= bits - 1) {
			unsigned p = wd * 64 + (unsigned)__builtin_ctzll(bits);
			if (j->grp[base + p] != p)
				return false;
			c[(*n)++] = (struct cand){port_key(j, base, p), p};
		}
	return true;
}

/* The only port of mask m, or LFT_NO_PORT if it has none or several. */
static unsigned single_port(const uint64_t *m, uint32_t W)
{
	unsigned p = LFT_NO_PORT;

	for (uint32_t wd = 0; wd < W; wd++) {
		if (!m[wd])
			continue;
		if (p != LFT_NO_PORT || (m[wd] & (m[wd] - 1)))
			return LFT_NO_PORT;
		p = wd * 64 + (unsigned)__builtin_ctzll(m[wd]);
	}
	return p;
}

/* Routes the LIDs of destination switch d from switch s.  Same choices
 * as calling pick_port() per LID, in rounds: every candidate holding the
 * least key takes the next LID in port order (a taken port's key grows,
 * so it cannot come before the others of its round), then the least key
 * is looked up again.  A fat-tree leaf spreads a block of LIDs over its
 * up-links in one or two rounds instead of one scan per LID.  With one
 * candidate (most pairs on a torus) every LID takes it, counted at once.
 * LIDs with no candidate get LFT_NO_PORT. */
static void assign_dest(const struct path_job *j, uint32_t s, uint32_t d,
			const uint64_t *m, uint8_t *lft)
{
	uint32_t base = j->port_base[s], i = j->lid_start[d];
	uint32_t all = j->lid_start[d + 1], end = i;
	unsigned n, p = single_port(m, j->W);
	struct cand c[256];

	if (p != LFT_NO_PORT) {
		memset(lft + i, (int)p, all - i);
		j->all_cnt[base + p] += all - i;
		j->port_cnt[base + p] += j->n_ca[d];
		j->nbr_cnt[base + j->grp[base + p]] += j->n_ca[d];
		return;
	}
	/* base LIDs (offset 0) come first: spread them in rounds */
	while (end < all && !j->lid_off[j->lids[end]])
		end++;
	if (!collect(j, base, m, c, &n)) {
		for (; i < end; i++) {
			p = pick_port(j, s, m, lft, j->lids[i]);
			if (p == LFT_NO_PORT)
				break;
			lft[i] = (uint8_t)p;
		}
		n = 0;
	}
	while (n && i < end) {
		uint64_t least = UINT64_MAX;
		unsigned first = 0, ties = 0;
		for (unsigned t = 0; t < n; t++) {
			if (c[t].key < least) {
				least = c[t].key;
				first = t;
				ties = 0;
			}
			ties += c[t].key == least;
		}
		if (ties == 1) { /* a round of one: no second scan */
			lft[i] = (uint8_t)c[first].p;
			count_route(j, base, c[first].p, j->lids[i++]);
			c[first].key = port_key(j, base, c[first].p);
			continue;
		}
		for (unsigned t = first; t < n && i < end; t++) {
			if (c[t].key != least)
				continue;
			lft[i] = (uint8_t)c[t].p;
			count_route(j, base, c[t].p, j->lids[i]);
			c[t].key = port_key(j, base, c[t].p);
			i++;
		}
	}
	if (i < end)
		memset(lft + i, LFT_NO_PORT, end - i);
	for (i = end; i < all; i++)
		lft[i] = (uint8_t)pick_port(j, s, m, lft, j->lids[i]);
}

/* Writes switch s's choices for the batch's destinations into its LFT
 * at their positions in j->lids, not at their LIDs: a batch then fills a
 * few contiguous bytes of each LFT instead of entries scattered over all
 * of it (a 12,000-switch torus has 432 MB of LFTs, which stay in no cache
 * from one batch to the next).  place_lids() moves them to their LIDs. */
static void assign_switch(void *arg, size_t si, unsigned worker)
{
	const struct path_job *j = arg;
	uint32_t s = (uint32_t)si;
	uint8_t *lft = j->f->switches[s]->lft;

	(void)worker;
	for (uint32_t b = 0; b < j->count; b++) {
		uint32_t d = j->first + b;
		const uint64_t *m = j->mask + ((size_t)s * j->batch + b) * j->W;
		if (s != d) {
			assign_dest(j, s, d, m, lft);
			continue;
		}
		for (uint32_t i = j->lid_start[d]; i < j->lid_start[d + 1]; i++)
			lft[i] = j->lid_port[j->lids[i]];
	}
}

/* The LFT of switch si from LID-position order (assign_switch()) to LID
 * order, every LID no destination owns set to LFT_NO_PORT. */
static void place_lids(void *arg, size_t si, unsigned worker)
{
	const struct path_job *j = arg;
	struct ib_node *sw = j->f->switches[si];
	uint8_t *tmp = j->ws[worker].row;
	uint32_t n_lids = j->lid_start[j->g->n];

	memcpy(tmp, sw->lft, n_lids);
	memset(sw->lft, LFT_NO_PORT, sw->lft_size);
	for (uint32_t i = 0; i < n_lids; i++)
		sw->lft[j->lids[i]] = tmp[i];
}

/* Destination LIDs by switch: a switch's own LID (port 0) and each CA or
 * router port's LIDs (the switch port it hangs from). */
static int index_lids(struct path_job *j)
{
	const struct fabric *f = j->f;
	uint32_t n = j->g->n, maxoff = 0;
	int32_t *dsw = malloc(((size_t)f->max_lid + 1) * sizeof(*dsw));

	j->lid_start = calloc(n + 2, sizeof(*j->lid_start));
	j->lids = malloc(((size_t)f->max_lid + 1) * sizeof(*j->lids));
	j->lid_port = calloc((size_t)f->max_lid + 1, 1);
	j->lid_ca = calloc((size_t)f->max_lid + 1, 1);
	j->lid_off = calloc((size_t)f->max_lid + 1, 1);
	j->lid_pos = calloc((size_t)f->max_lid + 1, sizeof(*j->lid_pos));
	j->n_ca = calloc(n + 1, sizeof(*j->n_ca));
	if (!dsw || !j->lid_start || !j->lids || !j->lid_port || !j->lid_ca ||
	    !j->n_ca || !j->lid_off || !j->lid_pos) {
		free(dsw);
		return -ENOMEM;
	}
	for (uint32_t l = 0; l <= f->max_lid; l++) {
		struct ib_port *p =
		    l ? fabric_port_by_lid(f, (uint16_t)l) : NULL;
		dsw[l] = -1;
		if (p && node_is_switch(p->node)) {
			dsw[l] = p->node->sw_idx;
		} else if (p && p->remote && node_is_switch(p->remote->node)) {
			dsw[l] = p->remote->node->sw_idx;
			j->lid_port[l] = p->remote->num;
			j->lid_ca[l] = 1;
			j->lid_off[l] = (uint8_t)(l - p->lid);
			maxoff =
			    j->lid_off[l] > maxoff ? j->lid_off[l] : maxoff;
			j->n_ca[dsw[l]]++;
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
	/* a switch's LIDs by offset, then LID: every port's base LID first,
	 * so base LIDs spread as they would without LMC */
	for (uint32_t o = 0; o <= maxoff; o++)
		for (uint32_t l = 0; l <= f->max_lid; l++)
			if (dsw[l] >= 0 && j->lid_off[l] == o) {
				uint32_t at =
				    j->lid_start[dsw[l]] + fill[dsw[l]]++;
				j->lids[at] = (uint16_t)l;
				j->lid_pos[l] = at;
			}
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
		s->mode = malloc(n);
		s->q = malloc(n * sizeof(uint32_t));
		s->row = malloc((size_t)j->f->max_lid + 1);
		if (!s->dist_down || !s->dist_legal || !s->len || !s->forced ||
		    !s->mode || !s->q || !s->row)
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
		free(j->ws[w].mode);
		free(j->ws[w].q);
		free(j->ws[w].row);
	}
	free(j->ws);
	free((void *)j->by_order);
	free(j->mask);
	free(j->lid_start);
	free(j->lids);
	free(j->lid_port);
	free(j->lid_ca);
	free(j->lid_off);
	free(j->lid_pos);
	free(j->n_ca);
	free(j->port_base);
	free(j->port_cnt);
	free(j->nbr_cnt);
	free(j->all_cnt);
	free(j->grp);
}

/* Batches of destination switches bound the candidate masks to ~4 MiB:
 * reused pages, not fresh ones (page faults cost more than batches). */
#define MASK_BUDGET (4u << 20)

static int reserve_lfts(struct fabric *f)
{
	for (uint32_t s = 0; s < f->n_switches; s++)
		if (node_lft_reserve(f->switches[s], f->max_lid) < 0)
			return -ENOMEM;
	return 0;
}

/* What both passes need: the label order's inverse, per-worker scratch,
 * the label graph and the candidate masks of one batch of destinations.
 * j->W must be set. */
static int plan_setup(struct path_job *j, struct lgraph *lg,
		      const uint32_t *rank, unsigned nw)
{
	uint32_t n = j->g->n, *by_order = malloc((n + 1) * sizeof(*by_order));
	size_t per_dest = (size_t)n * j->W * sizeof(uint64_t);

	j->by_order = by_order;
	if (!by_order || alloc_scratch(j, nw) < 0)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++)
		by_order[j->order[s]] = s;
	if (lgraph_build(lg, j->g, j->order, by_order, rank) < 0)
		return -ENOMEM;
	j->lg = lg;
	j->batch = (uint32_t)(MASK_BUDGET / (per_dest ? per_dest : 1));
	j->batch = j->batch < 1 ? 1 : j->batch > n ? n : j->batch;
	j->mask = malloc(j->batch * per_dest + 1);
	return j->mask ? 0 : -ENOMEM;
}

/* The next batch of destination switches: false when all were done. */
static bool next_batch(struct path_job *j, bool first)
{
	uint32_t n = j->g->n;

	j->first = first ? 0 : j->first + j->batch;
	if (j->first >= n)
		return false;
	j->count = n - j->first < j->batch ? n - j->first : j->batch;
	return true;
}

int updown_fill_lfts(struct fabric *f, const struct sw_graph *g,
		     struct pool *pool, const uint32_t *order,
		     const uint32_t *rank)
{
	struct path_job j = {.f = f, .g = g, .order = order};
	struct lgraph lg = {0};
	unsigned nw = pool_threads(pool);
	int rc = -ENOMEM;

	if (reserve_lfts(f) < 0 || index_lids(&j) < 0 ||
	    alloc_counters(&j) < 0 || plan_setup(&j, &lg, rank, nw) < 0)
		goto out;
	for (bool first = true; next_batch(&j, first); first = false) {
		pool_for(pool, j.count, plan_dest, &j);
		pool_for(pool, g->n, assign_switch, &j);
	}
	pool_for(pool, g->n, place_lids, &j);
	rc = 0;
out:
	lgraph_free(&lg);
	free_job(&j, nw);
	return rc;
}

int updown_candidates(const struct fabric *f, const struct sw_graph *g,
		      struct pool *pool, const uint32_t *order,
		      const uint32_t *rank, updown_cand_fn fn, void *ctx)
{
	struct path_job j = {.f = (struct fabric *)f, .g = g, .order = order};
	struct lgraph lg = {0};
	unsigned nw = pool_threads(pool), maxp = 0;
	int rc = -ENOMEM;

	for (uint32_t s = 0; s < g->n; s++)
		maxp = f->switches[s]->nports > maxp ? f->switches[s]->nports
						     : maxp;
	j.W = maxp / 64 + 1;
	if (plan_setup(&j, &lg, rank, nw) < 0)
		goto out;
	for (bool first = true; next_batch(&j, first); first = false) {
		pool_for(pool, j.count, plan_dest, &j);
		fn(ctx, j.first, j.count, j.mask, j.W, j.batch);
	}
	rc = 0;
out:
	lgraph_free(&lg);
	free_job(&j, nw);
	return rc;
}

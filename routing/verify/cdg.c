/* LFT verification and channel-dependency cycle check: see verify.h.
 * Per destination LID (parallel), each switch's next hop is resolved into
 * a hop distance by a memoised iterative walk (loops and drops detected);
 * the dependencies it shows are OR-ed into per-(switch, in-port) bitmasks
 * of out-ports, switch by switch for a group of LIDs at a time.  The graph
 * is then checked with Kahn's algorithm, no recursion, so 12,000-switch
 * tori are fine. */
#include "routing/verify/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEXT_SELF 0xFFFFFFFEu /* delivered here */
#define NEXT_DEAD 0xFFFFFFFFu /* dropped */
/* dist[] values beyond any distance, for one LID */
#define DIST_UNKNOWN 0xFFFFFFFFu /* not reached yet */
#define DIST_INF     0xFFFFFFFEu /* dropped or looping */
#define DIST_BUSY    0xFFFFFFFDu /* on the chain being followed */
/* LIDs walked together: their LFT columns are copied once per switch, so
 * the walk reads a small cache-resident block, not n scattered LFTs. */
#define LID_BLOCK 128
/* LIDs whose dependencies are noted together, switch by switch: a
 * switch's dependency words are then read once for all of them instead of
 * once per LID (per LID they are spread over the whole graph: 864 KB a
 * worker on a 12,000-switch torus, more than a core's cache). */
#define DEP_GROUP 16
#define NO_LOADS  UINT32_MAX /* gdsw[] of a LID whose loads do not count */

struct walk_scratch {
	uint32_t *nexts; /* [DEP_GROUP][n]: next hops of a group's LIDs */
	uint32_t *next;	 /* the LID's row of them */
	uint32_t *dist, *stack;
	uint32_t *fin, nfin; /* switches in the order their distance was
				known: each after its next hop */
	uint8_t *blk;	     /* [LID_BLOCK][n] LFT columns of a LID block */
	const uint8_t *outp; /* [n] out-port of each switch for one LID */
	/* the group's LIDs: their columns in blk and their next hops */
	uint16_t glid[DEP_GROUP];
	const uint8_t *goutp[DEP_GROUP];
	uint32_t gdsw[DEP_GROUP]; /* the LID's switch, if its loads count */
	unsigned ng;
	uint64_t *dep; /* this worker's dependencies, merged later */
	/* [DEP_GROUP][n] the CA sources behind each switch, per LID of the
	 * group (<= 49,151 CA ports); per link the CA-to-CA routes over it
	 * (at most one per CA pair: < 49,151^2 < 2^32) */
	uint32_t *accs, *acc, *load;
	uint64_t pairs, unreach, hop_sum, illegal, sw_unreach;
	uint32_t sw_bad_lid, sw_bad_sw; /* first undelivered switch LID */
	uint32_t max_hops;
	uint32_t bad_lid, bad_sw;   /* first undelivered (lowest LID) */
	uint32_t turn_lid, turn_sw; /* first illegal turn */
};

struct cdg_job {
	const struct fabric *f;
	const uint32_t *order;
	uint32_t n, W;
	uint32_t *port_base; /* [n + 1] vertex id = port_base[s] + port */
	uint32_t *peer;	     /* [port_base[n]] switch behind, or NEXT_DEAD */
	uint8_t *peer_port;  /* [port_base[n]] its port number */
	uint32_t *arrive;    /* [port_base[n]] vertex (peer, its port) */
	uint8_t *up;	     /* [port_base[n]] the link goes up (order) */
	uint32_t *hosts;     /* linked CA ports per switch */
	uint8_t *nports;     /* per switch */
	const uint8_t **lft; /* per switch, LFT_NO_PORT beyond lft_size */
	uint32_t *lft_size;
	uint64_t *dep; /* [port_base[n]][W]: (t, in-port) -> out-ports */
	struct walk_scratch *ws;
};

static const char *sw_name(const struct ib_node *n, char *buf, size_t len)
{
	if (n->desc[0])
		return n->desc;
	snprintf(buf, len, "0x%016" PRIx64, n->guid);
	return buf;
}

/* Next switch of every switch for one LID: a switch index, NEXT_SELF
 * (delivered: the destination switch's port to the LID) or NEXT_DEAD.  A
 * pass in switch order, so the reads are sequential; settle_all() then
 * chases chains through next[] alone. */
static void next_hops(const struct cdg_job *j, struct walk_scratch *w,
		      uint32_t dsw, uint8_t dport)
{
	const uint8_t *outp = w->outp, *nports = j->nports;
	const uint32_t *pb = j->port_base, *peer = j->peer;
	uint32_t *next = w->next;

	for (uint32_t s = 0; s < j->n; s++) {
		uint8_t p = outp[s];
		next[s] = p && p <= nports[s] ? peer[pb[s] + p] : NEXT_DEAD;
	}
	next[dsw] = outp[dsw] == dport ? NEXT_SELF : NEXT_DEAD;
}

/* Distance of every switch to the destination (DIST_INF: dropped or
 * looping), each switch settled once, after its next hop: a switch's
 * chain of next hops is followed up to a settled switch, the
 * destination, a drop or itself (a loop), then settled backwards. */
static void settle_all(const struct cdg_job *j, struct walk_scratch *w)
{
	const uint32_t *next = w->next;
	uint32_t *dist = w->dist, *stack = w->stack, *fin = w->fin;
	uint32_t n = j->n, nfin = 0;

	memset(dist, 0xFF, n * sizeof(*dist)); /* DIST_UNKNOWN */
	for (uint32_t s = 0; s < n; s++) {
		uint32_t cur = s, sp = 0, v;
		if (dist[s] != DIST_UNKNOWN)
			continue;
		do {
			dist[cur] = DIST_BUSY;
			stack[sp++] = cur;
			cur = next[cur];
		} while (cur < NEXT_SELF && dist[cur] == DIST_UNKNOWN);
		if (cur >= NEXT_SELF) /* the last one delivers (0) or drops */
			v = cur == NEXT_SELF ? UINT32_MAX : DIST_INF;
		else /* settled, or DIST_BUSY: a forwarding loop */
			v = dist[cur] == DIST_BUSY ? DIST_INF : dist[cur];
		while (sp) {
			uint32_t x = stack[--sp];
			v = v == DIST_INF ? DIST_INF : v + 1;
			dist[x] = v;
			fin[nfin++] = x;
		}
	}
	w->nfin = nfin;
}

/* Every dependency (s -> t) then (t -> its next hop) the routes of the
 * group's LIDs show, where t leads on to a switch, and the down->up turns
 * among them (up[] is all 0 without an order), and the CA-to-CA routes
 * each switch sends over its link (count_loads()); switch by switch,
 * every LID of the group at each (see DEP_GROUP). */
static void note_deps(const struct cdg_job *j, struct walk_scratch *w)
{
	const uint32_t *pb = j->port_base, *arrive = j->arrive;
	const uint8_t *up = j->up;
	uint64_t *dep = w->dep;
	uint32_t n = j->n, *load = w->load;

	for (uint32_t s = 0; s < n; s++)
		for (unsigned k = 0; k < w->ng; k++) {
			const uint32_t *next = w->nexts + (size_t)k * n;
			const uint8_t *outp = w->goutp[k];
			uint32_t t = next[s], a = 0;
			/* sources only behind a switch that delivers: its
			 * port is a link (a drop's may be any byte) */
			if (w->gdsw[k] != NO_LOADS && s != w->gdsw[k])
				a = w->accs[(size_t)k * n + s];
			if (a)
				load[pb[s] + outp[s]] += a;
			if (t >= NEXT_SELF || next[t] >= NEXT_SELF)
				continue;
			uint32_t vs = pb[s] + outp[s];
			uint8_t p2 = outp[t];
			dep[(size_t)arrive[vs] + (p2 >> 6)] |= 1ull
							       << (p2 & 63);
			if (up[pb[t] + p2] > up[vs] &&
			    (!w->illegal++ || w->glid[k] < w->turn_lid)) {
				w->turn_lid = w->glid[k];
				w->turn_sw = t;
			}
		}
	w->ng = 0;
}

/* The lowest switch s undelivered for the lowest LID. */
static inline void first_bad(uint32_t *bad_lid, uint32_t *bad_sw, bool none_yet,
			     uint16_t lid, uint32_t s)
{
	if (none_yet || lid < *bad_lid || (lid == *bad_lid && s < *bad_sw)) {
		*bad_lid = lid;
		*bad_sw = s;
	}
}

/* CA pairs and hops to one CA LID, and the sources at each switch. */
static void count_pairs(const struct cdg_job *j, struct walk_scratch *w,
			uint32_t dsw, uint16_t lid)
{
	for (uint32_t s = 0; s < j->n; s++) {
		uint64_t c = j->hosts[s] - (s == dsw);
		uint32_t d = w->dist[s];
		w->acc[s] = (uint32_t)c;
		if (!c)
			continue;
		w->pairs += c;
		if (d == DIST_INF) {
			first_bad(&w->bad_lid, &w->bad_sw, !w->unreach, lid, s);
			w->unreach += c;
			w->acc[s] = 0; /* no route to carry it on */
			continue;
		}
		w->hop_sum += c * (d + 2);
		if (d + 2 > w->max_hops)
			w->max_hops = d + 2;
	}
}

/* CA-to-CA routes per link: the routes to one LID form an in-tree; push
 * each switch's source count to its next hop, every switch before the
 * one it leads to (the reverse of the order settle_all() settled them).
 * acc[s] then holds what s sends over its link; note_deps() adds it to
 * the link's load. */
static void count_loads(struct walk_scratch *w, uint32_t dsw)
{
	const uint32_t *fin = w->fin, *next = w->next;
	uint32_t *acc = w->acc;

	for (uint32_t k = w->nfin; k--;) {
		uint32_t s = fin[k], a = acc[s];
		if (a && s != dsw)
			acc[next[s]] += a;
	}
}

static void walk_lid(const struct cdg_job *j, struct walk_scratch *w,
		     uint16_t lid, unsigned col)
{
	struct ib_port *p = fabric_port_by_lid(j->f, lid);
	uint32_t dsw;
	uint8_t dport = 0;
	bool ca = false;

	if (!p)
		return;
	if (node_is_switch(p->node)) {
		dsw = (uint32_t)p->node->sw_idx;
	} else if (p->remote && node_is_switch(p->remote->node)) {
		dsw = (uint32_t)p->remote->node->sw_idx;
		dport = p->remote->num;
		ca = true;
	} else {
		return; /* unlinked CA port: no source reaches it anyway */
	}
	w->outp = w->blk + (size_t)col * j->n;
	w->next = w->nexts + (size_t)w->ng * j->n;
	w->acc = w->accs + (size_t)w->ng * j->n;
	w->glid[w->ng] = lid;
	w->gdsw[w->ng] = ca && p->lid == lid ? dsw : NO_LOADS;
	w->goutp[w->ng++] = w->outp;
	next_hops(j, w, dsw, dport);
	settle_all(j, w);
	if (ca && p->lid == lid) {
		count_pairs(j, w, dsw, lid);
		count_loads(w, dsw);
	} else if (!ca) {
		for (uint32_t s = 0; s < j->n; s++)
			if (w->dist[s] == DIST_INF && j->hosts[s]) {
				first_bad(&w->sw_bad_lid, &w->sw_bad_sw,
					  !w->sw_unreach, lid, s);
				w->sw_unreach += j->hosts[s];
			}
	}
}

static void walk_block(void *arg, size_t bi, unsigned worker)
{
	const struct cdg_job *j = arg;
	struct walk_scratch *w = &j->ws[worker];
	uint32_t l0 = (uint32_t)bi * LID_BLOCK, l1 = l0 + LID_BLOCK;

	if (l1 > (uint32_t)j->f->max_lid + 1)
		l1 = (uint32_t)j->f->max_lid + 1;
	/* transpose 16 switches at a time: each row of blk then gets 16
	 * consecutive bytes per LID instead of one */
	for (uint32_t s0 = 0; s0 < j->n; s0 += 16) {
		uint32_t s1 = s0 + 16 < j->n ? s0 + 16 : j->n;
		uint32_t top = l1;
		for (uint32_t s = s0; s < s1; s++)
			top = j->lft_size[s] < top ? j->lft_size[s] : top;
		for (uint32_t l = l0; l < l1; l++) {
			uint8_t *out = w->blk + (size_t)(l - l0) * j->n;
			if (l < top)
				for (uint32_t s = s0; s < s1; s++)
					out[s] = j->lft[s][l];
			else
				for (uint32_t s = s0; s < s1; s++)
					out[s] = l < j->lft_size[s]
						     ? j->lft[s][l]
						     : LFT_NO_PORT;
		}
	}
	for (uint32_t l = l0; l < l1; l++) {
		walk_lid(j, w, (uint16_t)l, l - l0);
		if (w->ng == DEP_GROUP)
			note_deps(j, w);
	}
	if (w->ng)
		note_deps(j, w);
}

static int alloc_job(struct cdg_job *j, unsigned nw)
{
	const struct fabric *f = j->f;
	uint32_t n = j->n, maxp = 0;

	j->port_base = malloc((n + 1) * sizeof(*j->port_base));
	j->hosts = calloc(n + 1, sizeof(*j->hosts));
	j->nports = calloc(n + 1, 1);
	j->lft = calloc(n + 1, sizeof(*j->lft));
	j->lft_size = calloc(n + 1, sizeof(*j->lft_size));
	j->ws = calloc(nw, sizeof(*j->ws));
	if (!j->port_base || !j->hosts || !j->nports || !j->lft ||
	    !j->lft_size || !j->ws)
		return -ENOMEM;
	j->port_base[0] = 0;
	for (uint32_t s = 0; s < n; s++) {
		const struct ib_node *sw = f->switches[s];
		j->port_base[s + 1] = j->port_base[s] + sw->nports + 1;
		maxp = sw->nports > maxp ? sw->nports : maxp;
		j->nports[s] = sw->nports;
		j->lft[s] = sw->lft;
		j->lft_size[s] = sw->lft ? sw->lft_size : 0;
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_port *r = sw->ports[p].remote;
			if (r && !node_is_switch(r->node))
				j->hosts[s]++;
		}
	}
	j->W = maxp / 64 + 1;
	size_t nv = (size_t)j->port_base[n] + 1;
	j->peer = malloc(nv * sizeof(*j->peer));
	j->peer_port = calloc(nv, 1);
	j->arrive = calloc(nv, sizeof(*j->arrive));
	j->up = calloc(nv, 1);
	if (!j->peer || !j->peer_port || !j->arrive || !j->up)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		const struct ib_node *sw = f->switches[s];
		for (unsigned p = 0; p <= sw->nports; p++) {
			struct ib_port *r = p ? sw->ports[p].remote : NULL;
			bool to_sw = r && node_is_switch(r->node);
			uint32_t v = j->port_base[s] + p, t;
			j->peer[v] = NEXT_DEAD;
			if (!to_sw)
				continue;
			t = (uint32_t)r->node->sw_idx;
			j->peer[v] = t;
			j->peer_port[v] = r->num;
			j->arrive[v] = (j->port_base[t] + r->num) * j->W;
			j->up[v] = j->order && j->order[t] < j->order[s];
		}
	}
	j->dep = calloc((size_t)j->port_base[n] * j->W + 1, sizeof(*j->dep));
	if (!j->dep)
		return -ENOMEM;
	for (unsigned i = 0; i < nw; i++) {
		struct walk_scratch *w = &j->ws[i];
		w->nexts =
		    malloc((size_t)(n + 2) * DEP_GROUP * sizeof(uint32_t));
		w->dist = malloc((n + 2) * sizeof(uint32_t));
		w->stack = malloc((n + 2) * sizeof(uint32_t));
		w->fin = malloc((n + 2) * sizeof(uint32_t));
		w->blk = malloc((size_t)(n + 2) * LID_BLOCK);
		w->dep =
		    calloc((size_t)j->port_base[n] * j->W + 1, sizeof(*w->dep));
		w->accs =
		    malloc((size_t)(n + 2) * DEP_GROUP * sizeof(uint32_t));
		w->load = calloc(j->port_base[n] + 1, sizeof(uint32_t));
		if (!w->nexts || !w->dist || !w->stack || !w->fin || !w->blk ||
		    !w->dep || !w->accs || !w->load)
			return -ENOMEM;
	}
	return 0;
}

static void free_job(struct cdg_job *j, unsigned nw)
{
	for (unsigned i = 0; j->ws && i < nw; i++) {
		struct walk_scratch *w = &j->ws[i];
		free(w->nexts);
		free(w->dist);
		free(w->stack);
		free(w->fin);
		free(w->blk);
		free(w->dep);
		free(w->accs);
		free(w->load);
	}
	free(j->ws);
	free(j->port_base);
	free(j->peer);
	free(j->peer_port);
	free(j->arrive);
	free(j->up);
	free(j->hosts);
	free(j->nports);
	free(j->lft);
	free(j->lft_size);
	free(j->dep);
}

/* Out-ports that follow the link arriving at switch t by in-port q. */
static inline const uint64_t *deps_at(const struct cdg_job *j, uint32_t t,
				      unsigned q)
{
	return j->dep + (size_t)(j->port_base[t] + q) * j->W;
}

/* The vertex (s, p) if p leads to a switch, else UINT32_MAX. */
static uint32_t vertex(const struct cdg_job *j, uint32_t s, unsigned p)
{
	const struct ib_port *r = j->f->switches[s]->ports[p].remote;
	return r && node_is_switch(r->node) ? j->port_base[s] + p : UINT32_MAX;
}

struct kahn {
	uint32_t *indeg, *q, *vsw; /* vsw: vertex -> switch */
	uint8_t *vport;
	uint32_t n_vertices, removed;
};

static void kahn_succ(const struct cdg_job *j, struct kahn *k, uint32_t v,
		      bool count_only)
{
	const struct ib_port *r =
	    j->f->switches[k->vsw[v]]->ports[k->vport[v]].remote;
	uint32_t t = (uint32_t)r->node->sw_idx;
	const uint64_t *m = deps_at(j, t, r->num);

	for (uint32_t wd = 0; wd < j->W; wd++)
		for (uint64_t bits = m[wd]; bits; bits &= bits - 1) {
			unsigned p2 = wd * 64 + (unsigned)__builtin_ctzll(bits);
			uint32_t u = vertex(j, t, p2);
			if (u == UINT32_MAX)
				continue;
			if (count_only)
				k->indeg[u]++;
			else if (--k->indeg[u] == 0)
				k->q[k->removed++] = u;
		}
}

/* Walks predecessors among the vertices Kahn left (each has one) until
 * one repeats, then prints that cycle forwards into why. */
static void describe_cycle(const struct cdg_job *j, struct kahn *k,
			   uint32_t start, char *why, size_t len)
{
	uint32_t *seen = k->q; /* reused: step at which a vertex was seen */
	uint32_t v = start, step = 1,
		 *path = malloc(sizeof(*path) * (k->n_vertices + 1));
	char b1[24];
	size_t o;

	memset(seen, 0, sizeof(*seen) * k->n_vertices);
	while (path && !seen[v]) {
		seen[v] = step;
		path[step++ - 1] = v;
		uint32_t t = k->vsw[v], pv = UINT32_MAX;
		const struct ib_node *tn = j->f->switches[t];
		for (unsigned q = 1; q <= tn->nports && pv == UINT32_MAX; q++) {
			const struct ib_port *r = tn->ports[q].remote;
			const uint64_t *m = deps_at(j, t, q);
			if (!r || !node_is_switch(r->node) ||
			    !(m[k->vport[v] >> 6] &
			      (1ull << (k->vport[v] & 63))))
				continue;
			uint32_t c =
			    vertex(j, (uint32_t)r->node->sw_idx, r->num);
			if (k->indeg[c])
				pv = c;
		}
		if (pv == UINT32_MAX)
			break; /* cannot happen: Kahn left v with a predecessor
				*/
		v = pv;
	}
	o = (size_t)snprintf(why, len, "channel dependency cycle through");
	if (path && seen[v]) {
		uint32_t first = seen[v] - 1, cnt = step - 1 - first;
		for (uint32_t i = step - 1; i > first && o < len; i--) {
			uint32_t x = path[i - 1];
			o += (size_t)snprintf(
			    why + o, len - o, "%s %s port %u",
			    i == step - 1 ? "" : " ->",
			    sw_name(j->f->switches[k->vsw[x]], b1, sizeof(b1)),
			    k->vport[x]);
		}
		if (o < len)
			snprintf(why + o, len - o, " (%u links)", cnt);
	}
	free(path);
}

/* 1 acyclic, 0 cyclic (why set), -ENOMEM. */
static int kahn_check(const struct cdg_job *j, char *why, size_t len)
{
	struct kahn k = {.n_vertices = j->port_base[j->n]};
	uint32_t valid = 0, head = 0;
	int rc = -ENOMEM;

	k.indeg = calloc(k.n_vertices + 1, sizeof(*k.indeg));
	k.q = malloc((k.n_vertices + 1) * sizeof(*k.q));
	k.vsw = malloc((k.n_vertices + 1) * sizeof(*k.vsw));
	k.vport = malloc(k.n_vertices + 1);
	if (!k.indeg || !k.q || !k.vsw || !k.vport)
		goto out;
	for (uint32_t s = 0; s < j->n; s++)
		for (unsigned p = 0; p <= j->f->switches[s]->nports; p++) {
			k.vsw[j->port_base[s] + p] = s;
			k.vport[j->port_base[s] + p] = (uint8_t)p;
		}
	for (uint32_t v = 0; v < k.n_vertices; v++)
		if (k.vport[v] && vertex(j, k.vsw[v], k.vport[v]) == v) {
			valid++;
			kahn_succ(j, &k, v, true);
		}
	for (uint32_t v = 0; v < k.n_vertices; v++)
		if (k.vport[v] && vertex(j, k.vsw[v], k.vport[v]) == v &&
		    !k.indeg[v])
			k.q[k.removed++] = v;
	while (head < k.removed)
		kahn_succ(j, &k, k.q[head++], false);
	rc = k.removed == valid;
	if (!rc)
		for (uint32_t v = 0; v < k.n_vertices; v++)
			if (k.indeg[v]) {
				describe_cycle(j, &k, v, why, len);
				break;
			}
out:
	free(k.indeg);
	free(k.q);
	free(k.vsw);
	free(k.vport);
	return rc;
}

/* lid_sw[0..2]: first undelivered CA LID, illegal turn, undelivered
 * switch LID; lid_sw[3..5] the switches where each was seen. */
static void merge_workers(const struct cdg_job *j, unsigned nw,
			  struct cdg_report *r, uint32_t *lid_sw)
{
	uint32_t *bad_lid = &lid_sw[0], *turn_lid = &lid_sw[1];
	uint32_t *sw_bad_lid = &lid_sw[2], *bad_sw = &lid_sw[3];
	uint32_t *turn_sw = &lid_sw[4], *sw_bad_sw = &lid_sw[5];
	uint64_t hop_sum = 0;

	*bad_lid = *turn_lid = *sw_bad_lid = UINT32_MAX;
	for (unsigned i = 0; i < nw; i++) {
		struct walk_scratch *w = &j->ws[i];
		r->pairs += w->pairs;
		r->unreachable_pairs += w->unreach;
		r->illegal_turns += w->illegal;
		r->sw_unreachable_pairs += w->sw_unreach;
		hop_sum += w->hop_sum;
		r->max_hops =
		    w->max_hops > r->max_hops ? w->max_hops : r->max_hops;
		if (w->unreach && w->bad_lid < *bad_lid) {
			*bad_lid = w->bad_lid;
			*bad_sw = w->bad_sw;
		}
		if (w->sw_unreach && w->sw_bad_lid < *sw_bad_lid) {
			*sw_bad_lid = w->sw_bad_lid;
			*sw_bad_sw = w->sw_bad_sw;
		}
		if (w->illegal && w->turn_lid < *turn_lid) {
			*turn_lid = w->turn_lid;
			*turn_sw = w->turn_sw;
		}
		if (i)
			for (uint32_t v = 0; v < j->port_base[j->n]; v++)
				j->ws[0].load[v] += w->load[v];
	}
	for (uint32_t v = 0; v < j->port_base[j->n]; v++)
		if (j->ws[0].load[v] > r->max_link_routes)
			r->max_link_routes = j->ws[0].load[v];
	r->avg_hops =
	    r->pairs > r->unreachable_pairs
		? (double)hop_sum / (double)(r->pairs - r->unreachable_pairs)
		: 0.0;
}

int cdg_verify(const struct fabric *f, struct pool *pool, const uint32_t *order,
	       struct cdg_report *r)
{
	struct cdg_job j = {.f = f, .order = order, .n = f->n_switches};
	unsigned nw = pool_threads(pool);
	uint32_t ls[6] = {0};
	char b1[24];
	int rc;

	memset(r, 0, sizeof(*r));
	r->acyclic = -1;
	rc = alloc_job(&j, nw);
	if (rc < 0)
		goto out;
	for (unsigned i = 0; i < nw; i++)
		j.ws[i].bad_lid = j.ws[i].turn_lid = j.ws[i].sw_bad_lid =
		    UINT32_MAX;
	pool_for(pool, ((size_t)f->max_lid + LID_BLOCK) / LID_BLOCK, walk_block,
		 &j);
	merge_workers(&j, nw, r, ls);
	for (unsigned i = 0; i < nw; i++)
		for (size_t v = 0; v < (size_t)j.port_base[j.n] * j.W; v++)
			j.dep[v] |= j.ws[i].dep[v];
	rc = kahn_check(&j, r->why, sizeof(r->why));
	if (rc < 0)
		goto out;
	r->acyclic = rc;
	rc = 0;
	if (!r->acyclic)
		goto out; /* why already says through which links */
	if (r->illegal_turns)
		snprintf(r->why, sizeof(r->why),
			 "%" PRIu64 " down->up turns, first at switch %s "
			 "for LID %u",
			 r->illegal_turns,
			 sw_name(f->switches[ls[4]], b1, sizeof(b1)), ls[1]);
	else if (r->unreachable_pairs)
		snprintf(r->why, sizeof(r->why),
			 "%" PRIu64 " CA pairs not delivered, first: LID %u "
			 "from switch %s",
			 r->unreachable_pairs, ls[0],
			 sw_name(f->switches[ls[3]], b1, sizeof(b1)));
	else if (r->sw_unreachable_pairs)
		snprintf(r->why, sizeof(r->why),
			 "%" PRIu64 " CA-to-switch pairs not delivered, first: "
			 "switch LID %u from switch %s",
			 r->sw_unreachable_pairs, ls[2],
			 sw_name(f->switches[ls[5]], b1, sizeof(b1)));
out:
	free_job(&j, nw);
	return rc;
}

int cdg_check(const struct fabric *f, struct pool *pool, char *why,
	      size_t whylen)
{
	struct cdg_report r;
	int rc = cdg_verify(f, pool, NULL, &r);

	if (rc < 0)
		return rc;
	if (why && whylen)
		snprintf(why, whylen, "%s", r.acyclic ? "" : r.why);
	return r.acyclic;
}

/* Port sets: per LID, every switch's set first, then for each port of a
 * set that leads to switch t (arriving by port q) the dependency of
 * (t, q) on every port of t's set. */
static void deps_of_sets(struct cdg_job *j, cdg_set_fn fn, void *ctx,
			 uint64_t (*set)[4])
{
	for (uint32_t l = 1; l <= j->f->max_lid; l++) {
		for (uint32_t s = 0; s < j->n; s++) {
			memset(set[s], 0, sizeof(set[s]));
			fn(ctx, s, (uint16_t)l, set[s]);
		}
		for (uint32_t s = 0; s < j->n; s++)
			for (unsigned p = 1; p <= j->nports[s]; p++) {
				uint32_t t = j->peer[j->port_base[s] + p];
				if (!(set[s][p >> 6] >> (p & 63) & 1) ||
				    t >= j->n)
					continue;
				uint64_t *d =
				    j->dep +
				    (size_t)(j->port_base[t] +
					     j->peer_port[j->port_base[s] +
							  p]) *
					j->W;
				for (uint32_t w = 0; w < j->W; w++)
					d[w] |= set[t][w];
			}
	}
}

int cdg_check_sets(const struct fabric *f, cdg_set_fn fn, void *ctx, char *why,
		   size_t whylen)
{
	struct cdg_job j = {.f = f, .n = f->n_switches};
	uint64_t(*set)[4] = calloc(j.n + 1, sizeof(*set));
	int rc = -ENOMEM;

	if (!set || alloc_job(&j, 1) < 0)
		goto out;
	deps_of_sets(&j, fn, ctx, set);
	rc = kahn_check(&j, why ? why : (char[1]){0}, why ? whylen : 1);
out:
	free_job(&j, 1);
	free(set);
	return rc;
}

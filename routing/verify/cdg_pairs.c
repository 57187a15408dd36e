/* VL-aware channel-dependency check where each (source switch,
 * destination LID) pair has its own SL: see verify.h.  Unlike cdg_vl.c,
 * which lets every route carry every SL, this follows only the SLs the
 * pairs use, so routes that would form a cycle on one VL may share links
 * as long as they travel on different VLs.
 *
 * Per destination LID (a block of LIDs per worker, columns copied
 * LID-major as verify_lft.c does): every switch's distance along its
 * LFT path, then, farthest switches first, the set of SLs each switch
 * forwards to the LID (its own sources' SL and what its upstream
 * neighbours send it) is pushed to the next switch, and each SL makes a
 * dependency from the link it came by to the link it leaves by.  The
 * dependencies are kept as one 16-bit VL mask per (switch, in port, out
 * port) where the VL does not change at the switch (always, with the
 * identity mapping), and as a list of edges where it does.  Kahn's
 * algorithm over (link, VL) vertices then finds a cycle or none. */
#include "routing/verify/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVL	  16
#define LID_BLOCK 64
#define D_BAD	  0xFFFFu
#define D_BUSY	  0xFFFEu
#define D_UNK	  0xFFFDu

struct pworker {
	uint8_t *tp;	/* [LID_BLOCK * n] LFT columns */
	int8_t *sl;	/* [n] SL of each source switch */
	uint16_t *dist; /* [n] hops along the LFT path */
	uint32_t *stack, *order;
	uint16_t *m_sw;	  /* [n] SLs forwarded (identity fast path) */
	uint16_t *m_in;	  /* [ports] SLs entering by each port */
	uint16_t *mat;	  /* [pairs] VL masks of same-VL dependencies */
	uint64_t *xedges; /* VL-changing dependencies, from << 32 | to */
	size_t nx, capx;
	uint64_t no_sl;
	uint16_t vls, sls;
	int err;
};

struct pjob {
	const struct fabric *f;
	cdg_pair_sl_fn slfn;
	void *slctx;
	cdg_sl2vl_fn vlfn;
	void *vlctx;
	uint32_t *pbase; /* [n + 1] port index: pbase[s] + p */
	uint32_t *mbase; /* [n + 1] (in, out) matrix base per switch */
	uint32_t *nxt;	 /* by port index: next switch or UINT32_MAX */
	uint8_t *rport;	 /* by port index: the peer's port number */
	uint32_t *hosts; /* [n] CA ports linked */
	struct pworker *w;
};

static uint32_t mat_idx(const struct pjob *j, uint32_t y, unsigned in,
			unsigned out)
{
	return j->mbase[y] + in * (j->f->switches[y]->nports + 1u) + out;
}

/* Hops from x to the destination along the column; D_BAD for a drop or
 * a loop.  Memoised through w->dist. */
static void dist_from(const struct pjob *j, struct pworker *w,
		      const uint8_t *col, uint32_t t, uint8_t tport, uint32_t x)
{
	uint32_t top = 0;
	uint16_t d = D_BAD;

	for (;;) {
		if (w->dist[x] == D_BUSY)
			break;
		if (w->dist[x] != D_UNK) {
			d = w->dist[x];
			break;
		}
		if (x == t && col[x] == tport) {
			d = w->dist[x] = 0;
			break;
		}
		w->dist[x] = D_BUSY;
		w->stack[top++] = x;
		uint8_t p = col[x];
		if (p == 0 || p > j->f->switches[x]->nports ||
		    j->nxt[j->pbase[x] + p] == UINT32_MAX)
			break;
		x = j->nxt[j->pbase[x] + p];
	}
	while (top) {
		if (d != D_BAD)
			d++;
		w->dist[w->stack[--top]] = d;
	}
}

/* Delivered switches other than t, farthest first, into w->order. */
static uint32_t far_first(struct pworker *w, uint32_t n)
{
	uint32_t cnt[257] = {0}, k = 0;

	for (uint32_t x = 0; x < n; x++)
		if (w->dist[x] != D_BAD && w->dist[x] && w->dist[x] < 256)
			cnt[w->dist[x]]++;
	for (int v = 255; v >= 1; v--) {
		uint32_t c = cnt[v];
		cnt[v] = k;
		k += c;
	}
	for (uint32_t x = 0; x < n; x++)
		if (w->dist[x] != D_BAD && w->dist[x] && w->dist[x] < 256)
			w->order[cnt[w->dist[x]]++] = x;
	return k;
}

static int add_xedge(struct pworker *w, uint32_t from, uint32_t to)
{
	if (w->nx == w->capx) {
		size_t cap = w->capx ? 2 * w->capx : 1024;
		uint64_t *v = realloc(w->xedges, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		w->xedges = v;
		w->capx = cap;
	}
	w->xedges[w->nx++] = (uint64_t)from << 32 | to;
	return 0;
}

/* Identity mapping: the SLs switch x forwards are one mask. */
static void push_fast(const struct pjob *j, struct pworker *w,
		      const uint8_t *col, uint32_t x)
{
	uint8_t p = col[x], q;
	uint32_t pi = j->pbase[x] + p, y = j->nxt[pi];
	uint16_t m = w->m_sw[x];

	if (!m)
		return;
	w->vls |= m;
	w->m_sw[y] |= m;
	if (w->dist[y] == 0)
		return;
	q = col[y];
	w->mat[mat_idx(j, y, j->rport[pi], q)] |= m;
}

/* Any mapping: per input port of x, each SL's VL on x->y and on y's next
 * link. */
static void push_ports(const struct pjob *j, struct pworker *w,
		       const uint8_t *col, uint32_t x)
{
	const struct ib_node *sx = j->f->switches[x];
	uint8_t p = col[x];
	uint32_t pi = j->pbase[x] + p, y = j->nxt[pi];
	uint8_t in_y = j->rport[pi], q = col[y];
	const struct ib_node *sy = j->f->switches[y];

	for (unsigned i = 0; i <= sx->nports && !w->err; i++) {
		uint16_t m = w->m_in[j->pbase[x] + i];
		for (unsigned s = 0; m >> s; s++) {
			if (!(m >> s & 1))
				continue;
			uint8_t v =
			    j->vlfn(j->vlctx, sx, (uint8_t)i, p, (uint8_t)s) &
			    15;
			w->vls |= (uint16_t)(1u << v);
			w->m_in[j->pbase[y] + in_y] |= (uint16_t)(1u << s);
			if (w->dist[y] == 0)
				continue;
			uint8_t vw =
			    j->vlfn(j->vlctx, sy, in_y, q, (uint8_t)s) & 15;
			if (vw == v)
				w->mat[mat_idx(j, y, in_y, q)] |=
				    (uint16_t)(1u << v);
			else
				w->err =
				    add_xedge(w, pi * NVL + v,
					      (j->pbase[y] + q) * NVL + vw);
		}
	}
}

/* The sources of switch x enter by port 0 and its CA ports. */
static void seed(const struct pjob *j, struct pworker *w, uint32_t x, int8_t sl)
{
	const struct ib_node *sw = j->f->switches[x];
	uint16_t b = (uint16_t)(1u << (sl & 15));

	w->sls |= b;
	if (!j->vlfn) {
		w->m_sw[x] |= b;
		return;
	}
	w->m_in[j->pbase[x]] |= b;
	for (unsigned p = 1; p <= sw->nports; p++) {
		const struct ib_port *r = sw->ports[p].remote;
		if (r && !node_is_switch(r->node))
			w->m_in[j->pbase[x] + p] |= b;
	}
}

static void clear(const struct pjob *j, struct pworker *w, uint32_t n)
{
	if (!j->vlfn) {
		memset(w->m_sw, 0, n * sizeof(*w->m_sw));
		return;
	}
	memset(w->m_in, 0, j->pbase[n] * sizeof(*w->m_in));
}

static void check_lid(const struct pjob *j, struct pworker *w, uint16_t lid,
		      const uint8_t *col)
{
	uint32_t n = j->f->n_switches, t, k;
	uint8_t tport;

	if (!fabric_lid_end(j->f, lid, &t, &tport))
		return;
	j->slfn(j->slctx, (unsigned)(w - j->w), lid, col, w->sl);
	for (uint32_t x = 0; x < n; x++)
		w->dist[x] = D_UNK;
	for (uint32_t x = 0; x < n; x++)
		dist_from(j, w, col, t, tport, x);
	clear(j, w, n);
	for (uint32_t x = 0; x < n; x++) {
		if (w->dist[x] == D_BAD)
			continue;
		if (w->sl[x] >= 0)
			seed(j, w, x, w->sl[x]);
		else if (j->hosts[x] && x != t)
			w->no_sl += j->hosts[x];
	}
	k = far_first(w, n);
	for (uint32_t i = 0; i < k; i++) {
		if (j->vlfn)
			push_ports(j, w, col, w->order[i]);
		else
			push_fast(j, w, col, w->order[i]);
	}
}

static void check_block(void *arg, size_t b, unsigned worker)
{
	struct pjob *j = arg;
	struct pworker *w = &j->w[worker];
	const struct fabric *f = j->f;
	uint32_t n = f->n_switches, first = (uint32_t)b * LID_BLOCK + 1;
	uint32_t cnt = f->max_lid + 1u - first;

	if (cnt > LID_BLOCK)
		cnt = LID_BLOCK;
	for (uint32_t x = 0; x < n; x++) {
		const struct ib_node *sw = f->switches[x];
		for (uint32_t k = 0; k < cnt; k++)
			w->tp[(size_t)k * n + x] = first + k < sw->lft_size
						       ? sw->lft[first + k]
						       : LFT_NO_PORT;
	}
	for (uint32_t k = 0; k < cnt && !w->err; k++)
		if (fabric_port_by_lid(f, (uint16_t)(first + k)))
			check_lid(j, w, (uint16_t)(first + k),
				  w->tp + (size_t)k * n);
}

/* ---- the graph over (link, VL) and its cycle check ---- */

struct pgraph {
	uint32_t nv;
	uint32_t *first; /* [nv + 1] CSR */
	uint32_t *to;
	size_t ne;
};

/* Calls fn for every dependency edge of the merged masks and lists. */
static void each_edge(const struct pjob *j, const uint16_t *mat,
		      const uint64_t *xe, size_t nx,
		      void (*fn)(struct pgraph *, uint32_t, uint32_t),
		      struct pgraph *g)
{
	const struct fabric *f = j->f;

	for (uint32_t y = 0; y < f->n_switches; y++) {
		const struct ib_node *sy = f->switches[y];
		for (unsigned in = 1; in <= sy->nports; in++) {
			const struct ib_port *r = sy->ports[in].remote;
			if (!r || !node_is_switch(r->node))
				continue;
			uint32_t from = j->pbase[r->node->sw_idx] + r->num;
			for (unsigned q = 1; q <= sy->nports; q++) {
				uint16_t m = mat[mat_idx(j, y, in, q)];
				for (unsigned v = 0; m >> v; v++)
					if (m >> v & 1)
						fn(g, from * NVL + v,
						   (j->pbase[y] + q) * NVL + v);
			}
		}
	}
	for (size_t i = 0; i < nx; i++)
		fn(g, (uint32_t)(xe[i] >> 32), (uint32_t)xe[i]);
}

static void count_edge(struct pgraph *g, uint32_t from, uint32_t to)
{
	(void)to;
	g->first[from + 1]++;
	g->ne++;
}

static void place_edge(struct pgraph *g, uint32_t from, uint32_t to)
{
	g->to[g->first[from]++] = to;
}

/* Kahn: 1 acyclic, 0 cycle (*stuck a vertex on or behind one), -ENOMEM. */
static int kahn(const struct pgraph *g, uint32_t *stuck)
{
	uint32_t *indeg = calloc(g->nv + 1, sizeof(*indeg));
	uint32_t *q = malloc((g->nv + 1) * sizeof(*q)), head = 0, tail = 0;
	int rc = -ENOMEM;

	if (!indeg || !q)
		goto out;
	for (size_t e = 0; e < g->ne; e++)
		indeg[g->to[e]]++;
	for (uint32_t v = 0; v < g->nv; v++)
		if (!indeg[v])
			q[tail++] = v;
	while (head < tail) {
		uint32_t v = q[head++];
		for (uint32_t e = v ? g->first[v - 1] : 0; e < g->first[v]; e++)
			if (--indeg[g->to[e]] == 0)
				q[tail++] = g->to[e];
	}
	rc = tail == g->nv;
	for (uint32_t v = 0; !rc && v < g->nv; v++)
		if (indeg[v]) {
			*stuck = v;
			break;
		}
out:
	free(indeg);
	free(q);
	return rc;
}

static void name_vertex(const struct pjob *j, uint32_t v, char *why, size_t len)
{
	uint32_t c = v / NVL, s = 0;
	const struct fabric *f = j->f;

	while (s + 1 < f->n_switches && j->pbase[s + 1] <= c)
		s++;
	snprintf(why, len,
		 "a cycle of buffers through switch 0x%016" PRIx64
		 " '%s' port %u, VL %u",
		 f->switches[s]->guid, f->switches[s]->desc, c - j->pbase[s],
		 v % NVL);
}

/* Merges the workers' dependencies into w[0] and checks the graph. */
static int graph_check(struct pjob *j, unsigned nw, uint32_t nmat,
		       struct cdg_vl_report *r)
{
	struct pworker *w0 = &j->w[0];
	struct pgraph g = {.nv = j->pbase[j->f->n_switches] * NVL};
	uint32_t stuck = 0;
	int rc = -ENOMEM;

	for (unsigned i = 1; i < nw; i++) {
		for (uint32_t k = 0; k < nmat; k++)
			w0->mat[k] |= j->w[i].mat[k];
		for (size_t e = 0; e < j->w[i].nx; e++)
			if (add_xedge(w0, (uint32_t)(j->w[i].xedges[e] >> 32),
				      (uint32_t)j->w[i].xedges[e]) < 0)
				return -ENOMEM;
	}
	g.first = calloc(g.nv + 2, sizeof(*g.first));
	if (!g.first)
		return -ENOMEM;
	each_edge(j, w0->mat, w0->xedges, w0->nx, count_edge, &g);
	for (uint32_t v = 0; v < g.nv; v++)
		g.first[v + 1] += g.first[v];
	g.to = malloc((g.ne + 1) * sizeof(*g.to));
	if (g.to) {
		/* place_edge advances first[v] to the end of v's edges */
		each_edge(j, w0->mat, w0->xedges, w0->nx, place_edge, &g);
		rc = kahn(&g, &stuck);
	}
	if (rc == 0)
		name_vertex(j, stuck, r->why, sizeof(r->why));
	if (rc >= 0)
		r->acyclic = rc;
	free(g.first);
	free(g.to);
	return rc < 0 ? rc : 0;
}

/* ---- setup ---- */

static int job_init(struct pjob *j)
{
	const struct fabric *f = j->f;
	uint32_t n = f->n_switches;

	j->pbase = malloc((n + 1) * sizeof(*j->pbase));
	j->mbase = malloc((n + 1) * sizeof(*j->mbase));
	j->hosts = calloc(n + 1, sizeof(*j->hosts));
	if (!j->pbase || !j->mbase || !j->hosts)
		return -ENOMEM;
	j->pbase[0] = j->mbase[0] = 0;
	for (uint32_t s = 0; s < n; s++) {
		uint32_t np = f->switches[s]->nports + 1u;
		j->pbase[s + 1] = j->pbase[s] + np;
		j->mbase[s + 1] = j->mbase[s] + np * np;
	}
	j->nxt = malloc((j->pbase[n] + 1) * sizeof(*j->nxt));
	j->rport = calloc(j->pbase[n] + 1, 1);
	if (!j->nxt || !j->rport)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		const struct ib_node *sw = f->switches[s];
		j->nxt[j->pbase[s]] = UINT32_MAX;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct ib_port *r = sw->ports[p].remote;
			bool to_sw = r && node_is_switch(r->node);
			j->nxt[j->pbase[s] + p] =
			    to_sw ? (uint32_t)r->node->sw_idx : UINT32_MAX;
			j->rport[j->pbase[s] + p] = to_sw ? r->num : 0;
			j->hosts[s] += r && !to_sw && r->lid;
		}
	}
	return 0;
}

static int workers_init(struct pjob *j, unsigned nw)
{
	uint32_t n = j->f->n_switches + 1, np = j->pbase[j->f->n_switches] + 1;
	uint32_t nm = j->mbase[j->f->n_switches] + 1;

	j->w = calloc(nw, sizeof(*j->w));
	if (!j->w)
		return -ENOMEM;
	for (unsigned i = 0; i < nw; i++) {
		struct pworker *w = &j->w[i];
		w->tp = malloc((size_t)LID_BLOCK * n);
		w->sl = malloc(n);
		w->dist = malloc(n * sizeof(*w->dist));
		w->stack = malloc(n * sizeof(*w->stack));
		w->order = malloc(n * sizeof(*w->order));
		w->m_sw = calloc(n, sizeof(*w->m_sw));
		w->m_in = calloc(np, sizeof(*w->m_in));
		w->mat = calloc(nm, sizeof(*w->mat));
		if (!w->tp || !w->sl || !w->dist || !w->stack || !w->order ||
		    !w->m_sw || !w->m_in || !w->mat)
			return -ENOMEM;
	}
	return 0;
}

static void job_free(struct pjob *j, unsigned nw)
{
	for (unsigned i = 0; j->w && i < nw; i++) {
		struct pworker *w = &j->w[i];
		free(w->tp);
		free(w->sl);
		free(w->dist);
		free(w->stack);
		free(w->order);
		free(w->m_sw);
		free(w->m_in);
		free(w->mat);
		free(w->xedges);
	}
	free(j->w);
	free(j->pbase);
	free(j->mbase);
	free(j->hosts);
	free(j->nxt);
	free(j->rport);
}

int cdg_check_vl_pairs(const struct fabric *f, struct pool *pool,
		       cdg_pair_sl_fn slfn, void *slctx, cdg_sl2vl_fn vlfn,
		       void *vlctx, struct cdg_vl_report *r)
{
	struct pjob j = {
	    .f = f, .slfn = slfn, .slctx = slctx, .vlfn = vlfn, .vlctx = vlctx};
	unsigned nw = pool_threads(pool);
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->acyclic = 1;
	if (!f->n_switches)
		return 0;
	if (job_init(&j) < 0 || workers_init(&j, nw) < 0)
		goto out;
	pool_for(pool, ((size_t)f->max_lid + LID_BLOCK - 1) / LID_BLOCK,
		 check_block, &j);
	rc = 0;
	for (unsigned i = 0; i < nw; i++) {
		rc = rc ? rc : j.w[i].err;
		r->no_sl_pairs += j.w[i].no_sl;
		r->vls_used |= j.w[i].vls;
		r->sls_used |= j.w[i].sls;
	}
	if (rc == 0)
		rc = graph_check(&j, nw, j.mbase[f->n_switches], r);
out:
	job_free(&j, nw);
	return rc;
}

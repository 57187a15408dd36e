/* LID assignment and the guid2lid file: see lids.h.  The work is done on a
 * private list of LID-owning ports in BFS order and a bitmap of claimed
 * LIDs; the fabric is only touched at the end, so a failure leaves it as
 * it was.  What fits is bounded by the switches' LinearFDBCap: a LID at or
 * above a switch's cap cannot be routed through it, and a block past the
 * cap must never be written (docs/design.md §3.4). */
#include "lib/lids.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lines.h"
#include "lib/log.h"

struct port_order {
	struct ib_port **v;
	uint32_t n;
};

/* Index of every port in a flat "seen" array: offsets per node. */
struct port_index {
	uint32_t *off;
	uint8_t *seen;
};

static int pidx_init(const struct fabric *f, struct port_index *pi)
{
	size_t total = 0;

	pi->off = malloc((f->n_nodes + 1) * sizeof(*pi->off));
	if (!pi->off)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		pi->off[i] = (uint32_t)total;
		total += (size_t)f->nodes[i]->nports + 1;
	}
	pi->off[f->n_nodes] = (uint32_t)total;
	pi->seen = calloc(total ? total : 1, 1);
	return pi->seen ? 0 : -ENOMEM;
}

static void pidx_free(struct port_index *pi)
{
	free(pi->off);
	free(pi->seen);
}

/* Marks p seen and appends it to the order; false if it was seen. */
static bool visit(struct port_index *pi, struct port_order *o,
		  struct ib_port *p)
{
	uint8_t *s = &pi->seen[pi->off[p->node->idx] + p->num];

	if (*s)
		return false;
	*s = 1;
	o->v[o->n++] = p;
	return true;
}

/* Visits the LID-owning port behind link end r; queues new switches. */
static void visit_remote(struct port_index *pi, struct port_order *o,
			 struct ib_node **q, uint32_t *tail, struct ib_port *r)
{
	if (node_is_switch(r->node)) {
		if (visit(pi, o, &r->node->ports[0]))
			q[(*tail)++] = r->node;
	} else {
		visit(pi, o, r);
	}
}

static int bfs_order(const struct fabric *f, struct port_order *o)
{
	struct port_index pi = {0};
	struct ib_node *sm = f->sm_node, **q = NULL;
	uint32_t head = 0, tail = 0;
	int rc = pidx_init(f, &pi);

	if (rc < 0)
		goto out;
	o->v = malloc((pi.off[f->n_nodes] + 1) * sizeof(*o->v));
	q = malloc((f->n_switches + 1) * sizeof(*q));
	if (!o->v || !q) {
		rc = -ENOMEM;
		goto out;
	}
	o->n = 0;
	if (node_is_switch(sm)) {
		visit(&pi, o, &sm->ports[0]);
		q[tail++] = sm;
	} else if (f->sm_port >= 1 && f->sm_port <= sm->nports) {
		struct ib_port *p = &sm->ports[f->sm_port];
		visit(&pi, o, p);
		if (p->remote)
			visit_remote(&pi, o, q, &tail, p->remote);
	}
	while (head < tail) {
		struct ib_node *s = q[head++];
		for (unsigned p = 1; p <= s->nports; p++)
			if (s->ports[p].remote)
				visit_remote(&pi, o, q, &tail,
					     s->ports[p].remote);
	}
out:
	free(q);
	pidx_free(&pi);
	return rc;
}

struct claims {
	uint64_t *taken; /* bitmap over LIDs 0..IB_LID_UCAST_END */
	uint16_t *lid;	 /* per ordered port, 0 = not yet */
	uint32_t limit;	 /* LIDs below it fit every switch's LFT */
};

static bool range_free(const struct claims *c, uint32_t lid, uint32_t w)
{
	if (lid == 0 || lid % w || lid + w - 1 >= c->limit)
		return false;
	for (uint32_t l = lid; l < lid + w; l++)
		if (c->taken[l / 64] >> (l % 64) & 1)
			return false;
	return true;
}

static void claim(struct claims *c, uint32_t i, uint32_t lid, uint32_t w)
{
	for (uint32_t l = lid; l < lid + w; l++)
		c->taken[l / 64] |= 1ULL << (l % 64);
	c->lid[i] = (uint16_t)lid;
}

/* LIDs reserved for a port: 2^lmc for every port, switches included,
 * although a switch (base port 0) answers only its first LID.  OpenSM
 * reserves the same way, and ibdmchk -l maps 2^lmc LIDs to every port of
 * subnet.lst, so ranges must not overlap a switch's either. */
static uint32_t port_width(const struct ib_port *p, uint8_t lmc)
{
	(void)p;
	return 1u << lmc;
}

static uint64_t port_key(const struct ib_port *p)
{
	return node_is_switch(p->node) ? p->node->guid : p->guid;
}

static int cmp_entry(const void *a, const void *b)
{
	uint64_t x = ((const struct guid2lid_entry *)a)->guid;
	uint64_t y = ((const struct guid2lid_entry *)b)->guid;
	return x < y ? -1 : x > y;
}

/* Which ports a pass serves: all of them, or (when not even one LID
 * each fits) the switches and the SM's own port (first in the order)
 * before the other CA ports. */
enum pass_set { PASS_ALL, PASS_SWITCHES, PASS_CAS };

static bool in_pass(const struct port_order *o, uint32_t i, enum pass_set which)
{
	bool first = i == 0 || node_is_switch(o->v[i]->node);

	return which == PASS_ALL || (which == PASS_SWITCHES) == first;
}

/* Pass 1: valid existing LIDs. */
static void claim_kept(const struct port_order *o, struct claims *c,
		       uint8_t lmc, enum pass_set which, struct lids_stats *st)
{
	for (uint32_t i = 0; i < o->n; i++) {
		struct ib_port *p = o->v[i];
		uint32_t w = port_width(p, lmc);
		if (!in_pass(o, i, which))
			continue;
		if (range_free(c, p->lid, w)) {
			claim(c, i, p->lid, w);
			st->kept++;
		} else if (p->lid) {
			st->dropped++;
		}
	}
}

/* Pass 2: LIDs recorded in the map, looked up in a sorted copy. */
static int claim_from_map(const struct port_order *o, struct claims *c,
			  const struct guid2lid *prev, uint8_t lmc,
			  enum pass_set which, uint32_t *n)
{
	struct guid2lid_entry *s;

	if (!prev || !prev->n)
		return 0;
	s = malloc(prev->n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, prev->v, prev->n * sizeof(*s));
	qsort(s, prev->n, sizeof(*s), cmp_entry);
	for (uint32_t i = 0; i < o->n; i++) {
		struct guid2lid_entry key = {.guid = port_key(o->v[i])}, *e;
		uint32_t w = port_width(o->v[i], lmc);
		if (c->lid[i] || !key.guid || !in_pass(o, i, which))
			continue;
		e = bsearch(&key, s, prev->n, sizeof(*s), cmp_entry);
		if (e && range_free(c, e->lo, w)) {
			claim(c, i, e->lo, w);
			(*n)++;
		}
	}
	free(s);
	return 0;
}

/* Pass 3: the lowest free aligned LIDs.  -ENOSPC when a port finds no
 * room below the limit, unless left_out is given: then the port keeps no
 * LID and is counted and named there. */
static int claim_fresh(const struct port_order *o, struct claims *c,
		       uint8_t lmc, enum pass_set which, uint32_t *n,
		       struct lids_stats *left_out)
{
	uint32_t cursor = 1;

	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t w = port_width(o->v[i], lmc);
		if (c->lid[i] || !in_pass(o, i, which))
			continue;
		cursor = (cursor + w - 1) / w * w;
		while (cursor + w - 1 < c->limit && !range_free(c, cursor, w))
			cursor += w;
		if (cursor + w - 1 >= c->limit) {
			if (!left_out)
				return -ENOSPC;
			left_out->no_lid++;
			namelist_add(&left_out->no_lid_names,
				     o->v[i]->node->desc);
			continue;
		}
		claim(c, i, cursor, w);
		cursor += w;
		(*n)++;
	}
	return 0;
}

static void apply(struct fabric *f, const struct port_order *o,
		  const struct claims *c, uint8_t lmc, struct lids_stats *st)
{
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = f->nodes[i];
		for (unsigned p = node_is_switch(n) ? 0 : 1;
		     p <= (node_is_switch(n) ? 0u : n->nports); p++) {
			if (n->ports[p].lid)
				fabric_set_lid(f, &n->ports[p], 0, 0);
		}
	}
	f->max_lid = 0;
	for (uint32_t i = 0; i < o->n; i++) {
		struct ib_port *p = o->v[i];
		fabric_set_lid(f, p, c->lid[i],
			       node_is_switch(p->node) ? 0 : lmc);
	}
	st->ports = o->n;
}

static uint32_t count_unreachable(const struct fabric *f,
				  const struct port_order *o)
{
	uint32_t reached = 0;
	uint8_t *hit = calloc(f->n_nodes ? f->n_nodes : 1, 1);

	if (!hit)
		return 0;
	for (uint32_t i = 0; i < o->n; i++)
		if (!hit[o->v[i]->node->idx]++)
			reached++;
	free(hit);
	return f->n_nodes - reached;
}

/* The LIDs every switch's LFT holds: below the smallest LinearFDBCap,
 * in whole blocks of 64 (a block past the cap is never written, and a
 * block the cap cuts would be).  A switch that reports no cap (a topology
 * file) sets no limit. */
static void lid_limit(const struct fabric *f, struct lids_stats *st)
{
	st->limit = IB_LID_UCAST_END + 1;
	st->limit_sw = NULL;
	for (uint32_t i = 0; i < f->n_switches; i++) {
		const struct ib_node *sw = f->switches[i];
		uint32_t lim = sw->lft_cap / 64u * 64u;
		if (sw->lft_cap && lim < st->limit) {
			st->limit = lim;
			st->limit_sw = sw;
		}
	}
}

/* Switches whose LFT cannot hold top entries (LIDs 0 .. top - 1). */
static uint32_t count_small_switches(const struct fabric *f, uint32_t top)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->n_switches; i++) {
		const struct ib_node *sw = f->switches[i];
		if (sw->lft_cap && sw->lft_cap / 64u * 64u < top)
			n++;
	}
	return n;
}

/* The three passes over every port at LMC lmc; -ENOSPC when one does not
 * fit below the limit. */
static int assign_all(const struct port_order *o, struct claims *c,
		      const struct guid2lid *prev, uint8_t lmc,
		      struct lids_stats *st)
{
	int rc;

	claim_kept(o, c, lmc, PASS_ALL, st);
	rc = claim_from_map(o, c, prev, lmc, PASS_ALL, &st->from_map);
	return rc < 0 ? rc : claim_fresh(o, c, lmc, PASS_ALL, &st->fresh, NULL);
}

/* Not even one LID each fits: switches first, then as many CA ports as
 * there is room for, in the same order of passes. */
static int assign_switches_first(const struct port_order *o, struct claims *c,
				 const struct guid2lid *prev,
				 struct lids_stats *st)
{
	int rc = 0;

	for (enum pass_set w = PASS_SWITCHES; w <= PASS_CAS && rc == 0; w++) {
		claim_kept(o, c, 0, w, st);
		rc = claim_from_map(o, c, prev, 0, w, &st->from_map);
		if (rc == 0)
			rc = claim_fresh(o, c, 0, w, &st->fresh, st);
	}
	return rc;
}

/* A fresh start for another try at a smaller LMC. */
static void claims_reset(struct claims *c, uint32_t n, struct lids_stats *st)
{
	memset(c->taken, 0, (IB_LID_UCAST_END + 64) / 64 * sizeof(uint64_t));
	memset(c->lid, 0, (n ? n : 1) * sizeof(*c->lid));
	st->kept = st->from_map = st->fresh = st->dropped = 0;
}

static int assign(const struct port_order *o, struct claims *c,
		  const struct guid2lid *prev, uint8_t lmc,
		  struct lids_stats *st)
{
	int rc;

	for (int l = lmc; l >= 0; l--) {
		claims_reset(c, o->n, st);
		st->lmc = (uint8_t)l;
		rc = assign_all(o, c, prev, (uint8_t)l, st);
		if (rc != -ENOSPC)
			return rc;
	}
	claims_reset(c, o->n, st);
	st->lmc = 0;
	return assign_switches_first(o, c, prev, st);
}

int lids_assign(struct fabric *f, const struct guid2lid *prev, uint8_t lmc,
		struct lids_stats *st)
{
	struct port_order o = {0};
	struct claims c = {0};
	int rc;

	memset(st, 0, sizeof(*st));
	if (!f->sm_node || lmc > 7)
		return -EINVAL;
	rc = bfs_order(f, &o);
	if (rc < 0)
		goto out;
	lid_limit(f, st);
	c.limit = st->limit;
	c.taken = calloc((IB_LID_UCAST_END + 64) / 64, sizeof(uint64_t));
	c.lid = calloc(o.n ? o.n : 1, sizeof(*c.lid));
	if (!c.taken || !c.lid) {
		rc = -ENOMEM;
		goto out;
	}
	st->needed = o.n << lmc;
	rc = assign(&o, &c, prev, lmc, st);
	if (rc == 0) {
		/* the first aligned range starts at 2^lmc: the LFT holds
		 * (ports + 1) << lmc entries; at LMC 0 when not even that fit
		 */
		st->small_switches = count_small_switches(
		    f, (o.n + 1) << (st->no_lid ? 0 : lmc));
		st->unreachable = count_unreachable(f, &o);
		apply(f, &o, &c, st->lmc, st);
	}
out:
	free(o.v);
	free(c.taken);
	free(c.lid);
	return rc;
}

/* "LinearFDBCap 30720 of S1 (and 1631 other switches)" or the unicast
 * LID space when no switch limits. */
static void limit_words(const struct lids_stats *st, char *buf, size_t len)
{
	if (!st->limit_sw)
		snprintf(buf, len, "the unicast LID space (%u LIDs)",
			 IB_LID_UCAST_END);
	else if (st->small_switches > 1)
		snprintf(buf, len,
			 "LinearFDBCap %u of %s (and %u other switches)",
			 st->limit_sw->lft_cap, st->limit_sw->desc,
			 st->small_switches - 1);
	else
		snprintf(buf, len, "LinearFDBCap %u of %s",
			 st->limit_sw->lft_cap, st->limit_sw->desc);
}

int lids_limit_message(const struct lids_stats *st, uint8_t asked, char *buf,
		       size_t len)
{
	char lim[160], names[200];

	if (!st->no_lid && st->lmc >= asked)
		return 0;
	limit_words(st, lim, sizeof(lim));
	if (!st->no_lid)
		snprintf(buf, len,
			 "%s is below the %u LIDs this fabric needs at LMC %u; "
			 "every port gets LMC %u (%u LIDs) instead",
			 lim, st->needed, asked, st->lmc, 1u << st->lmc);
	else
		snprintf(buf, len,
			 "%s is below the %u LIDs this fabric needs%s: %u "
			 "ports get no LID and cannot be reached through any "
			 "switch (%s); their links stay down",
			 lim, st->needed >> asked,
			 asked ? " even at LMC 0" : "", st->no_lid,
			 namelist_str(&st->no_lid_names, names, sizeof(names)));
	return 1;
}

bool lids_link_unrouted(const struct ib_port *p)
{
	const struct ib_port *r = p->remote;

	return r && ((!node_is_switch(p->node) && !p->lid) ||
		     (!node_is_switch(r->node) && !r->lid));
}

static uint32_t g2l_hash(uint64_t g)
{
	g ^= g >> 33;
	g *= 0xff51afd7ed558ccdULL;
	g ^= g >> 33;
	return (uint32_t)g;
}

/* Slot of guid in the index: its own, or the empty one it would take. */
static uint32_t idx_slot(const struct guid2lid *m, uint64_t guid)
{
	uint32_t mask = m->idx_cap - 1, h = g2l_hash(guid) & mask;

	while (m->idx[h] && m->v[m->idx[h] - 1].guid != guid)
		h = (h + 1) & mask;
	return h;
}

/* (Re)builds the index for all entries, at most half full. */
static int idx_rebuild(struct guid2lid *m, uint32_t want)
{
	uint32_t cap = 64;

	while (cap < 2 * want)
		cap *= 2;
	free(m->idx);
	m->idx = calloc(cap, sizeof(*m->idx));
	if (!m->idx) {
		m->idx_cap = m->idx_n = 0;
		return -ENOMEM;
	}
	m->idx_cap = cap;
	for (uint32_t i = 0; i < m->n; i++)
		m->idx[idx_slot(m, m->v[i].guid)] = i + 1;
	m->idx_n = m->n;
	return 0;
}

static int idx_ready(struct guid2lid *m, uint32_t want)
{
	if (m->idx && m->idx_n == m->n && 2 * want <= m->idx_cap)
		return 0;
	return idx_rebuild(m, want);
}

/* Appends without the duplicate check (reading large files stays linear;
 * a later line for the same GUID wins in lids_assign's sorted lookup only
 * by chance, so duplicates are rejected by the reader instead). */
static int g2l_append(struct guid2lid *m, uint64_t guid, uint16_t lo,
		      uint16_t hi)
{
	if (m->n == m->cap) {
		uint32_t nc = m->cap ? m->cap * 2 : 64;
		struct guid2lid_entry *nv = realloc(m->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		m->v = nv;
		m->cap = nc;
	}
	m->v[m->n++] = (struct guid2lid_entry){guid, lo, hi};
	return 0;
}

int guid2lid_put(struct guid2lid *m, uint64_t guid, uint16_t lo, uint16_t hi)
{
	uint32_t h;

	if (idx_ready(m, m->n + 1) < 0)
		return -ENOMEM;
	h = idx_slot(m, guid);
	if (m->idx[h]) {
		m->v[m->idx[h] - 1].lo = lo;
		m->v[m->idx[h] - 1].hi = hi;
		return 0;
	}
	if (g2l_append(m, guid, lo, hi) < 0)
		return -ENOMEM;
	m->idx[h] = m->n;
	m->idx_n = m->n;
	return 0;
}

const struct guid2lid_entry *guid2lid_get(struct guid2lid *m, uint64_t guid)
{
	uint32_t h;

	if (idx_ready(m, m->n) < 0) { /* no memory: linear search */
		for (uint32_t i = 0; i < m->n; i++)
			if (m->v[i].guid == guid)
				return &m->v[i];
		return NULL;
	}
	h = idx_slot(m, guid);
	return m->idx[h] ? &m->v[m->idx[h] - 1] : NULL;
}

void guid2lid_free(struct guid2lid *m)
{
	free(m->v);
	free(m->idx);
	memset(m, 0, sizeof(*m));
}

static int parse_line(char *s, uint64_t *g, unsigned long *lo,
		      unsigned long *hi)
{
	char *e;

	errno = 0;
	*g = strtoull(s, &e, 0);
	if (e == s || errno)
		return -1;
	s = e;
	*lo = strtoul(s, &e, 0);
	if (e == s)
		return -1;
	s = e;
	*hi = strtoul(s, &e, 0);
	if (e == s)
		*hi = *lo;
	s = e;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return *s ? -1 : 0;
}

/* A damaged or contradicting line is skipped, not fatal: one bad line (a
 * hand edit, a disk error) must not cost every other port its LID. */
static int g2l_line(void *ctx, struct lines_reader *r, char *s, unsigned ln)
{
	struct guid2lid *m = ctx;
	uint64_t g;
	unsigned long lo, hi;

	if (parse_line(s, &g, &lo, &hi) < 0 || lo == 0 ||
	    lo > IB_LID_UCAST_END || hi < lo || hi > IB_LID_UCAST_END) {
		lines_skip(r, ln, "expected '0x<guid> <lid> <lid>'");
		return 0;
	}
	if (guid2lid_get(m, g)) {
		lines_skip(r, ln, "GUID appears twice (the first line wins)");
		return 0;
	}
	return guid2lid_put(m, g, (uint16_t)lo, (uint16_t)hi);
}

int guid2lid_read(const char *path, struct guid2lid *m, char *err,
		  size_t errlen)
{
	return lines_read(path, g2l_line, m, err, errlen);
}

/* In-memory fabrics for the up/down tests and benchmark: fat trees (2 and
 * 3 levels), tori/rings, random regular-ish networks; LIDs assigned in node
 * order (switches first); and a reference min-hop LFT (least loaded port
 * among the min-hop ones) to compare with and to show its credit loops.
 * Header-only (static functions) so each test links what it uses. */
#ifndef UPDOWN_FAB_H
#define UPDOWN_FAB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric.h"
#include "lib/lids.h"
#include "routing/hops/hops.h"

static inline struct ib_node *fab_sw(struct fabric *f, uint64_t guid,
				     unsigned nports, const char *prefix,
				     unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), "%s%u", prefix, i);
	return fabric_add_node(f, IB_NODE_SWITCH, guid, (uint8_t)nports, name);
}

/* A one-port CA hanging off sw port p. */
static inline struct ib_node *fab_host(struct fabric *f, struct ib_node *sw,
				       unsigned p)
{
	static unsigned seq;
	char name[32];
	uint64_t g = 0x200000000ull + f->n_nodes + ((uint64_t)seq++ << 20);
	struct ib_node *h;

	snprintf(name, sizeof(name), "H%u", f->n_nodes);
	h = fabric_add_node(f, IB_NODE_CA, g, 1, name);
	if (!h)
		return NULL;
	fabric_set_port_guid(f, &h->ports[1], g + 1);
	fabric_link(f, sw, (uint8_t)p, h, 1);
	return h;
}

/* Next free port on a switch (fills from 1). */
static inline unsigned fab_free_port(struct ib_node *sw)
{
	for (unsigned p = 1; p <= sw->nports; p++)
		if (!sw->ports[p].remote)
			return p;
	return 0;
}

static inline int fab_connect(struct fabric *f, struct ib_node *a,
			      struct ib_node *b)
{
	unsigned pa = fab_free_port(a), pb = fab_free_port(b);

	if (!pa || !pb)
		return -1;
	return fabric_link(f, a, (uint8_t)pa, b, (uint8_t)pb);
}

static inline void fab_lids(struct fabric *f)
{
	uint16_t lid = 1;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = f->nodes[i];
		if (node_is_switch(n))
			fabric_set_lid(f, &n->ports[0], lid++, 0);
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = f->nodes[i];
		if (!node_is_switch(n))
			for (unsigned p = 1; p <= n->nports; p++)
				if (n->ports[p].remote)
					fabric_set_lid(f, &n->ports[p], lid++,
						       0);
	}
}

/* 2-level: spines "spine" (GUIDs 0x1000+), leaves "leaf" (0x2000+),
 * every leaf linked once to every spine. */
static inline void fab_fattree2(struct fabric *f, unsigned spines,
				unsigned leaves, unsigned hosts_per_leaf)
{
	struct ib_node *sp[256], *lf;

	fabric_init(f);
	for (unsigned i = 0; i < spines; i++)
		sp[i] = fab_sw(f, 0x1000 + i, leaves, "spine", i);
	for (unsigned i = 0; i < leaves; i++) {
		lf = fab_sw(f, 0x2000 + i, spines + hosts_per_leaf, "leaf", i);
		for (unsigned s = 0; s < spines; s++)
			fab_connect(f, lf, sp[s]);
		for (unsigned hh = 0; hh < hosts_per_leaf; hh++)
			fab_host(f, lf, fab_free_port(lf));
	}
	fab_lids(f);
}

/* 3-level k-ary fat tree: (k/2)^2 cores "core" (0x1000+), k pods of k/2
 * aggregation "agg" (0x3000+) and k/2 edge "edge" (0x5000+) switches,
 * hosts_per_edge hosts per edge switch (k/2 for the full tree).  GUIDs of
 * lower levels are interleaved so the GUID order is not the level order. */
static inline void fab_fattree3(struct fabric *f, unsigned k,
				unsigned hosts_per_edge)
{
	unsigned h = k / 2, ncore = h * h;
	struct ib_node **core = calloc(ncore, sizeof(*core));
	struct ib_node **agg = calloc(k * h, sizeof(*agg));

	fabric_init(f);
	for (unsigned c = 0; c < ncore; c++)
		core[c] = fab_sw(f, 0x100000 + c, k, "core", c);
	for (unsigned p = 0; p < k; p++) {
		for (unsigned a = 0; a < h; a++) {
			struct ib_node *ag = fab_sw(f, 0x300000 + p * h + a, k,
						    "agg", p * h + a);
			agg[p * h + a] = ag;
			for (unsigned c = 0; c < h; c++)
				fab_connect(f, ag, core[a * h + c]);
		}
		for (unsigned e = 0; e < h; e++) {
			struct ib_node *ed = fab_sw(f, 0x000500 + p * h + e,
						    h + hosts_per_edge, "edge",
						    p * h + e);
			for (unsigned a = 0; a < h; a++)
				fab_connect(f, ed, agg[p * h + a]);
			for (unsigned x = 0; x < hosts_per_edge; x++)
				fab_host(f, ed, fab_free_port(ed));
		}
	}
	free(core);
	free(agg);
	fab_lids(f);
}

/* X x Y x Z torus (dimensions of 1 are skipped; 2 gives a plain link),
 * switches "S" with GUID 0x1000 + index; a ring is X x 1 x 1. */
static inline void fab_torus(struct fabric *f, unsigned X, unsigned Y,
			     unsigned Z, unsigned hosts)
{
	unsigned n = X * Y * Z, dims[3] = { X, Y, Z };
	struct ib_node **s = calloc(n, sizeof(*s));

	fabric_init(f);
	for (unsigned i = 0; i < n; i++)
		s[i] = fab_sw(f, 0x1000 + i, 6 + hosts, "S", i);
	for (unsigned i = 0; i < n; i++) {
		unsigned c[3] = { i % X, (i / X) % Y, i / (X * Y) };
		for (unsigned d = 0; d < 3; d++) {
			if (dims[d] < 2 || (dims[d] == 2 && c[d] == 1))
				continue;
			unsigned cc[3] = { c[0], c[1], c[2] };
			cc[d] = (c[d] + 1) % dims[d];
			fab_connect(f, s[i], s[cc[0] + X * (cc[1] + Y * cc[2])]);
		}
		for (unsigned hh = 0; hh < hosts; hh++)
			fab_host(f, s[i], fab_free_port(s[i]));
	}
	free(s);
	fab_lids(f);
}

/* Random network: a ring for connectivity, then random links between
 * switches with free ports (no self links), fixed seed. */
static inline void fab_random(struct fabric *f, unsigned n, unsigned ports,
			      unsigned hosts, unsigned seed)
{
	struct ib_node **s = calloc(n, sizeof(*s));
	unsigned links = (ports - hosts) * n / 2, tries = 0;

	fabric_init(f);
	srand(seed);
	for (unsigned i = 0; i < n; i++)
		s[i] = fab_sw(f, 0x1000 + ((i * 7919u) % n), ports, "R", i);
	for (unsigned i = 0; i < n && n > 2; i++) {
		fab_connect(f, s[i], s[(i + 1) % n]);
		links--;
	}
	while (links && tries++ < links * 50) {
		unsigned a = (unsigned)rand() % n, b = (unsigned)rand() % n;
		if (a == b || fab_free_port(s[a]) > ports - hosts ||
		    fab_free_port(s[b]) > ports - hosts ||
		    !fab_free_port(s[a]) || !fab_free_port(s[b]))
			continue;
		fab_connect(f, s[a], s[b]);
		links--;
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned hh = 0; hh < hosts; hh++)
			if (fab_free_port(s[i]))
				fab_host(f, s[i], fab_free_port(s[i]));
	free(s);
	fab_lids(f);
}

/* Reference min-hop LFTs: per LID, every switch picks among its min-hop
 * ports the one with the fewest routes so far (lowest port on ties). */
static inline void fab_minhop(struct fabric *f, const struct hops *h)
{
	for (uint32_t s = 0; s < f->n_switches; s++) {
		struct ib_node *sw = f->switches[s];
		uint32_t *cnt = calloc(sw->nports + 1u, sizeof(*cnt));
		node_lft_reserve(sw, f->max_lid);
		memset(sw->lft, LFT_NO_PORT, sw->lft_size);
		for (unsigned l = 1; l <= f->max_lid; l++) {
			struct ib_port *dst = fabric_port_by_lid(f, (uint16_t)l);
			if (!dst)
				continue;
			if (dst->node == sw) {
				sw->lft[l] = 0;
				continue;
			}
			uint8_t best = HOPS_INF, bp = LFT_NO_PORT;
			for (unsigned p = 1; p <= sw->nports; p++) {
				uint8_t d = hops_via_port(f, h, sw, (uint8_t)p,
							  dst);
				if (d < best ||
				    (d == best && d != HOPS_INF &&
				     cnt[p] < cnt[bp])) {
					best = d;
					bp = (uint8_t)p;
				}
			}
			sw->lft[l] = bp;
			if (bp != LFT_NO_PORT)
				cnt[bp]++;
		}
		free(cnt);
	}
}

/* LIDs assigned again by lib/lids from the first host, 2^lmc per host
 * port.  0 or the error of lids_assign(). */
static inline int fab_relid(struct fabric *f, uint8_t lmc)
{
	struct lids_stats st;

	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i]->nports; p++)
			if (f->nodes[i]->ports[p].lid)
				fabric_set_lid(f, &f->nodes[i]->ports[p], 0, 0);
	for (uint32_t i = 0; i < f->n_nodes && !f->sm_node; i++)
		if (!node_is_switch(f->nodes[i])) {
			f->sm_node = f->nodes[i];
			f->sm_port = 1;
		}
	return lids_assign(f, NULL, lmc, &st);
}

/* For a 2-level tree routed with LMC: at every leaf the 2^lmc LIDs of each
 * remote host leave by as many different up links, and every LID offset
 * alone is spread evenly over the up links.  Returns a description of the
 * first fault, NULL if none. */
static inline const char *fab_lmc_fault(const struct fabric *f, uint8_t lmc)
{
	static char why[128];

	for (uint32_t s = 0; s < f->n_switches; s++) {
		const struct ib_node *sw = f->switches[s];
		unsigned use[8][256] = {{0}};
		if (strncmp(sw->desc, "leaf", 4))
			continue;
		for (uint32_t i = 0; i < f->n_nodes; i++) {
			const struct ib_node *h = f->nodes[i];
			uint16_t lid = h->ports[1].lid;
			if (node_is_switch(h) || h->ports[1].remote->node == sw)
				continue;
			for (unsigned o = 0; o < 1u << lmc; o++) {
				use[o][sw->lft[lid + o]]++;
				for (unsigned q = 0; q < o; q++)
					if (sw->lft[lid + o] == sw->lft[lid + q]) {
						snprintf(why, sizeof(why),
							 "%s sends LIDs %u and "
							 "%u out of port %u",
							 sw->desc, lid + q,
							 lid + o,
							 sw->lft[lid + o]);
						return why;
					}
			}
		}
		for (unsigned o = 0; o < 1u << lmc; o++) {
			unsigned lo = ~0u, hi = 0;
			for (unsigned p = 1; p <= sw->nports; p++) {
				const struct ib_port *r = sw->ports[p].remote;
				if (!r || !node_is_switch(r->node))
					continue;
				lo = use[o][p] < lo ? use[o][p] : lo;
				hi = use[o][p] > hi ? use[o][p] : hi;
			}
			if (hi - lo > 1 || use[o][LFT_NO_PORT]) {
				snprintf(why, sizeof(why),
					 "%s spreads LID offset %u from %u "
					 "to %u per up link",
					 sw->desc, o, lo, hi);
				return why;
			}
		}
	}
	return NULL;
}

#endif

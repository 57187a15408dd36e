/* Port groups for medium-grained adaptive routing (docs/design.md §4.3,
 * §5): for every switch and destination LID the candidate set is the
 * legal, equally good output ports (min-hop ports, or with up/down order
 * and rank the legal shortest up*-down* ports, so that adaptive choices
 * keep the channel-dependency graph acyclic).  A LID's group is its
 * candidate set or, when a switch has more distinct sets than its cap, a
 * subset of it holding the static LFT port and at least one other port
 * (pgroup_select.c).  No I/O; pgroup_dump.c writes port-groups.dump. */
#ifndef IBSM_PGROUP_H
#define IBSM_PGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"

#define PG_WORDS 4 /* 256 ports */
#define PG_MAX_GROUPS 255

struct pg_set {
	uint64_t m[PG_WORDS]; /* bit p = port p */
};

static inline bool pg_has(const struct pg_set *s, unsigned p)
{
	return s->m[(p >> 6) & 3] >> (p & 63) & 1;
}
static inline void pg_add(struct pg_set *s, unsigned p)
{
	s->m[(p >> 6) & 3] |= 1ull << (p & 63);
}
/* SWAR bit count: __builtin_popcountll is a library call without
 * -mpopcnt, and this runs in the inner loops of the subset choice. */
static inline unsigned pg_count(const struct pg_set *s)
{
	unsigned c = 0;
	for (unsigned w = 0; w < PG_WORDS; w++) {
		uint64_t x = s->m[w];
		x -= (x >> 1) & 0x5555555555555555ull;
		x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
		x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
		c += (unsigned)(x * 0x0101010101010101ull >> 56);
	}
	return c;
}
/* Two ports or more (no popcount: it is a library call without -mpopcnt). */
static inline bool pg_multi(const struct pg_set *s)
{
	unsigned nz = 0;
	for (unsigned w = 0; w < PG_WORDS; w++) {
		if (s->m[w] & (s->m[w] - 1))
			return true;
		nz += s->m[w] != 0;
	}
	return nz > 1;
}
/* a is a subset of b */
static inline bool pg_subset(const struct pg_set *a, const struct pg_set *b)
{
	for (unsigned w = 0; w < PG_WORDS; w++)
		if (a->m[w] & ~b->m[w])
			return false;
	return true;
}

struct pgroup_params {
	unsigned cap;		  /* groups per switch when sw_cap is NULL */
	const uint8_t *sw_cap;	  /* [n_switches] per-switch cap, 0 = none */
	const uint16_t *sw_fdb;	  /* [n_switches] PortGroupFDBCap, 0 = any */
	bool whole_sets_only;	  /* baseline: never split a candidate set */
	/* updown: per switch index, the engine's label order and BFS rank
	 * (ucast_result); order NULL = min-hop candidate sets */
	const uint32_t *order, *rank;
};

struct pgroup_sw {
	bool enabled;		/* cap > 0 */
	uint16_t n_groups;
	struct pg_set *groups;	/* [n_groups]: id i + 1 */
	uint8_t *ft;		/* [ft_size]: group id per LID, 0 = none */
	uint32_t ft_size;
	uint32_t n_sets;	/* distinct multi-port candidate sets */
	uint64_t multi;		/* DLIDs with 2+ candidate ports */
	uint64_t covered;	/* of which got a group */
};

struct pgroup_table {
	uint32_t n;		/* switches, in fabric switch order */
	struct pgroup_sw *sw;
	uint64_t multi, covered;
	uint64_t mismatch;	/* static port outside its set (a bug) */
	uint32_t groups, max_groups, max_sets;
	double sets_avg;	/* distinct multi-port sets per switch */
};

/* Computes every switch's groups from the LFTs (node->lft) and the hop
 * tables.  Same fabric, same result whatever the pool's thread count.
 * 0 or -ENOMEM. */
int pgroup_compute(const struct fabric *f, const struct hops *h,
		   struct pool *pool, const struct pgroup_params *prm,
		   struct pgroup_table *t);
void pgroup_free(struct pgroup_table *t);
/* covered / multi (1.0 when nothing is multi-path). */
double pgroup_coverage(const struct pgroup_table *t);
/* The group of (switch index s, lid), NULL if none. */
const struct pg_set *pgroup_of(const struct pgroup_table *t, uint32_t s,
			       uint16_t lid);

/* Subset choice for one switch (pgroup_select.c).  sets[i] are the
 * distinct candidate sets, elements (set, static port, weight = DLIDs).
 * Picks at most cap groups, each holding its elements' static ports and
 * inside their sets, maximising the covered weight (greedy weighted
 * maximum coverage); writes the groups into out (room for cap) and per
 * element the chosen group's index or -1.  Returns the group count or
 * -ENOMEM. */
struct pg_elem {
	uint32_t set;
	uint8_t port;
	uint32_t weight;
};
int pgroup_select(const struct pg_set *sets, uint32_t n_sets,
		  const struct pg_elem *el, uint32_t n_el, unsigned cap,
		  bool whole_only, struct pg_set *out, int32_t *choice);

/* Writes dir/port-groups.dump (docs/design.md §4.4), switches by GUID.
 * 0 or -errno. */
int pgroup_dump_write(const char *dir, const struct fabric *f,
		      const struct pgroup_table *t);

#endif

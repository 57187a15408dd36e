/* The members of a multicast group: an array, and from MIDX_MIN members
 * on an open-addressing index of their positions by port GID, so that a
 * join or leave of a group of 40,960 members (every host joins the IPoIB
 * broadcast group) finds its member at once instead of scanning them
 * all.  A member removed takes the last one's place (the index follows
 * it); the index uses linear probing with backward-shift deletion. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sa/sa_mcm.h"

#define MIDX_MIN 32 /* members from which the index is kept */

/* The GUID half (unique per port), mixed (MurmurHash3's finalizer):
 * GUIDs of one fabric differ in their last bytes only. */
static uint32_t gid_hash(const uint8_t g[16])
{
	uint64_t h = 0;

	for (unsigned i = 8; i < 16; i++)
		h = h << 8 | g[i];
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* The index slot holding position pos + 1, or of an empty slot where
 * gid would go when pos is UINT32_MAX. */
static uint32_t slot_of(const struct sa_mcg *g, const uint8_t gid[16])
{
	uint32_t mask = g->midx_cap - 1, i = gid_hash(gid) & mask;

	while (g->midx[i] &&
	       memcmp(g->members[g->midx[i] - 1].port_gid, gid, 16))
		i = (i + 1) & mask;
	return i;
}

/* (Re)builds the index for at least twice the members. */
static int midx_build(struct sa_mcg *g, uint32_t cap)
{
	uint32_t *ni = calloc(cap, sizeof(*ni));

	if (!ni)
		return -ENOMEM;
	free(g->midx);
	g->midx = ni;
	g->midx_cap = cap;
	for (uint32_t k = 0; k < g->n_members; k++)
		g->midx[slot_of(g, g->members[k].port_gid)] = k + 1;
	return 0;
}

struct sa_mcg_member *sa_mcg_member_find(struct sa_mcg *g,
					 const uint8_t gid[16])
{
	uint32_t i;

	if (!g->midx) {
		for (uint32_t k = 0; k < g->n_members; k++)
			if (!memcmp(g->members[k].port_gid, gid, 16))
				return &g->members[k];
		return NULL;
	}
	i = slot_of(g, gid);
	return g->midx[i] ? &g->members[g->midx[i] - 1] : NULL;
}

static int grow(struct sa_mcg *g)
{
	if (g->n_members == g->cap_members) {
		uint32_t cap = g->cap_members ? g->cap_members * 2 : 4;
		struct sa_mcg_member *nm =
		    realloc(g->members, cap * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		g->members = nm;
		g->cap_members = cap;
	}
	if (g->n_members + 1 >= MIDX_MIN &&
	    2 * (g->n_members + 1) > g->midx_cap)
		return midx_build(g,
				  g->midx_cap ? 2 * g->midx_cap : 4 * MIDX_MIN);
	return 0;
}

int sa_mcg_member_set(struct sa_mcg *g, const uint8_t gid[16],
		      uint8_t join_state, uint8_t proxy)
{
	struct sa_mcg_member *m = sa_mcg_member_find(g, gid);

	if (!m) {
		if (grow(g) < 0)
			return -ENOMEM;
		m = &g->members[g->n_members++];
		memcpy(m->port_gid, gid, 16);
		if (g->midx)
			g->midx[slot_of(g, gid)] = g->n_members;
	}
	m->join_state = join_state;
	m->proxy = proxy;
	return 0;
}

/* Empties slot i and moves up the entries after it that would no longer
 * be found (linear probing). */
static void slot_clear(struct sa_mcg *g, uint32_t i)
{
	uint32_t mask = g->midx_cap - 1, j = i;

	g->midx[i] = 0;
	for (;;) {
		uint32_t home;

		j = (j + 1) & mask;
		if (!g->midx[j])
			return;
		home = gid_hash(g->members[g->midx[j] - 1].port_gid) & mask;
		/* j's entry stays unless i lies between its home and j */
		if (((j - home) & mask) < ((j - i) & mask))
			continue;
		g->midx[i] = g->midx[j];
		g->midx[j] = 0;
		i = j;
	}
}

int sa_mcg_member_del(struct sa_mcg *g, const uint8_t gid[16])
{
	struct sa_mcg_member *m = sa_mcg_member_find(g, gid);
	uint32_t pos, last;

	if (!m)
		return -ENOENT;
	pos = (uint32_t)(m - g->members);
	last = --g->n_members;
	if (g->midx) {
		slot_clear(g, slot_of(g, gid));
		if (pos != last) /* the last member takes pos */
			g->midx[slot_of(g, g->members[last].port_gid)] =
			    pos + 1;
	}
	*m = g->members[last];
	return 0;
}

void sa_mcg_members_clear(struct sa_mcg *g)
{
	g->n_members = 0;
	if (g->midx)
		memset(g->midx, 0, g->midx_cap * sizeof(*g->midx));
}

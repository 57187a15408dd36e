/* The offline planner's order of routing: groups of the same shape (the
 * same set of member switches) take turns.  Read in file order, the first
 * shapes of a pattern (all the lines along one axis, say) would take every
 * color of their switches before the last shapes arrive, which could then
 * only merge with trees of other shapes (docs/benchmarks.md, 3-level
 * pruned trees).  Routing the first group of every shape, then the second
 * of every shape, and so on, lets every shape have trees of its own and
 * its later groups share them.  Only a file of creates is reordered: with
 * deletes, the order is what the events mean. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/mcast/mcast.h"
#include "tools/ibsmroute/mcast_order.h"

struct shapes {
	uint32_t *off, *sw; /* event i's sorted switches sw[off[i]..off[i+1]) */
	uint32_t *slot, cap; /* hash slots: event index + 1 of the shape */
	uint32_t *count;     /* per event: its rank among its shape's groups */
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Sorted distinct member switches of every event. */
static int shapes_collect(struct shapes *s, const struct mc_events *e)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < e->n; i++)
		total += e->ev[i].n;
	s->off = calloc(e->n + 1, sizeof(*s->off));
	s->sw = malloc((total + 1) * sizeof(*s->sw));
	if (!s->off || !s->sw)
		return -ENOMEM;
	for (uint32_t i = 0, k = 0; i < e->n; i++) {
		uint32_t first = k;
		for (uint32_t j = 0; j < e->ev[i].n; j++) {
			uint32_t sw =
			    mc_member_sw(e->ports[e->ev[i].first + j]);
			if (sw != MC_NONE)
				s->sw[k++] = sw;
		}
		qsort(s->sw + first, k - first, sizeof(*s->sw), cmp_u32);
		uint32_t d = first;
		for (uint32_t j = first; j < k; j++)
			if (j == first || s->sw[j] != s->sw[d - 1])
				s->sw[d++] = s->sw[j];
		k = d;
		s->off[i + 1] = k;
	}
	return 0;
}

static uint32_t shape_hash(const struct shapes *s, uint32_t i)
{
	uint32_t h = 2166136261u;

	for (uint32_t k = s->off[i]; k < s->off[i + 1]; k++)
		h = (h ^ s->sw[k]) * 16777619u;
	return h;
}

static bool same_shape(const struct shapes *s, uint32_t a, uint32_t b)
{
	uint32_t na = s->off[a + 1] - s->off[a];

	return na == s->off[b + 1] - s->off[b] &&
	       !memcmp(s->sw + s->off[a], s->sw + s->off[b],
		       na * sizeof(uint32_t));
}

/* count[i] = how many earlier events have event i's shape. */
static int shapes_rank(struct shapes *s, uint32_t n)
{
	uint32_t *first; /* per slot: number of events of the shape so far */

	for (s->cap = 16; s->cap < 2 * n; s->cap *= 2)
		;
	s->slot = calloc(s->cap, sizeof(*s->slot));
	first = calloc(s->cap, sizeof(*first));
	s->count = malloc((n + 1) * sizeof(*s->count));
	if (!s->slot || !first || !s->count) {
		free(first);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = shape_hash(s, i) & (s->cap - 1);
		while (s->slot[j] && !same_shape(s, s->slot[j] - 1, i))
			j = (j + 1) & (s->cap - 1);
		if (!s->slot[j])
			s->slot[j] = i + 1;
		s->count[i] = first[j]++;
	}
	free(first);
	return 0;
}

static const uint32_t *rank_of; /* qsort key, the calling thread only */

static int cmp_rank(const void *a, const void *b)
{
	const struct mc_event *x = a, *y = b;
	uint32_t rx = rank_of[x->seq], ry = rank_of[y->seq];

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int mc_events_interleave(struct mc_events *e)
{
	struct shapes s = {0};
	uint32_t *by_seq = NULL;
	int rc;

	for (uint32_t i = 0; i < e->n; i++)
		if (e->ev[i].op != '+' || e->ev[i].seq >= e->n)
			return 0;
	if ((rc = shapes_collect(&s, e)) < 0 ||
	    (rc = shapes_rank(&s, e->n)) < 0)
		goto out;
	if (!(by_seq = calloc(e->n + 1, sizeof(*by_seq)))) {
		rc = -ENOMEM;
		goto out;
	}
	/* Keyed by the event's own seq, the key cmp_rank looks up: each
	 * event sorts by its own rank within its shape. */
	for (uint32_t i = 0; i < e->n; i++)
		by_seq[e->ev[i].seq] = s.count[i];
	rank_of = by_seq;
	qsort(e->ev, e->n, sizeof(*e->ev), cmp_rank);
out:
	free(by_seq);
	free(s.off);
	free(s.sw);
	free(s.slot);
	free(s.count);
	return rc;
}

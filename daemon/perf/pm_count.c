/* Raw counter readings into 64-bit totals (see perf_priv.h).  The first
 * reading of a counter starts its total at the raw value, so that until
 * anything clears it the total is what perfquery shows; later readings
 * add the growth.  A reading whose width differs from the last one (the
 * node's PortCountersExtended became known) restarts the raw baseline
 * without adding: the two counters are not the same. */
#include <string.h>

#include "daemon/perf/perf_priv.h"

static uint64_t width_max(unsigned width)
{
	return width >= 64 ? UINT64_MAX : (1ull << width) - 1;
}

/* Seconds since the last reading: on the monotonic clock within one run,
 * on the wall clock across a restart. */
static double since_last(const struct pm_port *p, int64_t now_us,
			 int64_t now_wall)
{
	if (!p->s.have_last)
		return 0;
	if (p->read_us)
		return (double)(now_us - p->read_us) / 1e6;
	return p->s.read_time && now_wall > p->s.read_time
		   ? (double)(now_wall - p->s.read_time)
		   : 0;
}

static uint64_t growth(const struct pm_port *p, unsigned c, uint64_t v)
{
	uint64_t last = p->s.last[c];

	return v >= last ? v - last : v; /* lower: cleared since */
}

uint32_t pm_count(struct pm_port *p, const struct perf_sample *s,
		  int64_t now_us, int64_t now_wall)
{
	uint32_t clear = 0;

	memcpy(p->prev, p->s.total, sizeof(p->prev));
	p->interval_s = since_last(p, now_us, now_wall);
	for (unsigned c = 0; c < PERF_COUNTERS; c++) {
		uint32_t bit = 1u << c;
		uint8_t w = s->width[c];
		uint64_t v = s->v[c];

		if (!w)
			continue;
		if (!(p->s.valid & bit))
			p->s.total[c] = v;
		else if (p->s.have_last && p->s.width[c] == w)
			p->s.total[c] += growth(p, c, v);
		p->s.valid |= bit;
		p->s.last[c] = v;
		p->s.width[c] = w;
		if (w < 64 && v > width_max(w) / 2)
			clear |= bit;
	}
	p->s.have_last = 1;
	p->s.read_time = now_wall;
	p->read_us = now_us;
	return clear;
}

void pm_cleared(struct pm_port *p, const struct perf_sample *s,
		uint32_t cleared)
{
	for (unsigned c = 0; c < PERF_COUNTERS; c++)
		if ((cleared & (1u << c)) && s->width[c] == p->s.width[c])
			p->s.last[c] = s->v[c];
}

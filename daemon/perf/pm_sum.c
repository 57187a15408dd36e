/* A switch's error counters as one AllPortSelect sum (docs/design.md
 * §3.12).  PortCounters with PortSelect 0xFF, where the switch's PerfMgt
 * ClassPortInfo sets AllPortSelect (CapabilityMask bit 8), answers every
 * counter summed over the switch's ports.  While the error counters' sum
 * stays the same, no port's error counter moved, and the round reads the
 * switch's ports' PortCountersExtended only; when it moved, every port's
 * PortCounters too.  Four cases make the sum unreliable, and the ports
 * are then read one by one all the same:
 *   - no sum of this switch yet (the first round, a restart, a new
 *     switch), or its read failed;
 *   - a field at or past half its range: the IBA's sums saturate like
 *     the counters, and a saturated sum no longer moves;
 *   - a field of all ones, 8 bits or more: ibsim saturates some sums at
 *     255 whatever the field's width (PortXmitDiscards);
 *   - every PM_FULL_EVERY-th round of the switch, whatever the sum: a
 *     clear on one port and as many new errors on another leave the sum
 *     as it was, and PortXmitWait (a congestion count that moves with
 *     traffic, not an error) is read only with PortCounters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/perf/perf_priv.h"

/* The counters the sum judges: the errors, not data, packets or
 * PortXmitWait. */
static bool judged(unsigned c)
{
	return c <= PC_VL15_DROPPED;
}

static bool unreliable(const struct perf_sample *s, unsigned c)
{
	uint64_t v = s->v[c];
	unsigned w = s->width[c];

	if (w && w < 64 && v >= (1ull << (w - 1)))
		return true; /* half its range: may saturate */
	return v >= 0xff && (v & (v + 1)) == 0;
}

bool pm_sum_moved(struct perf *pf, uint64_t guid, const struct perf_sample *s)
{
	uint64_t *last = guidtab_get(&pf->sums, guid);
	bool moved = !last;

	if (!last) {
		last = calloc(PC_VL15_DROPPED + 1, sizeof(*last));
		if (!last || guidtab_put(&pf->sums, guid, last) < 0) {
			free(last);
			return true;
		}
	}
	for (unsigned c = 0; c < PERF_COUNTERS; c++) {
		if (!judged(c))
			continue;
		if (s->v[c] != last[c] || unreliable(s, c))
			moved = true;
		last[c] = s->v[c];
	}
	return moved;
}

void pm_sums_free(struct perf *pf)
{
	guidtab_free(&pf->sums, free);
}

/* What the metrics page shows of the sweeps besides struct sm's counts:
 * each phase's duration as a histogram, and the sweeps that failed. */
#include <errno.h>

#include "daemon/sweep/sweep_priv.h"

/* From 1 ms (a light sweep of a few switches) to 2 min (a discovery of
 * 16,000 hosts losing SMPs). */
static const uint32_t phase_bounds_us[] = {
    1000,    5000,    10000,   50000,	 100000,   250000,   500000,
    1000000, 2500000, 5000000, 10000000, 30000000, 60000000, 120000000,
};

void sweep_stats_init(struct sweep *s)
{
	for (unsigned i = 0; i < SWEEP_STATES; i++)
		prom_hist_init(&s->phase_us[i], phase_bounds_us,
			       sizeof(phase_bounds_us) /
				   sizeof(phase_bounds_us[0]));
}

void sweep_stats_phase(struct sweep *s, enum sweep_state left, int64_t us)
{
	if (left != SWEEP_IDLE && left < SWEEP_STATES)
		prom_hist_observe(&s->phase_us[left],
				  us > 0 ? (uint64_t)us : 0);
}

void sweep_stats_end(struct sweep *s, int rc)
{
	if (rc < 0 && rc != -ECANCELED)
		s->failed++;
}

const struct prom_hist *sweep_phase_hist(const struct sm *sm,
					 enum sweep_state st)
{
	if (!sm->sweep || st == SWEEP_IDLE || st >= SWEEP_STATES)
		return NULL;
	return &sm->sweep->phase_us[st];
}

uint64_t sweep_failures(const struct sm *sm)
{
	return sm->sweep ? sm->sweep->failed : 0;
}

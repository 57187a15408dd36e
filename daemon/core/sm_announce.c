/* What this SM announces of itself in SMInfo (and the SA's SMInfoRecord),
 * and the rule that ranks two SMs: kept apart from the election so that
 * the SA and the standby's polls link without it. */
#include <string.h>

#include "daemon/core/sm.h"

uint8_t elect_priority(const struct sm *sm)
{
	/* Elevated priority (opa-fm's ElevatedPriority): once master, an SM
	 * announces it, so a better SM that comes back (a flapping node)
	 * stays standby instead of taking the subnet back. */
	if (sm->sm_state == SM_STATE_MASTER &&
	    sm->cfg.sm_elevated_priority > sm->cfg.sm_priority)
		return (uint8_t)sm->cfg.sm_elevated_priority;
	return (uint8_t)sm->cfg.sm_priority;
}

void elect_own_sminfo(const struct sm *sm, struct smp_sm_info *si)
{
	memset(si, 0, sizeof(*si));
	si->guid = sm->sm_guid;
	si->sm_key = sm->cfg.sm_sm_key;
	si->act_count = sm->act_count;
	si->priority = elect_priority(sm);
	si->state = (uint8_t)sm->sm_state;
}

bool elect_beats(uint8_t prio_a, uint64_t guid_a, uint8_t prio_b,
		 uint64_t guid_b)
{
	return prio_a > prio_b || (prio_a == prio_b && guid_a < guid_b);
}

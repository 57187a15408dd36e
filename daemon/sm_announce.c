/* What this SM announces of itself in SMInfo (and the SA's SMInfoRecord):
 * kept apart from the election so that the SA links without it. */
#include <string.h>

#include "daemon/sm_elect.h"

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

/* The SM state itself (NOT_ACTIVE, DISCOVERING, STANDBY, MASTER): its
 * names and the one sm_change_state() that logs every change.  A leaf:
 * the sweep, the role files and the status printers all read the state,
 * and none of them has to call the files that drive it. */
#include <inttypes.h>
#include <systemd/sd-daemon.h>

#include "daemon/core/sm.h"
#include "lib/log.h"

static const char *const sm_state_names[] = {
    [SM_STATE_NOT_ACTIVE] = "NOT_ACTIVE",
    [SM_STATE_DISCOVERING] = "DISCOVERING",
    [SM_STATE_STANDBY] = "STANDBY",
    [SM_STATE_MASTER] = "MASTER",
};

const char *sm_state_name(enum smp_sm_state s)
{
	return s <= SM_STATE_MASTER ? sm_state_names[s] : "?";
}

void sm_notify_status(struct sm *sm)
{
	if (sm->once)
		return;
	sd_notifyf(0,
		   "STATUS=%s, %" PRIu64 " sweeps, %u nodes, last sweep "
		   "%.1f ms%s%s",
		   sm_state_name(sm->sm_state), sm->sweeps,
		   sm->fab ? sm->fab->n_nodes : 0, sm->last_sweep_ms,
		   sm->last_error[0] ? ", last error: " : "", sm->last_error);
}

void sm_change_state(struct sm *sm, enum smp_sm_state to, const char *why)
{
	if (sm->sm_state == to)
		return;
	log_notice("SM state %s -> %s (%s)", sm_state_names[sm->sm_state],
		   sm_state_names[to], why);
	sm->sm_state = to;
	sm_notify_status(sm);
}

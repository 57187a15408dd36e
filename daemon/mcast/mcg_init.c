/* The multicast manager's life: created over the SA's group table and
 * hung off struct sm (sm->mcg), its upward hooks set (the store calls
 * persistence and MFT programming's completion only through them), the
 * SA's MCMemberRecord Set/Delete and the control socket hooked in, and
 * SM_EV_FABRIC_REPLACED subscribed.  The top of the manager's files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/mcast/mcg_priv.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/core/sm.h"
#include "lib/log.h"

static void on_fabric(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	mcg_after_sweep(ctx, a ? a->old : NULL);
}

static void on_reload(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	mcg_ipoib_apply(ctx);
}

int mcg_init(struct sm *sm)
{
	return mcg_init_sa(sm, sa_daemon_get(sm));
}

static int start(struct mcg_mgr *mgr)
{
	struct sm *sm = mgr->sm;
	int rc = mcg_core_init(mgr);

	if (rc == 0)
		rc = mcg_persist_load(mgr);
	if (rc == 0)
		mcg_ipoib_apply(mgr);
	if (rc == 0)
		rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_reload, mgr);
	if (rc == 0 && sm->ctl)
		rc = mcg_ctl_register(sm);
	if (rc == 0)
		rc = sm_subscribe(sm, SM_EV_FABRIC_REPLACED, on_fabric, mgr);
	return rc;
}

int mcg_init_sa(struct sm *sm, struct sa *sa)
{
	struct mcg_mgr *mgr;
	int rc;

	if (!sa)
		return -ENODEV;
	mgr = calloc(1, sizeof(*mgr));
	if (!mgr)
		return -ENOMEM;
	mgr->sm = sm;
	mgr->sa = sa;
	mgr->dirty = mcg_persist_dumps_dirty;
	mgr->gone = mcg_journal_gone;
	mgr->tree_changed = mcg_journal_route;
	mgr->restore = mcg_persist_restore;
	mgr->capture = mcg_persist_capture;
	mgr->restored = mcg_persist_restored;
	mgr->pass_done = mcg_pass_done;
	sm->mcg = mgr;
	rc = start(mgr);
	if (rc < 0) {
		log_err("multicast: cannot start the group manager: %s; joins "
			"are refused",
			strerror(-rc));
		mcg_fini(sm);
		return rc;
	}
	sa->mcm_ops = &mcg_sa_ops;
	sa->mcm_ctx = mgr;
	sa->mft_block = mftprog_sa_block;
	sa->mft_ctx = mgr;
	sm->mcg_reload = mcg_reload; /* a standby's copy taken over */
	return 0;
}

void mcg_fini(struct sm *sm)
{
	struct mcg_mgr *mgr = sm->mcg;

	if (!mgr)
		return;
	sm_unsubscribe(sm, on_fabric, mgr);
	sm_unsubscribe(sm, on_reload, mgr);
	sm->mcg_reload = NULL;
	mcg_core_fini(mgr);
	mftprog_free(mgr);
	mcg_persist_fini(mgr);
	mgr->sa->mcm_ops = NULL;
	mgr->sa->mcm_ctx = NULL;
	mgr->sa->mft_block = NULL;
	mgr->sa->mft_ctx = NULL;
	sm->mcg = NULL;
	/* MFT transfers still in the MAD engine end when it is destroyed,
	 * after this; the last one frees the manager (mftprog.c). */
	if (mgr->prog_pending)
		mgr->orphan = true;
	else
		free(mgr);
}

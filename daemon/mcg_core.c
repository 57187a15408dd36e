/* The multicast group manager's store and state machine: groups keyed by
 * MGID over the SA's group table, one mcg_change_state() that logs every
 * transition, join/leave timeouts as sd-event timers, the engine context
 * rebuilt after each heavy sweep, and collective groups routed in slices
 * of a few ms per loop turn so the SA keeps answering during batches. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/ctl.h"
#include "daemon/mcg_priv.h"
#include "daemon/sa_daemon.h"
#include "daemon/sa_priv.h"
#include "daemon/sm.h"
#include "lib/log.h"
#include "routing/mcast_dump.h"

#define SLICE_US 3000 /* routing per loop turn: the SA answers between */

struct mcg_mgr mcg_m;

static const char *const state_names[] = {
    "?",     "ReceivingJoinReq",  "ComputingRoutes",
    "Ready", "ReceivingLeaveReq", "Destroying",
};

const char *mcg_state_name(unsigned st)
{
	return st <= MCG_DESTROYING ? state_names[st] : "?";
}

void mcg_change_state(struct mcg *g, unsigned to, const char *why)
{
	char s[48];

	if (g->sa->state == to)
		return;
	mcast_mgid_str(g->sa->rec.mgid, s, sizeof(s));
	log_info("mcg %s: %s -> %s (%s)", s, mcg_state_name(g->sa->state),
		 mcg_state_name(to), why);
	g->sa->state = (uint8_t)to;
}

struct mcg *mcg_find(const uint8_t mgid[16])
{
	for (uint32_t i = 0; i < mcg_m.n; i++)
		if (!memcmp(mcg_m.v[i]->sa->rec.mgid, mgid, 16))
			return mcg_m.v[i];
	return NULL;
}

static struct mcg *wrap(struct sa_mcg *s)
{
	struct mcg *g;

	if (mcg_m.n == mcg_m.cap) {
		uint32_t cap = mcg_m.cap ? mcg_m.cap * 2 : 64;
		struct mcg **nv = realloc(mcg_m.v, cap * sizeof(*nv));
		if (!nv)
			return NULL;
		mcg_m.v = nv;
		mcg_m.cap = cap;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->sa = s;
	g->eid = MC_NONE;
	mcg_m.v[mcg_m.n++] = g;
	return g;
}

struct mcg *mcg_create(const struct sa_mcm_rec *params)
{
	struct sa_mcg *s = sa_mcg_add(mcg_m.sa, params);
	struct mcg *g;

	if (!s)
		return NULL;
	g = wrap(s);
	if (!g) {
		sa_mcg_remove(mcg_m.sa, s);
		return NULL;
	}
	s->state = 0;
	s->rec.mlid = 0;
	s->joined = s->left = 0;
	mcg_change_state(
	    g, params->member_count ? MCG_RECEIVING_JOIN_REQ : MCG_READY,
	    "created by a join");
	return g;
}

static void unqueue(struct mcg *g)
{
	for (uint32_t i = mcg_m.qhead; i < mcg_m.qn; i++)
		if (mcg_m.queue[i] == g)
			mcg_m.queue[i] = NULL;
	g->queued = false;
}

void mcg_destroy(struct mcg *g, const char *why)
{
	mcg_change_state(g, MCG_DESTROYING, why);
	mcg_disarm_timer(g);
	if (g->queued)
		unqueue(g);
	if (g->eid != MC_NONE && mcg_m.mc) {
		mcast_group_remove(mcg_m.mc, g->eid);
		mcg_tables_changed(NULL);
	}
	for (uint32_t i = 0; i < mcg_m.n; i++)
		if (mcg_m.v[i] == g) {
			mcg_m.v[i] = mcg_m.v[--mcg_m.n];
			break;
		}
	/* The IPoIB broadcast group exists for the daemon's life. */
	if (!memcmp(g->sa->rec.mgid, sa_ipoib_bcast_mgid, 16)) {
		g->sa->state = MCG_READY;
		g->sa->rec.mlid = IB_LID_MCAST_START;
		g->eid = MC_NONE;
		wrap(g->sa);
	} else {
		sa_mcg_remove(mcg_m.sa, g->sa);
	}
	free(g);
	mcg_write_dumps();
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *ud)
{
	struct mcg *g = ud;

	g->timer = sd_event_source_unref(g->timer);
	mcg_destroy(g, g->sa->state == MCG_RECEIVING_JOIN_REQ
			   ? "join timeout: members missing"
			   : "leave timeout: members did not leave");
	return 0;
}

void mcg_arm_timer(struct mcg *g, uint32_t ms)
{
	uint64_t now;

	mcg_disarm_timer(g);
	sd_event_now(mcg_m.sm->ev, CLOCK_MONOTONIC, &now);
	if (sd_event_add_time(mcg_m.sm->ev, &g->timer, CLOCK_MONOTONIC,
			      now + (uint64_t)ms * 1000, 1000, on_timeout,
			      g) < 0)
		log_warn("mcg: cannot arm a %u ms timeout; the group waits "
			 "without one",
			 ms);
}

void mcg_disarm_timer(struct mcg *g)
{
	if (g->timer) {
		sd_event_source_set_enabled(g->timer, SD_EVENT_OFF);
		g->timer = sd_event_source_unref(g->timer);
	}
}

void mcg_tables_changed(struct mcg *g)
{
	mcg_m.gen_req++;
	if (g)
		g->need_gen = mcg_m.gen_req;
	mftprog_kick();
}

static void tree_info(struct mcg *g);

void mcg_pass_done(uint64_t gen)
{
	mcg_m.gen_done = gen;
	for (uint32_t i = 0; i < mcg_m.n; i++) {
		struct mcg *g = mcg_m.v[i];
		if (g->sa->state == MCG_COMPUTING_ROUTES && g->eid != MC_NONE &&
		    g->need_gen <= gen) {
			mcg_change_state(g, MCG_READY,
					 "switches acknowledged the MFTs");
			tree_info(g);
		}
	}
	mcg_write_dumps();
}

/* Member ports of g as the engine wants them (CA ports on a switch). */
static uint32_t member_ports(struct mcg *g, struct ib_port **out)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < g->sa->n_members; i++) {
		struct ib_port *p =
		    sa_port_by_gid(mcg_m.sa, g->sa->members[i].port_gid);
		if (p && mc_member_sw(p) != MC_NONE)
			out[n++] = p;
	}
	return n;
}

/* A collective group shows its MLID (records, answers) only once Ready:
 * before, the switches may not forward it yet (docs/design.md §4.1). */
static void tree_info(struct mcg *g)
{
	const struct mc_tree *t = mcast_group_tree(mcg_m.mc, g->eid);

	if (!g->sa->rec.member_count || g->sa->state != MCG_COMPUTING_ROUTES)
		g->sa->rec.mlid = mcast_group_mlid(mcg_m.mc, g->eid);
	g->sa->tree_groups = t ? (uint16_t)t->n_groups : 1;
	g->sa->tree_height = t ? t->height : 0;
}

/* Routes g with all its members; 0 or -errno. */
static int route_all(struct mcg *g)
{
	struct ib_port **ports;
	uint32_t n;
	int rc;

	if (!mcg_m.mc)
		return -EAGAIN;
	ports = calloc(g->sa->n_members + 1, sizeof(*ports));
	if (!ports)
		return -ENOMEM;
	n = member_ports(g, ports);
	if (n && mcg_persist_restore(g, ports, n))
		rc = 0;
	else
		rc = n ? mcast_group_add(mcg_m.mc, g->sa->rec.mgid, ports, n,
					 &g->eid)
		       : -EINVAL;
	free(ports);
	if (rc < 0) {
		g->eid = MC_NONE;
		return rc;
	}
	tree_info(g);
	mcg_m.routed++;
	return 0;
}

int mcg_std_add(struct mcg *g, struct ib_port *p)
{
	int rc;

	if (g->eid == MC_NONE) {
		if (g->queued)
			unqueue(g);
		rc = route_all(g);
	} else {
		rc = mcast_member_add(mcg_m.mc, g->eid, p);
		if (rc == 0)
			tree_info(g);
	}
	if (rc == 0)
		mcg_tables_changed(g);
	return rc;
}

int mcg_std_remove(struct mcg *g, struct ib_port *p)
{
	int rc;

	if (g->eid == MC_NONE || !mcg_m.mc)
		return 0;
	rc = mcast_member_remove(mcg_m.mc, g->eid, p);
	if (rc == 0 && !mcast_group_get(mcg_m.mc, g->eid))
		g->eid = MC_NONE;
	else if (rc == 0)
		tree_info(g);
	mcg_tables_changed(NULL);
	return rc;
}

static int queue_push(struct mcg *g)
{
	if (mcg_m.qhead && mcg_m.qhead == mcg_m.qn)
		mcg_m.qhead = mcg_m.qn = 0;
	if (mcg_m.qn == mcg_m.qcap) {
		uint32_t cap = mcg_m.qcap ? mcg_m.qcap * 2 : 64;
		struct mcg **nq = realloc(mcg_m.queue, cap * sizeof(*nq));
		if (!nq)
			return -ENOMEM;
		mcg_m.queue = nq;
		mcg_m.qcap = cap;
	}
	mcg_m.queue[mcg_m.qn++] = g;
	g->queued = true;
	return 0;
}

void mcg_queue(struct mcg *g)
{
	mcg_disarm_timer(g);
	mcg_change_state(g, MCG_COMPUTING_ROUTES, "all members joined");
	if (queue_push(g) < 0) {
		mcg_destroy(g, "out of memory queueing the group");
		return;
	}
	if (mcg_m.slicer)
		sd_event_source_set_enabled(mcg_m.slicer, SD_EVENT_ON);
}

static void route_one(struct mcg *g)
{
	char s[48];
	int rc;

	g->queued = false;
	rc = route_all(g);
	if (rc == -EAGAIN) {
		queue_push(g); /* no fabric yet: after the first sweep */
		return;
	}
	if (rc < 0) {
		mcast_mgid_str(g->sa->rec.mgid, s, sizeof(s));
		log_err("mcg %s: routing %u members failed: %s; the group is "
			"destroyed",
			s, g->sa->n_members, strerror(-rc));
		mcg_destroy(g, "routing failed");
		return;
	}
	mcg_tables_changed(g);
}

/* One slice: groups from the queue for up to SLICE_US. */
static int on_slice(sd_event_source *s, void *ud)
{
	uint64_t t0 = txn_now_us();

	while (mcg_m.qhead < mcg_m.qn && mcg_m.mc &&
	       (uint64_t)txn_now_us() - t0 < SLICE_US) {
		struct mcg *g = mcg_m.queue[mcg_m.qhead++];
		if (g && g->eid == MC_NONE)
			route_one(g);
		else if (g)
			g->queued = false;
	}
	if (mcg_m.qhead >= mcg_m.qn || !mcg_m.mc)
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	loop_txn_kick(mcg_m.sm);
	return 0;
}

/* Colors: the smallest MulticastFDBCap, lowered by multicast.mft_size. */
static uint32_t fabric_colors(const struct sm *sm)
{
	uint32_t cap = MC_MAX_COLORS;

	for (uint32_t i = 0; i < sm->fab->n_switches; i++) {
		uint16_t c = sm->fab->switches[i]->mft_cap;
		if (c && c < cap)
			cap = c;
	}
	if (sm->cfg.multicast_mft_size && sm->cfg.multicast_mft_size < cap)
		cap = sm->cfg.multicast_mft_size;
	return cap;
}

static int new_context(struct sm *sm)
{
	struct mc_params prm;
	const char *eng =
	    config_enum_name("multicast.engine", sm->cfg.multicast_engine);

	mcast_params_default(&prm);
	mcg_m.colors = fabric_colors(sm);
	prm.mft_size = mcg_m.colors;
	prm.merge = sm->cfg.multicast_merge == CFG_MERGE_REBUILD
			? MC_MERGE_REBUILD
			: MC_MERGE_EXTEND;
	prm.switch_threshold = sm->cfg.multicast_switch_threshold;
	return mcast_create(&mcg_m.mc, sm->fab, &sm->hops, sm->pool, eng, &prm);
}

/* A new model: the old context's ports are gone.  Every routed group is
 * routed again over the new one, in MGID creation order, so that the same
 * fabric gives the same colors (docs/design.md: MLIDs do not change while the
 * fabric does not). */
void mcg_after_sweep(struct sm *sm)
{
	int rc;

	if (!mcg_m.sm)
		return;
	if (mcg_m.mc)
		mcast_destroy(mcg_m.mc);
	mcg_m.mc = NULL;
	rc = new_context(sm);
	if (rc < 0) {
		log_err("multicast: cannot create the %s engine context: %s; "
			"groups stay unrouted until the next sweep",
			config_enum_name("multicast.engine",
					 sm->cfg.multicast_engine),
			strerror(-rc));
		return;
	}
	log_info("multicast: engine %s, %u colors (MLIDs 0x%04x..0x%04x)",
		 config_enum_name("multicast.engine", sm->cfg.multicast_engine),
		 mcg_m.colors, 0xC000, 0xC000 + mcg_m.colors - 1);
	mftprog_reset();
	mcg_m.sa->fabric = sm->fab; /* member ports are looked up in it */
	for (uint32_t i = 0; i < mcg_m.n; i++) {
		struct mcg *g = mcg_m.v[i];
		unsigned st = g->sa->state;

		g->eid = MC_NONE;
		if (!g->sa->n_members || st == MCG_RECEIVING_JOIN_REQ ||
		    g->queued)
			continue;
		if (route_all(g) < 0)
			log_err("multicast: re-routing a group with %u members "
				"after the sweep failed; it has no tree",
				g->sa->n_members);
		g->need_gen = mcg_m.gen_req + 1;
	}
	mcg_persist_restored();
	mcg_tables_changed(NULL);
	if (mcg_m.qhead < mcg_m.qn)
		sd_event_source_set_enabled(mcg_m.slicer, SD_EVENT_ON);
}

/* The SA created the broadcast group at start; it joins the store as a
 * standard group without members. */
static int adopt_sa_groups(void)
{
	for (uint32_t i = 0; i < mcg_m.sa->mcgs.n; i++) {
		struct sa_mcg *s = mcg_m.sa->mcgs.v[i];
		if (mcg_find(s->rec.mgid))
			continue;
		/* Until its first member joins it keeps the SA's MLID
		 * (0xC000, as OpenSM shows it); the first join's routing
		 * gives the real one. */
		if (!wrap(s))
			return -ENOMEM;
	}
	return 0;
}

int mcg_init(struct sm *sm)
{
	return mcg_init_sa(sm, sa_daemon_get());
}

int mcg_init_sa(struct sm *sm, struct sa *sa)
{
	int rc;

	mcg_m.sm = sm;
	mcg_m.sa = sa;
	if (!mcg_m.sa)
		return -ENODEV;
	rc = adopt_sa_groups();
	if (rc == 0)
		rc = mcg_persist_load();
	if (rc == 0)
		rc = sd_event_add_defer(sm->ev, &mcg_m.slicer, on_slice, NULL);
	if (rc >= 0)
		sd_event_source_set_enabled(mcg_m.slicer, SD_EVENT_OFF);
	if (rc >= 0 && sm->ctl)
		rc = mcg_ctl_register(sm);
	if (rc < 0) {
		log_err("multicast: cannot start the group manager: %s; joins "
			"are refused",
			strerror(-rc));
		return rc;
	}
	mcg_m.sa->mcm_ops = &mcg_sa_ops;
	mcg_m.sa->mcm_ctx = &mcg_m;
	return 0;
}

void mcg_fini(struct sm *sm)
{
	if (!mcg_m.sm)
		return;
	for (uint32_t i = 0; i < mcg_m.n; i++) {
		mcg_disarm_timer(mcg_m.v[i]);
		free(mcg_m.v[i]);
	}
	free(mcg_m.v);
	free(mcg_m.queue);
	mcg_m.slicer = sd_event_source_unref(mcg_m.slicer);
	mftprog_free();
	mcg_persist_fini();
	if (mcg_m.mc)
		mcast_destroy(mcg_m.mc);
	if (mcg_m.sa) {
		mcg_m.sa->mcm_ops = NULL;
		mcg_m.sa->mcm_ctx = NULL;
	}
	memset(&mcg_m, 0, sizeof(mcg_m));
}

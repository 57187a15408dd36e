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

#include "daemon/ctl/ctl.h"
#include "daemon/mcast/mcg_priv.h"
#include "daemon/core/sm.h"
#include "lib/log.h"
#include "mad/smp_switch.h"
#include "routing/engines.h"
#include "routing/mcast/mcast.h"

#define SLICE_US 3000 /* routing per loop turn: the SA answers between */

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

/* Through the SA's MGID hash: every SA group has its record here
 * (wrap), which it points back to. */
struct mcg *mcg_find(struct mcg_mgr *mgr, const uint8_t mgid[16])
{
	struct sa_mcg *s = sa_mcg_find(mgr->sa, mgid);

	return s ? s->owner : NULL;
}

static struct mcg *wrap(struct mcg_mgr *mgr, struct sa_mcg *s)
{
	struct mcg *g;

	if (mgr->n == mgr->cap) {
		uint32_t cap = mgr->cap ? mgr->cap * 2 : 64;
		struct mcg **nv = realloc(mgr->v, cap * sizeof(*nv));
		if (!nv)
			return NULL;
		mgr->v = nv;
		mgr->cap = cap;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->mgr = mgr;
	g->sa = s;
	s->owner = g;
	g->eid = MC_NONE;
	mgr->v[mgr->n++] = g;
	return g;
}

struct mcg *mcg_create(struct mcg_mgr *mgr, const struct sa_mcm_rec *params)
{
	struct sa_mcg *s = sa_mcg_add(mgr->sa, params);
	struct mcg *g;

	if (!s)
		return NULL;
	g = wrap(mgr, s);
	if (!g) {
		sa_mcg_remove(mgr->sa, s);
		return NULL;
	}
	s->state = 0;
	s->rec.mlid = 0;
	s->joined = s->left = 0;
	mcg_change_state(
	    g, params->member_count ? MCG_RECEIVING_JOIN_REQ : MCG_READY,
	    "created");
	return g;
}

static void unqueue(struct mcg *g)
{
	struct mcg_mgr *mgr = g->mgr;

	for (uint32_t i = mgr->qhead; i < mgr->qn; i++)
		if (mgr->queue[i] == g)
			mgr->queue[i] = NULL;
	g->queued = false;
}

/* Groups changed: the state file and the dumps are rewritten soon. */
static void changed(struct mcg_mgr *mgr)
{
	if (mgr->dirty)
		mgr->dirty(mgr);
}

void mcg_destroy(struct mcg *g, const char *why)
{
	struct mcg_mgr *mgr = g->mgr;

	mcg_change_state(g, MCG_DESTROYING, why);
	mcg_disarm_timer(g);
	if (g->announced && mgr->sm->report_mcg && !g->sa->permanent)
		mgr->sm->report_mcg(mgr->sm, g->sa->rec.mgid, g->sa->rec.pkey,
				    false);
	if (mgr->gone)
		mgr->gone(g);
	if (g->queued)
		unqueue(g);
	if (g->eid != MC_NONE && mgr->mc) {
		mcast_group_remove(mgr->mc, g->eid);
		mcg_tables_changed(mgr, NULL);
	}
	for (uint32_t i = 0; i < mgr->n; i++)
		if (mgr->v[i] == g) {
			mgr->v[i] = mgr->v[--mgr->n];
			break;
		}
	/* An IPoIB broadcast group lives while its partition is configured
	 * (mcg_ipoib.c). */
	if (g->sa->permanent) {
		g->sa->state = MCG_READY;
		g->sa->rec.mlid = IB_LID_MCAST_START;
		g->eid = MC_NONE;
		wrap(mgr, g->sa);
	} else {
		sa_mcg_remove(mgr->sa, g->sa);
	}
	free(g);
	changed(mgr);
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
	struct mcg_mgr *mgr = g->mgr;
	uint64_t now;

	mcg_disarm_timer(g);
	sd_event_now(mgr->sm->ev, CLOCK_MONOTONIC, &now);
	if (sd_event_add_time(mgr->sm->ev, &g->timer, CLOCK_MONOTONIC,
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

void mcg_tables_changed(struct mcg_mgr *mgr, struct mcg *g)
{
	mgr->gen_req++;
	if (g)
		g->need_gen = mgr->gen_req;
	mftprog_kick(mgr);
}

static void tree_info(struct mcg *g);

void mcg_pass_done(struct mcg_mgr *mgr, uint64_t gen)
{
	mgr->gen_done = gen;
	for (uint32_t i = 0; i < mgr->n; i++) {
		struct mcg *g = mgr->v[i];
		if (g->sa->state == MCG_COMPUTING_ROUTES && g->eid != MC_NONE &&
		    g->need_gen <= gen) {
			mcg_change_state(g, MCG_READY,
					 "switches acknowledged the MFTs");
			tree_info(g);
		}
	}
	changed(mgr);
}

/* Member ports of g as the engine wants them (CA ports on a switch). */
static uint32_t member_ports(struct mcg *g, struct ib_port **out)
{
	struct mcg_mgr *mgr = g->mgr;
	uint32_t n = 0;

	for (uint32_t i = 0; i < g->sa->n_members; i++) {
		struct ib_port *p =
		    sa_port_by_gid(mgr->sa, g->sa->members[i].port_gid);
		if (p && mc_member_sw(p) != MC_NONE)
			out[n++] = p;
	}
	return n;
}

/* A collective group shows its MLID (records, answers) only once Ready:
 * before, the switches may not forward it yet (docs/design.md §4.1). */
static void tree_info(struct mcg *g)
{
	struct mcg_mgr *mgr = g->mgr;
	const struct mc_tree *t = mcast_group_tree(mgr->mc, g->eid);

	if (!g->sa->rec.member_count || g->sa->state != MCG_COMPUTING_ROUTES)
		g->sa->rec.mlid = mcast_group_mlid(mgr->mc, g->eid);
	g->sa->tree_groups = t ? (uint16_t)t->n_groups : 1;
	g->sa->tree_height = t ? t->height : 0;
	if (mgr->tree_changed)
		mgr->tree_changed(g);
}

/* A tree's shape, as the state file lists it: which tree, its color and
 * its switches (its member ports come from the members). */
struct shape {
	uint32_t id, color, n_nodes;
};

static struct shape shape_of(const struct mcg *g)
{
	const struct mc_tree *t = g->eid != MC_NONE && g->mgr->mc
				      ? mcast_group_tree(g->mgr->mc, g->eid)
				      : NULL;

	return t ? (struct shape){t->id, t->color, t->n_nodes}
		 : (struct shape){MC_NONE, MC_NONE, 0};
}

/* After a member of a routed standard group came or went: the group's
 * figures, and its tree journaled only when its shape changed (a member
 * on a switch the tree holds already changes no line of it: at a group of
 * every host that was the whole tree again at every batch of joins). */
static void member_changed(struct mcg *g, struct shape was)
{
	struct shape now = shape_of(g);
	void (*hook)(struct mcg *) = g->mgr->tree_changed;

	if (now.id == was.id && now.color == was.color &&
	    now.n_nodes == was.n_nodes)
		g->mgr->tree_changed = NULL;
	tree_info(g);
	g->mgr->tree_changed = hook;
}

/* How route_all may route: its saved tree (mcg_persist.c), the engine,
 * or the saved tree when it fits and else the engine. */
enum route_how { ROUTE_ANY, ROUTE_SAVED, ROUTE_FRESH };

/* Routes g with all its members; 0 or -errno (-ENOENT: ROUTE_SAVED and
 * no saved tree fits). */
static int route_how(struct mcg *g, enum route_how how)
{
	struct mcg_mgr *mgr = g->mgr;
	struct ib_port **ports;
	uint32_t n;
	int rc;

	if (!mgr->mc)
		return -EAGAIN;
	ports = calloc(g->sa->n_members + 1, sizeof(*ports));
	if (!ports)
		return -ENOMEM;
	n = member_ports(g, ports);
	if (!n)
		rc = -EINVAL;
	else if (how != ROUTE_FRESH && mgr->restore &&
		 mgr->restore(g, ports, n))
		rc = 0;
	else if (how == ROUTE_SAVED)
		rc = -ENOENT;
	else
		rc = mcast_group_add(mgr->mc, g->sa->rec.mgid, ports, n,
				     &g->eid);
	free(ports);
	if (rc < 0) {
		g->eid = MC_NONE;
		return rc;
	}
	tree_info(g);
	mgr->routed++;
	return 0;
}

static int route_all(struct mcg *g)
{
	return route_how(g, ROUTE_ANY);
}

int mcg_std_add(struct mcg *g, struct ib_port *p)
{
	struct mcg_mgr *mgr = g->mgr;
	int rc;

	if (g->eid == MC_NONE) {
		if (g->queued)
			unqueue(g);
		rc = route_all(g);
	} else {
		struct shape was = shape_of(g);

		rc = mcast_member_add(mgr->mc, g->eid, p);
		if (rc == 0)
			member_changed(g, was);
	}
	if (rc == 0)
		mcg_tables_changed(mgr, g);
	return rc;
}

int mcg_std_remove(struct mcg *g, struct ib_port *p)
{
	struct mcg_mgr *mgr = g->mgr;
	int rc;

	struct shape was;

	if (g->eid == MC_NONE || !mgr->mc)
		return 0;
	was = shape_of(g);
	rc = mcast_member_remove(mgr->mc, g->eid, p);
	if (rc == 0 && !mcast_group_get(mgr->mc, g->eid))
		g->eid = MC_NONE;
	else if (rc == 0)
		member_changed(g, was);
	mcg_tables_changed(mgr, NULL);
	return rc;
}

static int queue_push(struct mcg *g)
{
	struct mcg_mgr *mgr = g->mgr;

	if (mgr->qhead && mgr->qhead == mgr->qn)
		mgr->qhead = mgr->qn = 0;
	if (mgr->qn == mgr->qcap) {
		uint32_t cap = mgr->qcap ? mgr->qcap * 2 : 64;
		struct mcg **nq = realloc(mgr->queue, cap * sizeof(*nq));
		if (!nq)
			return -ENOMEM;
		mgr->queue = nq;
		mgr->qcap = cap;
	}
	mgr->queue[mgr->qn++] = g;
	g->queued = true;
	return 0;
}

void mcg_queue(struct mcg *g)
{
	struct mcg_mgr *mgr = g->mgr;

	mcg_disarm_timer(g);
	mcg_change_state(g, MCG_COMPUTING_ROUTES, "all members joined");
	if (queue_push(g) < 0) {
		mcg_destroy(g, "out of memory queueing the group");
		return;
	}
	if (mgr->slicer)
		sd_event_source_set_enabled(mgr->slicer, SD_EVENT_ON);
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
	mcg_tables_changed(g->mgr, g);
}

/* One slice: groups from the queue for up to SLICE_US. */
static int on_slice(sd_event_source *s, void *ud)
{
	struct mcg_mgr *mgr = ud;
	uint64_t t0 = txn_now_us();

	while (mgr->qhead < mgr->qn && mgr->mc &&
	       (uint64_t)txn_now_us() - t0 < SLICE_US) {
		struct mcg *g = mgr->queue[mgr->qhead++];
		if (g && g->eid == MC_NONE)
			route_one(g);
		else if (g)
			g->queued = false;
	}
	if (mgr->qhead >= mgr->qn || !mgr->mc)
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	loop_txn_kick(mgr->sm);
	return 0;
}

/* Colors: the smallest MulticastFDBCap in whole 32-MLID blocks (a block
 * the cap cuts would be written past it; a cap below one block keeps what
 * it holds), lowered by multicast.mft_size. */
static uint32_t fabric_colors(const struct sm *sm)
{
	uint32_t cap = MC_MAX_COLORS;

	for (uint32_t i = 0; i < sm->fab->n_switches; i++) {
		uint16_t c = sm->fab->switches[i]->mft_cap;
		if (c >= MFT_BLOCK_SIZE)
			c = c / MFT_BLOCK_SIZE * MFT_BLOCK_SIZE;
		if (c && c < cap)
			cap = c;
	}
	if (sm->cfg.multicast_mft_size && sm->cfg.multicast_mft_size < cap)
		cap = sm->cfg.multicast_mft_size;
	return cap;
}

static int new_context(struct mcg_mgr *mgr, struct sm *sm)
{
	struct mc_params prm;
	const char *eng =
	    config_enum_name("multicast.engine", sm->cfg.multicast_engine);

	mcast_params_default(&prm);
	mgr->colors = fabric_colors(sm);
	prm.mft_size = mgr->colors;
	prm.merge = sm->cfg.multicast_merge == CFG_MERGE_REBUILD
			? MC_MERGE_REBUILD
			: MC_MERGE_EXTEND;
	prm.switch_threshold = sm->cfg.multicast_switch_threshold;
	return mcast_create(&mgr->mc, sm->fab, &sm->hops, sm->pool, eng, &prm);
}

/* Groups to route again after a sweep: routed before, not waiting. */
static bool reroutable(const struct mcg *g)
{
	return g->sa->n_members && g->sa->state != MCG_RECEIVING_JOIN_REQ &&
	       !g->queued;
}

/* Every group whose tree still fits the new model gets it back (same
 * color, hence the same MLID and MFT entries); only then are the others
 * routed afresh, so a fresh tree never takes a color a kept tree needs. */
static void reroute_groups(struct mcg_mgr *mgr)
{
	uint32_t kept = 0, fresh = 0, moved = 0, failed = 0;
	int rc;

	for (uint32_t i = 0; i < mgr->n; i++) {
		struct mcg *g = mgr->v[i];

		g->eid = MC_NONE;
		if (reroutable(g) && route_how(g, ROUTE_SAVED) == 0) {
			kept++;
			g->need_gen = mgr->gen_req + 1;
		}
	}
	for (uint32_t i = 0; i < mgr->n; i++) {
		struct mcg *g = mgr->v[i];
		uint16_t was = g->sa->rec.mlid;
		char s[48];

		if (!reroutable(g) || g->eid != MC_NONE)
			continue;
		/* its old color first: if the new tree can take it, the
		 * members' MLID stays */
		mcast_color_hint(mgr->mc,
				 was >= IB_LID_MCAST_START
				     ? (uint32_t)(was - IB_LID_MCAST_START)
				     : MC_NONE);
		rc = route_how(g, ROUTE_FRESH);
		mcast_color_hint(mgr->mc, MC_NONE);
		if (rc < 0) {
			failed++;
			log_err("multicast: re-routing a group with %u members "
				"after the sweep failed; it has no tree",
				g->sa->n_members);
			continue;
		}
		fresh++;
		g->need_gen = mgr->gen_req + 1;
		if (g->sa->rec.mlid == was)
			continue;
		moved++;
		mcast_mgid_str(g->sa->rec.mgid, s, sizeof(s));
		log_notice("multicast: %s moved from MLID 0x%04x to 0x%04x: "
			   "its tree no longer fits the fabric",
			   s, was, g->sa->rec.mlid);
	}
	if (fresh || failed)
		log_notice("multicast: after the sweep %u groups kept their "
			   "trees, %u were routed afresh (%u on another MLID), "
			   "%u failed",
			   kept, fresh, moved, failed);
}

/* A new model: the old context's ports are gone.  Every group's tree is
 * saved from the old model first (by switch GUID) and put back where it
 * still fits, so MLIDs do not change while the fabric does not, and a
 * lost link or switch moves only the groups whose trees used it
 * (docs/design.md §5.1). */
void mcg_after_sweep(struct mcg_mgr *mgr, const struct fabric *old)
{
	struct sm *sm = mgr->sm;
	int rc;

	if (mgr->mc && old && mgr->capture)
		mgr->capture(mgr, old);
	if (mgr->mc)
		mcast_destroy(mgr->mc);
	mgr->mc = NULL;
	rc = new_context(mgr, sm);
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
		 mgr->colors, 0xC000, 0xC000 + mgr->colors - 1);
	mftprog_reset(mgr);
	reroute_groups(mgr);
	if (mgr->restored)
		mgr->restored(mgr);
	mcg_tables_changed(mgr, NULL);
	if (mgr->qhead < mgr->qn)
		sd_event_source_set_enabled(mgr->slicer, SD_EVENT_ON);
}

/* The SA created the broadcast group at start; it joins the store as a
 * standard group without members. */
static int adopt_sa_groups(struct mcg_mgr *mgr)
{
	for (uint32_t i = 0; i < mgr->sa->mcgs.n; i++) {
		struct sa_mcg *s = mgr->sa->mcgs.v[i];
		if (mcg_find(mgr, s->rec.mgid))
			continue;
		/* Until its first member joins it keeps the SA's MLID
		 * (0xC000, as OpenSM shows it); the first join's routing
		 * gives the real one. */
		if (!wrap(mgr, s))
			return -ENOMEM;
	}
	return 0;
}

int mcg_core_init(struct mcg_mgr *mgr)
{
	int rc = adopt_sa_groups(mgr);

	if (rc == 0)
		rc = sd_event_add_defer(mgr->sm->ev, &mgr->slicer, on_slice,
					mgr);
	if (rc >= 0)
		sd_event_source_set_enabled(mgr->slicer, SD_EVENT_OFF);
	return rc < 0 ? rc : 0;
}

void mcg_core_fini(struct mcg_mgr *mgr)
{
	for (uint32_t i = 0; i < mgr->n; i++) {
		mcg_disarm_timer(mgr->v[i]);
		mgr->v[i]->sa->owner = NULL;
		free(mgr->v[i]);
	}
	free(mgr->v);
	free(mgr->queue);
	mgr->v = mgr->queue = NULL;
	mgr->n = mgr->qn = mgr->qhead = 0;
	mgr->slicer = sd_event_source_unref(mgr->slicer);
	if (mgr->mc)
		mcast_destroy(mgr->mc);
	mgr->mc = NULL;
}

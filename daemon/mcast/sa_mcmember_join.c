/* MCMemberRecord Set (join) and Delete (leave), IBA 15.2.5.17 and
 * o15-0.2.x, with the MemberCount extension (docs/design.md §4.1).  Decisions,
 * following OpenSM 3.3.23 (osm_sa_mcmember_record.c) where the IBA is
 * silent:
 *  - create needs MGID (may be zero: the SA assigns
 *    ff1S:a01b:PPPP::NNNN:NNNN, S = scope, P = P_Key), PortGID, JoinState,
 *    Q_Key, P_Key, TClass, FlowLabel and SL, else ERR_INSUFFICIENT_COMPONENTS;
 *    only a full or send-only full member creates;
 *  - a join of an existing group must agree with every parameter it gives
 *    (Q_Key, P_Key, SL, FlowLabel, TClass exactly; MTU and rate with their
 *    selectors), else ERR_REQ_INVALID; its JoinState bits are added;
 *  - the member port must hold the group's P_Key, and a proxy join
 *    (requester port != PortGID's port) needs the two ports to share a
 *    partition (join_pkey_ok), else ERR_REQ_INVALID; it is allowed as
 *    sa.proxy_join says, checked before it gets here (sa_mcm.c,
 *    docs/design.md §3.11);
 *  - every member, send-only ones too, is on the group's tree (a sender's
 *    switch needs the MFT entry to forward its packets);
 *  - a leave removes the given JoinState bits; the member goes when none
 *    is left (so a SendOnlyFullMember partial leave leaks nothing). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "daemon/core/sm.h"
#include "daemon/mcast/mcg_priv.h"
#include "lib/log.h"
#include "mad/sa_mad.h"

#define C(x) (1ull << (x))
#define CREATE_COMPS                                                           \
	(C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE) | C(SA_MCMR_QKEY) |       \
	 C(SA_MCMR_PKEY) | C(SA_MCMR_TCLASS) | C(SA_MCMR_FLOW) |               \
	 C(SA_MCMR_SL))
#define JOIN_COMPS                                                             \
	(C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE))

enum { SEL_GT = 0, SEL_LT = 1, SEL_EQ = 2, SEL_BEST = 3 };

/* A value satisfying selector sel against want, not above cap (MTU codes
 * 1..5 are ordered; rates by ib_rate_rank).  0 if none. */
static uint8_t pick(uint8_t sel, uint8_t want, uint8_t cap, bool is_rate)
{
	int w = is_rate ? ib_rate_rank(want) : want;
	int c = is_rate ? ib_rate_rank(cap) : cap;

	switch (sel) {
	case SEL_GT:
		return c > w ? cap : 0;
	case SEL_LT:
		return c < w ? cap : (w > 1 && !is_rate ? want - 1 : 0);
	case SEL_EQ:
		return w <= c ? want : 0;
	default:
		return cap;
	}
}

static bool sel_ok(uint8_t sel, uint8_t want, uint8_t have, bool is_rate)
{
	int w = is_rate ? ib_rate_rank(want) : want;
	int h = is_rate ? ib_rate_rank(have) : have;

	switch (sel) {
	case SEL_GT:
		return h > w;
	case SEL_LT:
		return h < w;
	case SEL_EQ:
		return h == w;
	default:
		return true;
	}
}

static bool mgid_zero(const uint8_t m[16])
{
	for (unsigned i = 0; i < 16; i++)
		if (m[i])
			return false;
	return true;
}

static void assign_mgid(struct mcg_mgr *mgr, struct sa_mcm_rec *p)
{
	uint32_t n;

	do {
		n = ++mgr->mgid_seq;
		memset(p->mgid, 0, 16);
		p->mgid[0] = 0xff;
		p->mgid[1] = 0x10 | (p->scope ? p->scope & 0xF : 2);
		p->mgid[2] = 0xa0;
		p->mgid[3] = 0x1b;
		sa_put16(p->mgid + 4, p->pkey);
		sa_put32(p->mgid + 12, n);
	} while (mcg_find(mgr, p->mgid));
}

static void answer(const struct mcg *g, const struct sa_mcm_rec *req,
		   uint8_t js, uint8_t proxy, struct sa_mcm_rec *resp)
{
	*resp = g->sa->rec;
	memcpy(resp->port_gid, req->port_gid, 16);
	resp->join_state = js;
	resp->proxy_join = proxy;
	/* A collective group's MLID is known once it is Ready (docs/design.md
	 * §4.1). */
	if (g->sa->rec.member_count && g->sa->state != MCG_READY)
		resp->mlid = 0;
	if (!resp->mtu || !resp->rate) {
		uint8_t m, r;
		sa_fabric_mtu_rate(g->mgr->sa, &m, &r);
		resp->mtu = resp->mtu ? resp->mtu : m;
		resp->rate = resp->rate ? resp->rate : r;
	}
}

/* Group parameters of a create request; an SA status. */
static int create_params(struct mcg_mgr *mgr, const struct sa_mcm_rec *req,
			 uint64_t mask, struct sa_mcm_rec *p)
{
	uint8_t fm, fr;

	if ((mask & CREATE_COMPS) != CREATE_COMPS)
		return SA_STATUS_INSUF_COMPS;
	if (!(req->join_state & (SA_JOIN_FULL | SA_JOIN_SENDONLY_FULL)))
		return SA_STATUS_REQ_INVALID;
	*p = *req;
	sa_fabric_mtu_rate(mgr->sa, &fm, &fr);
	p->mtu = mask & C(SA_MCMR_MTU)
		     ? pick(mask & C(SA_MCMR_MTU_SEL) ? req->mtu_sel : SEL_EQ,
			    req->mtu, fm, false)
		     : fm;
	p->rate =
	    mask & C(SA_MCMR_RATE)
		? pick(mask & C(SA_MCMR_RATE_SEL) ? req->rate_sel : SEL_EQ,
		       req->rate, fr, true)
		: fr;
	if (!p->mtu || !p->rate)
		return SA_STATUS_REQ_INVALID;
	p->mtu_sel = p->rate_sel = p->life_sel = SEL_EQ;
	if (!(mask & C(SA_MCMR_LIFE)))
		p->life = mgr->sa->sm.subnet_timeout;
	if (!(mask & C(SA_MCMR_HOP)))
		p->hop_limit = 0;
	if (!(mask & C(SA_MCMR_MEMBER_COUNT)))
		p->member_count = 0;
	if (mgid_zero(req->mgid)) {
		if (!(mask & C(SA_MCMR_SCOPE)))
			p->scope = 2;
		assign_mgid(mgr, p);
	} else if (req->mgid[0] != 0xff) {
		return SA_STATUS_INVALID_GID;
	} else {
		p->scope = req->mgid[1] & 0xF;
	}
	return 0;
}

/* A join of an existing group must agree with its parameters. */
static bool params_agree(const struct sa_mcm_rec *g, const struct sa_mcm_rec *r,
			 uint64_t mask, uint8_t fm, uint8_t fr)
{
	uint8_t mtu = g->mtu ? g->mtu : fm, rate = g->rate ? g->rate : fr;

	if ((mask & C(SA_MCMR_QKEY) && r->qkey != g->qkey) ||
	    (mask & C(SA_MCMR_PKEY) &&
	     (r->pkey & 0x7FFF) != (g->pkey & 0x7FFF)) ||
	    (mask & C(SA_MCMR_SL) && r->sl != g->sl) ||
	    (mask & C(SA_MCMR_FLOW) && r->flow_label != g->flow_label) ||
	    (mask & C(SA_MCMR_TCLASS) && r->tclass != g->tclass))
		return false;
	if (mask & C(SA_MCMR_MTU) &&
	    !sel_ok(mask & C(SA_MCMR_MTU_SEL) ? r->mtu_sel : SEL_EQ, r->mtu,
		    mtu, false))
		return false;
	if (mask & C(SA_MCMR_RATE) &&
	    !sel_ok(mask & C(SA_MCMR_RATE_SEL) ? r->rate_sel : SEL_EQ, r->rate,
		    rate, true))
		return false;
	return true;
}

static int add_member(struct mcg *g, struct ib_port *p,
		      const struct sa_mcm_rec *req, uint8_t proxy)
{
	int rc = sa_mcg_member_set(g->sa, req->port_gid, req->join_state & 0xF,
				   proxy);

	if (rc < 0)
		return SA_STATUS_NO_RESOURCES;
	g->sa->joined++;
	if (g->sa->rec.member_count) {
		if (g->sa->joined == g->sa->rec.member_count)
			mcg_queue(g);
		return 0;
	}
	rc = mcg_std_add(g, p);
	if (rc < 0) {
		log_warn("mcg: cannot add port 0x%016" PRIx64 " to a group's "
			 "tree: %s; join refused",
			 p->guid, strerror(-rc));
		sa_mcg_member_del(g->sa, req->port_gid);
		g->sa->joined--;
		return SA_STATUS_NO_RESOURCES;
	}
	return 0;
}

/* *dirty: the join changed the group (a join that only repeats what the
 * member has is answered without a state-file write to wait for). */
static int join_existing(struct mcg *g, struct ib_port *p,
			 const struct sa_mcm_rec *req, uint64_t mask,
			 uint8_t proxy, struct sa_mcm_rec *resp, bool *dirty)
{
	struct sa_mcg_member *m = sa_mcg_member_find(g->sa, req->port_gid);
	uint16_t mc = mask & C(SA_MCMR_MEMBER_COUNT) ? req->member_count : 0;
	uint8_t fm, fr;
	int st;

	sa_fabric_mtu_rate(g->mgr->sa, &fm, &fr);
	if (!params_agree(&g->sa->rec, req, mask, fm, fr) ||
	    mc != g->sa->rec.member_count)
		return SA_STATUS_REQ_INVALID;
	if (m) {
		uint8_t was = m->join_state;

		m->join_state |= req->join_state & 0xF;
		*dirty = m->join_state != was;
		answer(g, req, m->join_state, m->proxy, resp);
		return 0;
	}
	if (g->sa->rec.member_count &&
	    (g->sa->state != MCG_RECEIVING_JOIN_REQ ||
	     g->sa->joined >= g->sa->rec.member_count))
		return SA_STATUS_REQ_INVALID; /* an (N+1)-th port */
	st = add_member(g, p, req, proxy);
	if (st == 0)
		answer(g, req, req->join_state & 0xF, proxy, resp);
	return st;
}

static int join_new(struct mcg_mgr *mgr, struct ib_port *p,
		    const struct sa_mcm_rec *req, uint64_t mask, uint8_t proxy,
		    struct sa_mcm_rec *resp)
{
	struct sa_mcm_rec prm;
	struct mcg *g;
	int st = create_params(mgr, req, mask, &prm);

	if (st)
		return st;
	g = mcg_create(mgr, &prm);
	if (!g)
		return SA_STATUS_NO_RESOURCES;
	if (prm.member_count)
		mcg_arm_timer(g, mgr->sm->cfg.multicast_join_timeout_ms);
	st = add_member(g, p, &prm, proxy);
	if (st) {
		mcg_destroy(g, "first join refused");
		return st;
	}
	answer(g, &prm, prm.join_state & 0xF, proxy, resp);
	g->announced = true;
	if (mgr->sm->report_mcg)
		mgr->sm->report_mcg(mgr->sm, g->sa->rec.mgid, g->sa->rec.pkey,
				    true);
	return 0;
}

/* Partitions: the member holds the group's P_Key (the group's, or the
 * request's for a new group), a proxy shares a partition with it. */
static int join_pkey_ok(struct sa *sa, const struct sa_peer *from,
			const struct ib_port *p, const struct mcg *g,
			const struct sa_mcm_rec *req, uint64_t mask)
{
	uint16_t pkey = g ? g->sa->rec.pkey : req->pkey;
	const struct ib_port *rq = sa_requester(sa, from);

	if (!g && !(mask & C(SA_MCMR_PKEY)))
		return 0; /* refused later: a create needs the P_Key */
	if (!sa_holds_pkey(sa, p, pkey))
		return SA_STATUS_REQ_INVALID;
	if (rq != p && !sa_share_pkey(sa, rq, p))
		return SA_STATUS_REQ_INVALID;
	return 0;
}

/* The member port and whether this is a proxy join; an SA status. */
static int member_port(struct sa *sa, const struct sa_peer *from,
		       const struct sa_mcm_rec *req, struct ib_port **pp,
		       uint8_t *proxy)
{
	struct ib_port *p = sa_port_by_gid(sa, req->port_gid);
	struct ib_port *rq = fabric_port_by_lid(sa->fabric, from->lid);

	if (!p || node_is_switch(p->node) || mc_member_sw(p) == MC_NONE)
		return SA_STATUS_REQ_INVALID;
	/* Partitions are checked apart (join_pkey_ok). */
	*proxy = rq != p;
	*pp = p;
	return 0;
}

static int mcg_join(void *ctx, struct sa *sa, const struct sa_peer *from,
		    const struct sa_mcm_rec *req, uint64_t mask,
		    struct sa_mcm_rec *resp)
{
	struct mcg_mgr *mgr = ctx;
	struct ib_port *p;
	struct mcg *g;
	uint8_t proxy;
	bool dirty = true;
	int st;

	mgr->joins++;
	if (!mgr->mc)
		return SA_STATUS_NO_RESOURCES; /* no routed fabric yet */
	if ((mask & (C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE))) !=
	    (C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE)))
		return SA_STATUS_INSUF_COMPS;
	if (!(req->join_state & 0xF))
		return SA_STATUS_REQ_INVALID;
	st = member_port(sa, from, req, &p, &proxy);
	if (st)
		return st;
	g = mask & C(SA_MCMR_MGID) && !mgid_zero(req->mgid)
		? mcg_find(mgr, req->mgid)
		: NULL;
	st = join_pkey_ok(sa, from, p, g, req, mask);
	if (!st)
		st = g ? join_existing(g, p, req, mask, proxy, resp, &dirty)
		       : join_new(mgr, p, req, mask, proxy, resp);
	if (st) {
		mgr->refused++;
		return st;
	}
	if (!dirty)
		return 0; /* the member had it all: nothing to journal */
	/* one record, whatever the group's size; a new group whole */
	if (g)
		mcg_journal_member(g, req->port_gid);
	else if ((g = mcg_find(mgr, resp->mgid)))
		mcg_journal_group(g);
	mcg_persist_dumps_dirty(mgr);
	return 0;
}

/* A member left for good: the routes change as the group kind says.
 * True when the group is destroyed. */
static bool member_gone(struct mcg *g, struct ib_port *p)
{
	struct sa_mcg *s = g->sa;

	if (!s->rec.member_count) {
		s->left++;
		if (p)
			mcg_std_remove(g, p);
		if (s->n_members)
			return false;
		mcg_destroy(g, "last member left"); /* frees s */
		return true;
	}
	if (s->state == MCG_RECEIVING_JOIN_REQ) {
		s->joined--;
		if (s->n_members)
			return false;
		mcg_destroy(g, "every member left before routing");
		return true;
	}
	s->left++;
	if (!s->n_members) {
		mcg_destroy(g, "every member left");
		return true;
	}
	if (s->state != MCG_RECEIVING_LEAVE_REQ) {
		mcg_change_state(g, MCG_RECEIVING_LEAVE_REQ, "first leave");
		mcg_arm_timer(g, g->mgr->sm->cfg.multicast_leave_timeout_ms);
	}
	return false;
}

static int mcg_leave(void *ctx, struct sa *sa, const struct sa_peer *from,
		     const struct sa_mcm_rec *req, uint64_t mask,
		     struct sa_mcm_rec *resp)
{
	struct mcg_mgr *mgr = ctx;
	struct sa_mcg_member *m;
	struct ib_port *p;
	struct mcg *g;
	uint8_t left;

	mgr->leaves++;
	if ((mask & JOIN_COMPS) != JOIN_COMPS)
		return SA_STATUS_INSUF_COMPS;
	g = mcg_find(mgr, req->mgid);
	m = g ? sa_mcg_member_find(g->sa, req->port_gid) : NULL;
	if (!m || !(req->join_state & m->join_state))
		return SA_STATUS_REQ_INVALID;
	p = sa_port_by_gid(sa, req->port_gid);
	left = m->join_state & ~req->join_state & 0xF;
	answer(g, req, left, m->proxy, resp);
	mcg_persist_dumps_dirty(mgr);
	if (left) {
		m->join_state = left; /* partial leave: still a member */
		mcg_journal_member(g, req->port_gid);
		return 0;
	}
	sa_mcg_member_del(g->sa, req->port_gid);
	/* "drop" with the group's state after it; a group destroyed is
	 * journaled "gone" (mcg_destroy's hook) */
	if (!member_gone(g, p))
		mcg_journal_member(g, req->port_gid);
	return 0;
}

const struct sa_mcm_ops mcg_sa_ops = {
    .join = mcg_join,
    .leave = mcg_leave,
};

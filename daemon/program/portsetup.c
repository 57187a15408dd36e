/* Port setup: each port gets one PortInfo Set carrying its LID, LMC, the
 * master SM LID and PortState ARMED, and only when one of them is not yet
 * right; switches get a SwitchInfo Set of LinearFDBTop (ibsim drops
 * LID-routed packets beyond it) and the PortStateChange clear.  Then every
 * armed port is set ACTIVE: ibsim accepts ACTIVE only once the neighbour
 * is ARMED, so all ports are armed before any is activated.  Sets are built
 * from the PortInfo the node reported (ibsim takes LID, SM LID, LMC from
 * every Set, so nothing may be left zero). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/program/mkey.h"
#include "daemon/program/pkeyprog.h"
#include "daemon/program/qosprog.h"
#include "daemon/program/program.h"
#include "lib/lids.h"
#include "lib/log.h"
#include "mad/smp_port.h"
#include "mad/smp_switch.h"

/* Sets of port setup in flight at most: enough to keep every window of
 * the MAD engine busy, few enough that the queue stays small. */
#define PORTSETUP_INFLIGHT 2048

static void feed(struct prog_pass *s);

/* A Set of ours ended: the next nodes' Sets may go. */
static void set_ended(struct prog_pass *s)
{
	s->ps_inflight--;
	feed(s);
}

struct set_req {
	struct prog_pass *s;
	struct ib_node *node;
	uint8_t port;
	uint8_t state; /* PortState asked for, 0 = none */
	bool switchinfo;
	uint64_t mkey; /* M_Key the Set installs, 0 = none (mkey.c) */
};

/* Counted and named for the sweep's one summary line (a lossy fabric
 * fails thousands at once). */
static void set_failed(struct set_req *q, int status, uint16_t mad_status)
{
	struct prog_pass *s = q->s;
	char where[IB_DESC_LEN + 16];

	if (!s->set_errors++)
		snprintf(s->set_why, sizeof(s->set_why),
			 "%s Set: %s (MAD status 0x%x)",
			 q->switchinfo ? "SwitchInfo" : "PortInfo",
			 strerror(-status), mad_status);
	snprintf(where, sizeof(where), "%s/%u", q->node->desc, q->port);
	namelist_add(&s->set_failed, where);
	log_debug("port setup: %s Set on %s (0x%016" PRIx64 ") port %u "
		  "failed: %s (MAD status 0x%x)",
		  q->switchinfo ? "SwitchInfo" : "PortInfo", q->node->desc,
		  q->node->guid, q->port, strerror(-status), mad_status);
}

/* PortInfo SMPs carry SMSupportExtendedSpeeds where the port (a switch:
 * its port 0) says it has extended speeds (mad/smp_port.h). */
static uint32_t pi_mod(const struct ib_node *n, uint8_t pn)
{
	return smp_port_info_mod(pn, port_speed_caps(&n->ports[pn]) &
					 IB_SPEED_CAP_EXT);
}

/* After a refused state Set: what the port really is now. */
static void verify_cb(void *ctx, int status, const struct txn_result *r)
{
	struct set_req *q = ctx;
	struct smp_port_info pi;

	if (status == 0 && r->data &&
	    smp_port_info_decode(&pi, r->data, SMP_DATA_SIZE) == 0 &&
	    pi.port_state >= q->state) {
		q->node->ports[q->port].state = pi.port_state;
	} else {
		set_failed(q, status < 0 ? status : -EREMOTEIO,
			   r ? r->mad_status : 0);
	}
	set_ended(q->s);
	prog_release(q->s);
	free(q);
}

/* A state Set whose answer was lost is retried; the retry then finds the
 * port already in that state, and ibsim (like the IBA state machine)
 * refuses the same transition twice.  Read the port back before calling
 * it a failure. */
static bool verify_state(struct set_req *q, const struct txn_result *r)
{
	uint8_t path[IB_MAX_DR_HOPS + 1], hops;

	if (q->switchinfo || !q->state || !r || r->tries < 2 ||
	    disc_port_path(q->s->f, q->node, q->port, path, &hops) < 0)
		return false;
	if (txn_submit_dr(q->s->sm->txn, path, hops, MAD_METHOD_GET,
			  SMP_ATTR_PORT_INFO, pi_mod(q->node, q->port), NULL,
			  verify_cb, q) < 0)
		return false;
	prog_hold(q->s);
	return true;
}

/* The IBA default GID prefix: end ports' GIDs (SA PathRecords, multicast
 * joins, ServiceRecords) are this prefix + the port GUID. */
#define SUBNET_PREFIX 0xfe80000000000000ull
static void set_cb(void *ctx, int status, const struct txn_result *r)
{
	struct set_req *q = ctx;
	struct prog_pass *s = q->s;
	struct ib_port *p = &q->node->ports[q->port];
	struct smp_port_info pi;

	if (status < 0) {
		if (status == -EREMOTEIO && verify_state(q, r)) {
			prog_release(s);
			return;
		}
		set_failed(q, status, r ? r->mad_status : 0);
	} else if (!q->switchinfo && q->mkey) {
		mkey_pi_acked(s->sm, q->node, q->port, q->mkey);
	}
	if (status >= 0 && !q->switchinfo && q->state) {
		if (r->data &&
		    smp_port_info_decode(&pi, r->data, SMP_DATA_SIZE) == 0)
			p->state = pi.port_state;
		else
			p->state = q->state;
	}
	free(q);
	set_ended(s);
	prog_release(s);
}

static int submit_set(struct prog_pass *s, struct ib_node *n, uint8_t pn,
		      uint16_t attr, const uint8_t *data, uint8_t state,
		      uint64_t mkey)
{
	struct set_req *q = calloc(1, sizeof(*q));
	uint8_t path[IB_MAX_DR_HOPS + 1], hops;
	int rc;

	if (!q)
		return -ENOMEM;
	rc = disc_port_path(s->f, n, pn, path, &hops);
	if (rc < 0) {
		free(q);
		return 0; /* no route to that port: nothing to set */
	}
	q->s = s;
	q->node = n;
	q->port = pn;
	q->state = state;
	q->switchinfo = attr == SMP_ATTR_SWITCH_INFO;
	q->mkey = mkey;
	rc = txn_submit_dr(s->sm->txn, path, hops, MAD_METHOD_SET, attr,
			   attr == SMP_ATTR_PORT_INFO ? pi_mod(n, pn) : 0, data,
			   set_cb, q);
	if (rc < 0) {
		free(q);
		return rc;
	}
	prog_hold(s);
	s->ps_inflight++;
	s->need_sets++;
	if (q->switchinfo)
		s->sm->smps.switchinfo_sets++;
	else
		s->sm->smps.portinfo_sets++;
	return 0;
}

/* The LID/LMC/SM LID this port should carry; false for ports that carry
 * none (switch external ports). */
static bool wanted_lid(const struct prog_pass *s, const struct ib_node *n,
		       uint8_t pn, uint16_t *lid, uint8_t *lmc)
{
	if (node_is_switch(n) && pn != 0)
		return false;
	*lid = n->ports[pn].lid;
	*lmc = n->ports[pn].lmc;
	return true;
}

static bool port_linked(const struct prog_pass *s, const struct ib_node *n,
			uint8_t pn)
{
	return n->ports[pn].remote != NULL || n->ports[pn].held ||
	       (n == s->f->sm_node && pn == s->f->sm_port &&
		!node_is_switch(n));
}

/* A CA port lids_assign left without a LID (the switches' LinearFDBCap
 * holds too few): its link stays down; a LID it still holds from before
 * is cleared, since another port may have it now. */
static int clear_lid(struct prog_pass *s, struct ib_node *n, uint8_t pn,
		     struct smp_port_info *pi)
{
	uint8_t data[SMP_DATA_SIZE] = {0};
	int rc;

	if (!pi->lid)
		return 0;
	pi->lid = 0;
	pi->port_state = 0;
	pi->port_phys_state = 0;
	pi->client_reregister = 0;
	rc = smp_port_info_encode(pi, data, sizeof(data));
	return rc < 0 ? rc
		      : submit_set(s, n, pn, SMP_ATTR_PORT_INFO, data, 0, 0);
}

static int arm_port(struct prog_pass *s, struct dnode *dn, uint8_t pn)
{
	struct ib_node *n = dn->node;
	struct smp_port_info pi;
	uint8_t data[SMP_DATA_SIZE] = {0};
	uint16_t lid = 0;
	uint8_t lmc = 0;
	bool set_lid, arm, rereg, keys, enforce, qos;
	int rc;

	if (!dn->ports[pn].have_pi ||
	    smp_port_info_decode(&pi, dn->ports[pn].pi, SMP_DATA_SIZE) < 0)
		return 0;
	if (pn && !node_is_switch(n) && lids_link_unrouted(&n->ports[pn]))
		return clear_lid(s, n, pn, &pi);
	/* After taking over from an SM whose state we lack, CA ports are
	 * told to re-register (join their groups again). */
	rereg = !node_is_switch(n) && sm_want_rereg(s->sm);
	set_lid = wanted_lid(s, n, pn, &lid, &lmc) &&
		  (pi.lid != lid || pi.lmc != lmc ||
		   pi.master_sm_lid != s->sm->sm_lid ||
		   pi.gid_prefix != SUBNET_PREFIX || rereg);
	arm = pn != 0 && port_linked(s, n, pn) &&
	      pi.port_state == IB_PORT_INIT &&
	      !lids_link_unrouted(&n->ports[pn]);
	keys = mkey_pi_fill(s->sm, n, pn, &pi);
	enforce = pkeyprog_port_enforce(s->sm, n, pn, &pi);
	qos = qosprog_portinfo(s, dn, pn, &pi);
	if (!set_lid && !arm && !keys && !enforce && !qos)
		return 0;
	if (set_lid) {
		pi.lid = lid;
		pi.lmc = lmc;
		pi.master_sm_lid = s->sm->sm_lid;
		pi.gid_prefix = SUBNET_PREFIX;
	}
	pi.port_state = arm ? IB_PORT_ARMED : 0;
	pi.port_phys_state = 0;
	pi.client_reregister = rereg;
	rc = smp_port_info_encode(&pi, data, sizeof(data));
	if (rc < 0)
		return rc;
	if (arm)
		s->armed++;
	return submit_set(s, n, pn, SMP_ATTR_PORT_INFO, data,
			  arm ? IB_PORT_ARMED : 0,
			  mkey_port_keyed(n, pn) ? pi.m_key : 0);
}

static int set_switchinfo(struct prog_pass *s, struct dnode *dn)
{
	struct smp_switch_info si;
	uint8_t data[SMP_DATA_SIZE] = {0};
	uint16_t top = s->f->max_lid;
	int rc;

	if (!dn->have_si ||
	    smp_switch_info_decode(&si, dn->si, SMP_DATA_SIZE) < 0)
		return 0;
	/* never past the table (LIDs beyond it got none: lib/lids.c) */
	if (si.lft_cap && top >= si.lft_cap / 64u * 64u)
		top = si.lft_cap >= 64 ? (uint16_t)(si.lft_cap / 64u * 64u - 1)
				       : 0;
	if (si.lft_top == top && !si.port_state_change)
		return 0;
	si.lft_top = top;
	/* Writing 1 clears PortStateChange, so the light sweep sees only
	 * changes that happen after this sweep. */
	si.port_state_change = si.port_state_change ? 1 : 0;
	rc = smp_switch_info_encode(&si, data, sizeof(data));
	if (rc < 0)
		return rc;
	dn->node->lft_top = top;
	return submit_set(s, dn->node, 0, SMP_ATTR_SWITCH_INFO, data, 0, 0);
}

static int arm_node(struct prog_pass *s, struct ib_node *n)
{
	struct dnode *dn = disc_node(s->disc, n);
	int rc = 0;

	if (!dn)
		return 0;
	for (unsigned p = node_is_switch(n) ? 0 : 1; p <= n->nports && rc == 0;
	     p++)
		rc = arm_port(s, dn, (uint8_t)p);
	if (rc == 0 && node_is_switch(n))
		rc = set_switchinfo(s, dn);
	return rc;
}

static int activate_node(struct prog_pass *s, struct ib_node *n);

/* Node after node while fewer than PORTSETUP_INFLIGHT Sets of ours are
 * out; each Set that ends calls it again.  The pass is held until the
 * last node was submitted. */
static void feed(struct prog_pass *s)
{
	int rc = 0;

	if (s->ps_feeding || !s->ps_held)
		return;
	s->ps_feeding = true;
	while (s->ps_next < s->f->n_nodes &&
	       s->ps_inflight < PORTSETUP_INFLIGHT && rc == 0) {
		struct ib_node *n = s->f->nodes[s->ps_next++];
		rc = s->ps_activate ? activate_node(s, n) : arm_node(s, n);
	}
	s->ps_feeding = false;
	if (rc < 0) {
		snprintf(s->error, sizeof(s->error),
			 "port setup: cannot submit: %s", strerror(-rc));
		s->ps_next = s->f->n_nodes;
	}
	if (s->ps_next >= s->f->n_nodes) {
		s->ps_held = false;
		prog_release(s);
	}
}

static int feed_start(struct prog_pass *s, bool activate)
{
	s->ps_next = 0;
	s->ps_activate = activate;
	s->ps_held = true;
	prog_hold(s);
	feed(s);
	return 0;
}

int portsetup_arm(struct prog_pass *s)
{
	return feed_start(s, false);
}

static int activate_port(struct prog_pass *s, struct dnode *dn, uint8_t pn)
{
	struct ib_node *n = dn->node;
	struct smp_port_info pi;
	uint8_t data[SMP_DATA_SIZE] = {0};
	int rc;

	if (pn == 0 || !port_linked(s, n, pn) ||
	    n->ports[pn].state != IB_PORT_ARMED ||
	    lids_link_unrouted(&n->ports[pn]) || !dn->ports[pn].have_pi ||
	    smp_port_info_decode(&pi, dn->ports[pn].pi, SMP_DATA_SIZE) < 0)
		return 0;
	if (wanted_lid(s, n, pn, &pi.lid, &pi.lmc)) {
		pi.master_sm_lid = s->sm->sm_lid;
		pi.gid_prefix = SUBNET_PREFIX;
	}
	mkey_pi_fill(s->sm, n, pn, &pi); /* keep what the arm Set wrote */
	pkeyprog_port_enforce(s->sm, n, pn, &pi);
	qosprog_portinfo(s, dn, pn, &pi); /* as the ARMED Set left it */
	pi.port_state = IB_PORT_ACTIVE;
	pi.port_phys_state = 0;
	pi.client_reregister = 0;
	rc = smp_port_info_encode(&pi, data, sizeof(data));
	if (rc < 0)
		return rc;
	s->activated++;
	return submit_set(s, n, pn, SMP_ATTR_PORT_INFO, data, IB_PORT_ACTIVE,
			  mkey_port_keyed(n, pn) ? pi.m_key : 0);
}

static int activate_node(struct prog_pass *s, struct ib_node *n)
{
	struct dnode *dn = disc_node(s->disc, n);
	int rc = 0;

	for (unsigned p = 1; dn && p <= n->nports && rc == 0; p++)
		rc = activate_port(s, dn, (uint8_t)p);
	return rc;
}

/* PortPhysicalState Sets (IBA 14.2.5.6): 2 Polling, 3 Disabled. */
#define PHYS_POLLING  2
#define PHYS_DISABLED 3

struct phys_req {
	struct sm *sm;
	uint64_t guid;
	uint8_t port;
	bool disable;
	void (*done)(void *ctx, int status);
	void *ctx;
};

static void phys_end(struct phys_req *q, int status)
{
	if (status < 0)
		log_warn("port 0x%016" PRIx64 " port %u: PortPhysicalState "
			 "%s Set failed: %s",
			 q->guid, q->port, q->disable ? "Disabled" : "Polling",
			 strerror(-status));
	if (q->done)
		q->done(q->ctx, status);
	free(q);
}

static void phys_set_cb(void *ctx, int status, const struct txn_result *r)
{
	phys_end(ctx, status);
}

static void phys_get_cb(void *ctx, int status, const struct txn_result *r)
{
	struct phys_req *q = ctx;
	const struct ib_node *n =
	    q->sm->fab ? fabric_node_by_guid(q->sm->fab, q->guid) : NULL;
	uint8_t data[SMP_DATA_SIZE] = {0}, path[IB_MAX_DR_HOPS + 1], hops;
	struct smp_port_info pi;

	if (status == 0 &&
	    (!r->data || !n ||
	     smp_port_info_decode(&pi, r->data, SMP_DATA_SIZE) < 0))
		status = -EPROTO;
	if (status == 0) {
		mkey_pi_fill(q->sm, n, q->port, &pi);
		pi.port_state = 0; /* no change */
		pi.port_phys_state = q->disable ? PHYS_DISABLED : PHYS_POLLING;
		pi.client_reregister = 0;
		status = smp_port_info_encode(&pi, data, sizeof(data));
	}
	if (status == 0)
		status = disc_port_path(q->sm->fab, n, q->port, path, &hops);
	if (status == 0)
		status = txn_submit_dr(q->sm->txn, path, hops, MAD_METHOD_SET,
				       SMP_ATTR_PORT_INFO, pi_mod(n, q->port),
				       data, phys_set_cb, q);
	if (status < 0)
		phys_end(q, status);
}

int portsetup_phys_state(struct sm *sm, uint64_t guid, uint8_t pn, bool disable,
			 void (*done)(void *ctx, int status), void *ctx)
{
	const struct ib_node *n =
	    sm->fab ? fabric_node_by_guid(sm->fab, guid) : NULL;
	uint8_t path[IB_MAX_DR_HOPS + 1], hops;
	struct phys_req *q;
	int rc;

	if (!n || pn == 0 || pn > n->nports)
		return -ENOENT;
	rc = disc_port_path(sm->fab, n, pn, path, &hops);
	if (rc < 0)
		return rc;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	*q = (struct phys_req){sm, guid, pn, disable, done, ctx};
	rc = txn_submit_dr(sm->txn, path, hops, MAD_METHOD_GET,
			   SMP_ATTR_PORT_INFO, pi_mod(n, pn), NULL, phys_get_cb,
			   q);
	if (rc < 0)
		free(q);
	else
		loop_txn_kick(sm);
	return rc;
}

int portsetup_activate(struct prog_pass *s)
{
	return feed_start(s, true);
}

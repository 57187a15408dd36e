/* Reports of events to the SA's subscribers (IBA 13.4.8, 14.2.5.1 Table
 * 125; the subscriptions are sa_inform.c's):
 * - traps 64 and 65, a port's GID in or out of service: after a heavy
 *   sweep, the end ports (CA ports and switch port 0 with a LID) the new
 *   model has and the old one had not, and back;
 * - traps 66 and 67, a multicast group created or deleted: told by the
 *   group manager through sm->report_mcg.
 * Every subscription that wants a notice gets a SubnAdmReport(Notice) at
 * its port's LID and the QPN it named, sent through the MAD engine, which
 * waits for the ReportResp and retries.  Decisions (OpenSM does the same
 * in spirit): a subscriber that answers no report after the retries loses
 * its subscriptions, logged, since every later event would cost it
 * timeouts; a port out of service loses its own after the reports of its
 * leaving.  With partitions a subscriber hears only of ports it shares a
 * partition with and of groups whose P_Key it holds (IBA 13.4.8.3 note,
 * OpenSM alike): for a port gone, by the partitions of the model it was
 * in. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/sm.h"
#include "daemon/sa/sa_server.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "lib/log.h"
#include "lib/pkeys.h"
#include "mad/sa_inform.h"
#include "mad/sa_mad.h"
#include "mad/umad_port.h"

struct sa_reports {
	struct sm *sm;
	struct sa *sa;
	int agent;
	uint64_t sent, failed;
	struct log_ratelimit rl;
};

/* One report in flight: who it went to. */
struct report_tx {
	struct sa_reports *r;
	uint8_t gid[16];
};

static void report_done(void *ctx, int status, const struct txn_result *res)
{
	struct report_tx *tx = ctx;
	struct sa_reports *r = tx->r;
	unsigned n;

	if (status == -ECANCELED) { /* the engine is going: so is r */
		free(tx);
		return;
	}
	if (status < 0 && status != -EREMOTEIO) {
		char g[INET6_ADDRSTRLEN];

		r->failed++;
		n = sa_inform_drop_subscriber(r->sa, tx->gid);
		inet_ntop(AF_INET6, tx->gid, g, sizeof(g));
		if (n && log_ratelimit_ok(&r->rl))
			log_warn("SA: subscriber %s answered no report: %s; "
				 "its %u event subscriptions are dropped",
				 g, strerror(-status), n);
	}
	free(tx);
}

static void send_report(struct sa_reports *r, const struct sa_inform_rec *s,
			const struct sa_notice *n)
{
	const struct ib_port *p = sa_port_by_gid(r->sa, s->subscriber_gid);
	uint8_t mad[MAD_SIZE] = {0};
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = SA_MGMT_CLASS,
			   .class_version = SA_CLASS_VERSION,
			   .method = SA_METHOD_REPORT,
			   .attr_id = SA_ATTR_NOTICE};
	struct mad_addr to = {.qpn = s->info.qpn, .qkey = MAD_QKEY_GSI};
	struct report_tx *tx;

	if (!p || !(to.lid = sa_port_lid(p)))
		return; /* not in the fabric now: nowhere to send */
	if (!(tx = malloc(sizeof(*tx))))
		return;
	tx->r = r;
	memcpy(tx->gid, s->subscriber_gid, 16);
	sa_hdr_encode(&h, mad);
	sa_rec_encode(&sa_notice_desc, n, mad + SA_HDR_SIZE);
	if (txn_submit_mad(r->sm->txn, r->agent, mad, sizeof(mad), &to,
			   txn_dest_lid(to.lid), report_done, tx) < 0) {
		free(tx);
		return;
	}
	r->sent++;
}

/* Who may hear of a notice: with a plan pl (partitions) over model f, a
 * subscriber that shares a partition with port about, or holds the
 * group's P_Key grp_pkey; without one, everyone. */
struct audience {
	const struct pkey_plan *pl;
	const struct fabric *f;
	const struct ib_port *about;
	uint16_t grp_pkey;
};

static bool may_hear(const struct audience *au, const uint8_t sub_gid[16])
{
	const struct ib_port *s;

	if (!au || !au->pl)
		return true;
	s = fabric_port_by_guid(au->f, sa_get64(sub_gid + 8));
	if (!s)
		return false;
	return au->about ? pkey_plan_common(au->pl, s, au->about) != 0
			 : pkey_plan_entry(au->pl, s, au->grp_pkey) != 0;
}

/* Sends notice trap about gid (a port's, with its LID, or a group's) to
 * every subscription that wants it and may hear of it. */
static void report(struct sa_reports *r, uint16_t trap, const uint8_t gid[16],
		   uint16_t lid, const struct audience *au)
{
	const struct sa_informs *t = &r->sa->informs;
	struct sa_notice n = {.is_generic = 1,
			      .type = SA_TRAP_TYPE_INFO,
			      .producer = SA_TRAP_PRODUCER_SM,
			      .trap_num = trap,
			      .issuer_lid = r->sm->sm_lid};

	if (!t->n)
		return;
	memcpy(n.details + 6, gid, 16);
	sa_put64(n.issuer_gid, r->sa->sm.subnet_prefix);
	sa_put64(n.issuer_gid + 8, r->sm->sm_guid);
	for (uint32_t i = 0; i < t->n; i++)
		if (sa_inform_matches(&t->v[i].info, &n, gid, lid) &&
		    may_hear(au, t->v[i].subscriber_gid))
			send_report(r, &t->v[i], &n);
	loop_txn_kick(r->sm);
}

/* ---- traps 64 and 65 ---- */

struct end_port {
	uint64_t guid;
	uint16_t lid;
};

static int cmp_end(const void *a, const void *b)
{
	uint64_t x = ((const struct end_port *)a)->guid,
		 y = ((const struct end_port *)b)->guid;

	return x < y ? -1 : x > y;
}

/* The model's end ports in service (a LID; CA ports linked), by GUID. */
static struct end_port *end_ports(const struct fabric *f, uint32_t *n)
{
	struct end_port *v = calloc(f->n_nodes * 2 + 8, sizeof(*v));
	uint32_t cap = f->n_nodes * 2 + 8;

	*n = 0;
	for (uint32_t i = 0; v && i < f->n_nodes; i++) {
		const struct ib_node *nd = f->nodes[i];

		for (unsigned pn = node_is_switch(nd) ? 0 : 1;
		     pn <= (node_is_switch(nd) ? 0u : nd->nports); pn++) {
			const struct ib_port *p = &nd->ports[pn];
			struct end_port *nv;

			if (!p->lid || (pn && !p->remote))
				continue;
			if (*n == cap) {
				cap *= 2;
				if (!(nv = realloc(v, cap * sizeof(*v)))) {
					free(v);
					return NULL;
				}
				v = nv;
			}
			v[(*n)++] = (struct end_port){p->guid, p->lid};
		}
	}
	if (v)
		qsort(v, *n, sizeof(*v), cmp_end);
	return v;
}

static void port_event(struct sa_reports *r, uint16_t trap,
		       const struct end_port *e, struct audience *au)
{
	uint8_t gid[16];

	sa_put64(gid, r->sa->sm.subnet_prefix);
	sa_put64(gid + 8, e->guid);
	if (au->pl)
		au->about = fabric_port_by_guid(au->f, e->guid);
	report(r, trap, gid, e->lid, au);
	if (trap == SA_TRAP_GID_OUT)
		sa_inform_drop_subscriber(r->sa, gid);
}

static void on_fabric(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	struct sa_reports *r = ctx;
	struct end_port *o, *nw;
	uint32_t no, nn, i = 0, j = 0;
	/* partitions of each model, built only when there is news to tell */
	struct pkey_plan po, pn;
	struct audience ao = {.f = a ? a->old : NULL}, an = {.f = sm->fab};
	bool parts = sm->cfg.partitions.n > 0;

	if (!a || !a->old || !sm->fab || !r->sa->informs.n)
		return;
	o = end_ports(a->old, &no);
	nw = end_ports(sm->fab, &nn);
	while (o && nw && (i < no || j < nn)) {
		bool out = j == nn || (i < no && o[i].guid < nw[j].guid);
		bool in = !out && (i == no || nw[j].guid < o[i].guid);
		struct audience *au = out ? &ao : &an;

		if (!out && !in) {
			i++, j++;
			continue;
		}
		if (parts && !au->pl &&
		    pkey_plan_build(out ? &po : &pn, au->f, &sm->cfg.partitions,
				    false) == 0)
			au->pl = out ? &po : &pn;
		if (parts && !au->pl) /* no memory: tell nobody, not all */
			out ? i++ : j++;
		else if (out)
			port_event(r, SA_TRAP_GID_OUT, &o[i++], au);
		else
			port_event(r, SA_TRAP_GID_IN, &nw[j++], au);
	}
	if (ao.pl)
		pkey_plan_free(&po);
	if (an.pl)
		pkey_plan_free(&pn);
	free(o);
	free(nw);
}

/* ---- traps 66 and 67 ---- */

static void on_mcg(struct sm *sm, const uint8_t mgid[16], uint16_t pkey,
		   bool created)
{
	struct sa_reports *r = sm->reports;
	struct audience au;

	if (!r)
		return;
	au = (struct audience){
	    .pl = r->sa->pkeys, .f = r->sa->fabric, .grp_pkey = pkey};
	report(r, created ? SA_TRAP_MCG_CREATED : SA_TRAP_MCG_DELETED, mgid, 0,
	       &au);
}

struct sa_reports *sa_reports_start(struct sm *sm, struct sa *sa, int agent)
{
	struct sa_reports *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->sm = sm;
	r->sa = sa;
	r->agent = agent;
	r->rl.interval_ms = 10000;
	r->rl.burst = 5;
	if (sm_subscribe(sm, SM_EV_FABRIC_REPLACED, on_fabric, r) < 0) {
		free(r);
		return NULL;
	}
	sm->reports = r;
	sm->report_mcg = on_mcg;
	return r;
}

void sa_reports_stop(struct sm *sm, struct sa_reports *r)
{
	if (!r)
		return;
	sm_unsubscribe(sm, on_fabric, r);
	sm->reports = NULL;
	sm->report_mcg = NULL;
	free(r);
}

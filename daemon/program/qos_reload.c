/* SIGHUP and QoS: a reload that changed only qos.* keys (reload.c says so
 * in SM_EV_CONFIG_RELOADED) is applied here on the current model, after
 * the running sweep if one runs: PortInfo read and written back where
 * OperationalVLs or VLHighLimit change, then only the SL2VL/VLArb blocks
 * that differ (docs/design.md §5.2).  Also where the QoS programming
 * subscribes and hands the SA its hooks. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/program/qosprog_priv.h"
#include "daemon/program/program.h"
#include "lib/log.h"
#include "mad/smp_port.h"

/* A reload's tables: the current model, what its ports were last seen
 * as, and the blocks that now differ. */
static void reload_tables(struct sm *sm)
{
	struct qosprog *qp = sm->qos_prog;
	const struct fabric *f = sm->fab;
	int rc = 0;

	if (!f || !sm->qos.enable)
		return;
	qos_pass_begin(qp);
	for (uint32_t i = 0; i < f->n_nodes && rc == 0; i++) {
		struct qos_node *qn =
		    guidtab_get(&qp->nodes, f->nodes[i]->guid);
		if (qn && qn->nports == f->nodes[i]->nports)
			rc = qos_program_node(sm, NULL, f, f->nodes[i], qn,
					      &sm->qos);
	}
	if (rc < 0)
		log_err("qos: cannot send the reloaded tables: %s; the next "
			"heavy sweep sends them",
			strerror(-rc));
	qos_pass_end(qp);
	loop_txn_kick(sm);
}

/* ---- a reload that changed qos.max_vls or qos.high_limit: per port
 * whose OperationalVLs or VLHighLimit must change, PortInfo is read and
 * written back with them (a Set is built from what the port reports, as
 * in the port setup); the tables follow once every port is done. */

struct pi_req {
	struct sm *sm;
	uint64_t guid;
	uint8_t port;
	uint8_t path[IB_MAX_DR_HOPS + 1], hops;
};

static uint8_t want_high_limit(const struct sm *sm, const struct qos_port *qp)
{
	return sm->qos.enable ? sm->qos.high_limit : qp->high_limit;
}

static bool needs_pi(const struct sm *sm, const struct ib_node *nd,
		     const struct qos_port *qp, unsigned p)
{
	return qp->linked &&
	       (qos_want_op_vls(sm, &nd->ports[p], qp->vl_cap) != qp->op_vls ||
		want_high_limit(sm, qp) != qp->high_limit);
}

/* SIGTERM cancels what is in flight: nothing new is started then. */
static void pi_done(struct pi_req *q)
{
	struct qosprog *qp = q->sm->qos_prog;

	if (--qp->pi_pending == 0 && !q->sm->stopping)
		reload_tables(q->sm);
	free(q);
}

static struct qos_port *pi_port(struct pi_req *q)
{
	struct qos_node *qn = guidtab_get(&q->sm->qos_prog->nodes, q->guid);

	return qn && q->port <= qn->nports ? &qn->ports[q->port] : NULL;
}

static void pi_set_cb(void *ctx, int status, const struct txn_result *r)
{
	struct pi_req *q = ctx;
	struct qos_port *p = pi_port(q);

	/* what was set (ibsim answers VLHighLimit 0 whatever it is sent) */
	if (status == 0 && p) {
		p->op_vls = qos_op_vls(&q->sm->qos, p->vl_cap,
				       p->linked ? p->peer_vl_cap : 0);
		p->high_limit = want_high_limit(q->sm, p);
	} else if (!q->sm->stopping) {
		log_warn("qos: PortInfo Set of OperationalVLs/VLHighLimit on "
			 "0x%016" PRIx64 " port %u failed (%s); the next "
			 "heavy sweep sets them",
			 q->guid, q->port, strerror(status ? -status : EIO));
	}
	pi_done(q);
}

/* The port as it reports itself, with the new OperationalVLs and
 * VLHighLimit; PortState and PortPhysicalState 0: no change. */
static void pi_get_cb(void *ctx, int status, const struct txn_result *r)
{
	struct pi_req *q = ctx;
	struct qos_port *p = pi_port(q);
	struct smp_port_info pi;
	uint8_t data[SMP_DATA_SIZE] = {0};

	if (status < 0 || !p || !r->data ||
	    smp_port_info_decode(&pi, r->data, SMP_DATA_SIZE) < 0) {
		pi_set_cb(q, status < 0 ? status : -EPROTO, r);
		return;
	}
	pi.operational_vls =
	    qos_op_vls(&q->sm->qos, pi.vl_cap, p->linked ? p->peer_vl_cap : 0);
	pi.vl_high_limit = want_high_limit(q->sm, p);
	pi.port_state = 0;
	pi.port_phys_state = 0;
	pi.client_reregister = 0;
	if (smp_port_info_encode(&pi, data, sizeof(data)) < 0 ||
	    txn_submit_dr(q->sm->txn, q->path, q->hops, MAD_METHOD_SET,
			  SMP_ATTR_PORT_INFO, q->port, data, pi_set_cb,
			  q) < 0) {
		pi_set_cb(q, -EIO, NULL);
		return;
	}
	q->sm->smps.portinfo_sets++;
}

static int pi_start(struct sm *sm, const struct fabric *f,
		    const struct ib_node *nd, unsigned p)
{
	struct pi_req *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	*q = (struct pi_req){.sm = sm, .guid = nd->guid, .port = (uint8_t)p};
	if (disc_port_path(f, nd, (uint8_t)p, q->path, &q->hops) < 0 ||
	    txn_submit_dr(sm->txn, q->path, q->hops, MAD_METHOD_GET,
			  SMP_ATTR_PORT_INFO, p, NULL, pi_get_cb, q) < 0) {
		free(q);
		return 0; /* no route now: the next heavy sweep */
	}
	sm->qos_prog->pi_pending++;
	return 0;
}

/* A reload: the PortInfo fields first where they change, then the
 * tables. */
static void reload_pass(struct sm *sm)
{
	struct qosprog *qp = sm->qos_prog;
	const struct fabric *f = sm->fab;
	int rc = 0;

	qp->reload_pending = false;
	if (!f)
		return;
	qp->pi_pending++; /* held while submitting */
	for (uint32_t i = 0; i < f->n_nodes && rc == 0; i++) {
		const struct ib_node *nd = f->nodes[i];
		struct qos_node *qn = guidtab_get(&qp->nodes, nd->guid);
		for (unsigned p = 1; qn && qn->nports == nd->nports &&
				     p <= nd->nports && rc == 0;
		     p++) {
			qn->ports[p].peer_vl_cap =
			    nd->ports[p].remote ? nd->ports[p].remote->vl_cap
						: 0;
			if (needs_pi(sm, nd, &qn->ports[p], p))
				rc = pi_start(sm, f, nd, p);
		}
	}
	if (--qp->pi_pending == 0)
		reload_tables(sm);
	loop_txn_kick(sm);
}

static void on_reloaded(struct sm *sm, enum sm_event ev,
			const struct sm_event_arg *a, void *ctx)
{
	struct qosprog *qp = qos_prog_get(sm);

	if (!qp || (a && a->heavy))
		return; /* the heavy sweep that follows programs them */
	if (!sm->sweep_busy)
		reload_pass(sm);
	else
		qp->reload_pending = true;
}

static void on_sweep_done(struct sm *sm, enum sm_event ev,
			  const struct sm_event_arg *a, void *ctx)
{
	if (sm->qos_prog && sm->qos_prog->reload_pending)
		reload_pass(sm);
}

int qosprog_init(struct sm *sm)
{
	int rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_reloaded, NULL);

	qos_sa_attach(sm, true);
	return rc ? rc
		  : sm_subscribe(sm, SM_EV_SWEEP_DONE, on_sweep_done, NULL);
}

void qosprog_destroy(struct sm *sm)
{
	qos_sa_attach(sm, false);
	sm_unsubscribe(sm, on_reloaded, NULL);
	sm_unsubscribe(sm, on_sweep_done, NULL);
	qos_prog_free(sm);
}

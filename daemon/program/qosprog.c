/* QoS programming in a sweep: see qosprog.h (SIGHUP: qos_reload.c).  What each
 * port should hold comes from lib/qos.c, which blocks differ from what it holds
 * from qosplan.c; this file learns the ports from a sweep's discovery, keeps
 * the records per node GUID and sends the blocks as one windowed bulk transfer
 * per attribute and destination: a switch gets its SL2VL and VLArb blocks over
 * its own route; a CA port over the route through that port, since a CA
 * answers for the port an SMP arrives on.  A Get costs the same SMP as a
 * Set, so tables never written by this daemon are written, not read
 * first: reading first would cost as many SMPs where the tables already
 * agree and twice as many where they differ.
 *
 * The tables follow qos.* when qos.enable is on, or, with the layered
 * engine's routes on more than one layer, the layers' own policy
 * (qos_layer_policy); otherwise none is written. */
#include "daemon/program/qosprog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/program/qosplan.h"
#include "daemon/program/qosprog_priv.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/sa/sa_server.h"
#include "daemon/program/program.h"
#include "lib/guidtab.h"
#include "lib/log.h"
#include "lib/qos.h"
#include "mad/bulk.h"
#include "mad/smp_switch.h"
#include "routing/unicast/layers.h"

/* One bulk transfer: blocks of one attribute to one destination. */
struct qos_xfer {
	struct sm *sm;
	struct prog_pass *s; /* NULL: a reload's pass, outside any sweep */
	uint64_t guid;	     /* the answers find the record by GUID */
	uint8_t nports;
	uint16_t attr;
	struct qos_items items;
};

struct qosprog *qos_prog_get(struct sm *sm)
{
	if (!sm->qos_prog && (sm->qos_prog = calloc(1, sizeof(*sm->qos_prog))))
		sm->qos_prog->fail_rl =
		    (struct log_ratelimit){.interval_ms = 10000, .burst = 10};
	return sm->qos_prog;
}

/* The node's record, made anew when it is new or its port count changed
 * (then nothing it holds is known). */
static struct qos_node *node_get(struct qosprog *qp, const struct ib_node *nd)
{
	struct qos_node *qn = guidtab_get(&qp->nodes, nd->guid);

	if (qn && qn->nports == nd->nports)
		return qn;
	qos_node_free(qn);
	qn = qos_node_new(nd->guid, node_is_switch(nd), nd->nports);
	if (guidtab_put(&qp->nodes, nd->guid, qn) < 0) {
		qos_node_free(qn);
		guidtab_put(&qp->nodes, nd->guid, NULL);
		return NULL;
	}
	return qn;
}

static bool port_linked(const struct fabric *f, const struct ib_node *nd,
			unsigned p)
{
	return nd->ports[p].remote ||
	       (nd == f->sm_node && p == f->sm_port && !node_is_switch(nd));
}

/* The OperationalVLs port p should run: both ends' VLCap and
 * qos.max_vls. */
uint8_t qos_want_op_vls(const struct sm *sm, const struct ib_port *p,
			uint8_t vl_cap)
{
	return qos_op_vls(&sm->qos, vl_cap, p->remote ? p->remote->vl_cap : 0);
}

bool qosprog_portinfo(const struct prog_pass *s, const struct dnode *dn,
		      uint8_t pn, struct smp_port_info *pi)
{
	const struct sm *sm = s->sm;
	const struct ib_port *p = &dn->node->ports[pn];
	bool changed = false;
	uint8_t v;

	if (pn == 0 || !port_linked(s->f, dn->node, pn))
		return false;
	v = qos_want_op_vls(sm, p, pi->vl_cap);
	changed |= pi->operational_vls != v;
	pi->operational_vls = v;
	if (sm->qos.enable && pi->vl_high_limit != sm->qos.high_limit) {
		pi->vl_high_limit = sm->qos.high_limit;
		changed = true;
	}
	return changed;
}

/* What discovery read of one port. */
static void learn_port(struct prog_pass *s, struct qos_node *qn,
		       const struct dnode *dn, unsigned p, bool sl_map)
{
	const struct ib_node *nd = dn->node;
	struct qos_port *qp = &qn->ports[p];
	struct smp_port_info pi;

	qp->linked = false;
	if (!dn->ports[p].have_pi ||
	    smp_port_info_decode(&pi, dn->ports[p].pi, SMP_DATA_SIZE) < 0)
		return;
	if (pi.port_state == IB_PORT_INIT)
		qos_node_forget_port(qn, p);
	qp->vl_cap = pi.vl_cap;
	qp->high_cap = pi.vl_arb_high_cap;
	qp->low_cap = pi.vl_arb_low_cap;
	qp->sl_map = sl_map;
	qp->linked = p != 0 && port_linked(s->f, nd, p);
	qp->op_vls = qp->linked
			 ? qos_want_op_vls(s->sm, &nd->ports[p], pi.vl_cap)
			 : pi.operational_vls;
	qp->high_limit = qp->linked && s->sm->qos.enable ? s->sm->qos.high_limit
							 : pi.vl_high_limit;
}

static bool cap_sl_map(const struct dport *dp)
{
	struct smp_port_info pi;

	return dp->have_pi &&
	       smp_port_info_decode(&pi, dp->pi, SMP_DATA_SIZE) == 0 &&
	       (pi.capability_mask & PI_CAP_IS_SL_MAP);
}

static void learn_node(struct prog_pass *s, struct qos_node *qn,
		       const struct dnode *dn)
{
	struct smp_switch_info si;

	/* a switch's capabilities are its port 0's */
	qn->opt_sl2vl =
	    qn->sw && dn->have_si &&
	    smp_switch_info_decode(&si, dn->si, SMP_DATA_SIZE) == 0 &&
	    (si.opt_sl2vl_programming & 1);
	for (unsigned p = 0; p <= qn->nports; p++)
		learn_port(s, qn, dn, p,
			   cap_sl_map(&dn->ports[qn->sw ? 0 : p]));
}

static void pass_done(struct qosprog *qp)
{
	if (qp->failed)
		log_warn("qos: %u SL2VL/VLArb blocks failed; the next heavy "
			 "sweep sends them again",
			 qp->failed);
	if (qp->remapped)
		log_notice("qos: on %u ports the VLArb tables (cut to the "
			   "port's capacity) serve not every VL qos.sl2vl "
			   "uses; those SLs go to the lowest VL served",
			   qp->remapped);
	log_info("qos: %" PRIu64 " SL2VL and %" PRIu64 " VLArb blocks sent "
		 "to %u nodes",
		 qp->sl2vl_sent, qp->vlarb_sent, qp->nodes_sent);
	qp->failed = qp->remapped = qp->nodes_sent = 0;
	qp->sl2vl_sent = qp->vlarb_sent = 0;
}

static void xfer_free(struct qos_xfer *x)
{
	if (x)
		free(x->items.v);
	free(x);
}

static void xfer_done(void *ctx, int status, const struct bulk_result *r)
{
	struct qos_xfer *x = ctx;
	struct qosprog *qp = x->sm->qos_prog;
	struct qos_node *qn = guidtab_get(&qp->nodes, x->guid);
	uint32_t f = 0, nfailed = r ? r->nfailed : x->items.n;

	if (qn && qn->nports != x->nports)
		qn = NULL; /* remade meanwhile: its record starts unknown */
	if (r && r->nfailed && !r->failed)
		r = NULL; /* which ones is not known: none counts as written */
	for (uint32_t i = 0; i < x->items.n && r && qn; i++) {
		if (f < r->nfailed && r->failed[f] == i)
			f++;
		else
			qos_item_written(qn, x->attr, &x->items.v[i]);
	}
	/* the pass's summary counts them all; a storm names a few nodes */
	if (nfailed && !x->sm->stopping && log_ratelimit_ok(&qp->fail_rl))
		log_warn(
		    "qos: %u of %u %s blocks to node 0x%016" PRIx64
		    " failed (%s)",
		    nfailed, x->items.n, smp_attr_name(x->attr), x->guid,
		    strerror(r && r->first_error ? -r->first_error : -status));
	qp->failed += nfailed;
	if (--qp->xfers == 0)
		pass_done(qp);
	if (x->s)
		prog_release(x->s);
	xfer_free(x);
}

static int xfer_fill(void *ctx, uint32_t item, uint32_t *attr_mod,
		     uint8_t data[SMP_DATA_SIZE])
{
	struct qos_xfer *x = ctx;

	*attr_mod = x->items.v[item].mod;
	memcpy(data, x->items.v[item].data, SMP_DATA_SIZE);
	return 0;
}

static void count_sent(struct qos_xfer *x)
{
	struct qosprog *qp = x->sm->qos_prog;

	qp->xfers++;
	if (x->attr == SMP_ATTR_SL2VL_TABLE) {
		qp->sl2vl_sent += x->items.n;
		x->sm->smps.sl2vl_sets += x->items.n;
	} else {
		qp->vlarb_sent += x->items.n;
		x->sm->smps.vlarb_sets += x->items.n;
	}
	if (x->s) {
		prog_hold(x->s);
		x->s->need_sets += x->items.n;
	}
}

/* Sends what x holds over the route to port pn of nd; x is taken over. */
static int xfer_send(struct qos_xfer *x, const struct fabric *f,
		     const struct ib_node *nd, uint8_t pn)
{
	uint8_t path[IB_MAX_DR_HOPS + 1], hops;
	struct bulk_req br = {0};
	int rc;

	if (!x->items.n || disc_port_path(f, nd, pn, path, &hops) < 0) {
		xfer_free(x);
		return 0;
	}
	br.dr = true;
	br.path = path;
	br.hops = hops;
	br.dest = nd->guid;
	br.attr_id = x->attr;
	br.nitems = x->items.n;
	br.retries = x->sm->txnp.retries;
	br.fill = xfer_fill;
	br.done = xfer_done;
	br.ctx = x;
	if ((rc = bulk_start(x->sm->txn, &br, NULL)) < 0) {
		xfer_free(x);
		return rc;
	}
	count_sent(x);
	return 0;
}

static struct qos_xfer *xfer_new(struct sm *sm, struct prog_pass *s,
				 const struct qos_node *qn, uint16_t attr)
{
	struct qos_xfer *x = calloc(1, sizeof(*x));

	if (x)
		*x = (struct qos_xfer){.sm = sm,
				       .s = s,
				       .guid = qn->guid,
				       .nports = qn->nports,
				       .attr = attr};
	return x;
}

/* The SL2VL and VLArb blocks of a switch (pn 0) or of CA port pn. */
static int program_dest(struct sm *sm, struct prog_pass *s,
			const struct fabric *f, const struct ib_node *nd,
			struct qos_node *qn, unsigned pn,
			const struct qos_policy *pol)
{
	struct qosprog *qp = sm->qos_prog;
	struct qos_xfer *sl = xfer_new(sm, s, qn, SMP_ATTR_SL2VL_TABLE);
	struct qos_xfer *arb = xfer_new(sm, s, qn, SMP_ATTR_VL_ARB_TABLE);
	int rc = sl && arb ? 0 : -ENOMEM;

	if (rc == 0)
		rc = qn->sw ? qos_plan_switch(pol, qn, &sl->items, &arb->items,
					      &qp->remapped)
			    : qos_plan_ca_port(pol, qn, pn, &sl->items,
					       &arb->items, &qp->remapped);
	if (rc < 0) {
		xfer_free(sl);
		xfer_free(arb);
		return rc;
	}
	qp->nodes_sent += sl->items.n || arb->items.n;
	rc = xfer_send(sl, f, nd, (uint8_t)pn);
	if (rc < 0) {
		xfer_free(arb);
		return rc;
	}
	return xfer_send(arb, f, nd, (uint8_t)pn);
}

int qos_program_node(struct sm *sm, struct prog_pass *s, const struct fabric *f,
		     const struct ib_node *nd, struct qos_node *qn,
		     const struct qos_policy *pol)
{
	int rc = 0;

	if (qn->sw)
		return program_dest(sm, s, f, nd, qn, 0, pol);
	for (unsigned p = 1; p <= qn->nports && rc == 0; p++)
		rc = program_dest(sm, s, f, nd, qn, p, pol);
	return rc;
}

/* The layered engine's tables (docs/design.md §5.3): SL 1 + L on VL
 * 1 + L for each layer L made, SL0 on VL0 (multicast's, and what asks
 * the SA for no path), every other SL on VL0 too; the VLs served round
 * robin, one full 4 KB packet (weight 64) a turn each, since a layer is
 * a routing device, not a priority.  Made from the layers made, not
 * those used, so the tables stay the same while the routes change. */
static const struct qos_policy *qos_layer_policy(struct qosprog *qp,
						 const struct ucast_layers *ly)
{
	struct qos_policy *p = &qp->layer_pol;
	unsigned n = ly->n_layers + 1u; /* VLs */

	memset(p, 0, sizeof(*p));
	p->enable = true;
	p->max_vls = QOS_MAX_VLS;
	for (unsigned sl = 0; sl < QOS_NUM_SLS; sl++)
		p->sl2vl[sl] = (uint8_t)(sl < n ? sl : 0);
	for (unsigned vl = 0; vl < n && vl < QOS_ARB_MAX; vl++)
		p->low[vl] = (struct qos_arb){.vl = (uint8_t)vl, .weight = 64};
	p->n_low = (uint8_t)n;
	return p;
}

/* The policy this sweep's tables follow, NULL: none to write. */
static const struct qos_policy *sweep_policy(struct sm *sm,
					     struct qosprog *qp,
					     const struct fabric *f)
{
	const struct ucast_layers *ly =
	    f == sm->fab ? sm->layers : sm->next_layers;

	if (sm->qos.enable)
		return &sm->qos;
	if (ly && ly->n_switches == f->n_switches && ly->used > 1)
		return qos_layer_policy(qp, ly);
	return NULL;
}

void qos_pass_begin(struct qosprog *qp)
{
	qp->xfers++;
}

void qos_pass_end(struct qosprog *qp)
{
	if (--qp->xfers == 0)
		pass_done(qp);
}

int qosprog_start(struct prog_pass *s)
{
	struct qosprog *qp = qos_prog_get(s->sm);
	struct fabric *f = s->f;
	const struct qos_policy *pol;
	int rc = 0;

	if (!qp)
		return -ENOMEM;
	if (s->incremental || !s->disc)
		return 0; /* links only went down: no table changes */
	pol = sweep_policy(s->sm, qp, f);
	/* Another SM ran the subnet since we last wrote: what we remember is
	 * not what the ports hold. */
	if (s->sm->tables_unknown)
		guidtab_free(&qp->nodes, qos_node_free);
	qos_pass_begin(qp);
	for (uint32_t i = 0; i < f->n_nodes && rc == 0; i++) {
		const struct ib_node *nd = f->nodes[i];
		const struct dnode *dn = disc_node(s->disc, nd);
		struct qos_node *qn = dn ? node_get(qp, nd) : NULL;
		if (!dn)
			continue;
		if (!qn) {
			rc = -ENOMEM;
			break;
		}
		learn_node(s, qn, dn);
		if (pol)
			rc = qos_program_node(s->sm, s, f, nd, qn, pol);
	}
	qos_pass_end(qp);
	return rc;
}

/* The SA's SLtoVLMappingTableRecord and VLArbitrationTableRecord: what
 * the ports acknowledged (sa->sl2vl_row, sa->vlarb_block). */
static struct qos_node *known_node(struct sm *sm, const struct ib_node *n)
{
	struct qos_node *qn =
	    sm->qos_prog ? guidtab_get(&sm->qos_prog->nodes, n->guid) : NULL;

	return qn && qn->nports == n->nports ? qn : NULL;
}

static int sa_sl2vl_row(void *ctx, const struct ib_node *n, uint8_t in,
			uint8_t out, uint8_t vl[16])
{
	struct qos_node *qn = known_node(ctx, n);
	unsigned slot = in * (n->nports + 1u) + out;

	if (!qn || in > n->nports || out > n->nports || !qn->sl2vl_known ||
	    !qn->sl2vl_known[slot])
		return 0;
	memcpy(vl, qn->sl2vl[slot], QOS_NUM_SLS);
	return 1;
}

static int sa_vlarb_block(void *ctx, const struct ib_node *n, uint8_t port,
			  uint8_t block, uint8_t data[64])
{
	struct qos_node *qn = known_node(ctx, n);
	struct smp_vlarb_entry e[SMP_VLARB_BLOCK];
	const struct qos_port *qp;

	if (!qn || port > n->nports || block < 1 || block > QOS_ARB_BLOCKS)
		return 0;
	qp = &qn->ports[port];
	if (!(qp->arb_known >> (block - 1) & 1))
		return 0;
	for (unsigned j = 0; j < SMP_VLARB_BLOCK; j++)
		e[j] = (struct smp_vlarb_entry){qp->arb[block - 1][j].vl,
						qp->arb[block - 1][j].weight};
	return smp_vlarb_encode(e, data, SMP_DATA_SIZE) == 0;
}

void qos_sa_attach(struct sm *sm, bool on)
{
	struct sa *sa = sa_daemon_get(sm);

	if (!sa)
		return;
	sa->sl2vl_row = on ? sa_sl2vl_row : NULL;
	sa->vlarb_block = on ? sa_vlarb_block : NULL;
	sa->qos_ctx = sm;
}

void qos_prog_free(struct sm *sm)
{
	if (!sm->qos_prog)
		return;
	guidtab_free(&sm->qos_prog->nodes, qos_node_free);
	free(sm->qos_prog);
	sm->qos_prog = NULL;
}

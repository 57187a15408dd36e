/* QoS programming: see qosprog.h.  What each port should hold comes from
 * lib/qos.c; this file keeps, per node GUID, what was last written there
 * (shadows, known only after an acknowledged Set) and sends the rest as
 * one windowed bulk transfer per attribute and destination: a switch gets
 * its SL2VL blocks (one per input/output port pair) and its ports' VLArb
 * blocks over its own route; a CA port gets its one SL2VL block and its
 * VLArb blocks over the route through that port, since a CA answers for
 * the port an SMP arrives on.  A Get costs the same SMP as a Set, so
 * tables never written by this daemon are written, not read first. */
#include "daemon/qosprog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sweep.h"
#include "lib/guidtab.h"
#include "lib/log.h"
#include "lib/qos.h"
#include "mad/bulk.h"
#include "mad/smp_qos.h"

#define ARB_BLOCKS 4

struct qos_port {
	uint8_t vl_cap, op_vls, high_cap, low_cap;
	bool linked;
	bool sl_map;	   /* IsSLMappingSupported (a switch: port 0's) */
	uint8_t arb_known; /* bit b - 1: VLArb block b as last written */
	struct qos_arb arb[ARB_BLOCKS][SMP_VLARB_BLOCK];
};

struct qos_node {
	uint64_t guid;
	bool sw;
	uint8_t nports;
	struct qos_port *ports;	       /* [0..nports] */
	uint8_t (*sl2vl)[QOS_NUM_SLS]; /* [in * (nports + 1) + out] */
	bool *sl2vl_known;
};

struct qosprog {
	struct guidtab nodes;
	bool reload_pending; /* a reload waits for the running sweep */
	/* the current pass */
	unsigned xfers;
	uint32_t nodes_sent, failed, remapped;
	uint64_t sl2vl_sent, vlarb_sent;
};

/* One bulk transfer: blocks of one attribute to one destination. */
struct qos_item {
	uint32_t mod;
	uint32_t slot; /* SL2VL: table index; VLArb: port * 4 + block - 1 */
	uint8_t data[SMP_DATA_SIZE];
};

struct qos_xfer {
	struct sm *sm;
	struct sweep *s;     /* NULL: a reload's pass, outside any sweep */
	struct qos_node *qn; /* while planning; the answers find it by GUID */
	uint64_t guid;
	uint8_t nports;
	uint16_t attr;
	uint32_t n, cap;
	struct qos_item *items;
};

static unsigned ntabs(const struct qos_node *qn)
{
	return (qn->nports + 1u) * (qn->nports + 1u);
}

static void node_free(void *v)
{
	struct qos_node *qn = v;

	free(qn->ports);
	free(qn->sl2vl);
	free(qn->sl2vl_known);
	free(qn);
}

static struct qosprog *prog(struct sm *sm)
{
	if (!sm->qos_prog)
		sm->qos_prog = calloc(1, sizeof(*sm->qos_prog));
	return sm->qos_prog;
}

/* The node's record, made anew when it is new or its port count changed
 * (then nothing it holds is known). */
static struct qos_node *node_get(struct qosprog *qp, const struct ib_node *nd)
{
	struct qos_node *qn = guidtab_get(&qp->nodes, nd->guid);

	if (qn && qn->nports == nd->nports)
		return qn;
	if (qn)
		node_free(qn);
	qn = calloc(1, sizeof(*qn));
	if (!qn)
		return NULL;
	qn->guid = nd->guid;
	qn->sw = node_is_switch(nd);
	qn->nports = nd->nports;
	qn->ports = calloc(nd->nports + 1u, sizeof(*qn->ports));
	qn->sl2vl = calloc(ntabs(qn), sizeof(*qn->sl2vl));
	qn->sl2vl_known = calloc(ntabs(qn), sizeof(*qn->sl2vl_known));
	if (!qn->ports || !qn->sl2vl || !qn->sl2vl_known ||
	    guidtab_put(&qp->nodes, nd->guid, qn) < 0) {
		node_free(qn);
		guidtab_put(&qp->nodes, nd->guid, NULL);
		return NULL;
	}
	return qn;
}

/* A port in INIT was reset or its link just came up: whatever it held
 * before is not known to be there any more. */
static void forget_port(struct qos_node *qn, unsigned p)
{
	unsigned w = qn->nports + 1u;

	qn->ports[p].arb_known = 0;
	for (unsigned i = 0; i < w; i++) {
		qn->sl2vl_known[i * w + p] = false;
		qn->sl2vl_known[p * w + i] = false;
	}
}

static bool port_linked(const struct fabric *f, const struct ib_node *nd,
			unsigned p)
{
	return nd->ports[p].remote ||
	       (nd == f->sm_node && p == f->sm_port && !node_is_switch(nd));
}

/* The OperationalVLs port p should run: both ends' VLCap and
 * qos.max_vls. */
static uint8_t want_op_vls(const struct sm *sm, const struct ib_port *p,
			   uint8_t vl_cap)
{
	return qos_op_vls(&sm->qos, vl_cap, p->remote ? p->remote->vl_cap : 0);
}

bool qosprog_portinfo(const struct sweep *s, const struct dnode *dn, uint8_t pn,
		      struct smp_port_info *pi)
{
	const struct sm *sm = s->sm;
	const struct ib_port *p = &dn->node->ports[pn];
	bool changed = false;
	uint8_t v;

	if (pn == 0 || !port_linked(s->nf, dn->node, pn))
		return false;
	v = want_op_vls(sm, p, pi->vl_cap);
	changed |= pi->operational_vls != v;
	pi->operational_vls = v;
	if (sm->qos.enable && pi->vl_high_limit != sm->qos.high_limit) {
		pi->vl_high_limit = sm->qos.high_limit;
		changed = true;
	}
	return changed;
}

/* What discovery read of one port. */
static void learn_port(struct sweep *s, struct qos_node *qn,
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
		forget_port(qn, p);
	qp->vl_cap = pi.vl_cap;
	qp->high_cap = pi.vl_arb_high_cap;
	qp->low_cap = pi.vl_arb_low_cap;
	qp->sl_map = sl_map;
	qp->linked = p != 0 && port_linked(s->nf, nd, p);
	qp->op_vls = qp->linked ? want_op_vls(s->sm, &nd->ports[p], pi.vl_cap)
				: pi.operational_vls;
}

static void learn_node(struct sweep *s, struct qos_node *qn,
		       const struct dnode *dn)
{
	struct smp_port_info p0;
	bool sw_map = false;

	if (qn->sw && dn->ports[0].have_pi &&
	    smp_port_info_decode(&p0, dn->ports[0].pi, SMP_DATA_SIZE) == 0)
		sw_map = p0.capability_mask & PI_CAP_IS_SL_MAP;
	for (unsigned p = 0; p <= qn->nports; p++) {
		bool map = sw_map;
		struct smp_port_info pi;
		if (!qn->sw && dn->ports[p].have_pi &&
		    smp_port_info_decode(&pi, dn->ports[p].pi, SMP_DATA_SIZE) ==
			0)
			map = pi.capability_mask & PI_CAP_IS_SL_MAP;
		learn_port(s, qn, dn, p, map);
	}
}

static int add_item(struct qos_xfer *x, uint32_t mod, uint32_t slot,
		    const uint8_t data[SMP_DATA_SIZE])
{
	if (x->n == x->cap) {
		uint32_t cap = x->cap ? 2 * x->cap : 16;
		struct qos_item *v = realloc(x->items, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		x->items = v;
		x->cap = cap;
	}
	x->items[x->n].mod = mod;
	x->items[x->n].slot = slot;
	memcpy(x->items[x->n].data, data, SMP_DATA_SIZE);
	x->n++;
	return 0;
}

/* The SL2VL block for input port in to output port out, unless the port
 * already holds it. */
static int plan_sl2vl(struct qos_xfer *x, unsigned in, unsigned out,
		      const struct qos_port_tables *t)
{
	struct qos_node *qn = x->qn;
	unsigned slot = in * (qn->nports + 1u) + out;
	uint8_t data[SMP_DATA_SIZE] = {0};

	if (qn->sl2vl_known[slot] &&
	    !memcmp(qn->sl2vl[slot], t->sl2vl, QOS_NUM_SLS))
		return 0;
	smp_sl2vl_encode(t->sl2vl, data, sizeof(data));
	return add_item(x,
			qn->sw ? smp_sl2vl_mod((uint8_t)in, (uint8_t)out) : 0,
			slot, data);
}

/* Entries from..from + 31 of table t (n entries held) as a VLArb block. */
static void arb_block(const struct qos_arb *t, unsigned from,
		      struct qos_arb out[SMP_VLARB_BLOCK])
{
	memcpy(out, t + from, SMP_VLARB_BLOCK * sizeof(*out));
}

static int plan_vlarb(struct qos_xfer *x, unsigned p,
		      const struct qos_port_tables *t)
{
	static const struct {
		enum smp_vlarb_block b;
		bool high;
		unsigned from;
	} blocks[ARB_BLOCKS] = {
	    {SMP_VLARB_LOW_0, false, 0},
	    {SMP_VLARB_LOW_32, false, SMP_VLARB_BLOCK},
	    {SMP_VLARB_HIGH_0, true, 0},
	    {SMP_VLARB_HIGH_32, true, SMP_VLARB_BLOCK},
	};
	struct qos_port *qp = &x->qn->ports[p];
	int rc = 0;

	for (unsigned i = 0; i < ARB_BLOCKS && rc == 0; i++) {
		unsigned held = blocks[i].high ? t->n_high : t->n_low;
		struct qos_arb want[SMP_VLARB_BLOCK];
		struct smp_vlarb_entry e[SMP_VLARB_BLOCK];
		uint8_t data[SMP_DATA_SIZE] = {0};
		if (held <= blocks[i].from)
			continue;
		arb_block(blocks[i].high ? t->high : t->low, blocks[i].from,
			  want);
		if ((qp->arb_known >> i & 1) &&
		    !memcmp(qp->arb[i], want, sizeof(want)))
			continue;
		for (unsigned j = 0; j < SMP_VLARB_BLOCK; j++)
			e[j] = (struct smp_vlarb_entry){want[j].vl,
							want[j].weight};
		smp_vlarb_encode(e, data, sizeof(data));
		rc = add_item(
		    x, smp_vlarb_mod(blocks[i].b, x->qn->sw ? (uint8_t)p : 0),
		    p * ARB_BLOCKS + i, data);
	}
	return rc;
}

/* An acknowledged block becomes what the port is known to hold. */
static void item_written(struct qos_node *qn, const struct qos_xfer *x,
			 const struct qos_item *it)
{
	if (x->attr == SMP_ATTR_SL2VL_TABLE) {
		smp_sl2vl_decode(qn->sl2vl[it->slot], it->data, SMP_DATA_SIZE);
		qn->sl2vl_known[it->slot] = true;
	} else {
		struct qos_port *qp = &qn->ports[it->slot / ARB_BLOCKS];
		struct smp_vlarb_entry e[SMP_VLARB_BLOCK];
		unsigned b = it->slot % ARB_BLOCKS;
		smp_vlarb_decode(e, it->data, SMP_DATA_SIZE);
		for (unsigned j = 0; j < SMP_VLARB_BLOCK; j++)
			qp->arb[b][j] = (struct qos_arb){e[j].vl, e[j].weight};
		qp->arb_known |= (uint8_t)(1u << b);
	}
}

static void pass_done(struct sm *sm, struct qosprog *qp)
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

static void xfer_done(void *ctx, int status, const struct bulk_result *r)
{
	struct qos_xfer *x = ctx;
	struct qosprog *qp = x->sm->qos_prog;
	struct qos_node *qn = guidtab_get(&qp->nodes, x->guid);
	uint32_t f = 0, nfailed = r ? r->nfailed : x->n;

	if (qn && qn->nports != x->nports)
		qn = NULL; /* remade meanwhile: its record starts unknown */
	for (uint32_t i = 0; i < x->n; i++) {
		if (r && f < r->nfailed && r->failed[f] == i) {
			f++;
			continue;
		}
		if (r && qn)
			item_written(qn, x, &x->items[i]);
	}
	if (nfailed)
		log_warn(
		    "qos: %u of %u %s blocks to node 0x%016" PRIx64
		    " failed (%s)",
		    nfailed, x->n, smp_attr_name(x->attr), x->guid,
		    strerror(r && r->first_error ? -r->first_error : -status));
	qp->failed += nfailed;
	if (--qp->xfers == 0)
		pass_done(x->sm, qp);
	if (x->s)
		sweep_release(x->s);
	free(x->items);
	free(x);
}

static int xfer_fill(void *ctx, uint32_t item, uint32_t *attr_mod,
		     uint8_t data[SMP_DATA_SIZE])
{
	struct qos_xfer *x = ctx;

	*attr_mod = x->items[item].mod;
	memcpy(data, x->items[item].data, SMP_DATA_SIZE);
	return 0;
}

/* Sends what x holds over the route to port pn of nd (frees x when there
 * is nothing to send). */
static int xfer_send(struct qos_xfer *x, const struct fabric *f,
		     const struct ib_node *nd, uint8_t pn)
{
	uint8_t path[IB_MAX_DR_HOPS + 1], hops;
	struct bulk_req br = {0};
	int rc;

	if (!x->n || disc_port_path(f, nd, pn, path, &hops) < 0) {
		free(x->items);
		free(x);
		return 0;
	}
	br.dr = true;
	br.path = path;
	br.hops = hops;
	br.dest = nd->guid;
	br.attr_id = x->attr;
	br.nitems = x->n;
	br.retries = x->sm->txnp.retries;
	br.fill = xfer_fill;
	br.done = xfer_done;
	br.ctx = x;
	if ((rc = bulk_start(x->sm->txn, &br, NULL)) < 0) {
		free(x->items);
		free(x);
		return rc;
	}
	x->sm->qos_prog->xfers++;
	if (x->attr == SMP_ATTR_SL2VL_TABLE) {
		x->sm->qos_prog->sl2vl_sent += x->n;
		x->sm->smps.sl2vl_sets += x->n;
	} else {
		x->sm->qos_prog->vlarb_sent += x->n;
		x->sm->smps.vlarb_sets += x->n;
	}
	if (x->s) {
		sweep_hold(x->s);
		x->s->need_sets += x->n;
	}
	return 0;
}

static struct qos_xfer *xfer_new(struct sm *sm, struct sweep *s,
				 struct qos_node *qn, uint16_t attr)
{
	struct qos_xfer *x = calloc(1, sizeof(*x));

	if (x)
		*x = (struct qos_xfer){.sm = sm,
				       .s = s,
				       .qn = qn,
				       .guid = qn->guid,
				       .nports = qn->nports,
				       .attr = attr};
	return x;
}

/* Port p's tables: what it sends out on its link. */
static bool port_tables(struct sm *sm, const struct qos_node *qn, unsigned p,
			struct qos_port_tables *t)
{
	const struct qos_port *qp = &qn->ports[p];

	if (!qp->linked)
		return false;
	qos_port_tables(&sm->qos, qp->op_vls, qp->high_cap, qp->low_cap, t);
	sm->qos_prog->remapped += t->remapped != 0;
	return true;
}

/* Every input port that can carry traffic to out: port 0 (the switch's
 * own) and the linked ones. */
static int plan_switch_out(struct qos_xfer *sl, struct qos_xfer *arb,
			   unsigned out, const struct qos_port_tables *t)
{
	const struct qos_node *qn = sl->qn;
	int rc = 0;

	for (unsigned in = 0; in <= qn->nports && rc == 0; in++)
		if ((in == 0 || qn->ports[in].linked) && qn->ports[out].sl_map)
			rc = plan_sl2vl(sl, in, out, t);
	return rc ? rc : plan_vlarb(arb, out, t);
}

static int program_switch(struct sm *sm, struct sweep *s,
			  const struct fabric *f, const struct ib_node *nd,
			  struct qos_node *qn)
{
	struct qos_xfer *sl = xfer_new(sm, s, qn, SMP_ATTR_SL2VL_TABLE);
	struct qos_xfer *arb = xfer_new(sm, s, qn, SMP_ATTR_VL_ARB_TABLE);
	struct qos_port_tables t;
	int rc = sl && arb ? 0 : -ENOMEM;

	for (unsigned out = 1; out <= qn->nports && rc == 0; out++)
		if (port_tables(sm, qn, out, &t))
			rc = plan_switch_out(sl, arb, out, &t);
	sm->qos_prog->nodes_sent += rc == 0 && (sl->n || arb->n);
	if (rc == 0)
		rc = xfer_send(sl, f, nd, 0);
	else if (sl)
		free(sl->items), free(sl);
	if (rc == 0)
		return xfer_send(arb, f, nd, 0);
	if (arb)
		free(arb->items), free(arb);
	return rc;
}

static int program_ca_port(struct sm *sm, struct sweep *s,
			   const struct fabric *f, const struct ib_node *nd,
			   struct qos_node *qn, unsigned p)
{
	struct qos_xfer *sl = xfer_new(sm, s, qn, SMP_ATTR_SL2VL_TABLE);
	struct qos_xfer *arb = xfer_new(sm, s, qn, SMP_ATTR_VL_ARB_TABLE);
	struct qos_port_tables t;
	int rc = sl && arb ? 0 : -ENOMEM;

	if (rc == 0 && port_tables(sm, qn, p, &t)) {
		if (qn->ports[p].sl_map)
			rc = plan_sl2vl(sl, 0, p, &t);
		if (rc == 0)
			rc = plan_vlarb(arb, p, &t);
	}
	if (rc == 0)
		sm->qos_prog->nodes_sent += sl->n || arb->n;
	if (rc == 0)
		rc = xfer_send(sl, f, nd, (uint8_t)p);
	else if (sl)
		free(sl->items), free(sl);
	if (rc == 0)
		return xfer_send(arb, f, nd, (uint8_t)p);
	if (arb)
		free(arb->items), free(arb);
	return rc;
}

static int program_node(struct sm *sm, struct sweep *s, const struct fabric *f,
			const struct ib_node *nd, struct qos_node *qn)
{
	int rc = 0;

	if (qn->sw)
		return program_switch(sm, s, f, nd, qn);
	for (unsigned p = 1; p <= qn->nports && rc == 0; p++)
		rc = program_ca_port(sm, s, f, nd, qn, p);
	return rc;
}

/* A pass with nothing to send still ends with its summary. */
static void pass_begin(struct qosprog *qp)
{
	qp->xfers++;
}

static void pass_end(struct sm *sm, struct qosprog *qp)
{
	if (--qp->xfers == 0)
		pass_done(sm, qp);
}

int qosprog_start(struct sweep *s)
{
	struct qosprog *qp = prog(s->sm);
	struct fabric *f = s->nf;
	int rc = 0;

	if (!qp)
		return -ENOMEM;
	if (s->incremental || !s->disc)
		return 0; /* links only went down: no table changes */
	/* Another SM ran the subnet since we last wrote: what we remember is
	 * not what the ports hold. */
	if (s->sm->tables_unknown)
		guidtab_free(&qp->nodes, node_free);
	pass_begin(qp);
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
		if (s->sm->qos.enable)
			rc = program_node(s->sm, s, f, nd, qn);
	}
	pass_end(s->sm, qp);
	return rc;
}

/* A reload that changed only tables: the current model, what its ports
 * were last seen as, and the blocks that now differ. */
static void reload_pass(struct sm *sm)
{
	struct qosprog *qp = sm->qos_prog;
	const struct fabric *f = sm->fab;
	int rc = 0;

	qp->reload_pending = false;
	if (!f || !sm->qos.enable)
		return;
	pass_begin(qp);
	for (uint32_t i = 0; i < f->n_nodes && rc == 0; i++) {
		struct qos_node *qn =
		    guidtab_get(&qp->nodes, f->nodes[i]->guid);
		if (qn && qn->nports == f->nodes[i]->nports)
			rc = program_node(sm, NULL, f, f->nodes[i], qn);
	}
	if (rc < 0)
		log_err("qos: cannot send the reloaded tables: %s; the next "
			"heavy sweep sends them",
			strerror(-rc));
	pass_end(sm, qp);
	loop_txn_kick(sm);
}

static void on_reloaded(struct sm *sm, enum sm_event ev,
			const struct sm_event_arg *a, void *ctx)
{
	struct qosprog *qp = prog(sm);

	if (!qp || (a && a->heavy))
		return; /* the heavy sweep that follows programs them */
	if (!sm->sweep || sm->sweep->state == SWEEP_IDLE)
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

	return rc ? rc
		  : sm_subscribe(sm, SM_EV_SWEEP_DONE, on_sweep_done, NULL);
}

void qosprog_destroy(struct sm *sm)
{
	sm_unsubscribe(sm, on_reloaded, NULL);
	sm_unsubscribe(sm, on_sweep_done, NULL);
	if (!sm->qos_prog)
		return;
	guidtab_free(&sm->qos_prog->nodes, node_free);
	free(sm->qos_prog);
	sm->qos_prog = NULL;
}

/* Planning QoS blocks against what each port last acknowledged: see
 * qosplan.h.  A switch's SL2VL row depends only on its output port's
 * tables, so a switch that offers OptimizedSLtoVLMappingProgramming gets
 * one block per output port (attribute modifier AllInputPorts | out)
 * instead of one per input port. */
#include "daemon/program/qosplan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static unsigned width(const struct qos_node *qn)
{
	return qn->nports + 1u;
}

struct qos_node *qos_node_new(uint64_t guid, bool sw, uint8_t nports)
{
	struct qos_node *qn = calloc(1, sizeof(*qn));

	if (!qn)
		return NULL;
	qn->guid = guid;
	qn->sw = sw;
	qn->nports = nports;
	qn->ports = calloc(nports + 1u, sizeof(*qn->ports));
	if (!qn->ports) {
		qos_node_free(qn);
		return NULL;
	}
	return qn;
}

/* The SL2VL matrix, made when the first block is recorded.  0 or
 * -ENOMEM (then the block stays unknown and is sent again). */
static int sl2vl_alloc(struct qos_node *qn)
{
	size_t n = (size_t)width(qn) * width(qn);

	if (qn->sl2vl)
		return 0;
	qn->sl2vl = calloc(n, sizeof(*qn->sl2vl));
	qn->sl2vl_known = calloc(n, sizeof(*qn->sl2vl_known));
	if (qn->sl2vl && qn->sl2vl_known)
		return 0;
	free(qn->sl2vl);
	free(qn->sl2vl_known);
	qn->sl2vl = NULL;
	qn->sl2vl_known = NULL;
	return -ENOMEM;
}

void qos_node_free(void *v)
{
	struct qos_node *qn = v;

	if (!qn)
		return;
	for (unsigned p = 0; qn->ports && p <= qn->nports; p++)
		free(qn->ports[p].arb);
	free(qn->ports);
	free(qn->sl2vl);
	free(qn->sl2vl_known);
	free(qn);
}

void qos_node_forget_port(struct qos_node *qn, unsigned p)
{
	unsigned w = width(qn);

	qn->ports[p].arb_known = 0;
	for (unsigned i = 0; qn->sl2vl_known && i < w; i++) {
		qn->sl2vl_known[i * w + p] = false;
		qn->sl2vl_known[p * w + i] = false;
	}
}

static int add_item(struct qos_items *x, const struct qos_item *it)
{
	if (x->n == x->cap) {
		uint32_t cap = x->cap ? 2 * x->cap : 16;
		struct qos_item *v = realloc(x->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = *it;
	return 0;
}

static bool row_holds(const struct qos_node *qn, unsigned slot,
		      const uint8_t want[QOS_NUM_SLS])
{
	return qn->sl2vl_known && qn->sl2vl_known[slot] &&
	       !memcmp(qn->sl2vl[slot], want, QOS_NUM_SLS);
}

/* The SL2VL block for input port in to output port out, unless the port
 * already holds it. */
static int plan_sl2vl(const struct qos_node *qn, unsigned in, unsigned out,
		      const struct qos_port_tables *t, struct qos_items *sl)
{
	struct qos_item it = {.slot = in * width(qn) + out};

	if (row_holds(qn, it.slot, t->sl2vl))
		return 0;
	it.mod = qn->sw ? smp_sl2vl_mod((uint8_t)in, (uint8_t)out) : 0;
	smp_sl2vl_encode(t->sl2vl, it.data, sizeof(it.data));
	return add_item(sl, &it);
}

/* With optimized programming: one block for every input port to out,
 * unless every row already holds it. */
static int plan_sl2vl_all_in(const struct qos_node *qn, unsigned out,
			     const struct qos_port_tables *t,
			     struct qos_items *sl)
{
	struct qos_item it = {.slot = out, .all_in = true};
	unsigned in = 0;

	while (in <= qn->nports &&
	       row_holds(qn, in * width(qn) + out, t->sl2vl))
		in++;
	if (in > qn->nports)
		return 0;
	it.mod = SMP_SL2VL_ALL_IN | out;
	smp_sl2vl_encode(t->sl2vl, it.data, sizeof(it.data));
	return add_item(sl, &it);
}

static int plan_vlarb(const struct qos_node *qn, unsigned p,
		      const struct qos_port_tables *t, struct qos_items *arb)
{
	static const struct {
		enum smp_vlarb_block b;
		bool high;
		unsigned from;
	} blocks[QOS_ARB_BLOCKS] = {
	    {SMP_VLARB_LOW_0, false, 0},
	    {SMP_VLARB_LOW_32, false, SMP_VLARB_BLOCK},
	    {SMP_VLARB_HIGH_0, true, 0},
	    {SMP_VLARB_HIGH_32, true, SMP_VLARB_BLOCK},
	};
	const struct qos_port *qp = &qn->ports[p];
	int rc = 0;

	for (unsigned i = 0; i < QOS_ARB_BLOCKS && rc == 0; i++) {
		unsigned held = blocks[i].high ? t->n_high : t->n_low;
		const struct qos_arb *want =
		    (blocks[i].high ? t->high : t->low) + blocks[i].from;
		struct smp_vlarb_entry e[SMP_VLARB_BLOCK];
		struct qos_item it = {.slot = p * QOS_ARB_BLOCKS + i};
		if (held <= blocks[i].from ||
		    ((qp->arb_known >> i & 1) &&
		     !memcmp(qp->arb[i], want, sizeof(qp->arb[i]))))
			continue;
		for (unsigned j = 0; j < SMP_VLARB_BLOCK; j++)
			e[j] = (struct smp_vlarb_entry){want[j].vl,
							want[j].weight};
		smp_vlarb_encode(e, it.data, sizeof(it.data));
		it.mod = smp_vlarb_mod(blocks[i].b, qn->sw ? (uint8_t)p : 0);
		rc = add_item(arb, &it);
	}
	return rc;
}

/* Port p's tables: what it sends out on its link. */
static bool port_tables(const struct qos_policy *pol, const struct qos_node *qn,
			unsigned p, struct qos_port_tables *t,
			uint32_t *remapped)
{
	const struct qos_port *qp = &qn->ports[p];

	if (!qp->linked)
		return false;
	qos_port_tables(pol, qp->op_vls, qp->high_cap, qp->low_cap, t);
	*remapped += t->remapped != 0;
	return true;
}

/* Every input port that can carry traffic to out: port 0 (the switch's
 * own) and the linked ones. */
static int plan_switch_out(const struct qos_node *qn, unsigned out,
			   const struct qos_port_tables *t,
			   struct qos_items *sl, struct qos_items *arb)
{
	int rc = 0;

	if (qn->ports[out].sl_map && qn->opt_sl2vl)
		rc = plan_sl2vl_all_in(qn, out, t, sl);
	for (unsigned in = 0; in <= qn->nports && rc == 0 &&
			      qn->ports[out].sl_map && !qn->opt_sl2vl;
	     in++)
		if (in == 0 || qn->ports[in].linked)
			rc = plan_sl2vl(qn, in, out, t, sl);
	return rc ? rc : plan_vlarb(qn, out, t, arb);
}

int qos_plan_switch(const struct qos_policy *p, const struct qos_node *qn,
		    struct qos_items *sl, struct qos_items *arb,
		    uint32_t *remapped)
{
	struct qos_port_tables t;
	int rc = 0;

	for (unsigned out = 1; out <= qn->nports && rc == 0; out++)
		if (port_tables(p, qn, out, &t, remapped))
			rc = plan_switch_out(qn, out, &t, sl, arb);
	return rc;
}

int qos_plan_ca_port(const struct qos_policy *p, const struct qos_node *qn,
		     unsigned port, struct qos_items *sl, struct qos_items *arb,
		     uint32_t *remapped)
{
	struct qos_port_tables t;
	int rc = 0;

	if (!port_tables(p, qn, port, &t, remapped))
		return 0;
	if (qn->ports[port].sl_map)
		rc = plan_sl2vl(qn, 0, port, &t, sl);
	return rc ? rc : plan_vlarb(qn, port, &t, arb);
}

void qos_item_written(struct qos_node *qn, uint16_t attr,
		      const struct qos_item *it)
{
	unsigned w = width(qn);

	if (attr == SMP_ATTR_SL2VL_TABLE) {
		if (sl2vl_alloc(qn) < 0)
			return;
		for (unsigned in = 0; in < w && it->all_in; in++) {
			unsigned slot = in * w + it->slot;
			smp_sl2vl_decode(qn->sl2vl[slot], it->data,
					 SMP_DATA_SIZE);
			qn->sl2vl_known[slot] = true;
		}
		if (!it->all_in) {
			smp_sl2vl_decode(qn->sl2vl[it->slot], it->data,
					 SMP_DATA_SIZE);
			qn->sl2vl_known[it->slot] = true;
		}
	} else {
		struct qos_port *qp = &qn->ports[it->slot / QOS_ARB_BLOCKS];
		struct smp_vlarb_entry e[SMP_VLARB_BLOCK];
		unsigned b = it->slot % QOS_ARB_BLOCKS;
		if (!qp->arb &&
		    !(qp->arb = calloc(QOS_ARB_BLOCKS, sizeof(*qp->arb))))
			return; /* stays unknown: sent again */
		smp_vlarb_decode(e, it->data, SMP_DATA_SIZE);
		for (unsigned j = 0; j < SMP_VLARB_BLOCK; j++)
			qp->arb[b][j] = (struct qos_arb){e[j].vl, e[j].weight};
		qp->arb_known |= (uint8_t)(1u << b);
	}
}

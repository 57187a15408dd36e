/* QoS table records: SLtoVLMappingTableRecord and VLArbitrationTable-
 * Record, from what each port acknowledged to the QoS programming
 * (sa->sl2vl_row and sa->vlarb_block, handed down by qosprog.c): a table
 * the daemon has not written, or not yet, has no record.  As OpenSM, a
 * switch's SL2VL records leave out the rows of an input port to itself. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>

#include "mad/sa_qos.h"

/* Every node, or the one owning the requested LID (a CA: that port). */
static int each_node(struct sa_ctx *c, unsigned lid_comp,
		     int (*fn)(struct sa_ctx *, const struct ib_node *,
			       unsigned port))
{
	struct fabric *f = c->sa->fabric;
	struct ib_node **v;
	int e = 0;

	if (sa_has(c, lid_comp)) {
		struct ib_port *p =
		    fabric_port_by_lid(f, (uint16_t)sa_req_get(c, lid_comp));
		return p ? fn(c, p->node, p->num) : 0;
	}
	if (!(v = sa_nodes_sorted(f)))
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes && !e && !sa_ctx_done(c); i++)
		for (unsigned p = node_is_switch(v[i]) ? 0 : 1;
		     p <= (node_is_switch(v[i]) ? 0u : v[i]->nports) && !e; p++)
			e = fn(c, v[i], p);
	free(v);
	return e;
}

static bool wanted(const struct sa_ctx *c, unsigned comp, unsigned v)
{
	return !sa_has(c, comp) || sa_req_get(c, comp) == v;
}

static int sl2vl_one(struct sa_ctx *c, const struct ib_node *n, unsigned in,
		     unsigned out)
{
	struct sa *sa = c->sa;
	bool sw = node_is_switch(n);
	struct sa_sl2vl_rec r = {.lid = sa_port_lid(&n->ports[sw ? 0 : out]),
				 .in_port = (uint8_t)(sw ? in : 0),
				 .out_port = (uint8_t)(sw ? out : 0)};
	uint8_t vl[16];

	if (!r.lid || !wanted(c, SA_SLVL_IN, r.in_port) ||
	    !wanted(c, SA_SLVL_OUT, r.out_port) ||
	    sa->sl2vl_row(sa->qos_ctx, n, (uint8_t)in, (uint8_t)out, vl) != 1)
		return 0;
	for (unsigned sl = 0; sl < 16; sl++)
		r.table = r.table << 4 | (vl[sl] & 15);
	return sa_emit(c, &r) < 0 ? -ENOMEM : 0;
}

static int sl2vl_node(struct sa_ctx *c, const struct ib_node *n, unsigned port)
{
	int e = 0;

	if (!node_is_switch(n))
		return port && port <= n->nports ? sl2vl_one(c, n, 0, port) : 0;
	for (unsigned out = 1; out <= n->nports && !e && !sa_ctx_done(c); out++)
		for (unsigned in = 0; in <= n->nports && !e; in++)
			if (in != out)
				e = sl2vl_one(c, n, in, out);
	return e;
}

int sa_sl2vl_handle(struct sa_ctx *c)
{
	if (!c->sa->sl2vl_row)
		return 0;
	return each_node(c, SA_SLVL_LID, sl2vl_node);
}

static int vlarb_port(struct sa_ctx *c, const struct ib_node *n, unsigned port)
{
	struct sa *sa = c->sa;
	bool sw = node_is_switch(n);

	for (unsigned b = 1; b <= 4; b++) {
		struct sa_vlarb_rec r = {
		    .lid = sa_port_lid(&n->ports[sw ? 0 : port]),
		    .out_port = (uint8_t)port,
		    .block = (uint8_t)b};
		if (!r.lid || !wanted(c, SA_VLA_OUT, port) ||
		    !wanted(c, SA_VLA_BLOCK, b) ||
		    sa->vlarb_block(sa->qos_ctx, n, (uint8_t)port, (uint8_t)b,
				    r.table) != 1)
			continue;
		if (sa_emit(c, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int vlarb_node(struct sa_ctx *c, const struct ib_node *n, unsigned port)
{
	int e = 0;

	if (!node_is_switch(n))
		return port && port <= n->nports ? vlarb_port(c, n, port) : 0;
	for (unsigned p = 1; p <= n->nports && !e && !sa_ctx_done(c); p++)
		e = vlarb_port(c, n, p);
	return e;
}

int sa_vlarb_handle(struct sa_ctx *c)
{
	if (!c->sa->vlarb_block)
		return 0;
	return each_node(c, SA_VLA_LID, vlarb_node);
}

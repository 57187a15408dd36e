/* NodeRecord: one record per CA/router port that has a LID and one per
 * switch (port 0), in node GUID order as OpenSM answers, NodeInfo as the
 * node reported it (cache) with the port's own GUID and number. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa_node.h"
#include "mad/smp_node.h"

/* ibsim's NodeInfo values, used when discovery fed no NodeInfo. */
#define DEFAULT_PARTITION_CAP 0x40
#define DEFAULT_REVISION      0xA1
#define SA_NODEINFO_SIZE      40 /* as sa_daemon.c caches it */

static void fill_nr(const struct sa *sa, const struct ib_node *n, uint8_t pn,
		    struct sa_node_rec *r)
{
	const uint8_t *raw = sa_cache_get(sa, n->guid, 0, SA_SMP_NODE_INFO);
	const struct ib_port *p = &n->ports[pn];
	struct smp_node_info ni = {.partition_cap = DEFAULT_PARTITION_CAP,
				   .revision = DEFAULT_REVISION};

	if (raw)
		smp_node_info_decode(&ni, raw, SA_NODEINFO_SIZE);
	memset(r, 0, sizeof(*r));
	r->lid = node_port((struct ib_node *)n, pn)->lid;
	r->base_version = 1;
	r->class_version = 1;
	r->node_type = n->type;
	r->num_ports = n->nports;
	r->sys_guid = n->sysguid;
	r->node_guid = n->guid;
	r->port_guid = node_is_switch(n) ? n->guid : p->guid;
	r->partition_cap = ni.partition_cap;
	r->device_id = n->device_id;
	r->revision = ni.revision;
	/* The port the record is about (OpenSM's choice), not the port the
	 * SM's NodeInfo Get happened to enter by. */
	r->local_port = pn;
	r->vendor_id = n->vendor_id & 0xFFFFFF;
	memcpy(r->desc, n->desc, strnlen(n->desc, sizeof(r->desc)));
}

static int node_records(struct sa_ctx *c, const struct ib_node *n)
{
	struct sa_node_rec r;
	int e;

	if (node_is_switch(n)) {
		if (!n->ports[0].lid)
			return 0;
		fill_nr(c->sa, n, 0, &r);
		return sa_emit(c, &r) < 0 ? -1 : 0;
	}
	for (uint8_t pn = 1; pn <= n->nports && !sa_ctx_done(c); pn++) {
		if (!n->ports[pn].lid)
			continue;
		fill_nr(c->sa, n, pn, &r);
		e = sa_emit(c, &r);
		if (e < 0)
			return e;
	}
	return 0;
}

int sa_node_handle(struct sa_ctx *c)
{
	struct fabric *f = c->sa->fabric;
	struct ib_node **v;
	int e = 0;

	if (sa_has(c, SA_NR_LID)) { /* the common case, no table walk */
		struct ib_port *p =
		    fabric_port_by_lid(f, (uint16_t)sa_req_get(c, SA_NR_LID));
		return p ? node_records(c, p->node) : 0;
	}
	if (sa_has(c, SA_NR_NODE_GUID)) {
		struct ib_node *n =
		    fabric_node_by_guid(f, sa_req_get(c, SA_NR_NODE_GUID));
		return n ? node_records(c, n) : 0;
	}
	v = sa_nodes_sorted(f);
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes && !e && !sa_ctx_done(c); i++)
		e = node_records(c, v[i]);
	free(v);
	return e;
}

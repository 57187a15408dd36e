/* LinkRecord: one record per direction of every link, from each node's
 * ports in OpenSM's node order. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>

#include "mad/sa_link.h"

static int link_node(struct sa_ctx *c, const struct ib_node *n)
{
	for (uint8_t pn = 1; pn <= n->nports && !sa_ctx_done(c); pn++) {
		const struct ib_port *p = &n->ports[pn], *r = p->remote;
		struct sa_link_rec lr;

		if (!r)
			continue;
		lr = (struct sa_link_rec){.from_lid = sa_port_lid(p),
					  .from_port = pn,
					  .to_port = r->num,
					  .to_lid = sa_port_lid(r)};
		if (!lr.from_lid || !lr.to_lid)
			continue;
		if (sa_emit(c, &lr) < 0)
			return -ENOMEM;
	}
	return 0;
}

int sa_link_handle(struct sa_ctx *c)
{
	struct fabric *f = c->sa->fabric;
	struct ib_node **v;
	int e = 0;

	if (sa_has(c, SA_LR_FROM_LID)) {
		struct ib_port *p = fabric_port_by_lid(
		    f, (uint16_t)sa_req_get(c, SA_LR_FROM_LID));
		return p ? link_node(c, p->node) : 0;
	}
	v = sa_nodes_sorted(f);
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes && !e && !sa_ctx_done(c); i++)
		e = link_node(c, v[i]);
	free(v);
	return e;
}

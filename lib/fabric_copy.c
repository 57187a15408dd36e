/* A model's deep copy and its directed routes: what an incremental sweep
 * needs to change a model (a link gone) without rediscovering the fabric.
 * The copy keeps node order, so routing it gives what routing a fresh
 * discovery in the same order would. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric.h"

static int copy_node(struct fabric *dst, const struct ib_node *s)
{
	struct ib_node *n = fabric_add_node(dst, (enum ib_node_type)s->type,
					    s->guid, s->nports, s->desc);

	if (!n)
		return -errno;
	n->sysguid = s->sysguid;
	n->device_id = s->device_id;
	n->vendor_id = s->vendor_id;
	n->lft_cap = s->lft_cap;
	n->mft_cap = s->mft_cap;
	n->lft_top = s->lft_top;
	n->pkey_cap = s->pkey_cap;
	n->pkey_enf_cap = s->pkey_enf_cap;
	n->pkey_enf_in = s->pkey_enf_in;
	n->pkey_enf_out = s->pkey_enf_out;
	memcpy(n->dr_path, s->dr_path, sizeof(n->dr_path));
	n->dr_hops = s->dr_hops;
	if (s->lft_size) {
		n->lft = malloc(s->lft_size);
		if (!n->lft)
			return -ENOMEM;
		memcpy(n->lft, s->lft, s->lft_size);
		n->lft_size = s->lft_size;
	}
	for (unsigned p = 0; p <= s->nports; p++) {
		const struct ib_port *sp = &s->ports[p];
		struct ib_port *np = &n->ports[p];

		np->state = sp->state;
		np->phys_state = sp->phys_state;
		np->width_active = sp->width_active;
		np->speed_active = sp->speed_active;
		np->speed_ext_active = sp->speed_ext_active;
		np->speed_ext2_active = sp->speed_ext2_active;
		np->speed_caps = sp->speed_caps;
		np->fdr10 = sp->fdr10;
		np->mtu_cap = sp->mtu_cap;
		np->vl_cap = sp->vl_cap;
		np->held = sp->held;
		if (!node_is_switch(n) && sp->guid &&
		    fabric_set_port_guid(dst, np, sp->guid) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* LIDs through fabric_set_lid, so the copy's LID map is its own. */
static void copy_lids(struct fabric *dst, const struct ib_node *s,
		      struct ib_node *n)
{
	for (unsigned p = 0; p <= s->nports; p++) {
		if (node_is_switch(s) && p > 0)
			break; /* port 0 set them all */
		if (s->ports[p].lid)
			fabric_set_lid(dst, &n->ports[p], s->ports[p].lid,
				       s->ports[p].lmc);
	}
}

int fabric_copy(struct fabric *dst, const struct fabric *src)
{
	int rc = 0;

	fabric_init(dst);
	for (uint32_t i = 0; i < src->n_nodes && rc == 0; i++)
		rc = copy_node(dst, src->nodes[i]);
	for (uint32_t i = 0; i < src->n_nodes && rc == 0; i++) {
		const struct ib_node *s = src->nodes[i];
		struct ib_node *n = dst->nodes[i];

		copy_lids(dst, s, n);
		for (unsigned p = 1; p <= s->nports && rc == 0; p++) {
			const struct ib_port *r = s->ports[p].remote;
			if (r && r->node->idx > s->idx)
				rc = fabric_link(dst, n, (uint8_t)p,
						 dst->nodes[r->node->idx],
						 r->num);
			else if (r && r->node == s && r->num > p)
				rc = fabric_link(dst, n, (uint8_t)p, n, r->num);
		}
	}
	if (rc == 0 && src->sm_node) {
		dst->sm_node = dst->nodes[src->sm_node->idx];
		dst->sm_port = src->sm_port;
	}
	if (rc < 0)
		fabric_free(dst);
	return rc;
}

/* Breadth first from the SM's node, over linked ports in port order, so
 * each node gets a shortest directed route; path[1] is the SM's port. */
uint32_t fabric_dr_paths(struct fabric *f)
{
	struct ib_node **q = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*q));
	uint32_t head = 0, tail = 0;

	if (!q || !f->sm_node) {
		free(q);
		return f->n_nodes;
	}
	for (uint32_t i = 0; i < f->n_nodes; i++)
		f->nodes[i]->seen = false;
	f->sm_node->seen = true;
	f->sm_node->dr_hops = 0;
	q[tail++] = f->sm_node;
	while (head < tail) {
		struct ib_node *n = q[head++];

		for (unsigned p = 1; p <= n->nports; p++) {
			struct ib_node *m = port_peer_node(n, (uint8_t)p);

			/* a CA forwards nothing: only the SM's own port */
			if (!m || m->seen || n->dr_hops >= IB_MAX_DR_HOPS ||
			    (!node_is_switch(n) &&
			     (n != f->sm_node || p != f->sm_port)))
				continue;
			memcpy(m->dr_path, n->dr_path, sizeof(m->dr_path));
			m->dr_hops = (uint8_t)(n->dr_hops + 1);
			m->dr_path[m->dr_hops] = (uint8_t)p;
			m->seen = true;
			q[tail++] = m;
		}
	}
	free(q);
	return f->n_nodes - tail;
}

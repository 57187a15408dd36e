/* The fabric model: see fabric.h.  GUID maps are open-addressing hash
 * tables (linear probing, backward-shift deletion) because fabrics of tens
 * of thousands of nodes are looked up per SMP answer. */
#include "lib/fabric.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static uint32_t guid_hash(uint64_t g)
{
	g ^= g >> 33;
	g *= 0xff51afd7ed558ccdULL;
	g ^= g >> 33;
	return (uint32_t)g;
}

static int gmap_grow(struct guid_map *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 64;
	uint64_t *nk = calloc(ncap, sizeof(*nk));
	struct ib_node **nv = calloc(ncap, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		uint32_t h = guid_hash(m->keys[i]) & (ncap - 1);
		while (nv[h])
			h = (h + 1) & (ncap - 1);
		nk[h] = m->keys[i];
		nv[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

static struct ib_node *gmap_get(const struct guid_map *m, uint64_t k)
{
	if (!m->cap)
		return NULL;
	for (uint32_t h = guid_hash(k) & (m->cap - 1); m->vals[h];
	     h = (h + 1) & (m->cap - 1))
		if (m->keys[h] == k)
			return m->vals[h];
	return NULL;
}

static int gmap_put(struct guid_map *m, uint64_t k, struct ib_node *v)
{
	if ((m->used + 1) * 2 > m->cap && gmap_grow(m) < 0)
		return -ENOMEM;
	uint32_t h = guid_hash(k) & (m->cap - 1);
	while (m->vals[h] && m->keys[h] != k)
		h = (h + 1) & (m->cap - 1);
	if (!m->vals[h])
		m->used++;
	m->keys[h] = k;
	m->vals[h] = v;
	return 0;
}

static void gmap_del(struct guid_map *m, uint64_t k)
{
	uint32_t mask = m->cap - 1, h;

	if (!m->cap)
		return;
	for (h = guid_hash(k) & mask; m->vals[h]; h = (h + 1) & mask)
		if (m->keys[h] == k)
			break;
	if (!m->vals[h])
		return;
	m->vals[h] = NULL;
	m->used--;
	/* Backward shift: re-insert the rest of the cluster. */
	for (uint32_t j = (h + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
		uint64_t kk = m->keys[j];
		struct ib_node *vv = m->vals[j];
		m->vals[j] = NULL;
		m->used--;
		gmap_put(m, kk, vv);
	}
}

static void gmap_free(struct guid_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void fabric_init(struct fabric *f)
{
	memset(f, 0, sizeof(*f));
}

static void node_free(struct ib_node *n)
{
	free(n->ports);
	free(n->lft);
	free(n);
}

void fabric_free(struct fabric *f)
{
	for (uint32_t i = 0; i < f->n_nodes; i++)
		node_free(f->nodes[i]);
	free(f->nodes);
	free(f->switches);
	free(f->by_lid);
	gmap_free(&f->by_guid);
	gmap_free(&f->by_portguid);
	memset(f, 0, sizeof(*f));
}

static int push_ptr(struct ib_node ***arr, uint32_t *n, uint32_t *cap,
		    struct ib_node *v)
{
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 64;
		struct ib_node **na = realloc(*arr, nc * sizeof(*na));
		if (!na)
			return -ENOMEM;
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

struct ib_node *fabric_add_node(struct fabric *f, enum ib_node_type type,
				uint64_t guid, uint8_t nports, const char *desc)
{
	struct ib_node *n;

	if (gmap_get(&f->by_guid, guid)) {
		errno = EEXIST;
		return NULL;
	}
	if (!f->by_lid) {
		f->by_lid = calloc(IB_LID_UCAST_END + 1, sizeof(*f->by_lid));
		if (!f->by_lid)
			goto nomem;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		goto nomem;
	n->ports = calloc((size_t)nports + 1, sizeof(*n->ports));
	if (!n->ports) {
		free(n);
		goto nomem;
	}
	n->type = type;
	n->guid = guid;
	n->nports = nports;
	n->sw_idx = -1;
	snprintf(n->desc, sizeof(n->desc), "%s", desc ? desc : "");
	for (unsigned p = 0; p <= nports; p++) {
		n->ports[p].node = n;
		n->ports[p].num = (uint8_t)p;
		n->ports[p].guid = type == IB_NODE_SWITCH ? guid : 0;
	}
	if (push_ptr(&f->nodes, &f->n_nodes, &f->cap_nodes, n) < 0)
		goto nomem_node;
	n->idx = f->n_nodes - 1;
	if (type == IB_NODE_SWITCH) {
		if (push_ptr(&f->switches, &f->n_switches, &f->cap_switches,
			     n) < 0) {
			f->n_nodes--;
			goto nomem_node;
		}
		n->sw_idx = (int32_t)f->n_switches - 1;
		if (gmap_put(&f->by_portguid, guid, n) < 0)
			goto nomem_node; /* node stays; map lookup degrades */
	}
	if (gmap_put(&f->by_guid, guid, n) < 0)
		goto nomem_node;
	return n;
nomem_node:
	node_free(n);
nomem:
	errno = ENOMEM;
	return NULL;
}

void fabric_unlink(struct ib_port *p)
{
	if (p->remote) {
		p->remote->remote = NULL;
		p->remote = NULL;
	}
}

int fabric_link(struct fabric *f, struct ib_node *a, uint8_t port_a,
		struct ib_node *b, uint8_t port_b)
{
	(void)f;
	if (port_a > a->nports || port_b > b->nports || port_a == 0 ||
	    port_b == 0)
		return -EINVAL;
	struct ib_port *pa = &a->ports[port_a], *pb = &b->ports[port_b];
	if (pa->remote == pb)
		return 0;
	fabric_unlink(pa);
	fabric_unlink(pb);
	pa->remote = pb;
	pb->remote = pa;
	return 0;
}

static void unmap_lids(struct fabric *f, struct ib_node *n)
{
	for (unsigned p = 0; p <= n->nports; p++) {
		struct ib_port *pp = &n->ports[p];
		if (!pp->lid)
			continue;
		for (unsigned l = pp->lid;
		     l < pp->lid + (1u << pp->lmc) && l <= IB_LID_UCAST_END; l++)
			if (f->by_lid[l] == pp)
				f->by_lid[l] = NULL;
	}
}

void fabric_remove_node(struct fabric *f, struct ib_node *n)
{
	for (unsigned p = 0; p <= n->nports; p++) {
		fabric_unlink(&n->ports[p]);
		if (n->ports[p].guid && n->type != IB_NODE_SWITCH &&
		    gmap_get(&f->by_portguid, n->ports[p].guid) == n)
			gmap_del(&f->by_portguid, n->ports[p].guid);
	}
	unmap_lids(f, n);
	gmap_del(&f->by_guid, n->guid);
	if (n->type == IB_NODE_SWITCH) {
		gmap_del(&f->by_portguid, n->guid);
		memmove(&f->switches[n->sw_idx], &f->switches[n->sw_idx + 1],
			(f->n_switches - n->sw_idx - 1) * sizeof(*f->switches));
		f->n_switches--;
		for (uint32_t i = n->sw_idx; i < f->n_switches; i++)
			f->switches[i]->sw_idx = (int32_t)i;
	}
	memmove(&f->nodes[n->idx], &f->nodes[n->idx + 1],
		(f->n_nodes - n->idx - 1) * sizeof(*f->nodes));
	f->n_nodes--;
	for (uint32_t i = n->idx; i < f->n_nodes; i++)
		f->nodes[i]->idx = i;
	if (f->sm_node == n)
		f->sm_node = NULL;
	node_free(n);
}

struct ib_node *fabric_node_by_guid(const struct fabric *f, uint64_t guid)
{
	return gmap_get(&f->by_guid, guid);
}

struct ib_port *fabric_port_by_guid(const struct fabric *f, uint64_t pguid)
{
	struct ib_node *n = gmap_get(&f->by_portguid, pguid);

	if (!n)
		return NULL;
	if (n->type == IB_NODE_SWITCH)
		return &n->ports[0];
	for (unsigned p = 1; p <= n->nports; p++)
		if (n->ports[p].guid == pguid)
			return &n->ports[p];
	return NULL;
}

int fabric_set_port_guid(struct fabric *f, struct ib_port *p, uint64_t pguid)
{
	if (p->guid && gmap_get(&f->by_portguid, p->guid) == p->node)
		gmap_del(&f->by_portguid, p->guid);
	p->guid = pguid;
	return pguid ? gmap_put(&f->by_portguid, pguid, p->node) : 0;
}

struct ib_port *fabric_port_by_lid(const struct fabric *f, uint16_t lid)
{
	if (!f->by_lid || lid > IB_LID_UCAST_END)
		return NULL;
	return f->by_lid[lid];
}

bool fabric_lid_end(const struct fabric *f, uint16_t lid, uint32_t *sw_idx,
		    uint8_t *port)
{
	const struct ib_port *o = fabric_port_by_lid(f, lid);

	if (!o)
		return false;
	if (node_is_switch(o->node)) {
		*sw_idx = (uint32_t)o->node->sw_idx;
		*port = 0;
		return true;
	}
	if (!o->remote || !node_is_switch(o->remote->node))
		return false;
	*sw_idx = (uint32_t)o->remote->node->sw_idx;
	*port = o->remote->num;
	return true;
}

struct ib_node *fabric_node_by_desc(const struct fabric *f, const char *desc)
{
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (strcmp(f->nodes[i]->desc, desc) == 0)
			return f->nodes[i];
	return NULL;
}

void fabric_set_lid(struct fabric *f, struct ib_port *p, uint16_t lid,
		    uint8_t lmc)
{
	struct ib_node *n = p->node;
	unsigned first = 0, last = 0;

	if (n->type == IB_NODE_SWITCH) {
		p = &n->ports[0];
		last = n->nports;
	} else {
		first = last = p->num;
	}
	if (p->lid)
		for (unsigned l = p->lid;
		     l < p->lid + (1u << p->lmc) && l <= IB_LID_UCAST_END; l++)
			if (f->by_lid[l] == p)
				f->by_lid[l] = NULL;
	for (unsigned i = first; i <= last; i++) {
		n->ports[i].lid = lid;
		n->ports[i].lmc = lmc;
	}
	if (!lid)
		return;
	for (unsigned l = lid; l < lid + (1u << lmc) && l <= IB_LID_UCAST_END;
	     l++) {
		f->by_lid[l] = p;
		if (l > f->max_lid)
			f->max_lid = (uint16_t)l;
	}
}

int node_lft_reserve(struct ib_node *sw, uint16_t top)
{
	uint32_t need = (uint32_t)top + 1;

	if (need <= sw->lft_size)
		return 0;
	uint8_t *nl = realloc(sw->lft, need);
	if (!nl)
		return -ENOMEM;
	memset(nl + sw->lft_size, LFT_NO_PORT, need - sw->lft_size);
	sw->lft = nl;
	sw->lft_size = need;
	return 0;
}

uint32_t fabric_count_hosts(const struct fabric *f)
{
	uint32_t c = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = f->nodes[i];
		if (n->type == IB_NODE_SWITCH)
			continue;
		for (unsigned p = 1; p <= n->nports; p++)
			if (n->ports[p].remote)
				c++;
	}
	return c;
}

uint32_t fabric_count_links(const struct fabric *f)
{
	uint32_t c = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			struct ib_port *r = n->ports[p].remote;
			if (r && (r->node->idx > n->idx ||
				  (r->node == n && r->num > p)))
				c++;
		}
	}
	return c;
}

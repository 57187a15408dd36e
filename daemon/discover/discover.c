/* Discovery over directed routes: see discover.h.  Every SMP goes to the
 * transaction engine at once; its window bounds what is in flight, so the
 * walk proceeds on many branches together.  Links are found from NodeInfo
 * answers (the GUID says which node, LocalPortNum which port); a GUID seen
 * again is a new link to a known node, never a new node, which handles
 * parallel links and loops.  Only switch ports that are LinkUp and not yet
 * linked are explored. */
#include "daemon/discover/discover.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "mad/smp_node.h"
#include "mad/smp_port.h"
#include "mad/smp_switch.h"

enum disc_kind { DK_NODEINFO, DK_NODEDESC, DK_PORTINFO, DK_SWITCHINFO,
		 DK_FDR10 };

struct discovery {
	struct txn_engine *txn;
	struct fabric *f;
	disc_done_fn done;
	void *ctx;
	struct disc_observer obs; /* smp NULL: nobody watches */
	struct dnode **v;	  /* by node idx */
	uint32_t cap;
	unsigned pending;
	bool finished;
	struct disc_stats st;
	int64_t start_us;
};

/* One outstanding SMP. */
struct dreq {
	struct discovery *d;
	enum disc_kind kind;
	struct ib_node *node;	/* the node asked (not for NodeInfo) */
	struct ib_node *parent; /* NodeInfo: node we left ... */
	uint8_t pport;		/* ... by this port */
	uint8_t port;		/* PortInfo: the port */
	bool no_ext; /* PortInfo asked without SMSupportExtendedSpeeds */
	uint8_t hops;
	uint8_t path[IB_MAX_DR_HOPS + 1];
};

static void disc_finish(struct discovery *d);

static const char *ndesc(const struct ib_node *n)
{
	return n->desc[0] ? n->desc : "?";
}

static void dreq_cb(void *ctx, int status, const struct txn_result *r);

static int submit(struct discovery *d, struct dreq *q, uint16_t attr,
		  uint32_t mod)
{
	int rc;

	if (attr == SMP_ATTR_PORT_INFO)
		mod = smp_port_info_mod((uint8_t)mod, !q->no_ext);
	rc = txn_submit_dr(d->txn, q->path, q->hops, MAD_METHOD_GET, attr, mod,
			   NULL, dreq_cb, q);
	if (rc < 0) {
		free(q);
		return rc;
	}
	d->pending++;
	d->st.gets++;
	return 0;
}

static struct dreq *dreq_new(struct discovery *d, enum disc_kind kind,
			     const uint8_t *path, uint8_t hops)
{
	struct dreq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->d = d;
	q->kind = kind;
	q->hops = hops;
	memcpy(q->path, path, (size_t)hops + 1);
	return q;
}

static int ask_node(struct discovery *d, struct ib_node *n, enum disc_kind kind,
		    uint16_t attr, uint8_t port)
{
	struct dreq *q = dreq_new(d, kind, n->dr_path, n->dr_hops);

	if (!q)
		return -ENOMEM;
	q->node = n;
	q->port = port;
	return submit(d, q, attr, port);
}

/* PortInfo of a CA port goes through that port (its own route). */
static int ask_ca_port(struct discovery *d, struct ib_node *n, uint8_t port,
		       const uint8_t *path, uint8_t hops)
{
	struct dreq *q = dreq_new(d, DK_PORTINFO, path, hops);

	if (!q)
		return -ENOMEM;
	q->node = n;
	q->port = port;
	return submit(d, q, SMP_ATTR_PORT_INFO, port);
}

static int ask_behind(struct discovery *d, struct ib_node *sw, uint8_t port)
{
	struct dreq *q;

	if (sw->dr_hops >= IB_MAX_DR_HOPS) {
		log_warn("discovery: switch %s (0x%016" PRIx64 ") port %u is "
			 "%u hops away, past the directed-route limit; not "
			 "explored",
			 ndesc(sw), sw->guid, port, sw->dr_hops + 1);
		return 0;
	}
	q = dreq_new(d, DK_NODEINFO, sw->dr_path, sw->dr_hops);
	if (!q)
		return -ENOMEM;
	q->path[++q->hops] = port;
	q->parent = sw;
	q->pport = port;
	return submit(d, q, SMP_ATTR_NODE_INFO, 0);
}

static int dnode_add(struct discovery *d, struct ib_node *n)
{
	struct dnode *dn;

	if (n->idx >= d->cap) {
		uint32_t nc = d->cap ? d->cap * 2 : 256;
		struct dnode **nv;
		while (nc <= n->idx)
			nc *= 2;
		nv = realloc(d->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		memset(nv + d->cap, 0, (nc - d->cap) * sizeof(*nv));
		d->v = nv;
		d->cap = nc;
	}
	dn = calloc(1, sizeof(*dn));
	if (!dn)
		return -ENOMEM;
	dn->ports = calloc((size_t)n->nports + 1, sizeof(*dn->ports));
	if (!dn->ports) {
		free(dn);
		return -ENOMEM;
	}
	dn->node = n;
	d->v[n->idx] = dn;
	return 0;
}

struct dnode *disc_node(struct discovery *d, const struct ib_node *n)
{
	if (!d || n->idx >= d->cap || !d->v[n->idx] || d->v[n->idx]->node != n)
		return NULL;
	return d->v[n->idx];
}

/* A node seen for the first time: create it (new_node), link it, then
 * ask everything about it (ask_new): linked first, so that the SMPs'
 * routes lead through the model and carry the port's M_Key (mkey.c). */
static int new_node(struct discovery *d, struct dreq *q,
		    const struct smp_node_info *ni, struct ib_node **out)
{
	struct fabric *f = d->f;
	struct ib_node *n;
	int rc;

	n = fabric_add_node(f, (enum ib_node_type)ni->node_type, ni->node_guid,
			    ni->num_ports, NULL);
	if (!n)
		return -errno;
	n->sysguid = ni->sys_image_guid;
	n->device_id = ni->device_id;
	n->vendor_id = ni->vendor_id;
	n->pkey_cap = ni->partition_cap;
	memcpy(n->dr_path, q->path, (size_t)q->hops + 1);
	n->dr_hops = q->hops;
	rc = dnode_add(d, n);
	if (rc < 0)
		return rc;
	if (!q->parent) {
		f->sm_node = n;
		f->sm_port = node_is_switch(n) ? 0 : ni->local_port_num;
	}
	*out = n;
	return 0;
}

static int ask_new(struct discovery *d, struct ib_node *n)
{
	int rc = ask_node(d, n, DK_NODEDESC, SMP_ATTR_NODE_DESC, 0);

	if (rc < 0 || !node_is_switch(n))
		return rc;
	rc = ask_node(d, n, DK_SWITCHINFO, SMP_ATTR_SWITCH_INFO, 0);
	for (unsigned p = 0; rc == 0 && p <= n->nports; p++)
		rc =
		    ask_node(d, n, DK_PORTINFO, SMP_ATTR_PORT_INFO, (uint8_t)p);
	return rc;
}

static int link_in(struct discovery *d, struct dreq *q, struct ib_node *n,
		   uint8_t lp)
{
	struct ib_port *pp = &q->parent->ports[q->pport];

	if (pp->remote && pp->remote->node == n && pp->remote->num == lp)
		return 0; /* found from both ends at once */
	if (n->ports[lp].remote)
		log_warn("discovery: %s (0x%016" PRIx64 ") port %u answered "
			 "through %s port %u but was linked to %s port %u; "
			 "keeping the newer link",
			 ndesc(n), n->guid, lp, ndesc(q->parent), q->pport,
			 ndesc(n->ports[lp].remote->node),
			 n->ports[lp].remote->num);
	return fabric_link(d->f, q->parent, q->pport, n, lp);
}

static int on_nodeinfo(struct discovery *d, struct dreq *q, const uint8_t *data)
{
	struct smp_node_info ni;
	struct ib_node *n;
	bool fresh = false, ask_port = false;
	uint8_t lp;
	int rc = smp_node_info_decode(&ni, data, SMP_DATA_SIZE);

	if (rc < 0)
		return rc;
	lp = ni.local_port_num;
	n = fabric_node_by_guid(d->f, ni.node_guid);
	if (!n) {
		rc = new_node(d, q, &ni, &n);
		if (rc < 0)
			return rc;
		fresh = true;
	} else if (node_is_switch(n) && q->hops < n->dr_hops) {
		/* Answers arrive out of order: keep the shortest route. */
		memcpy(n->dr_path, q->path, (size_t)q->hops + 1);
		n->dr_hops = q->hops;
	}
	if (lp > n->nports || (!node_is_switch(n) && lp == 0))
		return -EPROTO;
	if (!node_is_switch(n)) {
		struct dnode *dn = disc_node(d, n);
		fabric_set_port_guid(d->f, &n->ports[lp], ni.port_guid);
		ask_port = dn && !dn->ports[lp].have_pi && !n->ports[lp].remote;
	}
	if (q->parent) {
		if (node_is_switch(n) && lp == 0)
			return -EPROTO;
		rc = link_in(d, q, n, lp);
	}
	if (rc == 0 && fresh)
		rc = ask_new(d, n);
	if (rc == 0 && ask_port)
		rc = ask_ca_port(d, n, lp, q->path, q->hops);
	return rc;
}

static void port_from_pi(struct discovery *d, struct ib_node *n, uint8_t pn,
			 const struct smp_port_info *pi)
{
	struct ib_port *p = &n->ports[pn];

	p->state = pi->port_state;
	p->phys_state = pi->port_phys_state;
	p->width_active = pi->link_width_active;
	p->speed_active = pi->link_speed_active;
	p->speed_ext_active = pi->link_speed_ext_active;
	p->speed_ext2_active = pi->link_speed_ext_active2;
	p->speed_caps =
	    ib_speed_caps(pi->capability_mask, pi->capability_mask2);
	p->mtu_cap = pi->mtu_cap;
	p->vl_cap = pi->vl_cap;
	/* A switch's LID lives on port 0; a CA's on each port. */
	if ((node_is_switch(n) && pn == 0) || !node_is_switch(n))
		fabric_set_lid(d->f, p, pi->lid,
			       node_is_switch(n) ? 0 : pi->lmc);
}

/* FDR10, a Mellanox speed, is not in PortInfo: a link at QDR with no
 * extended speed active may run FDR10, which Mellanox's ExtendedPortInfo
 * says.  Only those links of Mellanox (and Bull, which resells its
 * chips) devices are asked, once, with no retry: a device without the
 * attribute costs one SMP, and an error is no fault of the node. */
#define VENDOR_MELLANOX 0x0002c9
#define VENDOR_BULL	0x00119f
static bool may_be_fdr10(const struct ib_node *n, const struct ib_port *p)
{
	return (n->vendor_id == VENDOR_MELLANOX ||
		n->vendor_id == VENDOR_BULL) &&
	       p->num && p->phys_state == PI_PHYS_LINKUP &&
	       p->state >= IB_PORT_INIT && p->speed_active == 4 &&
	       !p->speed_ext_active && !p->speed_ext2_active;
}

static int ask_fdr10(struct discovery *d, const struct dreq *pq)
{
	struct dreq *q = dreq_new(d, DK_FDR10, pq->path, pq->hops);
	struct txn_smp_req r = {.dr = true,
				.method = MAD_METHOD_GET,
				.attr_id = SMP_ATTR_MLNX_EXT_PORT_INFO,
				.attr_mod = pq->port,
				.retries = 0};
	int rc;

	if (!q)
		return -ENOMEM;
	q->node = pq->node;
	q->port = pq->port;
	r.path = q->path;
	r.hops = q->hops;
	if ((rc = txn_submit(d->txn, &r, dreq_cb, q)) < 0) {
		free(q);
		return rc;
	}
	d->pending++;
	d->st.gets++;
	return 0;
}

static int on_fdr10(struct discovery *d, struct dreq *q, const uint8_t *data)
{
	struct smp_mlnx_ext_port_info e;

	if (smp_mlnx_ext_port_info_decode(&e, data, SMP_DATA_SIZE) == 0)
		q->node->ports[q->port].fdr10 =
		    (e.link_speed_active & MLNX_SPEED_FDR10) != 0;
	return 0;
}

static int on_portinfo(struct discovery *d, struct dreq *q, const uint8_t *data)
{
	struct ib_node *n = q->node;
	struct dnode *dn = disc_node(d, n);
	struct smp_port_info pi;
	int rc = smp_port_info_decode(&pi, data, SMP_DATA_SIZE);

	if (rc < 0 || !dn)
		return rc < 0 ? rc : -ENOENT;
	memcpy(dn->ports[q->port].pi, data, SMP_DATA_SIZE);
	dn->ports[q->port].have_pi = true;
	port_from_pi(d, n, q->port, &pi);
	if (may_be_fdr10(n, &n->ports[q->port]) && (rc = ask_fdr10(d, q)) < 0)
		return rc;
	/* Switches forward directed routes; of the CAs only the SM's own
	 * port leads anywhere (the walk starts there). */
	if (node_is_switch(n)
		? q->port == 0
		: (n != d->f->sm_node || q->port != d->f->sm_port))
		return 0;
	if (pi.port_phys_state != PI_PHYS_LINKUP ||
	    pi.port_state < IB_PORT_INIT || n->ports[q->port].remote)
		return 0;
	return ask_behind(d, n, q->port);
}

static int on_switchinfo(struct discovery *d, struct dreq *q,
			 const uint8_t *data)
{
	struct dnode *dn = disc_node(d, q->node);
	struct smp_switch_info si;
	int rc = smp_switch_info_decode(&si, data, SMP_DATA_SIZE);

	if (rc < 0 || !dn)
		return rc < 0 ? rc : -ENOENT;
	memcpy(dn->si, data, SMP_DATA_SIZE);
	dn->have_si = true;
	dn->port_state_change = si.port_state_change;
	q->node->lft_cap = si.lft_cap;
	q->node->mft_cap = si.mft_cap;
	q->node->lft_top = si.lft_top;
	q->node->pkey_enf_cap = si.partition_enf_cap;
	q->node->pkey_enf_in = si.inbound_enf_cap;
	q->node->pkey_enf_out = si.outbound_enf_cap;
	return 0;
}

static int on_nodedesc(struct discovery *d, struct dreq *q, const uint8_t *data)
{
	struct dnode *dn = disc_node(d, q->node);
	char desc[SMP_NODE_DESC_LEN + 1];
	int rc = smp_node_desc_decode(desc, data, SMP_DATA_SIZE);

	if (rc < 0 || !dn)
		return rc < 0 ? rc : -ENOENT;
	snprintf(q->node->desc, sizeof(q->node->desc), "%s", desc);
	dn->have_desc = true;
	return 0;
}

static const char *const kind_names[] = {
    [DK_NODEINFO] = "NodeInfo",
    [DK_NODEDESC] = "NodeDescription",
    [DK_PORTINFO] = "PortInfo",
    [DK_SWITCHINFO] = "SwitchInfo",
    [DK_FDR10] = "MlnxExtPortInfo",
};

static void log_failure(struct discovery *d, struct dreq *q, int status)
{
	char ps[200];

	smp_path_str(q->path, q->hops, ps, sizeof(ps));
	if (q->kind == DK_NODEINFO && q->parent) {
		d->st.silent_ports++;
		log_warn("discovery: nothing answered NodeInfo behind %s "
			 "(0x%016" PRIx64 ") port %u (path %s): %s; that port "
			 "is left out, the sweep goes on",
			 ndesc(q->parent), q->parent->guid, q->pport, ps,
			 strerror(-status));
		return;
	}
	if (q->kind == DK_NODEINFO) {
		log_err(
		    "discovery: the SM's own node does not answer NodeInfo: "
		    "%s",
		    strerror(-status));
		return;
	}
	struct dnode *dn = disc_node(d, q->node);
	if (dn && !dn->failed) {
		dn->failed = true;
		d->st.failed_nodes++;
		log_warn("discovery: %s (0x%016" PRIx64 ", path %s) did not "
			 "answer %s: %s; node left out of this sweep",
			 ndesc(q->node), q->node->guid, ps, kind_names[q->kind],
			 strerror(-status));
	}
}

/* A pre-1.3 SMA may refuse the SMSupportExtendedSpeeds modifier bit
 * with an invalid-field status: ask it once more without it. */
static bool retry_without_ext(struct discovery *d, struct dreq *q, int status,
			      const struct txn_result *r)
{
	if (q->kind != DK_PORTINFO || q->no_ext || status != -EREMOTEIO || !r ||
	    (r->mad_status & MAD_STATUS_FIELD_MASK) != MAD_STATUS_INVALID_FIELD)
		return false;
	log_info("discovery: %s (0x%016" PRIx64 ") refused PortInfo with "
		 "SMSupportExtendedSpeeds; asking again without it",
		 ndesc(q->node), q->node->guid);
	q->no_ext = true;
	d->pending--; /* submit() counts it again, or frees q */
	if (submit(d, q, SMP_ATTR_PORT_INFO, q->port) < 0 && d->pending == 0)
		disc_finish(d);
	return true;
}

static void dreq_cb(void *ctx, int status, const struct txn_result *r)
{
	struct dreq *q = ctx;
	struct discovery *d = q->d;
	int rc = status;

	if (retry_without_ext(d, q, status, r))
		return;

	if (status == 0 && !r->data)
		rc = -EPROTO;
	if (rc == 0) {
		if (d->obs.smp)
			d->obs.smp(d->obs.ctx, q->node, r->smp, r->data);
		switch (q->kind) {
		case DK_NODEINFO:
			rc = on_nodeinfo(d, q, r->data);
			break;
		case DK_NODEDESC:
			rc = on_nodedesc(d, q, r->data);
			break;
		case DK_PORTINFO:
			rc = on_portinfo(d, q, r->data);
			break;
		case DK_SWITCHINFO:
			rc = on_switchinfo(d, q, r->data);
			break;
		case DK_FDR10:
			rc = on_fdr10(d, q, r->data);
			break;
		}
	}
	if (rc < 0 && q->kind == DK_FDR10)
		rc = 0; /* no ExtendedPortInfo: no FDR10 */
	if (rc < 0 && rc != -ECANCELED)
		log_failure(d, q, rc);
	free(q);
	if (--d->pending == 0)
		disc_finish(d);
}

/* Drops the nodes that stopped answering and re-indexes the side data
 * (fabric_remove_node shifts the indexes of later nodes). */
static void drop_failed(struct discovery *d)
{
	struct dnode **old = d->v;
	uint32_t n_old = d->f->n_nodes;
	struct dnode **nv = calloc(d->cap ? d->cap : 1, sizeof(*nv));

	if (!nv)
		return;
	for (uint32_t i = 0; i < n_old; i++) {
		struct dnode *dn = old[i];
		if (dn && dn->failed && dn->node != d->f->sm_node) {
			fabric_remove_node(d->f, dn->node);
			free(dn->ports);
			free(dn);
			old[i] = NULL;
		}
	}
	for (uint32_t i = 0; i < n_old; i++)
		if (old[i])
			nv[old[i]->node->idx] = old[i];
	free(old);
	d->v = nv;
}

static void disc_finish(struct discovery *d)
{
	if (d->finished)
		return;
	d->finished = true;
	if (d->st.failed_nodes)
		drop_failed(d);
	d->st.usecs = txn_now_us() - d->start_us;
	d->done(d->ctx, d->f->sm_node ? 0 : -EHOSTUNREACH);
}

int disc_start(struct txn_engine *txn, struct fabric *f, disc_done_fn done,
	       void *ctx, const struct disc_observer *obs,
	       struct discovery **out)
{
	struct discovery *d = calloc(1, sizeof(*d));
	uint8_t path[IB_MAX_DR_HOPS + 1] = {0};
	struct dreq *q;
	int rc;

	if (!d)
		return -ENOMEM;
	d->txn = txn;
	d->f = f;
	d->done = done;
	d->ctx = ctx;
	if (obs)
		d->obs = *obs;
	d->start_us = txn_now_us();
	q = dreq_new(d, DK_NODEINFO, path, 0);
	rc = q ? submit(d, q, SMP_ATTR_NODE_INFO, 0) : -ENOMEM;
	if (rc < 0) {
		free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void disc_free(struct discovery *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->cap; i++) {
		if (d->v[i]) {
			free(d->v[i]->ports);
			free(d->v[i]);
		}
	}
	free(d->v);
	free(d);
}

const struct disc_stats *disc_stats(const struct discovery *d)
{
	return &d->st;
}

int disc_port_path(const struct fabric *f, const struct ib_node *n, uint8_t pn,
		   uint8_t path[IB_MAX_DR_HOPS + 1], uint8_t *hops)
{
	const struct ib_port *r;

	if (node_is_switch(n) || (n == f->sm_node && pn == f->sm_port)) {
		memcpy(path, n->dr_path, (size_t)n->dr_hops + 1);
		*hops = n->dr_hops;
		return 0;
	}
	r = n->ports[pn].remote;
	if (!r || !node_is_switch(r->node) ||
	    r->node->dr_hops >= IB_MAX_DR_HOPS)
		return -ENOENT;
	memcpy(path, r->node->dr_path, (size_t)r->node->dr_hops + 1);
	path[r->node->dr_hops + 1] = r->num;
	*hops = r->node->dr_hops + 1;
	return 0;
}

uint64_t disc_min_gets(const struct fabric *f)
{
	/* NodeInfo: the SM's node, then one across each link (from either
	 * end); NodeDescription per node; SwitchInfo per switch; PortInfo of
	 * every switch port (0..N: whether it is linked is only known that
	 * way) and of every linked CA port. */
	uint64_t n = 1 + fabric_count_links(f) + f->n_nodes + f->n_switches;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *nd = f->nodes[i];
		if (node_is_switch(nd)) {
			n += (uint64_t)nd->nports + 1;
			continue;
		}
		for (unsigned p = 1; p <= nd->nports; p++)
			if (nd->ports[p].remote ||
			    (nd == f->sm_node && p == f->sm_port))
				n++;
	}
	return n;
}

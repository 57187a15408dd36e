/* Multicast group table and the MCMemberRecord / MCGStateRecord queries.
 * Joins and leaves (Set/Delete) go to the multicast manager's ops. */
#include "daemon/sa/sa_mcm.h"
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* IPoIB broadcast group of the default partition (RFC 4391):
 * ff12:401b:ffff::ffff:ffff. */
const uint8_t sa_ipoib_bcast_mgid[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
					 0,    0,    0,	   0,	 0,    0,
					 0xff, 0xff, 0xff, 0xff};

#define IPOIB_QKEY 0x0B1B
#define MCG_MAX	   65536

static uint32_t mgid_hash(const uint8_t m[16])
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (unsigned i = 0; i < 16; i++)
		h = (h ^ m[i]) * 1099511628211ULL;
	return (uint32_t)(h ^ (h >> 32));
}

static struct sa_mcg **bucket(const struct sa_mcgs *t, const uint8_t m[16])
{
	return &t->buckets[mgid_hash(m) & (t->nb - 1)];
}

struct sa_mcg *sa_mcg_find(struct sa *sa, const uint8_t mgid[16])
{
	struct sa_mcg *g;

	if (!sa->mcgs.nb)
		return NULL;
	for (g = *bucket(&sa->mcgs, mgid); g; g = g->hnext)
		if (!memcmp(g->rec.mgid, mgid, 16))
			return g;
	return NULL;
}

/* Room for one more group: the list and, at one group a bucket, twice
 * the buckets (every group rehashed). */
static int grow(struct sa_mcgs *t)
{
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct sa_mcg **nv =
		    cap > MCG_MAX ? NULL : realloc(t->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = cap;
	}
	if (t->n < t->nb)
		return 0;
	uint32_t nb = t->nb ? t->nb * 2 : 64;
	struct sa_mcg **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	free(t->buckets);
	t->buckets = b;
	t->nb = nb;
	for (uint32_t i = 0; i < t->n; i++) {
		struct sa_mcg **h = bucket(t, t->v[i]->rec.mgid);

		t->v[i]->hnext = *h;
		*h = t->v[i];
	}
	return 0;
}

struct sa_mcg *sa_mcg_add(struct sa *sa, const struct sa_mcm_rec *params)
{
	struct sa_mcgs *t = &sa->mcgs;
	struct sa_mcg *g, **h;

	if (sa_mcg_find(sa, params->mgid)) {
		errno = EEXIST;
		return NULL;
	}
	if (grow(t) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		errno = ENOMEM;
		return NULL;
	}
	g->rec = *params;
	memset(g->rec.port_gid, 0, 16);
	g->rec.join_state = g->rec.proxy_join = 0;
	g->state = MCG_READY;
	g->tree_groups = 1;
	t->v[t->n++] = g;
	h = bucket(t, g->rec.mgid);
	g->hnext = *h;
	*h = g;
	return g;
}

void sa_mcg_remove(struct sa *sa, struct sa_mcg *g)
{
	struct sa_mcg **h;

	for (h = sa->mcgs.nb ? bucket(&sa->mcgs, g->rec.mgid) : NULL; h && *h;
	     h = &(*h)->hnext)
		if (*h == g) {
			*h = g->hnext;
			break;
		}
	for (uint32_t i = 0; i < sa->mcgs.n; i++) {
		if (sa->mcgs.v[i] != g)
			continue;
		memmove(&sa->mcgs.v[i], &sa->mcgs.v[i + 1],
			(sa->mcgs.n - i - 1) * sizeof(g));
		sa->mcgs.n--;
		free(g->members);
		free(g->midx);
		free(g);
		return;
	}
}

int sa_mcm_init(struct sa *sa)
{
	struct sa_mcm_rec b = {
	    .qkey = IPOIB_QKEY,
	    .mlid = IB_LID_MCAST_START,
	    .mtu_sel = SA_SEL_EQ,
	    .mtu = 0, /* fabric's, at query time */
	    .pkey = 0xFFFF,
	    .rate_sel = SA_SEL_EQ,
	    .rate = 0,
	    .life_sel = SA_SEL_EQ,
	    .life = sa->sm.subnet_timeout,
	    .scope = 2, /* link-local */
	};

	struct sa_mcg *g;

	memcpy(b.mgid, sa_ipoib_bcast_mgid, 16);
	g = sa_mcg_add(sa, &b);
	if (g)
		g->permanent = true;
	return g ? 0 : -ENOMEM;
}

void sa_mcm_free(struct sa *sa)
{
	while (sa->mcgs.n)
		sa_mcg_remove(sa, sa->mcgs.v[sa->mcgs.n - 1]);
	free(sa->mcgs.v);
	free(sa->mcgs.buckets);
	memset(&sa->mcgs, 0, sizeof(sa->mcgs));
}

/* A group created with MTU or rate 0 takes the fabric's: the smallest
 * MTU and rate of the linked CA ports (every member must be able to
 * use the group), 2048 / 10 Gb/s on an empty fabric.  Found once per
 * model: at 42,592 nodes the walk is ~10 ms, which every join paid. */
void sa_set_fabric(struct sa *sa, struct fabric *f)
{
	uint8_t m = 0xF, r = 0;

	sa->fabric = f;
	for (uint32_t i = 0; f && i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];

		for (uint8_t pn = 1; !node_is_switch(n) && pn <= n->nports;
		     pn++) {
			const struct ib_port *p = &n->ports[pn];
			uint8_t pr =
			    ib_rate_code(p->width_active, port_speed(p));

			if (!p->remote)
				continue;
			if (p->mtu_cap && p->mtu_cap < m)
				m = p->mtu_cap;
			if (!r || ib_rate_rank(pr) < ib_rate_rank(r))
				r = pr;
		}
	}
	sa->fab_mtu = m == 0xF ? 4 : m;
	sa->fab_rate = r ? r : 3;
}

void sa_fabric_mtu_rate(const struct sa *sa, uint8_t *mtu, uint8_t *rate)
{
	*mtu = sa->fab_mtu;
	*rate = sa->fab_rate;
}

static int mcm_group(struct sa_ctx *c, const struct sa_mcg *g)
{
	struct sa_mcm_rec r = g->rec;

	/* a group of a partition the requester is not in is not seen */
	if (!sa_may_see_pkey(c, g->rec.pkey))
		return 0;
	if (!r.mtu || !r.rate) {
		uint8_t m, rt;

		sa_fabric_mtu_rate(c->sa, &m, &rt);
		r.mtu = r.mtu ? r.mtu : m;
		r.rate = r.rate ? r.rate : rt;
	}
	/* A group without members still answers once (PortGID zero,
	 * JoinState 0), as OpenSM does for the broadcast group. */
	if (!g->n_members)
		return sa_emit(c, &r) < 0 ? -ENOMEM : 0;
	for (uint32_t i = 0; i < g->n_members && !sa_ctx_done(c); i++) {
		memcpy(r.port_gid, g->members[i].port_gid, 16);
		r.join_state = g->members[i].join_state;
		r.proxy_join = g->members[i].proxy;
		if (sa_emit(c, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A requester joins and leaves for its own port; for another (a proxy
 * join), when trusted, or as sa.proxy_join allows (IBA o15-0.1.2,
 * o15-0.1.14): a new membership from a port of the group's partition
 * (every port here), a change or leave only of one made by proxy. */
static int mcm_trust(struct sa_ctx *c, const struct sa_mcm_rec *req)
{
	struct sa_mcg *g;
	struct sa_mcg_member *m;

	if (c->trusted || sa_from_port(c, req->port_gid))
		return 0;
	if (c->sa->sm.proxy_trusted_only)
		return sa_trust_refuse(c, "MCMemberRecord", req->port_gid,
				       "a proxy join or leave needs the SM_Key "
				       "(sa.proxy_join: trusted)");
	g = sa_mcg_find(c->sa, req->mgid);
	m = g ? sa_mcg_member_find(g, req->port_gid) : NULL;
	if (!m || m->proxy)
		return 0;
	return sa_trust_refuse(c, "MCMemberRecord", req->port_gid,
			       "the port joined for itself: only it (or a "
			       "trusted requester) may change or leave its "
			       "membership");
}

static int mcm_set_del(struct sa_ctx *c)
{
	const struct sa_mcm_ops *ops = c->sa->mcm_ops;
	struct sa_mcm_rec req, resp;
	int st;

	if (!ops || !(c->hdr->method == SA_METHOD_SET ? ops->join : ops->leave))
		return SA_MAD_STATUS_RAW | MAD_STATUS_METHOD_ATTR_UNSUPP;
	sa_rec_decode(c->desc, c->req, c->desc->size, &req);
	if ((st = mcm_trust(c, &req)))
		return st;
	memset(&resp, 0, sizeof(resp));
	st = c->hdr->method == SA_METHOD_SET
		 ? ops->join(c->sa->mcm_ctx, c->sa, c->from, &req, c->mask,
			     &resp)
		 : ops->leave(c->sa->mcm_ctx, c->sa, c->from, &req, c->mask,
			      &resp);
	if (st)
		return st;
	return sa_append(c, &resp) < 0 ? -ENOMEM : 0;
}

int sa_mcm_handle(struct sa_ctx *c)
{
	if (c->hdr->method == SA_METHOD_SET ||
	    c->hdr->method == SA_METHOD_DELETE)
		return mcm_set_del(c);
	if (sa_has(c, SA_MCMR_MGID)) {
		const struct wire_field *f =
		    sa_rec_comp_field(c->desc, SA_MCMR_MGID);
		struct sa_mcg *g = sa_mcg_find(c->sa, c->req + f->bitoff / 8);
		return g ? mcm_group(c, g) : 0;
	}
	for (uint32_t i = 0; i < c->sa->mcgs.n && !sa_ctx_done(c); i++)
		if (mcm_group(c, c->sa->mcgs.v[i]) < 0)
			return -ENOMEM;
	return 0;
}

static int mcgstate_group(struct sa_ctx *c, const struct sa_mcg *g)
{
	struct sa_mcgstate_rec r = {
	    .mlid = g->rec.mlid,
	    .state = g->state,
	    .member_count = g->rec.member_count,
	    .joined_count = g->joined,
	    .left_count = g->left,
	    .tree_groups = g->tree_groups,
	    .tree_height = g->tree_height,
	};

	if (!sa_may_see_pkey(c, g->rec.pkey))
		return 0;
	memcpy(r.mgid, g->rec.mgid, 16);
	return sa_emit(c, &r) < 0 ? -ENOMEM : 0;
}

int sa_mcgstate_handle(struct sa_ctx *c)
{
	/* one group asked by MGID: a lookup, not a walk of every group */
	if (sa_has(c, SA_MCGS_MGID)) {
		const struct wire_field *f =
		    sa_rec_comp_field(c->desc, SA_MCGS_MGID);
		const struct sa_mcg *g =
		    sa_mcg_find(c->sa, c->req + f->bitoff / 8);

		return g ? mcgstate_group(c, g) : 0;
	}
	for (uint32_t i = 0; i < c->sa->mcgs.n && !sa_ctx_done(c); i++)
		if (mcgstate_group(c, c->sa->mcgs.v[i]) < 0)
			return -ENOMEM;
	return 0;
}

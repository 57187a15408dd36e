/* PathRecord: end points from SGID/SLID and DGID/DLID (all end ports when
 * absent), the path walked through the switches' LFTs as programmed, MTU
 * and rate the minimum over its links, selectors (greater, less, exactly,
 * best) applied as OpenSM applies them, P_Key a partition both ends share
 * (sa_pkey.c; no record when there is none), SL from the QoS policy
 * (path_sl) or, with the layered engine, from the layer its path is
 * legal in (path_layer), packet lifetime the subnet timeout (0 for a
 * port to itself). */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pkeys.h"
#include "lib/qos.h"
#include "mad/sa_path.h"
#include "mad/sa_portinfo.h"
#include "routing/unicast/layers.h"

static uint8_t port_mtu(const struct sa *sa, const struct ib_port *p)
{
	uint8_t pi[SA_PORTINFO_SIZE];

	if (p->mtu_cap)
		return p->mtu_cap;
	sa_portinfo_build(sa, p, pi);
	return (uint8_t)sa_pi_get(pi, SA_PI_MTUCAP, 4) ?: 4;
}

static uint8_t port_rate(const struct sa *sa, const struct ib_port *p)
{
	uint8_t pi[SA_PORTINFO_SIZE];

	if (p->width_active && p->speed_active)
		return ib_rate_code(p->width_active, port_speed(p));
	sa_portinfo_build(sa, p, pi);
	return ib_rate_code(
	    (uint8_t)sa_pi_get(pi, SA_PI_LWA, 8),
	    ib_speed_decode((uint8_t)sa_pi_get(pi, SA_PI_LSA, 4), 0, 0, 0));
}

struct walk {
	uint8_t mtu, rate;
	unsigned hops;
	struct layers_walk lw; /* with sa->layers: the layers still legal */
};

static void walk_port(const struct sa *sa, const struct ib_port *p,
		      struct walk *w)
{
	uint8_t m = port_mtu(sa, p), r = port_rate(sa, p);

	if (m < w->mtu)
		w->mtu = m;
	if (ib_rate_rank(r) < ib_rate_rank(w->rate))
		w->rate = r;
}

/* One switch-to-switch hop leaving port out, for the layers' SL walk. */
static void walk_layers(const struct sa *sa, const struct ib_port *out,
			struct walk *w)
{
	const struct ib_node *n = out->node;

	if (sa->layers && node_is_switch(n) && out->remote &&
	    node_is_switch(out->remote->node))
		layers_walk_hop(sa->layers, &w->lw, (uint32_t)n->sw_idx,
				out->num);
}

/* Follows the LFTs from src to the port owning dlid.  0, or -1 when the
 * path is broken (no link, LFT drop, loop). */
static int walk_path(const struct sa *sa, const struct ib_port *src,
		     const struct ib_port *dst, uint16_t dlid, struct walk *w)
{
	const struct ib_port *out = src;

	w->mtu = 0xF;
	w->rate = ib_rate_max();
	w->hops = 0;
	if (sa->layers)
		layers_walk_start(sa->layers, &w->lw);
	if (node_is_switch(src->node) || src == dst)
		walk_port(sa, src, w); /* switch port 0 limits like a link */
	if (src == dst)
		return 0;
	if (node_is_switch(src->node)) {
		const struct ib_node *sw = src->node;

		if (dlid >= sw->lft_size || sw->lft[dlid] == LFT_NO_PORT ||
		    sw->lft[dlid] == 0 || sw->lft[dlid] > sw->nports)
			return -1;
		out = &sw->ports[sw->lft[dlid]];
	}
	for (;;) {
		const struct ib_port *in = out->remote;
		const struct ib_node *n;

		if (!in || ++w->hops > IB_MAX_DR_HOPS)
			return -1;
		walk_port(sa, out, w);
		walk_layers(sa, out, w);
		walk_port(sa, in, w);
		n = in->node;
		if (in == dst || (node_is_switch(n) && &n->ports[0] == dst)) {
			if (in != dst)
				walk_port(sa, dst, w);
			return 0;
		}
		if (!node_is_switch(n) || dlid >= n->lft_size ||
		    n->lft[dlid] == LFT_NO_PORT || n->lft[dlid] == 0 ||
		    n->lft[dlid] > n->nports)
			return -1;
		out = &n->ports[n->lft[dlid]];
	}
}

/* Applies an MTU selector: the value to answer, or -1 if none fits. */
static int select_mtu(uint8_t sel, uint8_t want, uint8_t have)
{
	switch (sel) {
	case SA_SEL_GT:
		return have > want ? have : -1;
	case SA_SEL_LT:
		return have < want ? have : want > 1 ? want - 1 : -1;
	case SA_SEL_EQ:
		return have >= want ? want : -1;
	}
	return have;
}

static int select_rate(uint8_t sel, uint8_t want, uint8_t have)
{
	int w = ib_rate_rank(want), h = ib_rate_rank(have);

	if (sel != SA_SEL_BEST && w < 0)
		return -1;
	switch (sel) {
	case SA_SEL_GT:
		return h > w ? have : -1;
	case SA_SEL_LT:
		return h < w ? have : w > 0 ? ib_rate_at(w - 1) : -1;
	case SA_SEL_EQ:
		return h >= w ? want : -1;
	}
	return have;
}

static int select_life(uint8_t sel, uint8_t want, uint8_t have)
{
	switch (sel) {
	case SA_SEL_GT:
		return have > want ? have : -1;
	case SA_SEL_LT:
		return have < want ? have : -1;
	case SA_SEL_EQ:
		return have == want ? have : -1;
	}
	return have;
}

/* Selector of a value component: the request's when given, else
 * "exactly" for a bare value, else none (best). */
static uint8_t selector(const struct sa_ctx *c, unsigned sel_comp, uint8_t sel)
{
	return sa_has(c, sel_comp) ? sel : SA_SEL_EQ;
}

/* The path's SL: the first qos.classes rule the request matches, else
 * part_sl (the partition's SL, QOS_SL_NONE when it gives none), else
 * qos.default_sl (lib/qos.h).  A request naming an SL gets it, unless a
 * class pins another (then no path), as OpenSM answers.  -1: no path. */
static int path_sl(const struct sa_ctx *c, const struct sa_path_rec *q,
		   uint8_t part_sl)
{
	struct qos_path_req r = {
	    .has_sid = sa_has(c, SA_PR_SERVICEID_MSB),
	    .sid = q->service_id,
	    .has_pkey = sa_has(c, SA_PR_PKEY),
	    .pkey = q->pkey,
	    .has_qc = sa_has(c, SA_PR_QOS_CLASS),
	    .qc = q->qos_class,
	};
	bool pinned = false;
	uint8_t sl = c->sa->qos ? qos_path_sl(c->sa->qos, &r, part_sl, &pinned)
		     : part_sl != QOS_SL_NONE ? part_sl
					      : 0;

	if (!sa_has(c, SA_PR_SL))
		return sl;
	return pinned && q->sl != sl ? -1 : q->sl;
}

/* With layers: the SL of the path walked, 1 + the lowest layer it is
 * legal in when the routes use more than one layer (SL0 and its VL are
 * multicast's then), else 0; a request naming another SL gets no path,
 * since any other SL would put the path on a VL where it may close a
 * cycle.  -1: no path (no legal layer: the fabric changed under the
 * layers, and the next sweep routes again). */
static int path_layer(const struct sa_ctx *c, const struct sa_path_rec *q,
		      const struct walk *w)
{
	int l = layers_answer_sl(c->sa->layers, layers_walk_sl(&w->lw));

	if (l < 0)
		return -1;
	return sa_has(c, SA_PR_SL) && q->sl != l ? -1 : l;
}

/* Builds the record of one (src, dst) pair into r (preset with what the
 * answer echoes); q is the request.  1 if a path meets the request. */
static int build_pr(struct sa_ctx *c, const struct sa_path_rec *q,
		    const struct ib_port *src, uint16_t slid,
		    const struct ib_port *dst, uint16_t dlid,
		    struct sa_path_rec *r)
{
	struct sa *sa = c->sa;
	struct walk w, back;
	/* r->pkey is the path's partition: its own SL, if it gives one and
	 * QoS programs the SL2VL tables (as OpenSM: without them an SL may
	 * land on a VL the ports do not run) */
	int v =
	    sa->qos && sa->qos->enable ? pkey_plan_sl(sa->pkeys, r->pkey) : -1;

	if (walk_path(sa, src, dst, dlid, &w) < 0)
		return 0;
	if (sa->layers)
		v = path_layer(c, q, &w);
	else
		v = path_sl(c, q, v < 0 ? QOS_SL_NONE : (uint8_t)v);
	if (v < 0)
		return 0;
	r->sl = (uint8_t)v;
	if (sa_has(c, SA_PR_REVERSIBLE) && q->reversible &&
	    walk_path(sa, dst, src, slid, &back) < 0)
		return 0;
	sa_port_gid(sa, src, r->sgid);
	sa_port_gid(sa, dst, r->dgid);
	r->slid = slid;
	r->dlid = dlid;
	v = sa_has(c, SA_PR_MTU)
		? select_mtu(selector(c, SA_PR_MTU_SEL, q->mtu_sel), q->mtu,
			     w.mtu)
		: w.mtu;
	if (v < 0)
		return 0;
	r->mtu = (uint8_t)v;
	v = sa_has(c, SA_PR_RATE)
		? select_rate(selector(c, SA_PR_RATE_SEL, q->rate_sel), q->rate,
			      w.rate)
		: w.rate;
	if (v < 0)
		return 0;
	r->rate = (uint8_t)v;
	v = src == dst ? 0 : sa->sm.subnet_timeout;
	if (sa_has(c, SA_PR_LIFE))
		v = select_life(selector(c, SA_PR_LIFE_SEL, q->life_sel),
				q->life, (uint8_t)v);
	if (v < 0)
		return 0;
	r->life = (uint8_t)v;
	return 1;
}

/* One end of the path: a single port (and the LID to use), or every end
 * port when the request names neither GID nor LID. */
struct end {
	const struct ib_port *port;
	uint16_t lid;
	bool all;
};

/* 0, or 1 when the end names no port of this subnet (no records). */
static int resolve_end(struct sa_ctx *c, const uint8_t gid[16], unsigned gcomp,
		       uint16_t lid, unsigned lcomp, struct end *e)
{
	const struct ib_port *p = NULL;

	*e = (struct end){0};
	if (sa_has(c, gcomp))
		p = sa_port_by_gid(c->sa, gid);
	else if (sa_has(c, lcomp))
		p = fabric_port_by_lid(c->sa->fabric, lid);
	else {
		e->all = true;
		return 0;
	}
	if (!p || !p->lid)
		return 1;
	if (sa_has(c, lcomp) &&
	    (lid < p->lid || lid >= p->lid + (1u << p->lmc)))
		return 1;
	e->port = p;
	e->lid = sa_has(c, lcomp) ? lid : p->lid;
	return 0;
}

/* Requests we can never satisfy: raw paths. */
static bool unsatisfiable(const struct sa_ctx *c, const struct sa_path_rec *q)
{
	return sa_has(c, SA_PR_RAW) && q->raw_traffic;
}

/* The answer template: what the request asked for and the answer keeps. */
static void template_from(const struct sa_ctx *c, const struct sa_path_rec *q,
			  struct sa_path_rec *t)
{
	memset(t, 0, sizeof(*t));
	if (sa_has(c, SA_PR_SERVICEID_MSB) || sa_has(c, SA_PR_SERVICEID_LSB))
		t->service_id = q->service_id;
	if (sa_has(c, SA_PR_FLOWLABEL))
		t->flow_label = q->flow_label;
	if (sa_has(c, SA_PR_HOPLIMIT))
		t->hop_limit = q->hop_limit;
	if (sa_has(c, SA_PR_TCLASS))
		t->tclass = q->tclass;
	if (sa_has(c, SA_PR_QOS_CLASS))
		t->qos_class = q->qos_class;
	t->reversible = 1; /* LFT routes exist both ways in one subnet */
	t->mtu_sel = t->rate_sel = t->life_sel = SA_SEL_EQ;
}

static int pair(struct sa_ctx *c, const struct sa_path_rec *q,
		const struct sa_path_rec *t, const struct ib_port *s,
		uint16_t slid, const struct ib_port *d, uint16_t dlid)
{
	struct sa_path_rec r = *t;

	/* no shared partition, no path (and no word of one) */
	r.pkey = sa_path_pkey(c, s, d, sa_has(c, SA_PR_PKEY), q->pkey);
	if (!r.pkey || !build_pr(c, q, s, slid, d, dlid, &r))
		return 0;
	return sa_append(c, &r) < 0 ? -ENOMEM : 0;
}

/* All pairs, destinations outer and sources inner, in OpenSM's order. */
static int pairs(struct sa_ctx *c, const struct sa_path_rec *q,
		 const struct sa_path_rec *t, const struct end *se,
		 const struct end *de)
{
	struct ib_port **v = NULL;
	uint32_t n = 1, ns, nd;
	int e = 0;

	if (se->all || de->all) {
		v = sa_endports_sorted(c->sa->fabric, &n);
		if (!v)
			return -ENOMEM;
	}
	nd = de->all ? n : 1;
	ns = se->all ? n : 1;
	for (uint32_t i = 0; i < nd && !e && !sa_ctx_done(c); i++) {
		const struct ib_port *d = de->all ? v[i] : de->port;
		uint16_t dlid = de->all ? d->lid : de->lid;

		for (uint32_t j = 0; j < ns && !e && !sa_ctx_done(c); j++) {
			const struct ib_port *s = se->all ? v[j] : se->port;

			e = pair(c, q, t, s, se->all ? s->lid : se->lid, d,
				 dlid);
		}
	}
	free(v);
	return e;
}

int sa_path_handle(struct sa_ctx *c)
{
	struct sa_path_rec q, t;
	struct end se, de;

	sa_rec_decode(c->desc, c->req, c->desc->size, &q);
	/* The ServiceID is one value in two components: half of it is a
	 * malformed mask (as OpenSM answers it too). */
	if (sa_has(c, SA_PR_SERVICEID_MSB) != sa_has(c, SA_PR_SERVICEID_LSB))
		return SA_STATUS_INSUF_COMPS;
	if (unsatisfiable(c, &q))
		return 0;
	if (resolve_end(c, q.sgid, SA_PR_SGID, q.slid, SA_PR_SLID, &se) ||
	    resolve_end(c, q.dgid, SA_PR_DGID, q.dlid, SA_PR_DLID, &de))
		return 0;
	template_from(c, &q, &t);
	return pairs(c, &q, &t, &se, &de);
}

/* MultiPathRecord (sa_multipath.c): the paths of every (source,
 * destination) pair given, q and c->mask in PathRecord terms, at most
 * limit records (0: no limit). */
int sa_path_pairs_of(struct sa_ctx *c, const struct sa_path_rec *q,
		     const struct ib_port *const *src, uint32_t ns,
		     const struct ib_port *const *dst, uint32_t nd,
		     uint32_t limit)
{
	struct sa_path_rec t;
	int e = 0;

	if (sa_has(c, SA_PR_SERVICEID_MSB) != sa_has(c, SA_PR_SERVICEID_LSB))
		return SA_STATUS_INSUF_COMPS;
	if (unsatisfiable(c, q))
		return 0;
	template_from(c, q, &t);
	for (uint32_t i = 0; i < ns && !e; i++)
		for (uint32_t j = 0; j < nd && !e && (!limit || c->n < limit);
		     j++)
			e = pair(c, q, &t, src[i], src[i]->lid, dst[j],
				 dst[j]->lid);
	return e;
}

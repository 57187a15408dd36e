/* MultiPathRecord (SubnAdmGetMulti, IBA 15.2.5.20, o15-0.2.7): the
 * PathRecords of every pair of the SGIDs and DGIDs the request lists, by
 * the PathRecord rules of sa_path.c, partitions included (a pair sharing no
 * partition, or one the requester may not know of, has no record).  As
 * OpenSM 3.3.23 (osm_sa_multipath_record.c): SGIDCount and DGIDCount are
 * required (ERR_INSUFFICIENT_COMPONENTS); a GID of no port of this subnet,
 * or a multicast SGID, is ERR_INVALID_GID; at most NumbPath records (127
 * without it), the first pairs first; the answer is PathRecords.  Only the
 * GIDs that fit the request's first MAD are read (11), as OpenSM reads
 * them. */
#include "daemon/sa/sa_priv.h"

#include "mad/sa_multipath.h"
#include "mad/sa_path.h"

#define MPR_MAX_PATHS 127

/* The MultiPathRecord's constraints as a PathRecord request. */
static const struct {
	uint8_t mpr, pr;
} comps[] = {
    {SA_MPR_RAW, SA_PR_RAW},
    {SA_MPR_FLOWLABEL, SA_PR_FLOWLABEL},
    {SA_MPR_HOPLIMIT, SA_PR_HOPLIMIT},
    {SA_MPR_TCLASS, SA_PR_TCLASS},
    {SA_MPR_REVERSIBLE, SA_PR_REVERSIBLE},
    {SA_MPR_PKEY, SA_PR_PKEY},
    {SA_MPR_QOS_CLASS, SA_PR_QOS_CLASS},
    {SA_MPR_SL, SA_PR_SL},
    {SA_MPR_MTU_SEL, SA_PR_MTU_SEL},
    {SA_MPR_MTU, SA_PR_MTU},
    {SA_MPR_RATE_SEL, SA_PR_RATE_SEL},
    {SA_MPR_RATE, SA_PR_RATE},
    {SA_MPR_LIFE_SEL, SA_PR_LIFE_SEL},
    {SA_MPR_LIFE, SA_PR_LIFE},
    {SA_MPR_SERVICEID_MSB, SA_PR_SERVICEID_MSB},
    {SA_MPR_SERVICEID_LSB, SA_PR_SERVICEID_LSB},
};

static uint64_t as_path(uint64_t mpr_mask, const struct sa_multipath_rec *m,
			struct sa_path_rec *q)
{
	uint64_t mask = 0;

	for (unsigned i = 0; i < sizeof(comps) / sizeof(comps[0]); i++)
		if (mpr_mask >> comps[i].mpr & 1)
			mask |= SA_PR_CM(comps[i].pr);
	*q = (struct sa_path_rec){
	    .service_id = (uint64_t)m->service_id_msb << 56 | m->service_id_lsb,
	    .raw_traffic = m->raw_traffic,
	    .flow_label = m->flow_label,
	    .hop_limit = m->hop_limit,
	    .tclass = m->tclass,
	    .reversible = m->reversible,
	    .pkey = m->pkey,
	    .qos_class = m->qos_class,
	    .sl = m->sl,
	    .mtu_sel = m->mtu_sel,
	    .mtu = m->mtu,
	    .rate_sel = m->rate_sel,
	    .rate = m->rate,
	    .life_sel = m->life_sel,
	    .life = m->life,
	};
	return mask;
}

/* The ports of n GIDs at gids; an SA status. */
static int ports_of(const struct sa *sa, const uint8_t *gids, uint32_t n,
		    bool src, const struct ib_port **out)
{
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *g = gids + 16 * i;
		struct ib_port *p = sa_port_by_gid(sa, g);

		if ((src && g[0] == 0xff) || !p || !p->lid)
			return SA_STATUS_INVALID_GID;
		out[i] = p;
	}
	return 0;
}

int sa_multipath_handle(struct sa_ctx *c)
{
	const struct ib_port *ends[SA_MPR_MAX_GIDS];
	struct sa_multipath_rec m;
	struct sa_path_rec q;
	struct sa_ctx pc = *c;
	uint32_t ns, nd, room;
	int st;

	if (!sa_has(c, SA_MPR_SGID_COUNT) || !sa_has(c, SA_MPR_DGID_COUNT))
		return SA_STATUS_INSUF_COMPS;
	sa_rec_decode(c->desc, c->req, c->desc->size, &m);
	/* the GIDs in the request's first MAD, as many as its length holds */
	room = (uint32_t)((c->req_len - SA_MPR_HEAD) / 16);
	if (room > SA_MPR_MAX_GIDS)
		room = SA_MPR_MAX_GIDS;
	ns = m.sgid_count < room ? m.sgid_count : room;
	nd = m.dgid_count < room - ns ? m.dgid_count : room - ns;
	if (!ns || !nd)
		return SA_STATUS_REQ_INVALID;
	if (sa_has(c, SA_MPR_NUMBPATH) && !m.numb_path)
		return 0;
	st = ports_of(c->sa, c->req + SA_MPR_HEAD, ns, true, ends);
	if (!st)
		st = ports_of(c->sa, c->req + SA_MPR_HEAD + 16 * ns, nd, false,
			      ends + ns);
	if (st)
		return st;
	/* records are PathRecords, asked for in PathRecord terms */
	pc.desc = &sa_path_rec_desc;
	pc.mask = as_path(c->mask, &m, &q);
	st = sa_path_pairs_of(&pc, &q, ends, ns, ends + ns, nd,
			      sa_has(c, SA_MPR_NUMBPATH) ? m.numb_path
							 : MPR_MAX_PATHS);
	c->n = pc.n;
	return st;
}

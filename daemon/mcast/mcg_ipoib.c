/* The IPoIB broadcast groups of the configured partitions (RFC 4391):
 * ff12:401b:PPPP::ffff:ffff, P the partition's P_Key with the full bit,
 * Q_Key 0x0B1B, link-local, with the partition's MTU, rate and SL (0 for
 * auto: the fabric's smallest, taken when answered).  A group exists while
 * its partition says ipoib: true, without members too (MLID 0xC000 until
 * the first join routes it, as OpenSM shows it).  Applied at start (after
 * the state file was read) and on each reload: a new partition's group is
 * made, a removed one's group goes when it has no member left, and a
 * changed MTU, rate or SL applies at once to a group without members, or
 * else at the first reload after they have left (members joined with the
 * old ones). */
#include <inttypes.h>
#include <string.h>

#include "daemon/core/sm.h"
#include "daemon/mcast/mcg_priv.h"
#include "lib/log.h"
#include "lib/pkeys.h"
#include "mad/sa_mad.h"
#include "routing/mcast/mcast.h"

#define IPOIB_QKEY 0x0B1B

static void ipoib_mgid(uint16_t pkey, uint8_t mgid[16])
{
	static const uint8_t tmpl[16] = {0xff, 0x12, 0x40, 0x1b, 0, 0,
					 0,    0,    0,	   0,	 0, 0,
					 0xff, 0xff, 0xff, 0xff};

	memcpy(mgid, tmpl, 16);
	sa_put16(mgid + 4, pkey | PKEY_FULL_BIT);
}

static bool is_ipoib_mgid(const uint8_t mgid[16])
{
	uint8_t m[16];

	ipoib_mgid(sa_get16(mgid + 4), m);
	return !memcmp(m, mgid, 16);
}

static void params_of(const struct mcg_mgr *mgr, const struct cfg_partition *p,
		      struct sa_mcm_rec *r)
{
	memset(r, 0, sizeof(*r));
	ipoib_mgid((uint16_t)p->pkey, r->mgid);
	r->qkey = IPOIB_QKEY;
	r->pkey = (uint16_t)(p->pkey | PKEY_FULL_BIT);
	r->mtu = (uint8_t)p->mtu;
	r->rate = (uint8_t)p->rate;
	/* auto, or QoS off (sa_path.c says why): the SL every path gets
	 * where nothing else says */
	r->sl = (uint8_t)(p->sl == CFG_SL_AUTO || !mgr->sm->qos.enable
			      ? mgr->sm->qos.default_sl
			      : p->sl);
	r->mtu_sel = r->rate_sel = r->life_sel = SA_SEL_EQ;
	r->life = mgr->sa->sm.subnet_timeout;
	r->scope = 2;
}

static bool same_params(const struct sa_mcm_rec *a, const struct sa_mcm_rec *b)
{
	return a->qkey == b->qkey && a->pkey == b->pkey && a->mtu == b->mtu &&
	       a->rate == b->rate && a->sl == b->sl;
}

static void apply_one(struct mcg_mgr *mgr, const struct cfg_partition *p)
{
	struct sa_mcm_rec r;
	struct mcg *g;
	char s[48];

	params_of(mgr, p, &r);
	mcast_mgid_str(r.mgid, s, sizeof(s));
	g = mcg_find(mgr, r.mgid);
	if (!g) {
		g = mcg_create(mgr, &r);
		if (!g) {
			log_err("partition %s: cannot create its IPoIB group "
				"%s: out of memory",
				p->name, s);
			return;
		}
		g->sa->rec.mlid = IB_LID_MCAST_START;
		log_info("partition %s: IPoIB broadcast group %s", p->name, s);
	} else if (!same_params(&g->sa->rec, &r)) {
		if (g->sa->n_members)
			log_warn("partition %s: IPoIB group %s has members; "
				 "its new MTU, rate or SL apply at the first "
				 "reload after they have left",
				 p->name, s);
		else {
			r.mlid = g->sa->rec.mlid;
			g->sa->rec = r;
		}
	}
	g->sa->permanent = true;
}

static const struct cfg_partition *configured(const struct cfg_table *t,
					      const uint8_t mgid[16])
{
	const struct cfg_partition *v = t->v;

	for (uint32_t i = 0; i < t->n; i++)
		if (v[i].ipoib &&
		    sa_get16(mgid + 4) == (v[i].pkey | PKEY_FULL_BIT))
			return &v[i];
	return NULL;
}

void mcg_ipoib_apply(struct mcg_mgr *mgr)
{
	const struct cfg_table *t = &mgr->sm->cfg.partitions;
	const struct cfg_partition *v = t->v;

	for (uint32_t i = 0; i < t->n; i++)
		if (v[i].ipoib)
			apply_one(mgr, &v[i]);
	for (uint32_t i = mgr->n; i-- > 0;) {
		struct mcg *g = mgr->v[i];
		if (!g->sa->permanent || !is_ipoib_mgid(g->sa->rec.mgid) ||
		    configured(t, g->sa->rec.mgid))
			continue;
		g->sa->permanent = false;
		if (!g->sa->n_members)
			mcg_destroy(g, "its partition's ipoib is off");
	}
	mcg_persist_dirty(mgr);
}

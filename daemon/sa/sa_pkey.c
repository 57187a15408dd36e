/* Partitions in the SA (docs/design.md §1.2): who the requester is, which
 * P_Key a path carries, and who may see a record of which partition.  The
 * rules are OpenSM 3.3.23's (osm_sa_path_record.c, osm_sa_mcmember_record.c,
 * osm_sa_service_record.c): a PathRecord needs the requester to share a
 * partition with both ends and the ends to share one, and carries the
 * lowest shared P_Key (or the one asked for); a port sees a multicast group
 * or a ServiceRecord only if it holds its P_Key.  The membership is the
 * plan of sa->pkeys (NULL: everyone a full member of the default
 * partition), not what the tables read back, so an answer does not depend
 * on which SMPs are still in flight. */
#include "daemon/sa/sa_priv.h"

#include "lib/pkeys.h"

const struct ib_port *sa_requester(const struct sa *sa,
				   const struct sa_peer *from)
{
	return from ? fabric_port_by_lid(sa->fabric, from->lid) : NULL;
}

bool sa_holds_pkey(const struct sa *sa, const struct ib_port *p, uint16_t pkey)
{
	if (!sa->pkeys)
		return true;
	return p && pkey_plan_entry(sa->pkeys, p, pkey) != 0;
}

bool sa_share_pkey(const struct sa *sa, const struct ib_port *a,
		   const struct ib_port *b)
{
	if (!sa->pkeys || (a && a == b))
		return true; /* a port shares with itself, as in OpenSM */
	return a && b && pkey_plan_common(sa->pkeys, a, b) != 0;
}

uint16_t sa_path_pkey(const struct sa_ctx *c, const struct ib_port *src,
		      const struct ib_port *dst, bool given, uint16_t want)
{
	const struct sa *sa = c->sa;
	const struct ib_port *rq;

	if (!sa->pkeys)
		return !given || pkey_base(want) == PKEY_DEFAULT ? 0xFFFF : 0;
	rq = sa_requester(sa, c->from);
	if (!sa_share_pkey(sa, rq, src) || !sa_share_pkey(sa, rq, dst))
		return 0;
	if (given)
		return pkey_plan_share_this(sa->pkeys, src, dst, want) ? want
								       : 0;
	return pkey_plan_common(sa->pkeys, src, dst);
}

bool sa_may_see_pkey(const struct sa_ctx *c, uint16_t pkey)
{
	if (!c->sa->pkeys)
		return true;
	return sa_holds_pkey(c->sa, sa_requester(c->sa, c->from), pkey);
}

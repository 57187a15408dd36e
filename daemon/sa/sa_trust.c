/* Who may change which SA records (docs/design.md §3.11): a requester
 * sets and deletes its own port's MCMemberRecords and ServiceRecords; a
 * trusted requester (its SA header carries the SM's SM_Key) anyone's;
 * another port joins or leaves for a port (a proxy join) as
 * sa.proxy_join allows: with "partition", as the IBA allows it (o15-0.1.2,
 * o15-0.1.14): a new membership from any port of the group's partition,
 * and a later change or leave of a membership only when it was made as a
 * proxy join; with "trusted", never.  Every port holds the default
 * partition here, so "partition" admits every port of the subnet.  The
 * MCMemberRecord rule is in sa_mcm.c, on these primitives. */
#include "daemon/sa/sa_priv.h"

#include <inttypes.h>

int sa_trust_refuse(struct sa_ctx *c, const char *rec, const uint8_t gid[16],
		    const char *why)
{
	c->sa->stats.untrusted++;
	if (log_ratelimit_ok(&c->sa->drop_rl))
		log_warn("SA: %s %s for port 0x%016" PRIx64 " from LID %u "
			 "refused (ERR_REQ_INVALID): %s",
			 sa_method_name(c->hdr->method), rec, sa_get64(gid + 8),
			 c->from ? c->from->lid : 0, why);
	return SA_STATUS_REQ_INVALID;
}

bool sa_from_port(const struct sa_ctx *c, const uint8_t gid[16])
{
	const struct ib_port *p = sa_port_by_gid(c->sa, gid);

	return p && c->from &&
	       p == fabric_port_by_lid(c->sa->fabric, c->from->lid);
}

int sa_trust_service(struct sa_ctx *c, const uint8_t gid[16])
{
	if (c->trusted || sa_from_port(c, gid))
		return 0;
	return sa_trust_refuse(c, "ServiceRecord", gid,
			       "the ServiceGID is not the requester's port and "
			       "its SM_Key is not the SM's");
}

/* Standard groups: a member added to a routed group extends its tree
 * inside the group's own color (placeholder until implemented). */
#include <errno.h>

#include "routing/mcast.h"

int mcast_member_add(struct mc_ctx *c, uint32_t gid, struct ib_port *m)
{
	(void)c;
	(void)gid;
	(void)m;
	return -ENOSYS;
}

/* Multicast verification from the MFT entries alone (placeholder). */
#include <errno.h>
#include <stdio.h>

#include "routing/mcast.h"

int mcast_verify(const struct mc_ctx *c, char *err, size_t errlen)
{
	(void)c;
	snprintf(err, errlen, "mcast_verify: not implemented yet");
	return -ENOSYS;
}

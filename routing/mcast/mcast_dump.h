/* Multicast dump formats shared by ibsmroute and ibsmd (docs/design.md §4.4):
 * mfts.dump (OpenSM's opensm.mcfdbs, through lib/dump.h) and the lines of
 * mcgroups.dump.  Moved here from tools/ibsmroute/mcast.c so that the
 * daemon writes the very same format. */
#ifndef IBSM_MCAST_DUMP_H
#define IBSM_MCAST_DUMP_H

#include <stdio.h>

#include "routing/mcast/mcast.h"

/* dir/mfts.dump from the context's per-switch MFT entries.  0 or -errno. */
int mcast_dump_mfts(const char *dir, const struct mc_ctx *c,
		    const struct fabric *f);
/* One mcgroups.dump line of routed group gid, with the given state name
 * (NULL: "Ready"); members are the group's engine members. */
void mcast_dump_group_line(FILE *fp, const struct mc_ctx *c,
			   const struct fabric *f, uint32_t gid,
			   const char *state);
/* dir/mcgroups.dump of every routed group, all "Ready" (ibsmroute).
 * Written to a temporary file and renamed.  0 or -errno. */
int mcast_dump_groups(const char *dir, const struct mc_ctx *c,
		      const struct fabric *f);
/* MGID in the usual IPv6 text form into s (>= 46 bytes). */
void mcast_mgid_str(const uint8_t mgid[16], char *s, size_t len);

#endif

/* The SA's second face (daemon/sa), the one narrow interface between the
 * SA and the multicast manager (daemon/mcast).  The SA's multicast group
 * table: what MCMemberRecord and MCGStateRecord queries read.  The multicast
 * manager (joins, leaves, MemberCount state machine, routing) fills it through
 * this API and answers MCMemberRecord Set/Delete through sa->mcm_ops; without
 * ops those methods answer "method/attribute not supported". */
#ifndef IBSM_SA_MCM_SERVER_H
#define IBSM_SA_MCM_SERVER_H

#include "daemon/sa/sa_server.h"
#include "mad/sa_mcm.h"

struct sa_mcg_member {
	uint8_t port_gid[16];
	uint8_t join_state; /* SA_JOIN_* bits */
	uint8_t proxy;
};

struct sa_mcg {
	/* Group parameters as MCMemberRecord carries them (mgid, qkey,
	 * mlid, mtu, tclass, pkey, rate, life, sl, flow label, hop limit,
	 * scope, member_count); port_gid/join_state/proxy_join unused. */
	struct sa_mcm_rec rec;
	uint8_t state; /* enum sa_mcg_state */
	uint16_t joined, left, tree_groups;
	uint8_t tree_height;
	/* An IPoIB broadcast group of a configured partition: it stays
	 * (MLID 0xC000, no members) when its last member leaves. */
	bool permanent;
	struct sa_mcg_member *members;
	uint32_t n_members, cap_members;
	uint32_t *midx;	   /* a large group's members by GID (position + 1,
			      0 empty; sa_mcm_members.c), NULL when small */
	uint32_t midx_cap; /* a power of two */
	struct sa_mcg *hnext; /* the table's MGID hash chain */
	void *owner;	      /* the multicast manager's record of it */
};

/* Set/Delete of MCMemberRecord (joins and leaves), provided by the
 * multicast manager.  Each returns an SA status (enum sa_status) and
 * fills resp on success. */
struct sa_mcm_ops {
	int (*join)(void *ctx, struct sa *sa, const struct sa_peer *from,
		    const struct sa_mcm_rec *req, uint64_t comp_mask,
		    struct sa_mcm_rec *resp);
	int (*leave)(void *ctx, struct sa *sa, const struct sa_peer *from,
		     const struct sa_mcm_rec *req, uint64_t comp_mask,
		     struct sa_mcm_rec *resp);
};

extern const uint8_t sa_ipoib_bcast_mgid[16];

/* The group with this MGID, or NULL; a hash lookup, whatever the number
 * of groups. */
struct sa_mcg *sa_mcg_find(struct sa *sa, const uint8_t mgid[16]);
/* The MTU and rate a group created with 0 takes: the smallest of the
 * linked CA ports (every member must be able to use the group), as
 * sa_set_fabric() found them when the model came: a join never walks
 * the fabric. */
void sa_fabric_mtu_rate(const struct sa *sa, uint8_t *mtu, uint8_t *rate);
/* Adds a group (params->mgid must be new); NULL with errno EEXIST/ENOMEM. */
struct sa_mcg *sa_mcg_add(struct sa *sa, const struct sa_mcm_rec *params);
void sa_mcg_remove(struct sa *sa, struct sa_mcg *g);
/* Adds or updates a member (join_state replaces the old one).  A member
 * is found by a lookup, whatever the group's size (the IPoIB broadcast
 * group has every host). */
int sa_mcg_member_set(struct sa_mcg *g, const uint8_t port_gid[16],
		      uint8_t join_state, uint8_t proxy);
/* Removes a member; 0, or -ENOENT. */
int sa_mcg_member_del(struct sa_mcg *g, const uint8_t port_gid[16]);
/* Every member goes (a group record read again from the state file). */
void sa_mcg_members_clear(struct sa_mcg *g);
struct sa_mcg_member *sa_mcg_member_find(struct sa_mcg *g,
					 const uint8_t port_gid[16]);

/* The partition rules a join is checked by (sa_pkey.c; without sa->pkeys
 * every port is a full member of the default partition). */
/* The port the request came from (its LID), or NULL. */
const struct ib_port *sa_requester(const struct sa *sa,
				   const struct sa_peer *from);
/* p holds pkey (full or limited). */
bool sa_holds_pkey(const struct sa *sa, const struct ib_port *p, uint16_t pkey);
/* a and b share a partition (one of them a full member). */
bool sa_share_pkey(const struct sa *sa, const struct ib_port *a,
		   const struct ib_port *b);

#endif

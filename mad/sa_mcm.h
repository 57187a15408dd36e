/* Multicast records: MCMemberRecord (SA attribute 0x0038, IBA 15.2.5.17)
 * with the MemberCount extension (docs/design.md §4.1: bytes 50-51, component 18),
 * and MCGStateRecord (0xFF38, docs/design.md §4.2). */
#ifndef IBSM_SA_MCM_H
#define IBSM_SA_MCM_H

#include "mad/sa_wire.h"

enum sa_mcmr_comp {
	SA_MCMR_MGID = 0,
	SA_MCMR_PORT_GID,
	SA_MCMR_QKEY,
	SA_MCMR_MLID,
	SA_MCMR_MTU_SEL,
	SA_MCMR_MTU,
	SA_MCMR_TCLASS,
	SA_MCMR_PKEY,
	SA_MCMR_RATE_SEL,
	SA_MCMR_RATE,
	SA_MCMR_LIFE_SEL,
	SA_MCMR_LIFE,
	SA_MCMR_SL,
	SA_MCMR_FLOW,
	SA_MCMR_HOP,
	SA_MCMR_SCOPE,
	SA_MCMR_JOIN_STATE,
	SA_MCMR_PROXY,
	SA_MCMR_MEMBER_COUNT,
	SA_MCMR_NCOMPS
};

/* JoinState bits */
enum {
	SA_JOIN_FULL = 1,
	SA_JOIN_NON = 2,
	SA_JOIN_SENDONLY_NON = 4,
	SA_JOIN_SENDONLY_FULL = 8
};

struct sa_mcm_rec {
	uint8_t mgid[16], port_gid[16];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_sel, mtu, tclass;
	uint16_t pkey;
	uint8_t rate_sel, rate, life_sel, life, sl;
	uint32_t flow_label;
	uint8_t hop_limit, scope, join_state, proxy_join;
	uint16_t member_count;
};

enum {
	SA_MCGS_MGID = 0,
	SA_MCGS_MLID = 1,
	SA_MCGS_STATE = 2,
	SA_MCGS_NCOMPS = 3
};

enum sa_mcg_state {
	MCG_RECEIVING_JOIN_REQ = 1,
	MCG_COMPUTING_ROUTES = 2,
	MCG_READY = 3,
	MCG_RECEIVING_LEAVE_REQ = 4,
	MCG_DESTROYING = 5,
};

struct sa_mcgstate_rec {
	uint8_t mgid[16];
	uint16_t mlid;
	uint8_t state;
	uint16_t member_count, joined_count, left_count, tree_groups;
	uint8_t tree_height;
};

extern const struct sa_rec_desc sa_mcm_rec_desc;
extern const struct sa_rec_desc sa_mcgstate_rec_desc;

#endif

/* MCMemberRecord and MCGStateRecord layout tables. */
#include "mad/sa_mcm.h"
#include "mad/sa_mad.h"

#define R struct sa_mcm_rec
static const struct wire_field mcm_fields[] = {
    SA_F(R, mgid, 0, 128, SA_MCMR_MGID),
    SA_F(R, port_gid, 128, 128, SA_MCMR_PORT_GID),
    SA_F(R, qkey, 256, 32, SA_MCMR_QKEY),
    SA_F(R, mlid, 288, 16, SA_MCMR_MLID),
    SA_F(R, mtu_sel, 304, 2, SA_MCMR_MTU_SEL),
    SA_F(R, mtu, 306, 6, SA_MCMR_MTU),
    SA_F(R, tclass, 312, 8, SA_MCMR_TCLASS),
    SA_F(R, pkey, 320, 16, SA_MCMR_PKEY),
    SA_F(R, rate_sel, 336, 2, SA_MCMR_RATE_SEL),
    SA_F(R, rate, 338, 6, SA_MCMR_RATE),
    SA_F(R, life_sel, 344, 2, SA_MCMR_LIFE_SEL),
    SA_F(R, life, 346, 6, SA_MCMR_LIFE),
    SA_F(R, sl, 352, 4, SA_MCMR_SL),
    SA_F(R, flow_label, 356, 20, SA_MCMR_FLOW),
    SA_F(R, hop_limit, 376, 8, SA_MCMR_HOP),
    SA_F(R, scope, 384, 4, SA_MCMR_SCOPE),
    SA_F(R, join_state, 388, 4, SA_MCMR_JOIN_STATE),
    SA_F(R, proxy_join, 392, 1, SA_MCMR_PROXY),
    SA_F(R, member_count, 400, 16, SA_MCMR_MEMBER_COUNT),
};
#undef R
const struct sa_rec_desc sa_mcm_rec_desc = {
    .name = "MCMemberRecord",
    .attr_id = SA_ATTR_MCMEMBER_REC,
    .size = 56,
    .n_comps = SA_MCMR_NCOMPS,
    .n_fields = sizeof(mcm_fields) / sizeof(mcm_fields[0]),
    .fields = mcm_fields,
};

#define S struct sa_mcgstate_rec
static const struct wire_field mcgs_fields[] = {
    SA_F(S, mgid, 0, 128, SA_MCGS_MGID),
    SA_F(S, mlid, 128, 16, SA_MCGS_MLID),
    SA_F(S, state, 144, 8, SA_MCGS_STATE),
    SA_F(S, member_count, 160, 16, SA_NO_COMP),
    SA_F(S, joined_count, 176, 16, SA_NO_COMP),
    SA_F(S, left_count, 192, 16, SA_NO_COMP),
    SA_F(S, tree_groups, 208, 16, SA_NO_COMP),
    SA_F(S, tree_height, 224, 8, SA_NO_COMP),
};
#undef S
const struct sa_rec_desc sa_mcgstate_rec_desc = {
    .name = "MCGStateRecord",
    .attr_id = SA_ATTR_MCGSTATE_REC,
    .size = 32,
    .n_comps = SA_MCGS_NCOMPS,
    .n_fields = sizeof(mcgs_fields) / sizeof(mcgs_fields[0]),
    .fields = mcgs_fields,
};

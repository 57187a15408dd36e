/* SMInfoRecord layout table. */
#include "mad/sa_sminfo.h"
#include "mad/sa_mad.h"

#define R struct sa_sminfo_rec
static const struct wire_field fields[] = {
    SA_F(R, lid, 0, 16, SA_SMIR_LID),
    SA_W(16, 16, SA_SMIR_RESV0),
    SA_F(R, guid, 32, 64, SA_SMIR_GUID),
    SA_F(R, sm_key, 96, 64, SA_SMIR_SMKEY),
    SA_F(R, act_count, 160, 32, SA_SMIR_ACTCOUNT),
    SA_F(R, priority, 192, 4, SA_SMIR_PRIORITY),
    SA_F(R, state, 196, 4, SA_SMIR_STATE),
};
#undef R
const struct sa_rec_desc sa_sminfo_rec_desc = {
    .name = "SMInfoRecord",
    .attr_id = SA_ATTR_SMINFO_REC,
    .size = 25,
    .n_comps = 7,
    .n_fields = 7,
    .fields = fields,
};

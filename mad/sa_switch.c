/* Layout tables of the switch table records. */
#include "mad/sa_switch.h"
#include "mad/sa_mad.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct wire_field swir_fields[] = {
    SA_F(struct sa_switchinfo_rec, lid, 0, 16, SA_SWIR_LID),
    SA_W(16, 16, SA_SWIR_RESV1),
    SA_F(struct sa_switchinfo_rec, switch_info, 32, 160, SA_NO_COMP),
};
const struct sa_rec_desc sa_switchinfo_rec_desc = {
    .name = "SwitchInfoRecord",
    .attr_id = SA_ATTR_SWITCHINFO_REC,
    .size = 24,
    .n_comps = 2,
    .n_fields = N(swir_fields),
    .fields = swir_fields,
};

static const struct wire_field lftr_fields[] = {
    SA_F(struct sa_lft_rec, lid, 0, 16, SA_LFTR_LID),
    SA_F(struct sa_lft_rec, block, 16, 16, SA_LFTR_BLOCK),
    SA_F(struct sa_lft_rec, lft, 64, 512, SA_NO_COMP),
};
const struct sa_rec_desc sa_lft_rec_desc = {
    .name = "LinearForwardingTableRecord",
    .attr_id = SA_ATTR_LFT_REC,
    .size = 72,
    .n_comps = 2,
    .n_fields = N(lftr_fields),
    .fields = lftr_fields,
};

static const struct wire_field mftr_fields[] = {
    SA_F(struct sa_mft_rec, lid, 0, 16, SA_MFTR_LID),
    SA_F(struct sa_mft_rec, position, 16, 4, SA_MFTR_POSITION),
    SA_W(20, 3, SA_MFTR_RESV1),
    SA_F(struct sa_mft_rec, block, 23, 9, SA_MFTR_BLOCK),
    SA_W(32, 32, SA_MFTR_RESV2),
    SA_F(struct sa_mft_rec, mft, 64, 512, SA_NO_COMP),
};
const struct sa_rec_desc sa_mft_rec_desc = {
    .name = "MulticastForwardingTableRecord",
    .attr_id = SA_ATTR_MFT_REC,
    .size = 72,
    .n_comps = 5,
    .n_fields = N(mftr_fields),
    .fields = mftr_fields,
};

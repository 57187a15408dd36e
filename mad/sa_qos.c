/* Layout tables of the QoS table records. */
#include "mad/sa_qos.h"
#include "mad/sa_mad.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct wire_field slvl_fields[] = {
    SA_F(struct sa_sl2vl_rec, lid, 0, 16, SA_SLVL_LID),
    SA_F(struct sa_sl2vl_rec, in_port, 16, 8, SA_SLVL_IN),
    SA_F(struct sa_sl2vl_rec, out_port, 24, 8, SA_SLVL_OUT),
    SA_W(32, 32, SA_SLVL_RESV),
    SA_F(struct sa_sl2vl_rec, table, 64, 64, SA_NO_COMP),
};
const struct sa_rec_desc sa_sl2vl_rec_desc = {
    .name = "SLtoVLMappingTableRecord",
    .attr_id = SA_ATTR_SL2VL_REC,
    .size = 16,
    .n_comps = 4,
    .n_fields = N(slvl_fields),
    .fields = slvl_fields,
};

static const struct wire_field vla_fields[] = {
    SA_F(struct sa_vlarb_rec, lid, 0, 16, SA_VLA_LID),
    SA_F(struct sa_vlarb_rec, out_port, 16, 8, SA_VLA_OUT),
    SA_F(struct sa_vlarb_rec, block, 24, 8, SA_VLA_BLOCK),
    SA_W(32, 32, SA_VLA_RESV),
    SA_F(struct sa_vlarb_rec, table, 64, 512, SA_NO_COMP),
};
const struct sa_rec_desc sa_vlarb_rec_desc = {
    .name = "VLArbitrationTableRecord",
    .attr_id = SA_ATTR_VLARB_REC,
    .size = 72,
    .n_comps = 4,
    .n_fields = N(vla_fields),
    .fields = vla_fields,
};

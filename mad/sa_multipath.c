/* MultiPathRecord head layout table (sa_multipath.h); bit offsets as
 * OpenSM's ib_multipath_rec_t lays the record out. */
#include "mad/sa_multipath.h"
#include "mad/sa_mad.h"

#define R struct sa_multipath_rec
static const struct wire_field fields[] = {
    SA_F(R, raw_traffic, 0, 1, SA_MPR_RAW),
    SA_W(1, 3, SA_MPR_RESV0),
    SA_F(R, flow_label, 4, 20, SA_MPR_FLOWLABEL),
    SA_F(R, hop_limit, 24, 8, SA_MPR_HOPLIMIT),
    SA_F(R, tclass, 32, 8, SA_MPR_TCLASS),
    SA_F(R, reversible, 40, 1, SA_MPR_REVERSIBLE),
    SA_F(R, numb_path, 41, 7, SA_MPR_NUMBPATH),
    SA_F(R, pkey, 48, 16, SA_MPR_PKEY),
    SA_F(R, qos_class, 64, 12, SA_MPR_QOS_CLASS),
    SA_F(R, sl, 76, 4, SA_MPR_SL),
    SA_F(R, mtu_sel, 80, 2, SA_MPR_MTU_SEL),
    SA_F(R, mtu, 82, 6, SA_MPR_MTU),
    SA_F(R, rate_sel, 88, 2, SA_MPR_RATE_SEL),
    SA_F(R, rate, 90, 6, SA_MPR_RATE),
    SA_F(R, life_sel, 96, 2, SA_MPR_LIFE_SEL),
    SA_F(R, life, 98, 6, SA_MPR_LIFE),
    SA_F(R, service_id_msb, 104, 8, SA_MPR_SERVICEID_MSB),
    SA_F(R, indep_sel, 112, 2, SA_MPR_INDEP_SEL),
    SA_W(114, 6, SA_MPR_RESV3),
    SA_F(R, sgid_count, 120, 8, SA_MPR_SGID_COUNT),
    SA_F(R, dgid_count, 128, 8, SA_MPR_DGID_COUNT),
    SA_F(R, service_id_lsb, 136, 56, SA_MPR_SERVICEID_LSB),
};
#undef R

const struct sa_rec_desc sa_multipath_rec_desc = {
    .name = "MultiPathRecord",
    .attr_id = SA_ATTR_MULTIPATH_REC,
    .size = SA_MPR_HEAD,
    .n_comps = SA_MPR_NCOMPS,
    .n_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
};

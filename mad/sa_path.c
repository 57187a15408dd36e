/* PathRecord layout table. */
#include "mad/sa_path.h"
#include "mad/sa_mad.h"

#define R struct sa_path_rec
static const struct wire_field fields[] = {
    SA_W(0, 32, SA_PR_SERVICEID_MSB),
    SA_W(32, 32, SA_PR_SERVICEID_LSB),
    SA_F(R, service_id, 0, 64, SA_NO_COMP),
    SA_F(R, dgid, 64, 128, SA_PR_DGID),
    SA_F(R, sgid, 192, 128, SA_PR_SGID),
    SA_F(R, dlid, 320, 16, SA_PR_DLID),
    SA_F(R, slid, 336, 16, SA_PR_SLID),
    SA_F(R, raw_traffic, 352, 1, SA_PR_RAW),
    SA_W(353, 3, SA_PR_RESV0),
    SA_F(R, flow_label, 356, 20, SA_PR_FLOWLABEL),
    SA_F(R, hop_limit, 376, 8, SA_PR_HOPLIMIT),
    SA_F(R, tclass, 384, 8, SA_PR_TCLASS),
    SA_F(R, reversible, 392, 1, SA_PR_REVERSIBLE),
    SA_F(R, numb_path, 393, 7, SA_PR_NUMBPATH),
    SA_F(R, pkey, 400, 16, SA_PR_PKEY),
    SA_F(R, qos_class, 416, 12, SA_PR_QOS_CLASS),
    SA_F(R, sl, 428, 4, SA_PR_SL),
    SA_F(R, mtu_sel, 432, 2, SA_PR_MTU_SEL),
    SA_F(R, mtu, 434, 6, SA_PR_MTU),
    SA_F(R, rate_sel, 440, 2, SA_PR_RATE_SEL),
    SA_F(R, rate, 442, 6, SA_PR_RATE),
    SA_F(R, life_sel, 448, 2, SA_PR_LIFE_SEL),
    SA_F(R, life, 450, 6, SA_PR_LIFE),
    SA_F(R, preference, 456, 8, SA_PR_PREFERENCE),
};
#undef R
const struct sa_rec_desc sa_path_rec_desc = {
    .name = "PathRecord",
    .attr_id = SA_ATTR_PATH_REC,
    .size = 64,
    .n_comps = SA_PR_NCOMPS,
    .n_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
};

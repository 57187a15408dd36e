/* InformInfo, InformInfoRecord and Notice layout tables (IBA 13.4.8.2,
 * 13.4.8.3, 15.2.5.12). */
#include "mad/sa_inform.h"
#include "mad/sa_mad.h"

/* InformInfo's fields at bit offset o (0 alone, 192 in the record), with
 * component numbers from c. */
#define II(T, m, o, c)                                                         \
	SA_F(T, m gid, (o) + 0, 128, (c) + SA_II_GID),                         \
	    SA_F(T, m lid_begin, (o) + 128, 16, (c) + SA_II_LID_BEGIN),        \
	    SA_F(T, m lid_end, (o) + 144, 16, (c) + SA_II_LID_END),            \
	    SA_W((o) + 160, 16, (c) + SA_II_RESV1),                            \
	    SA_F(T, m is_generic, (o) + 176, 8, (c) + SA_II_IS_GENERIC),       \
	    SA_F(T, m subscribe, (o) + 184, 8, (c) + SA_II_SUBSCRIBE),         \
	    SA_F(T, m type, (o) + 192, 16, (c) + SA_II_TYPE),                  \
	    SA_F(T, m trap_num, (o) + 208, 16, (c) + SA_II_TRAP_NUM),          \
	    SA_F(T, m qpn, (o) + 224, 24, (c) + SA_II_QPN),                    \
	    SA_W((o) + 248, 3, (c) + SA_II_RESV2),                             \
	    SA_F(T, m resp_time, (o) + 251, 5, (c) + SA_II_RESP_TIME),         \
	    SA_W((o) + 256, 8, (c) + SA_II_RESV3),                             \
	    SA_F(T, m producer, (o) + 264, 24, (c) + SA_II_PRODUCER)

static const struct wire_field info_fields[] = {
    II(struct sa_inform_info, , 0, 0),
};
/* A SubnAdmSet of InformInfo carries no component mask to speak of
 * (clients send 0): every bit is accepted and none is looked at. */
const struct sa_rec_desc sa_inform_info_desc = {
    .name = "InformInfo",
    .attr_id = SA_ATTR_INFORM_INFO,
    .size = 36,
    .n_comps = 64,
    .n_fields = sizeof(info_fields) / sizeof(info_fields[0]),
    .fields = info_fields,
};

static const struct wire_field rec_fields[] = {
    SA_F(struct sa_inform_rec, subscriber_gid, 0, 128, SA_IIR_SUBSCRIBER_GID),
    SA_F(struct sa_inform_rec, enumeration, 128, 16, SA_IIR_ENUM),
    SA_W(144, 48, SA_IIR_RESV),
    II(struct sa_inform_rec, info., 192, SA_IIR_INFO),
};
const struct sa_rec_desc sa_inform_rec_desc = {
    .name = "InformInfoRecord",
    .attr_id = SA_ATTR_INFORM_INFO_REC,
    .size = 60,
    .n_comps = SA_IIR_INFO + SA_II_NCOMPS,
    .n_fields = sizeof(rec_fields) / sizeof(rec_fields[0]),
    .fields = rec_fields,
};

#define N struct sa_notice
static const struct wire_field notice_fields[] = {
    SA_F(N, is_generic, 0, 1, 0),     SA_F(N, type, 1, 7, 1),
    SA_F(N, producer, 8, 24, 2),      SA_F(N, trap_num, 32, 16, 3),
    SA_F(N, issuer_lid, 48, 16, 4),   SA_F(N, notice_toggle, 64, 1, 5),
    SA_F(N, notice_count, 65, 15, 6), SA_F(N, details, 80, 432, 7),
    SA_F(N, issuer_gid, 512, 128, 8),
};
const struct sa_rec_desc sa_notice_desc = {
    .name = "Notice",
    .attr_id = SA_ATTR_NOTICE,
    .size = 80,
    .n_comps = 9,
    .n_fields = sizeof(notice_fields) / sizeof(notice_fields[0]),
    .fields = notice_fields,
};

/* ClassPortInfo layout table (no components: it is only ever read). */
#include "mad/sa_cpi.h"
#include "mad/sa_mad.h"

#define C struct sa_cpi
static const struct wire_field fields[] = {
    SA_F(C, base_version, 0, 8, SA_NO_COMP),
    SA_F(C, class_version, 8, 8, SA_NO_COMP),
    SA_F(C, cap_mask, 16, 16, SA_NO_COMP),
    SA_F(C, cap_mask2, 32, 27, SA_NO_COMP),
    SA_F(C, resp_time, 59, 5, SA_NO_COMP),
    SA_F(C, redir_gid, 64, 128, SA_NO_COMP),
    SA_F(C, redir_tc, 192, 8, SA_NO_COMP),
    SA_F(C, redir_sl, 200, 4, SA_NO_COMP),
    SA_F(C, redir_fl, 204, 20, SA_NO_COMP),
    SA_F(C, redir_lid, 224, 16, SA_NO_COMP),
    SA_F(C, redir_pkey, 240, 16, SA_NO_COMP),
    SA_F(C, redir_qp, 264, 24, SA_NO_COMP),
    SA_F(C, redir_qkey, 288, 32, SA_NO_COMP),
    SA_F(C, trap_gid, 320, 128, SA_NO_COMP),
    SA_F(C, trap_tc, 448, 8, SA_NO_COMP),
    SA_F(C, trap_sl, 456, 4, SA_NO_COMP),
    SA_F(C, trap_fl, 460, 20, SA_NO_COMP),
    SA_F(C, trap_lid, 480, 16, SA_NO_COMP),
    SA_F(C, trap_pkey, 496, 16, SA_NO_COMP),
    SA_F(C, trap_hl, 512, 8, SA_NO_COMP),
    SA_F(C, trap_qp, 520, 24, SA_NO_COMP),
    SA_F(C, trap_qkey, 544, 32, SA_NO_COMP),
};
#undef C
const struct sa_rec_desc sa_cpi_desc = {
    .name = "ClassPortInfo",
    .attr_id = SA_ATTR_CLASS_PORT_INFO,
    .size = 72,
    .n_comps = 0,
    .n_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
};

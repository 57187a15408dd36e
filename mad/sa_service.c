/* ServiceRecord layout table; each ServiceData element is its own
 * component. */
#include "mad/sa_service.h"
#include "mad/sa_mad.h"

#define R      struct sa_service_rec
#define D8(i)  SA_F(R, data8[i], 896 + 8 * (i), 8, SA_SR_DATA8_0 + (i))
#define D16(i) SA_F(R, data16[i], 1024 + 16 * (i), 16, SA_SR_DATA16_0 + (i))
#define D32(i) SA_F(R, data32[i], 1152 + 32 * (i), 32, SA_SR_DATA32_0 + (i))
#define D64(i) SA_F(R, data64[i], 1280 + 64 * (i), 64, SA_SR_DATA64_0 + (i))
static const struct wire_field fields[] = {
    SA_F(R, id, 0, 64, SA_SR_ID),
    SA_F(R, gid, 64, 128, SA_SR_GID),
    SA_F(R, pkey, 192, 16, SA_SR_PKEY),
    SA_W(208, 16, SA_SR_RESV),
    SA_F(R, lease, 224, 32, SA_SR_LEASE),
    SA_F(R, key, 256, 128, SA_SR_KEY),
    SA_F(R, name, 384, 512, SA_SR_NAME),
    D8(0),
    D8(1),
    D8(2),
    D8(3),
    D8(4),
    D8(5),
    D8(6),
    D8(7),
    D8(8),
    D8(9),
    D8(10),
    D8(11),
    D8(12),
    D8(13),
    D8(14),
    D8(15),
    D16(0),
    D16(1),
    D16(2),
    D16(3),
    D16(4),
    D16(5),
    D16(6),
    D16(7),
    D32(0),
    D32(1),
    D32(2),
    D32(3),
    D64(0),
    D64(1),
};
#undef R
const struct sa_rec_desc sa_service_rec_desc = {
    .name = "ServiceRecord",
    .attr_id = SA_ATTR_SERVICE_REC,
    .size = 176,
    .n_comps = SA_SR_NCOMPS,
    .n_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
};

/* GUIDInfoRecord and P_KeyTableRecord layout tables.  Array elements are
 * one row each so GUIDInfoRecord's per-GUID components match singly. */
#include "mad/sa_tables.h"
#include "mad/sa_mad.h"

#define G	struct sa_guidinfo_rec
#define GUID(i) SA_F(G, guid[i], 64 + 64 * (i), 64, SA_GIR_GID0 + (i))
static const struct wire_field gir_fields[] = {
    SA_F(G, lid, 0, 16, SA_GIR_LID),
    SA_F(G, block, 16, 8, SA_GIR_BLOCK),
    SA_W(24, 8, SA_GIR_RESV1),
    SA_W(32, 32, SA_GIR_RESV2),
    GUID(0),
    GUID(1),
    GUID(2),
    GUID(3),
    GUID(4),
    GUID(5),
    GUID(6),
    GUID(7),
};
#undef GUID
#undef G
const struct sa_rec_desc sa_guidinfo_rec_desc = {
    .name = "GUIDInfoRecord",
    .attr_id = SA_ATTR_GUIDINFO_REC,
    .size = 72,
    .n_comps = 12,
    .n_fields = sizeof(gir_fields) / sizeof(gir_fields[0]),
    .fields = gir_fields,
};

#define P     struct sa_pkey_rec
#define PK(i) SA_F(P, pkey[i], 64 + 16 * (i), 16, SA_NO_COMP)
#define PK8(i)                                                                 \
	PK(i), PK(i + 1), PK(i + 2), PK(i + 3), PK(i + 4), PK(i + 5),          \
	    PK(i + 6), PK(i + 7)
static const struct wire_field pkr_fields[] = {
    SA_F(P, lid, 0, 16, SA_PKR_LID),
    SA_F(P, block, 16, 16, SA_PKR_BLOCK),
    SA_F(P, port, 32, 8, SA_PKR_PORT),
    PK8(0),
    PK8(8),
    PK8(16),
    PK8(24),
};
#undef PK8
#undef PK
#undef P
const struct sa_rec_desc sa_pkey_rec_desc = {
    .name = "P_KeyTableRecord",
    .attr_id = SA_ATTR_PKEY_TABLE_REC,
    .size = 72,
    .n_comps = 3,
    .n_fields = sizeof(pkr_fields) / sizeof(pkr_fields[0]),
    .fields = pkr_fields,
};

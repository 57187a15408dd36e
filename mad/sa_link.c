/* LinkRecord layout table. */
#include "mad/sa_link.h"
#include "mad/sa_mad.h"

static const struct wire_field fields[] = {
    SA_F(struct sa_link_rec, from_lid, 0, 16, SA_LR_FROM_LID),
    SA_F(struct sa_link_rec, from_port, 16, 8, SA_LR_FROM_PORT),
    SA_F(struct sa_link_rec, to_port, 24, 8, SA_LR_TO_PORT),
    SA_F(struct sa_link_rec, to_lid, 32, 16, SA_LR_TO_LID),
};
const struct sa_rec_desc sa_link_rec_desc = {
    .name = "LinkRecord",
    .attr_id = SA_ATTR_LINK_REC,
    .size = 6,
    .n_comps = 4,
    .n_fields = 4,
    .fields = fields,
};

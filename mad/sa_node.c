/* NodeRecord layout table. */
#include "mad/sa_node.h"
#include "mad/sa_mad.h"

#define R struct sa_node_rec
static const struct wire_field fields[] = {
    SA_F(R, lid, 0, 16, SA_NR_LID),
    SA_W(16, 16, SA_NR_RESV1),
    SA_F(R, base_version, 32, 8, SA_NR_BASE_VERSION),
    SA_F(R, class_version, 40, 8, SA_NR_CLASS_VERSION),
    SA_F(R, node_type, 48, 8, SA_NR_NODE_TYPE),
    SA_F(R, num_ports, 56, 8, SA_NR_NUM_PORTS),
    SA_F(R, sys_guid, 64, 64, SA_NR_SYS_GUID),
    SA_F(R, node_guid, 128, 64, SA_NR_NODE_GUID),
    SA_F(R, port_guid, 192, 64, SA_NR_PORT_GUID),
    SA_F(R, partition_cap, 256, 16, SA_NR_PARTITION_CAP),
    SA_F(R, device_id, 272, 16, SA_NR_DEVICE_ID),
    SA_F(R, revision, 288, 32, SA_NR_REVISION),
    SA_F(R, local_port, 320, 8, SA_NR_LOCAL_PORT),
    SA_F(R, vendor_id, 328, 24, SA_NR_VENDOR_ID),
    SA_F(R, desc, 352, 512, SA_NR_NODE_DESC),
};
#undef R

const struct sa_rec_desc sa_node_rec_desc = {
    .name = "NodeRecord",
    .attr_id = SA_ATTR_NODE_REC,
    .size = 108,
    .n_comps = 15,
    .n_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
};

/* NodeRecord (SA attribute 0x0011, IBA 15.2.5.2): LID + NodeInfo +
 * NodeDescription, 108 bytes (112 with padding). */
#ifndef IBSM_SA_NODE_H
#define IBSM_SA_NODE_H

#include "mad/sa_wire.h"

enum sa_nr_comp {
	SA_NR_LID = 0,
	SA_NR_RESV1,
	SA_NR_BASE_VERSION,
	SA_NR_CLASS_VERSION,
	SA_NR_NODE_TYPE,
	SA_NR_NUM_PORTS,
	SA_NR_SYS_GUID,
	SA_NR_NODE_GUID,
	SA_NR_PORT_GUID,
	SA_NR_PARTITION_CAP,
	SA_NR_DEVICE_ID,
	SA_NR_REVISION,
	SA_NR_LOCAL_PORT,
	SA_NR_VENDOR_ID,
	SA_NR_NODE_DESC,
};

struct sa_node_rec {
	uint16_t lid;
	uint8_t base_version, class_version, node_type, num_ports;
	uint64_t sys_guid, node_guid, port_guid;
	uint16_t partition_cap, device_id;
	uint32_t revision;
	uint8_t local_port;
	uint32_t vendor_id;
	uint8_t desc[64];
};

extern const struct sa_rec_desc sa_node_rec_desc;

#endif

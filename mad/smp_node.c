/* NodeInfo and NodeDescription codecs (IBA 14.2.5.3, 14.2.5.2). */
#include <errno.h>
#include <string.h>

#include "mad/smp_node.h"

#define NI struct smp_node_info
const struct wire_field smp_node_info_fields[] = {
    WF("BaseVersion", 0, 8, NI, base_version),
    WF("ClassVersion", 8, 8, NI, class_version),
    WF("NodeType", 16, 8, NI, node_type),
    WF("NumPorts", 24, 8, NI, num_ports),
    WF("SystemImageGUID", 32, 64, NI, sys_image_guid),
    WF("NodeGUID", 96, 64, NI, node_guid),
    WF("PortGUID", 160, 64, NI, port_guid),
    WF("PartitionCap", 224, 16, NI, partition_cap),
    WF("DeviceID", 240, 16, NI, device_id),
    WF("Revision", 256, 32, NI, revision),
    WF("LocalPortNum", 288, 8, NI, local_port_num),
    WF("VendorID", 296, 24, NI, vendor_id),
};
#undef NI
const size_t smp_node_info_nfields =
    sizeof(smp_node_info_fields) / sizeof(smp_node_info_fields[0]);

int smp_node_info_decode(struct smp_node_info *ni, const uint8_t *data,
			 size_t len)
{
	memset(ni, 0, sizeof(*ni));
	return wire_decode(smp_node_info_fields, smp_node_info_nfields, data,
			   len, ni);
}

int smp_node_info_encode(const struct smp_node_info *ni, uint8_t *data,
			 size_t len)
{
	return wire_encode(smp_node_info_fields, smp_node_info_nfields, ni,
			   data, len);
}

int smp_node_desc_decode(char out[SMP_NODE_DESC_LEN + 1], const uint8_t *data,
			 size_t len)
{
	size_t n;

	if (len < SMP_NODE_DESC_LEN) {
		out[0] = '\0';
		return -EOVERFLOW;
	}
	memcpy(out, data, SMP_NODE_DESC_LEN);
	out[SMP_NODE_DESC_LEN] = '\0';
	n = strlen(out);
	/* Devices pad with spaces as often as with NULs. */
	while (n && out[n - 1] == ' ')
		out[--n] = '\0';
	return 0;
}

int smp_node_desc_encode(const char *desc, uint8_t *data, size_t len)
{
	size_t n = strlen(desc);

	if (len < SMP_NODE_DESC_LEN)
		return -EOVERFLOW;
	if (n > SMP_NODE_DESC_LEN)
		return -ERANGE;
	memset(data, 0, SMP_NODE_DESC_LEN);
	memcpy(data, desc, n);
	return 0;
}

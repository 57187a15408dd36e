/* NodeInfo (0x0011) and NodeDescription (0x0010) SMP attribute codecs,
 * IBA 14.2.5.3/14.2.5.2.  Decoders take the 64-byte SMP data block. */
#ifndef IBSM_MAD_SMP_NODE_H
#define IBSM_MAD_SMP_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "mad/fields.h"

struct smp_node_info {
	uint8_t base_version;
	uint8_t class_version;
	uint8_t node_type; /* 1 CA, 2 switch, 3 router */
	uint8_t num_ports;
	uint64_t sys_image_guid;
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t partition_cap;
	uint16_t device_id;
	uint32_t revision;
	uint8_t local_port_num; /* port the SMP arrived on */
	uint32_t vendor_id;	/* 24 bits */
};

extern const struct wire_field smp_node_info_fields[];
extern const size_t smp_node_info_nfields;

/* 0 or negative errno (-EOVERFLOW for a short buffer). */
int smp_node_info_decode(struct smp_node_info *ni, const uint8_t *data,
			 size_t len);
int smp_node_info_encode(const struct smp_node_info *ni, uint8_t *data,
			 size_t len);

/* NodeDescription: 64 bytes of UTF-8, NUL padded (not NUL terminated when
 * all 64 are used).  out gets up to 64 chars plus a NUL; trailing
 * NULs/spaces are not part of the name. */
#define SMP_NODE_DESC_LEN 64
int smp_node_desc_decode(char out[SMP_NODE_DESC_LEN + 1], const uint8_t *data,
			 size_t len);
int smp_node_desc_encode(const char *desc, uint8_t *data, size_t len);

#endif

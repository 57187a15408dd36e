/* SwitchInfo (0x0012) and the forwarding-table blocks: LinearForwarding
 * Table (0x0019, 64 one-byte ports per block, modifier = block) and
 * MulticastForwardingTable (0x001B, 32 MLIDs x 16-bit port masks per
 * block, modifier = block | position << 28), IBA 14.2.5.4/10/11. */
#ifndef IBSM_MAD_SMP_SWITCH_H
#define IBSM_MAD_SMP_SWITCH_H

#include <stddef.h>
#include <stdint.h>

#include "mad/fields.h"

struct smp_switch_info {
	uint16_t lft_cap; /* LinearFDBCap */
	uint16_t rft_cap; /* RandomFDBCap */
	uint16_t mft_cap; /* MulticastFDBCap */
	uint16_t lft_top; /* LinearFDBTop */
	uint8_t default_port;
	uint8_t default_mcast_primary_port;
	uint8_t default_mcast_not_primary_port;
	uint8_t life_time_value;       /* 5 bits */
	uint8_t port_state_change;     /* 1 bit; write 1 to clear */
	uint8_t opt_sl2vl_programming; /* 2 bits */
	uint16_t lids_per_port;
	uint16_t partition_enf_cap;
	uint8_t inbound_enf_cap;	 /* 1 bit */
	uint8_t outbound_enf_cap;	 /* 1 bit */
	uint8_t filter_raw_inbound_cap;	 /* 1 bit */
	uint8_t filter_raw_outbound_cap; /* 1 bit */
	uint8_t enhanced_port0;		 /* 1 bit */
	uint16_t mft_top;		 /* MulticastFDBTop */
};

extern const struct wire_field smp_switch_info_fields[];
extern const size_t smp_switch_info_nfields;

int smp_switch_info_decode(struct smp_switch_info *si, const uint8_t *data,
			   size_t len);
int smp_switch_info_encode(const struct smp_switch_info *si, uint8_t *data,
			   size_t len);

/* LFT: block b holds LIDs 64b .. 64b+63, one output port byte each
 * (0xFF = drop). */
#define LFT_BLOCK_SIZE 64
static inline uint32_t lft_block_of(uint16_t lid)
{
	return lid / LFT_BLOCK_SIZE;
}
int smp_lft_decode(uint8_t ports[LFT_BLOCK_SIZE], const uint8_t *data,
		   size_t len);
int smp_lft_encode(const uint8_t ports[LFT_BLOCK_SIZE], uint8_t *data,
		   size_t len);

/* MFT: block b holds MLIDs 0xC000 + 32b .. +31; position p holds ports
 * 16p .. 16p+15 of each entry's port mask (bit i = port 16p + i). */
#define MFT_BLOCK_SIZE	       32
#define MFT_PORTS_PER_POSITION 16
static inline uint32_t smp_mft_mod(uint32_t block, uint8_t position)
{
	return (block & 0x1FF) | (uint32_t)(position & 0xF) << 28;
}
static inline uint32_t smp_mft_mod_block(uint32_t mod)
{
	return mod & 0x1FF;
}
static inline uint8_t smp_mft_mod_position(uint32_t mod)
{
	return (uint8_t)(mod >> 28);
}
int smp_mft_decode(uint16_t masks[MFT_BLOCK_SIZE], const uint8_t *data,
		   size_t len);
int smp_mft_encode(const uint16_t masks[MFT_BLOCK_SIZE], uint8_t *data,
		   size_t len);

#endif

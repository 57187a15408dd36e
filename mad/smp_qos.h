/* The QoS SMP attributes, IBA 14.2.5.8/9: SLtoVLMappingTable (0x0017, one
 * 8-byte table of 16 four-bit VLs, SL 0 in the high nibble of byte 0) and
 * VLArbitrationTable (0x0018, 32 entries of {VL, Weight} per block).
 * Attribute modifiers: SL2VL on a switch is in port << 8 | out port (a CA
 * or router port ignores it and answers for the port the SMP arrived on);
 * VLArb is block << 16 | port, blocks 1-2 the low-priority table's entries
 * 0-31 and 32-63, blocks 3-4 the high-priority table's. */
#ifndef IBSM_MAD_SMP_QOS_H
#define IBSM_MAD_SMP_QOS_H

#include <stddef.h>
#include <stdint.h>

#define SMP_SL2VL_SIZE	8 /* bytes of the table in the SMP data */
#define SMP_NUM_SLS	16
#define SMP_VLARB_BLOCK 32 /* entries per VLArb block */
#define SMP_VLARB_MAX	64 /* entries per table (two blocks) */

/* OptimizedSLtoVLMappingProgramming modifier bits (SwitchInfo says
 * whether a switch takes them): the table for every input port, or for
 * every output port, at once. */
#define SMP_SL2VL_ALL_IN  (1u << 17)
#define SMP_SL2VL_ALL_OUT (1u << 16)

enum smp_vlarb_block {
	SMP_VLARB_LOW_0 = 1,  /* low-priority entries 0-31 */
	SMP_VLARB_LOW_32 = 2, /* low-priority entries 32-63 */
	SMP_VLARB_HIGH_0 = 3,
	SMP_VLARB_HIGH_32 = 4,
};

struct smp_vlarb_entry {
	uint8_t vl;	/* 4 bits */
	uint8_t weight; /* units of 64 bytes; 0 skips the entry */
};

static inline uint32_t smp_sl2vl_mod(uint8_t in_port, uint8_t out_port)
{
	return (uint32_t)in_port << 8 | out_port;
}

static inline uint32_t smp_vlarb_mod(enum smp_vlarb_block b, uint8_t port)
{
	return (uint32_t)b << 16 | port;
}

/* vl[SMP_NUM_SLS] from / to the SMP data.  0, -EOVERFLOW (len short),
 * -ERANGE (a VL over 15 to encode). */
int smp_sl2vl_decode(uint8_t vl[SMP_NUM_SLS], const uint8_t *data, size_t len);
int smp_sl2vl_encode(const uint8_t vl[SMP_NUM_SLS], uint8_t *data, size_t len);
/* One block of 32 entries. */
int smp_vlarb_decode(struct smp_vlarb_entry e[SMP_VLARB_BLOCK],
		     const uint8_t *data, size_t len);
int smp_vlarb_encode(const struct smp_vlarb_entry e[SMP_VLARB_BLOCK],
		     uint8_t *data, size_t len);

#endif

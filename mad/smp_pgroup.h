/* Port-group SMP attributes (vendor range, docs/design.md §4.3) for medium-grained
 * adaptive routing: PortGroupInfo 0xFF30, PortGroupTable 0xFF31 (two
 * 256-bit port masks per block), PortGroupForwardingTable 0xFF32 (64
 * one-byte group ids per block).  ibsim implements none of them. */
#ifndef IBSM_MAD_SMP_PGROUP_H
#define IBSM_MAD_SMP_PGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/fields.h"

enum pgroup_algorithm {
	PGROUP_ALG_RANDOM = 0,
	PGROUP_ALG_LEAST_LOADED = 1,
	PGROUP_ALG_RANDOM_LEAST_LOADED = 2
};

struct smp_pgroup_info {
	uint8_t cap;	   /* PortGroupCap: ids 1..cap supported */
	uint8_t top;	   /* PortGroupTop (read-write) */
	uint16_t fdb_cap;  /* PortGroupFDBCap: DLIDs */
	uint8_t enable;	   /* 1 bit (bit 7 of byte 4) */
	uint8_t algorithm; /* 2 bits (bits 1..0 of byte 4) */
	uint8_t threshold; /* byte 5 */
};

extern const struct wire_field smp_pgroup_info_fields[];
extern const size_t smp_pgroup_info_nfields;

int smp_pgroup_info_decode(struct smp_pgroup_info *pg, const uint8_t *data,
			   size_t len);
int smp_pgroup_info_encode(const struct smp_pgroup_info *pg, uint8_t *data,
			   size_t len);

/* A 256-bit port mask; bit p = port p (byte 31 - p/8, bit p%8 on the wire). */
struct pgroup_mask {
	uint8_t bits[32]; /* bits[p / 8] bit (p % 8): host order, not wire */
};
static inline void pgroup_mask_set(struct pgroup_mask *m, unsigned p)
{
	m->bits[(p / 8) & 31] |= (uint8_t)(1u << (p % 8));
}
static inline bool pgroup_mask_test(const struct pgroup_mask *m, unsigned p)
{
	return m->bits[(p / 8) & 31] >> (p % 8) & 1;
}

/* PortGroupTable block b: groups 2b (bytes 0..31) and 2b+1 (32..63). */
#define PGROUP_TABLE_GROUPS_PER_BLOCK 2
int smp_pgroup_table_decode(struct pgroup_mask m[2], const uint8_t *data,
			    size_t len);
int smp_pgroup_table_encode(const struct pgroup_mask m[2], uint8_t *data,
			    size_t len);

/* PortGroupForwardingTable block b: group ids of DLIDs 64b .. 64b+63. */
#define PGROUP_FT_BLOCK_SIZE 64
int smp_pgroup_ft_decode(uint8_t ids[PGROUP_FT_BLOCK_SIZE], const uint8_t *data,
			 size_t len);
int smp_pgroup_ft_encode(const uint8_t ids[PGROUP_FT_BLOCK_SIZE], uint8_t *data,
			 size_t len);

#endif

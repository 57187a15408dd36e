/* P_KeyTable (0x0016) SMP attribute, IBA 14.2.5.7: a block of 32 P_Keys,
 * 16 bits each, big-endian.  Attribute modifier: bits 15..0 the block
 * number; on a switch bits 31..16 the port number (0 = management port),
 * on a CA the port the SMP arrives through is the one meant. */
#ifndef IBSM_MAD_SMP_PKEY_H
#define IBSM_MAD_SMP_PKEY_H

#include <stddef.h>
#include <stdint.h>

#define PKEY_BLOCK_SIZE 32

static inline uint32_t smp_pkey_mod(uint8_t port, uint16_t block)
{
	return (uint32_t)port << 16 | block;
}
static inline uint16_t smp_pkey_mod_block(uint32_t mod)
{
	return (uint16_t)(mod & 0xFFFF);
}
static inline uint8_t smp_pkey_mod_port(uint32_t mod)
{
	return (uint8_t)(mod >> 16);
}

/* 0 or -EOVERFLOW (len under 64). */
int smp_pkey_decode(uint16_t pkeys[PKEY_BLOCK_SIZE], const uint8_t *data,
		    size_t len);
int smp_pkey_encode(const uint16_t pkeys[PKEY_BLOCK_SIZE], uint8_t *data,
		    size_t len);

#endif

/* Which port-group blocks a switch needs (pgprog.h), and their encoding:
 * pure functions, unit-tested without a transport. */
#include <string.h>

#include "daemon/program/pgprog.h"
#include "mad/smp_pgroup.h"

uint32_t pg_table_blocks(const struct pg_set *old, unsigned old_top,
			 const struct pg_set *new_g, unsigned new_top,
			 uint32_t *out)
{
	/* groups past the new Top are cleared too, so what the switch holds
	 * is exactly the table */
	unsigned top = old && old_top > new_top ? old_top : new_top;
	uint32_t n = 0;

	if (!top)
		return 0;
	for (uint32_t b = 0; b <= top / 2; b++) {
		unsigned g0 = 2 * b, g1 = 2 * b + 1;
		if (old && !memcmp(&old[g0], &new_g[g0], sizeof(*old)) &&
		    (g1 > 255 || !memcmp(&old[g1], &new_g[g1], sizeof(*old))))
			continue;
		out[n++] = b;
	}
	return n;
}

uint32_t pg_ft_blocks(const uint8_t *old, uint32_t old_used,
		      const uint8_t *new_ft, uint32_t new_used, uint32_t *out)
{
	uint32_t used = old && old_used > new_used ? old_used : new_used;
	uint32_t n = 0;

	for (uint32_t b = 0; (size_t)b * 64 < used; b++) {
		uint32_t first = b * 64, len = used - first < 64 ? used - first
								 : 64;
		if (old && !memcmp(old + first, new_ft + first, len))
			continue;
		out[n++] = b;
	}
	return n;
}

void pg_table_block_encode(const struct pg_set *masks, uint32_t b,
			   uint8_t data[64])
{
	struct pgroup_mask m[2];

	memset(m, 0, sizeof(m));
	for (unsigned i = 0; i < 2; i++) {
		unsigned g = 2 * b + i;
		if (g == 0 || g > 255)
			continue;
		for (unsigned p = 0; p < 256; p++)
			if (pg_has(&masks[g], p))
				pgroup_mask_set(&m[i], p);
	}
	smp_pgroup_table_encode(m, data, 64);
}

/* P_KeyTable block codec (smp_pkey.h). */
#include "mad/smp_pkey.h"

#include "mad/cursor.h"

int smp_pkey_decode(uint16_t pkeys[PKEY_BLOCK_SIZE], const uint8_t *data,
		    size_t len)
{
	struct cur c;

	cur_rd(&c, data, len);
	cur_get_u16s(&c, pkeys, PKEY_BLOCK_SIZE);
	return cur_err(&c);
}

int smp_pkey_encode(const uint16_t pkeys[PKEY_BLOCK_SIZE], uint8_t *data,
		    size_t len)
{
	struct cur c;

	cur_wr(&c, data, len);
	cur_put_u16s(&c, pkeys, PKEY_BLOCK_SIZE);
	return cur_err(&c);
}

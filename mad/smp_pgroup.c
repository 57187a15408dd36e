/* Port-group vendor attribute codecs (docs/design.md §4.3).  A port mask is a
 * 256-bit big-endian number: port p is bit p of it, i.e. wire byte
 * 31 - p/8, bit p%8. */
#include <string.h>

#include "mad/cursor.h"
#include "mad/smp_pgroup.h"

#define PG struct smp_pgroup_info
const struct wire_field smp_pgroup_info_fields[] = {
    WF("PortGroupCap", 0, 8, PG, cap),
    WF("PortGroupTop", 8, 8, PG, top),
    WF("PortGroupFDBCap", 16, 16, PG, fdb_cap),
    WF("Enable", 32, 1, PG, enable),
    WF("Algorithm", 38, 2, PG, algorithm),
    WF("Threshold", 40, 8, PG, threshold),
};
#undef PG
const size_t smp_pgroup_info_nfields =
    sizeof(smp_pgroup_info_fields) / sizeof(smp_pgroup_info_fields[0]);

int smp_pgroup_info_decode(struct smp_pgroup_info *pg, const uint8_t *data,
			   size_t len)
{
	memset(pg, 0, sizeof(*pg));
	return wire_decode(smp_pgroup_info_fields, smp_pgroup_info_nfields,
			   data, len, pg);
}

int smp_pgroup_info_encode(const struct smp_pgroup_info *pg, uint8_t *data,
			   size_t len)
{
	return wire_encode(smp_pgroup_info_fields, smp_pgroup_info_nfields, pg,
			   data, len);
}

int smp_pgroup_table_decode(struct pgroup_mask m[2], const uint8_t *data,
			    size_t len)
{
	struct cur c;

	cur_rd(&c, data, len);
	for (unsigned g = 0; g < 2; g++)
		for (unsigned i = 0; i < 32; i++)
			m[g].bits[31 - i] = cur_get_u8(&c);
	return cur_err(&c);
}

int smp_pgroup_table_encode(const struct pgroup_mask m[2], uint8_t *data,
			    size_t len)
{
	struct cur c;

	cur_wr(&c, data, len);
	for (unsigned g = 0; g < 2; g++)
		for (unsigned i = 0; i < 32; i++)
			cur_put_u8(&c, m[g].bits[31 - i]);
	return cur_err(&c);
}

int smp_pgroup_ft_decode(uint8_t ids[PGROUP_FT_BLOCK_SIZE], const uint8_t *data,
			 size_t len)
{
	struct cur c;

	cur_rd(&c, data, len);
	cur_get_bytes(&c, ids, PGROUP_FT_BLOCK_SIZE);
	return cur_err(&c);
}

int smp_pgroup_ft_encode(const uint8_t ids[PGROUP_FT_BLOCK_SIZE], uint8_t *data,
			 size_t len)
{
	struct cur c;

	cur_wr(&c, data, len);
	cur_put_bytes(&c, ids, PGROUP_FT_BLOCK_SIZE);
	return cur_err(&c);
}

/* Table-driven encode/decode of IBA attribute layouts through cursors
 * (see fields.h).  Fields up to 32 bits go through the bit-field cursor
 * calls; 64-bit fields must be byte aligned. */
#include <errno.h>
#include <string.h>

#include "mad/cursor.h"
#include "mad/fields.h"

uint64_t wire_member_get(const struct wire_field *f, const void *obj)
{
	const uint8_t *p = (const uint8_t *)obj + f->offset;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (f->size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

void wire_member_set(const struct wire_field *f, void *obj, uint64_t v)
{
	uint8_t *p = (uint8_t *)obj + f->offset;
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (f->size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

int wire_decode(const struct wire_field *tab, size_t n, const uint8_t *buf,
		size_t len, void *obj)
{
	struct cur c;

	cur_rd(&c, buf, len);
	for (size_t i = 0; i < n; i++) {
		const struct wire_field *f = &tab[i];
		uint64_t v;

		if (f->width == 64)
			v = cur_peek_be(&c, f->bitoff / 8, 8);
		else
			v = cur_get_bits(&c, f->bitoff, f->width);
		wire_member_set(f, obj, v);
	}
	return cur_err(&c);
}

int wire_encode(const struct wire_field *tab, size_t n, const void *obj,
		uint8_t *buf, size_t len)
{
	struct cur c;

	cur_wr(&c, buf, len);
	for (size_t i = 0; i < n; i++) {
		const struct wire_field *f = &tab[i];
		uint64_t v = wire_member_get(f, obj);

		if (f->width == 64) {
			cur_poke_be(&c, f->bitoff / 8, 8, v);
		} else if (v >> f->width) {
			cur_fail(&c, -ERANGE);
		} else {
			cur_put_bits(&c, f->bitoff, f->width, (uint32_t)v);
		}
	}
	return cur_err(&c);
}

/* Table-driven encode/decode of IBA attribute layouts and SA records
 * through cursors (see fields.h): every write is bounds checked, a value
 * that does not fit its field is -ERANGE. */
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
	case 8:
		memcpy(&u64, p, 8);
		return u64;
	default: /* wire only, or an array */
		return 0;
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
	case 8:
		memcpy(p, &v, 8);
		break;
	}
}

/* One field's value through the cursor.  Over 32 bits: byte aligned
 * whole bytes in one read, else the high and the low 32 bits apart. */
static uint64_t field_get(struct cur *c, const struct wire_field *f)
{
	unsigned lo = f->width > 32 ? 32 : f->width;
	uint64_t hi;

	if (f->width <= 32)
		return cur_get_bits(c, f->bitoff, f->width);
	if (f->bitoff % 8 == 0 && f->width % 8 == 0)
		return cur_peek_be(c, f->bitoff / 8, f->width / 8u);
	hi = cur_get_bits(c, f->bitoff, f->width - lo);
	return hi << 32 | cur_get_bits(c, f->bitoff + f->width - lo, lo);
}

static void field_put(struct cur *c, const struct wire_field *f, uint64_t v)
{
	if (f->width < 64 && v >> f->width) {
		cur_fail(c, -ERANGE);
		return;
	}
	if (f->width <= 32) {
		cur_put_bits(c, f->bitoff, f->width, (uint32_t)v);
	} else if (f->bitoff % 8 == 0 && f->width % 8 == 0) {
		cur_poke_be(c, f->bitoff / 8, f->width / 8u, v);
	} else {
		cur_put_bits(c, f->bitoff, f->width - 32u, (uint32_t)(v >> 32));
		cur_put_bits(c, f->bitoff + f->width - 32u, 32, (uint32_t)v);
	}
}

/* Byte arrays: as many bytes as both the field and the member hold. */
static size_t array_len(const struct wire_field *f)
{
	return f->width / 8u < f->size ? f->width / 8u : f->size;
}

int wire_decode(const struct wire_field *tab, size_t n, const uint8_t *buf,
		size_t len, void *obj)
{
	struct cur c;

	cur_rd(&c, buf, len);
	for (size_t i = 0; i < n; i++) {
		const struct wire_field *f = &tab[i];

		if (!f->size)
			continue;
		if (f->width > 64) {
			cur_seek(&c, f->bitoff / 8);
			cur_get_bytes(&c, (uint8_t *)obj + f->offset,
				      array_len(f));
		} else {
			wire_member_set(f, obj, field_get(&c, f));
		}
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

		if (!f->size)
			continue;
		if (f->width > 64) {
			cur_seek(&c, f->bitoff / 8);
			cur_put_bytes(&c, (const uint8_t *)obj + f->offset,
				      array_len(f));
		} else {
			field_put(&c, f, wire_member_get(f, obj));
		}
	}
	return cur_err(&c);
}

/* Record-descriptor driven encode, decode and component-mask matching for
 * SA records (see sa_wire.h). */
#include "mad/sa_wire.h"

#include <errno.h>

static uint64_t member_get(const void *rec, const struct sa_field *f)
{
	const uint8_t *p = (const uint8_t *)rec + f->off;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (f->size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	case 8:
		memcpy(&v64, p, 8);
		return v64;
	}
	return 0;
}

static void member_set(void *rec, const struct sa_field *f, uint64_t v)
{
	uint8_t *p = (uint8_t *)rec + f->off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (f->size) {
	case 1:
		memcpy(p, &v8, 1);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	case 8:
		memcpy(p, &v, 8);
		break;
	}
}

void sa_rec_encode(const struct sa_rec_desc *d, const void *rec, uint8_t *wire)
{
	for (unsigned i = 0; i < d->n_fields; i++) {
		const struct sa_field *f = &d->fields[i];

		if (f->size == 0)
			continue;
		if (f->bits > 64) /* byte array */
			memcpy(wire + f->bit / 8, (const uint8_t *)rec + f->off,
			       f->bits / 8);
		else
			sa_put_bits(wire, d->size, f->bit, f->bits,
				    member_get(rec, f));
	}
}

int sa_rec_decode(const struct sa_rec_desc *d, const uint8_t *wire, size_t len,
		  void *rec)
{
	if (len < d->size)
		return -EMSGSIZE;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const struct sa_field *f = &d->fields[i];

		if (f->size == 0)
			continue;
		if (f->bits > 64)
			memcpy((uint8_t *)rec + f->off, wire + f->bit / 8,
			       f->bits / 8);
		else
			member_set(rec, f,
				   sa_get_bits(wire, d->size, f->bit, f->bits));
	}
	return 0;
}

static bool field_equal(const struct sa_rec_desc *d, const struct sa_field *f,
			const uint8_t *a, const uint8_t *b)
{
	if (f->bits > 64)
		return memcmp(a + f->bit / 8, b + f->bit / 8, f->bits / 8) == 0;
	return sa_get_bits(a, d->size, f->bit, f->bits) ==
	       sa_get_bits(b, d->size, f->bit, f->bits);
}

bool sa_rec_match(const struct sa_rec_desc *d, uint64_t mask, const uint8_t *a,
		  const uint8_t *b)
{
	for (unsigned i = 0; mask && i < d->n_fields; i++) {
		const struct sa_field *f = &d->fields[i];

		if (f->comp == SA_NO_COMP || !(mask >> f->comp & 1))
			continue;
		if (!field_equal(d, f, a, b))
			return false;
	}
	return true;
}

const struct sa_field *sa_rec_comp_field(const struct sa_rec_desc *d,
					 unsigned c)
{
	for (unsigned i = 0; i < d->n_fields; i++)
		if (d->fields[i].comp == c)
			return &d->fields[i];
	return NULL;
}

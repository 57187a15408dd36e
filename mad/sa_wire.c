/* SA records: encode and decode through the field-table engine of
 * mad/fields.c, and component-mask matching (see sa_wire.h). */
#include "mad/sa_wire.h"

#include <errno.h>

int sa_rec_encode(const struct sa_rec_desc *d, const void *rec, uint8_t *wire)
{
	return wire_encode(d->fields, d->n_fields, rec, wire, d->size);
}

int sa_rec_decode(const struct sa_rec_desc *d, const uint8_t *wire, size_t len,
		  void *rec)
{
	if (len < d->size)
		return -EMSGSIZE;
	return wire_decode(d->fields, d->n_fields, wire, d->size, rec);
}

static bool field_equal(const struct sa_rec_desc *d,
			const struct wire_field *f, const uint8_t *a,
			const uint8_t *b)
{
	if (f->width > 64)
		return memcmp(a + f->bitoff / 8, b + f->bitoff / 8,
			      f->width / 8u) == 0;
	return sa_get_bits(a, d->size, f->bitoff, f->width) ==
	       sa_get_bits(b, d->size, f->bitoff, f->width);
}

bool sa_rec_match(const struct sa_rec_desc *d, uint64_t mask, const uint8_t *a,
		  const uint8_t *b)
{
	for (unsigned i = 0; mask && i < d->n_fields; i++) {
		const struct wire_field *f = &d->fields[i];

		if (f->comp == SA_NO_COMP || !(mask >> f->comp & 1))
			continue;
		if (!field_equal(d, f, a, b))
			return false;
	}
	return true;
}

const struct wire_field *sa_rec_comp_field(const struct sa_rec_desc *d,
					  unsigned c)
{
	for (unsigned i = 0; i < d->n_fields; i++)
		if (d->fields[i].comp == c)
			return &d->fields[i];
	return NULL;
}

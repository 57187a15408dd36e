/* SA record wire machinery: big-endian bit-field access with bounds checks,
 * and record descriptors (one table per record) that drive encode, decode
 * and component-mask matching.  A table row is one wire field; rows that
 * are components carry their component-mask bit, so the IBA's component
 * numbering lives in exactly one place per record. */
#ifndef IBSM_SA_WIRE_H
#define IBSM_SA_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mad/fields.h"

/* Reads `bits` (1..64) bits at bit offset `bit` (0 = MSB of byte 0). */
static inline uint64_t sa_get_bits(const uint8_t *buf, size_t len, unsigned bit,
				   unsigned bits)
{
	uint64_t v = 0;

	if (bits == 0 || bits > 64 || (bit + bits + 7) / 8 > len)
		return 0;
	if (bit % 8 + bits <= 64) { /* one window of whole bytes */
		unsigned nbytes = (bit % 8 + bits + 7) / 8;

		for (unsigned i = 0; i < nbytes; i++)
			v = v << 8 | buf[bit / 8 + i];
		v >>= nbytes * 8 - bit % 8 - bits;
		return bits == 64 ? v : v & ((1ull << bits) - 1);
	}
	for (unsigned i = bit; i < bit + bits; i++)
		v = v << 1 | ((buf[i / 8] >> (7 - i % 8)) & 1);
	return v;
}

/* Writes the low `bits` bits of v at bit offset `bit`; out-of-range writes
 * are ignored (callers size their buffers from the record descriptor). */
static inline void sa_put_bits(uint8_t *buf, size_t len, unsigned bit,
			       unsigned bits, uint64_t v)
{
	if (bits == 0 || bits > 64 || (bit + bits + 7) / 8 > len)
		return;
	if (bit % 8 == 0 && bits % 8 == 0) {
		for (unsigned i = bits / 8; i-- > 0; v >>= 8)
			buf[bit / 8 + i] = (uint8_t)v;
		return;
	}
	if (bit % 8 + bits <= 64) { /* read-modify-write one byte window */
		unsigned nbytes = (bit % 8 + bits + 7) / 8;
		unsigned shift = nbytes * 8 - bit % 8 - bits;
		uint64_t w = 0, m = ((bits == 64 ? ~0ull : (1ull << bits) - 1))
				    << shift;

		for (unsigned i = 0; i < nbytes; i++)
			w = w << 8 | buf[bit / 8 + i];
		w = (w & ~m) | ((v << shift) & m);
		for (unsigned i = nbytes; i-- > 0; w >>= 8)
			buf[bit / 8 + i] = (uint8_t)w;
		return;
	}
	for (unsigned i = bit + bits; i-- > bit; v >>= 1) {
		uint8_t m = (uint8_t)(1u << (7 - i % 8));
		buf[i / 8] =
		    (uint8_t)((v & 1) ? (buf[i / 8] | m) : (buf[i / 8] & ~m));
	}
}

static inline uint16_t sa_get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}
static inline uint32_t sa_get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}
static inline uint64_t sa_get64(const uint8_t *b)
{
	return (uint64_t)sa_get32(b) << 32 | sa_get32(b + 4);
}
static inline void sa_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}
static inline void sa_put32(uint8_t *b, uint32_t v)
{
	sa_put16(b, (uint16_t)(v >> 16));
	sa_put16(b + 2, (uint16_t)v);
}
static inline void sa_put64(uint8_t *b, uint64_t v)
{
	sa_put32(b, (uint32_t)(v >> 32));
	sa_put32(b + 4, (uint32_t)v);
}

#define SA_NO_COMP WIRE_NO_COMP

/* A record's rows are wire fields (mad/fields.h), coded by the same
 * engine as the SMP attributes.  Fields wider than 64 bits are byte
 * arrays; size 0 marks a field with no C struct member (matched on the
 * wire only, e.g. the sub-fields of an embedded PortInfo). */
struct sa_rec_desc {
	const char *name;
	uint16_t attr_id;
	uint16_t size;	 /* wire size in bytes, before padding to 8 */
	uint8_t n_comps; /* component-mask bits defined: 0..n_comps-1 */
	uint8_t n_fields;
	const struct wire_field *fields;
};

#define SA_F(type, member, bit_, bits_, comp_)                                 \
	{                                                                      \
		.name = #member, .bitoff = (bit_), .width = (bits_),           \
		.size = sizeof(((type *)0)->member), .comp = (comp_),          \
		.offset = offsetof(type, member)                               \
	}
/* A component with no struct member. */
#define SA_W(bit_, bits_, comp_)                                               \
	{                                                                      \
		.name = NULL, .bitoff = (bit_), .width = (bits_), .size = 0,   \
		.comp = (comp_), .offset = 0                                   \
	}

/* Record size on the wire rounded to 8 bytes, as AttributeOffset counts. */
static inline size_t sa_rec_stride(const struct sa_rec_desc *d)
{
	return (d->size + 7u) & ~7u;
}

/* Encodes rec into wire (d->size bytes, zeroed by the caller for reserved
 * fields).  0, or -ERANGE when a member's value does not fit its field
 * (that field is left as it was). */
int sa_rec_encode(const struct sa_rec_desc *d, const void *rec, uint8_t *wire);
/* Decodes wire (len bytes) into rec; 0, or -EMSGSIZE if len < d->size. */
int sa_rec_decode(const struct sa_rec_desc *d, const uint8_t *wire, size_t len,
		  void *rec);
/* True when every component selected by mask is equal in a and b (both
 * encoded records of this descriptor). */
bool sa_rec_match(const struct sa_rec_desc *d, uint64_t mask, const uint8_t *a,
		  const uint8_t *b);
/* Mask of the component bits this record defines. */
static inline uint64_t sa_rec_comp_all(const struct sa_rec_desc *d)
{
	return d->n_comps >= 64 ? ~0ull : (1ull << d->n_comps) - 1;
}
/* The row of component c, or NULL. */
const struct wire_field *sa_rec_comp_field(const struct sa_rec_desc *d,
					  unsigned c);

#endif

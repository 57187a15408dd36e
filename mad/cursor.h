/* Bounds-checked big-endian cursors over MAD bytes, in the manner of
 * OpenBGPD's ibuf: every get/put checks the bounds, an error sticks in the
 * cursor and is checked once at the end (cur_err).  Wire fields are never
 * structs laid over bytes; codecs read them through these cursors. */
#ifndef IBSM_MAD_CURSOR_H
#define IBSM_MAD_CURSOR_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cur {
	const uint8_t *rbuf; /* bytes read from */
	uint8_t *wbuf;	     /* bytes written to; NULL for a read cursor */
	size_t len;	     /* size of the buffer */
	size_t off;	     /* next byte for sequential get/put */
	int err; /* first error (-EOVERFLOW, -EROFS, -ERANGE), 0 if none */
};

static inline void cur_rd(struct cur *c, const void *buf, size_t len)
{
	c->rbuf = buf;
	c->wbuf = NULL;
	c->len = len;
	c->off = 0;
	c->err = 0;
}

static inline void cur_wr(struct cur *c, void *buf, size_t len)
{
	c->rbuf = buf;
	c->wbuf = buf;
	c->len = len;
	c->off = 0;
	c->err = 0;
}

/* 0, or the first error any operation on the cursor met. */
static inline int cur_err(const struct cur *c)
{
	return c->err;
}

static inline void cur_fail(struct cur *c, int err)
{
	if (!c->err)
		c->err = err;
}

/* True when n bytes from off are inside the buffer; records -EOVERFLOW
 * otherwise. */
static inline int cur_room(struct cur *c, size_t off, size_t n)
{
	if (off > c->len || n > c->len - off) {
		cur_fail(c, -EOVERFLOW);
		return 0;
	}
	return 1;
}

static inline int cur_can_write(struct cur *c)
{
	if (!c->wbuf) {
		cur_fail(c, -EROFS);
		return 0;
	}
	return 1;
}

/* Moves the sequential position to byte off (absolute). */
static inline void cur_seek(struct cur *c, size_t off)
{
	if (cur_room(c, off, 0))
		c->off = off;
}

static inline void cur_skip(struct cur *c, size_t n)
{
	if (cur_room(c, c->off, n))
		c->off += n;
}

/* Reads n bytes (n <= 8) at off as one big-endian number. */
static inline uint64_t cur_peek_be(struct cur *c, size_t off, unsigned n)
{
	uint64_t v = 0;

	if (!cur_room(c, off, n))
		return 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | c->rbuf[off + i];
	return v;
}

static inline void cur_poke_be(struct cur *c, size_t off, unsigned n,
			       uint64_t v)
{
	if (!cur_can_write(c) || !cur_room(c, off, n))
		return;
	for (unsigned i = n; i-- > 0; v >>= 8)
		c->wbuf[off + i] = (uint8_t)v;
}

static inline uint64_t cur_get_be(struct cur *c, unsigned n)
{
	uint64_t v = cur_peek_be(c, c->off, n);

	if (!c->err)
		c->off += n;
	return v;
}

static inline void cur_put_be(struct cur *c, unsigned n, uint64_t v)
{
	cur_poke_be(c, c->off, n, v);
	if (!c->err)
		c->off += n;
}

static inline uint8_t cur_get_u8(struct cur *c)
{
	return (uint8_t)cur_get_be(c, 1);
}
static inline uint16_t cur_get_u16(struct cur *c)
{
	return (uint16_t)cur_get_be(c, 2);
}
static inline uint32_t cur_get_u24(struct cur *c)
{
	return (uint32_t)cur_get_be(c, 3);
}
static inline uint32_t cur_get_u32(struct cur *c)
{
	return (uint32_t)cur_get_be(c, 4);
}
static inline uint64_t cur_get_u64(struct cur *c)
{
	return cur_get_be(c, 8);
}
static inline void cur_put_u8(struct cur *c, uint8_t v)
{
	cur_put_be(c, 1, v);
}
static inline void cur_put_u16(struct cur *c, uint16_t v)
{
	cur_put_be(c, 2, v);
}
static inline void cur_put_u24(struct cur *c, uint32_t v)
{
	if (v > 0xFFFFFF)
		cur_fail(c, -ERANGE);
	cur_put_be(c, 3, v);
}
static inline void cur_put_u32(struct cur *c, uint32_t v)
{
	cur_put_be(c, 4, v);
}
static inline void cur_put_u64(struct cur *c, uint64_t v)
{
	cur_put_be(c, 8, v);
}

static inline void cur_get_bytes(struct cur *c, void *dst, size_t n)
{
	if (!cur_room(c, c->off, n)) {
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, c->rbuf + c->off, n);
	c->off += n;
}

static inline void cur_put_bytes(struct cur *c, const void *src, size_t n)
{
	if (!cur_can_write(c) || !cur_room(c, c->off, n))
		return;
	memcpy(c->wbuf + c->off, src, n);
	c->off += n;
}

/* n big-endian 16-bit words (an MFT or P_KeyTable block). */
static inline void cur_get_u16s(struct cur *c, uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = cur_get_u16(c);
}

static inline void cur_put_u16s(struct cur *c, const uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cur_put_u16(c, v[i]);
}

static inline void cur_put_zero(struct cur *c, size_t n)
{
	if (!cur_can_write(c) || !cur_room(c, c->off, n))
		return;
	memset(c->wbuf + c->off, 0, n);
	c->off += n;
}

/* Bit fields as the IBA tables lay them out: bitoff counts bits from the
 * most significant bit of byte 0 (bit 0 = MSB of byte 0, bit 8 = MSB of
 * byte 1, ...), width 1..32.  Fields may straddle bytes. */
static inline uint32_t cur_get_bits(struct cur *c, size_t bitoff,
				    unsigned width)
{
	size_t first = bitoff / 8, last = (bitoff + width - 1) / 8;
	unsigned n = (unsigned)(last - first + 1);
	uint64_t v;
	unsigned shift;

	if (width == 0 || width > 32 || n > 8) {
		cur_fail(c, -ERANGE);
		return 0;
	}
	v = cur_peek_be(c, first, n);
	shift = (unsigned)(n * 8 - (bitoff % 8) - width);
	return (uint32_t)((v >> shift) & ((1ULL << width) - 1));
}

/* Writes v into the field; -ERANGE if v does not fit in width bits. */
static inline void cur_put_bits(struct cur *c, size_t bitoff, unsigned width,
				uint32_t v)
{
	size_t first = bitoff / 8, last = (bitoff + width - 1) / 8;
	unsigned n = (unsigned)(last - first + 1);
	uint64_t word, mask;
	unsigned shift;

	if (width == 0 || width > 32 || n > 8 || (width < 32 && v >> width)) {
		cur_fail(c, -ERANGE);
		return;
	}
	word = cur_peek_be(c, first, n);
	shift = (unsigned)(n * 8 - (bitoff % 8) - width);
	mask = ((1ULL << width) - 1) << shift;
	word = (word & ~mask) | ((uint64_t)v << shift);
	cur_poke_be(c, first, n, word);
}

#endif

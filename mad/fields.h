/* Table-driven codecs: an attribute or SA record is described once as a
 * table of wire fields (IBA bit offset, width) mapped to struct members
 * (offsetof, size).  The same table decodes and encodes, through
 * bounds-checked cursors (cursor.h), and drives the unit tests that check
 * every field's position against libibmad; an SA record's rows also carry
 * their component-mask bit (mad/sa_wire.h matches on them). */
#ifndef IBSM_MAD_FIELDS_H
#define IBSM_MAD_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_NO_COMP 0xFF

struct wire_field {
	const char *name; /* IBA field name, for tests and dumps */
	uint16_t bitoff;  /* IBA bit offset from the attribute start */
	/* bits: 1..64 at any offset, or a byte array (a multiple of 8 over
	 * 64, byte aligned) */
	uint16_t width;
	uint8_t size;	 /* sizeof the member (1, 2, 4, 8, or the array's);
			  * 0: a field on the wire only (matched, not coded) */
	uint8_t comp;	 /* SA component-mask bit, WIRE_NO_COMP if none */
	uint16_t offset; /* offsetof the struct member */
};

#define WF(nm, bo, w, type, member)                                            \
	{                                                                      \
		.name = nm, .bitoff = bo, .width = w,                          \
		.size = sizeof(((type *)0)->member), .comp = WIRE_NO_COMP,     \
		.offset = offsetof(type, member)                               \
	}

/* Decodes every field of the table from buf[0..len) into obj.
 * 0, or -EOVERFLOW when a field lies past len. */
int wire_decode(const struct wire_field *tab, size_t n, const uint8_t *buf,
		size_t len, void *obj);
/* Encodes every field of the table from obj into buf (bytes not covered
 * by a field are left as they are: zero the buffer first).  0, -EOVERFLOW,
 * or -ERANGE when a member's value does not fit its field. */
int wire_encode(const struct wire_field *tab, size_t n, const void *obj,
		uint8_t *buf, size_t len);

/* Member value of field f in obj, widened to 64 bits (for tests/dumps). */
uint64_t wire_member_get(const struct wire_field *f, const void *obj);
void wire_member_set(const struct wire_field *f, void *obj, uint64_t v);

#endif

/* Which P_Key entries go where, and which blocks to send (pkeyprog.h):
 * pure functions, unit-tested without a transport. */
#include <string.h>

#include "daemon/program/pkeyprog.h"
#include "mad/smp_pkey.h"

/* Index in want[0..n) of the entry with base b not placed yet, or n. */
static uint32_t find_base(const uint16_t *want, uint32_t n, const bool *placed,
			  uint16_t b)
{
	for (uint32_t i = 0; i < n; i++)
		if (!placed[i] && pkey_base(want[i]) == b)
			return i;
	return n;
}

static uint32_t next_free(const uint16_t *out, uint32_t cap, uint32_t from)
{
	while (from < cap && out[from])
		from++;
	return from;
}

uint32_t pkey_layout(const uint16_t *cur, uint32_t cap, const uint16_t *want,
		     uint32_t n, uint16_t *out)
{
	bool placed[PKEY_MAX_ENTRIES] = {false};
	uint32_t dropped = 0, at = 0, d;

	if (n > PKEY_MAX_ENTRIES)
		n = PKEY_MAX_ENTRIES;
	memset(out, 0, cap * sizeof(*out));
	/* what the port holds stays where it is */
	for (uint32_t i = 0; cur && i < cap; i++) {
		uint32_t j = pkey_base(cur[i])
				 ? find_base(want, n, placed, pkey_base(cur[i]))
				 : n;
		if (j < n) {
			out[i] = want[j];
			placed[j] = true;
		}
	}
	/* index 0 is where ULPs look for the default partition */
	d = find_base(want, n, placed, PKEY_DEFAULT);
	if (d < n && cap && !out[0]) {
		out[0] = want[d];
		placed[d] = true;
	}
	for (uint32_t j = 0; j < n; j++) {
		if (placed[j])
			continue;
		at = next_free(out, cap, at);
		if (at >= cap) {
			dropped++;
			continue;
		}
		out[at] = want[j];
	}
	return dropped;
}

uint32_t pkey_changed_blocks(const uint16_t *cur, const uint16_t *next,
			     uint32_t cap, uint32_t *out)
{
	uint32_t k = 0;

	for (uint32_t b = 0; b * PKEY_BLOCK_SIZE < cap; b++) {
		uint32_t first = b * PKEY_BLOCK_SIZE;
		uint32_t len = cap - first < PKEY_BLOCK_SIZE ? cap - first
							     : PKEY_BLOCK_SIZE;
		if (!cur ||
		    memcmp(cur + first, next + first, len * sizeof(*next)))
			out[k++] = b;
	}
	return k;
}

bool pkey_enforced(const struct ib_node *sw, uint8_t pn, uint32_t n_entries,
		   uint8_t *in, uint8_t *out)
{
	const struct ib_port *peer = pn ? sw->ports[pn].remote : NULL;

	*in = *out = 0;
	if (!node_is_switch(sw) || !peer || node_is_switch(peer->node) ||
	    !sw->pkey_enf_cap || n_entries > sw->pkey_enf_cap)
		return false;
	*in = sw->pkey_enf_in;
	*out = sw->pkey_enf_out;
	return *in || *out;
}

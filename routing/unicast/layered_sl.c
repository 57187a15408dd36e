/* The SL of every pair, by the SL walk of layers.h: one path at a time
 * (layers_path_sl, what the SA does), or every source switch of one
 * destination LID at once from its LFT column (layers_lid_sl: each
 * switch is stepped once, the masks of a path's tail are shared by every
 * path that ends with it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/layered.h"

/* Is port p of switch sw where lid is delivered (to a CA port or the
 * switch itself)? */
static bool delivers(const struct ib_node *sw, uint8_t p, uint16_t lid,
		     const struct fabric *f)
{
	const struct ib_port *o = fabric_port_by_lid(f, lid);

	if (!o)
		return false;
	if (p == 0)
		return o->node == sw;
	return sw->ports[p].remote == o;
}

int layers_path_sl(const struct ucast_layers *ly, const struct fabric *f,
		   uint32_t src_sw, uint16_t dlid)
{
	struct layers_walk w;
	const struct ib_node *sw = f->switches[src_sw];

	layers_walk_start(ly, &w);
	for (unsigned hops = 0; hops <= IB_MAX_DR_HOPS; hops++) {
		uint8_t p = dlid < sw->lft_size ? sw->lft[dlid] : LFT_NO_PORT;
		const struct ib_node *peer;
		if (p > sw->nports)
			return -2;
		if (delivers(sw, p, dlid, f))
			return layers_walk_sl(&w);
		peer = port_peer_node(sw, p);
		if (p == 0 || !peer || !node_is_switch(peer))
			return -2;
		layers_walk_hop(ly, &w, (uint32_t)sw->sw_idx, p);
		sw = peer;
	}
	return -2; /* a loop */
}

/* ---- every source switch of one LID ---- */

enum { W_UNK, W_BUSY, W_DONE, W_BAD };

int layers_sl_scratch_init(struct layers_sl_scratch *s, uint32_t n)
{
	memset(s, 0, sizeof(*s));
	s->state = calloc(n + 1, 1);
	s->legal = malloc((n + 1) * sizeof(*s->legal));
	s->down = malloc((n + 1) * sizeof(*s->down));
	s->stack = malloc((n + 1) * sizeof(*s->stack));
	return s->state && s->legal && s->down && s->stack ? 0 : -ENOMEM;
}

void layers_sl_scratch_free(struct layers_sl_scratch *s)
{
	free(s->state);
	free(s->legal);
	free(s->down);
	free(s->stack);
	memset(s, 0, sizeof(*s));
}

/* The switch behind port p of switch x, or UINT32_MAX. */
static uint32_t next_sw(const struct ucast_layers *ly, uint32_t x, uint8_t p)
{
	if (p >= ly->port_base[x + 1] - ly->port_base[x])
		return UINT32_MAX;
	return ly->peer[ly->port_base[x] + p];
}

/* Follows col from x to a switch whose tail is known (or to the
 * destination, a drop or a loop), then gives every switch on the way
 * its masks, last first. */
static void walk_from(const struct ucast_layers *ly, const struct fabric *f,
		      const uint8_t *col, uint32_t t, uint8_t tport,
		      struct layers_sl_scratch *s, uint32_t x)
{
	uint32_t top = 0;
	uint8_t end = W_BAD;
	uint16_t lg = 0, dn = 0;

	for (;;) {
		uint32_t y;
		if (s->state[x] == W_DONE || s->state[x] == W_BAD) {
			end = s->state[x];
			lg = s->legal[x];
			dn = s->down[x];
			break;
		}
		if (s->state[x] == W_BUSY) /* a loop */
			break;
		if (x == t && col[x] == tport) {
			end = s->state[x] = W_DONE;
			lg = dn = s->legal[x] = s->down[x] =
			    (uint16_t)((1u << ly->n_layers) - 1);
			break;
		}
		s->state[x] = W_BUSY;
		s->stack[top++] = x;
		if ((y = next_sw(ly, x, col[x])) == UINT32_MAX)
			break;
		x = y;
	}
	while (top) {
		uint32_t z = s->stack[--top];
		if (end == W_DONE) { /* then col[z] is a switch link */
			uint16_t u = ly->up[ly->port_base[z] + col[z]];
			lg = (uint16_t)((u & lg) | (~u & dn));
			dn = (uint16_t)(~u & dn);
		}
		s->legal[z] = lg;
		s->down[z] = dn;
		s->state[z] = end;
	}
}

void layers_lid_sl(const struct ucast_layers *ly, const struct fabric *f,
		   uint16_t lid, const uint8_t *col,
		   struct layers_sl_scratch *s, int8_t *sl)
{
	uint32_t n = f->n_switches, t;
	uint8_t tport;

	if (!fabric_lid_end(f, lid, &t, &tport)) {
		memset(sl, -2, n);
		return;
	}
	memset(s->state, W_UNK, n);
	for (uint32_t x = 0; x < n; x++) {
		walk_from(ly, f, col, t, tport, s, x);
		if (s->state[x] == W_BAD)
			sl[x] = -2;
		else
			sl[x] = s->legal[x] ? (int8_t)__builtin_ctz(s->legal[x])
					    : -1;
	}
}

int layers_lid_sls(const struct ucast_layers *ly, const struct fabric *f,
		   uint16_t lid, int8_t *sl)
{
	struct layers_sl_scratch s;
	uint8_t *col = malloc(f->n_switches + 1u);
	int rc = col ? layers_sl_scratch_init(&s, f->n_switches) : -ENOMEM;

	if (rc == 0) {
		for (uint32_t x = 0; x < f->n_switches; x++) {
			const struct ib_node *sw = f->switches[x];
			col[x] =
			    lid < sw->lft_size ? sw->lft[lid] : LFT_NO_PORT;
		}
		layers_lid_sl(ly, f, lid, col, &s, sl);
	}
	if (col)
		layers_sl_scratch_free(&s);
	free(col);
	return rc;
}

/* Grid patterns of the MR4LMS/FULB-MC evaluations.  Reading of the papers
 * (written down because the figures were lost):
 *  - processes form an X x Y (x Z) grid, rank r = x + X * (y + Y * z), so x
 *    varies fastest;
 *  - every line along every axis is one communicator, hence one group: 2-D
 *    gives Y rows along x plus X columns along y; 3-D gives Y*Z + X*Z + X*Y
 *    lines (128x32x40 -> 1280 + 5120 + 4096 = 10,496 groups, the paper's
 *    count; 256x34 on Sunway BlueLight -> "34 groups in the first
 *    dimension, each inside one board", i.e. lines along x of consecutive
 *    ranks).  Axes of extent 1 make no groups (they would be singletons);
 *  - topology-aware placement puts rank r on process slot r, slots being
 *    host 0's ppn slots, then host 1's..., hosts in topology-file order;
 *    topology-unaware placement shuffles the slots (seeded);
 *  - a group's members are the distinct hosts of its processes, in order of
 *    first appearance along the line;
 *  - a grid smaller than hosts * ppn leaves the last slots unused (90x90 on
 *    8,704 hosts); a bigger one is an error. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ibsmpattern/pattern.h"

uint64_t pat_grid_count(const struct pat_grid *g)
{
	uint64_t total = 1, n = 0;

	for (unsigned a = 0; a < g->ndim; a++)
		total *= g->dim[a];
	for (unsigned a = 0; a < g->ndim; a++)
		if (g->dim[a] > 1)
			n += total / g->dim[a];
	return n;
}

struct grid_ctx {
	struct pat_out *o;
	const struct pat_grid *g;
	const uint32_t *slot; /* rank -> slot (host = slot / ppn) */
	uint32_t *members;    /* scratch, one line's hosts */
	uint32_t *mark;	      /* host -> last line id that took it, + 1 */
	uint64_t line;
};

/* Emits the group of the line along axis `ax` through `start`, stepping by
 * `stride` ranks. */
static int emit_line(struct grid_ctx *c, uint64_t start, uint64_t stride,
		     uint32_t len)
{
	uint32_t n = 0;

	c->line++;
	for (uint32_t i = 0; i < len; i++) {
		uint32_t h = c->slot[start + i * stride] / c->g->ppn;

		if (c->mark[h] == (uint32_t)c->line)
			continue;
		c->mark[h] = (uint32_t)c->line;
		c->members[n++] = h;
	}
	int64_t r = pat_emit_create(c->o, c->members, n);
	return r < 0 ? (int)r : 0;
}

static int emit_axis(struct grid_ctx *c, unsigned ax)
{
	const uint32_t *d = c->g->dim;
	uint32_t ext[3] = {d[0], d[1], c->g->ndim == 3 ? d[2] : 1};
	uint64_t stride = ax == 0   ? 1
			  : ax == 1 ? ext[0]
				    : (uint64_t)ext[0] * ext[1];

	/* Walk every rank whose coordinate on `ax` is 0, in rank order. */
	for (uint32_t z = 0; z < (ax == 2 ? 1 : ext[2]); z++)
		for (uint32_t y = 0; y < (ax == 1 ? 1 : ext[1]); y++)
			for (uint32_t x = 0; x < (ax == 0 ? 1 : ext[0]); x++) {
				uint64_t r = x + (uint64_t)ext[0] *
						     (y + (uint64_t)ext[1] * z);
				int ret = emit_line(c, r, stride, ext[ax]);

				if (ret < 0)
					return ret;
			}
	return 0;
}

static uint32_t *make_slots(const struct pat_grid *g, uint64_t nslots)
{
	uint32_t *slot = malloc(nslots * sizeof(*slot));

	if (!slot)
		return NULL;
	for (uint64_t i = 0; i < nslots; i++)
		slot[i] = (uint32_t)i;
	if (g->shuffle) {
		struct pat_rng rng = {g->seed};

		pat_shuffle(&rng, slot, (uint32_t)nslots);
	}
	return slot;
}

int pat_grid_write(struct pat_out *o, const struct pat_grid *g)
{
	uint64_t nranks = 1, nslots = (uint64_t)o->n_hosts * g->ppn;
	int ret = -ENOMEM;

	for (unsigned a = 0; a < g->ndim; a++)
		nranks *= g->dim[a];
	if (!g->ppn || nranks > nslots || nslots > UINT32_MAX) {
		fprintf(stderr,
			"ibsmpattern: grid of %" PRIu64
			" processes does not fit "
			"%u hosts x %u processes per host\n",
			nranks, o->n_hosts, g->ppn);
		return -EINVAL;
	}
	struct grid_ctx c = {.o = o, .g = g};
	uint32_t maxlen = 0;

	for (unsigned a = 0; a < g->ndim; a++)
		if (g->dim[a] > maxlen)
			maxlen = g->dim[a];
	c.slot = make_slots(g, nslots);
	c.members = malloc((size_t)maxlen * sizeof(uint32_t));
	c.mark = calloc(o->n_hosts, sizeof(uint32_t));
	if (!c.slot || !c.members || !c.mark)
		goto out;
	ret = 0;
	for (unsigned a = 0; a < g->ndim && !ret; a++)
		if (g->dim[a] > 1)
			ret = emit_axis(&c, a);
out:
	free((void *)c.slot);
	free(c.members);
	free(c.mark);
	return ret;
}

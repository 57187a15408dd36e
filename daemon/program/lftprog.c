/* LFT programming: per switch, the 64-entry blocks that differ from what
 * was last programmed on that switch (the previous sweep's model, matched
 * by node GUID), sent as one windowed bulk transfer (mad/bulk.h) so that a
 * lost block is re-sent alone.  A switch not in the previous model, or
 * whose table size changed, gets every block, unless it reports a
 * LinearFDBTop (someone programmed it): then its blocks are read back first
 * and only those that differ are sent (also on the first sweep after this
 * SM became master: what the switches hold is then not what we last sent).
 * Blocks that failed are marked in the new model (entry 0 of the block
 * poisoned) so that the next sweep sends them again.  No block past the
 * switch's LinearFDBCap is ever sent or read (a switch, and ibsim, may corrupt
 * its table or crash on one: docs/design.md §3.4). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/program/program.h"
#include "lib/log.h"
#include "mad/bulk.h"
#include "mad/smp_switch.h"

/* A value no routing engine writes: makes a block differ next time. */
#define LFT_POISON 0xFE

struct lft_req {
	struct prog_pass *s;
	struct ib_node *sw;
	uint32_t *blocks;
	uint32_t n;
};

static void lft_done(void *ctx, int status, const struct bulk_result *r)
{
	struct lft_req *q = ctx;
	struct prog_pass *s = q->s;

	if (r && r->nfailed) {
		if (!s->lft_errors)
			snprintf(s->lft_why, sizeof(s->lft_why), "%s",
				 strerror(-r->first_error));
		s->lft_errors += r->nfailed;
		namelist_add(&s->lft_failed, q->sw->desc);
		log_debug("LFT: %u of %u blocks to %s (0x%016" PRIx64 ") "
			  "failed (%s)",
			  r->nfailed, q->n, q->sw->desc, q->sw->guid,
			  strerror(-r->first_error));
		for (uint32_t i = 0; i < r->nfailed; i++) {
			uint32_t b = q->blocks[r->failed[i]];
			if ((size_t)b * LFT_BLOCK_SIZE < q->sw->lft_size)
				q->sw->lft[(size_t)b * LFT_BLOCK_SIZE] =
				    LFT_POISON;
		}
	} else if (status < 0 && !r) {
		s->lft_errors += q->n;
	}
	free(q->blocks);
	free(q);
	prog_release(s);
}

static uint32_t lft_blocks(const struct ib_node *sw)
{
	return (sw->lft_size + LFT_BLOCK_SIZE - 1) / LFT_BLOCK_SIZE;
}

/* Blocks wholly inside the switch's LinearFDBCap (0: it reports none). */
static uint32_t cap_blocks(const struct ib_node *sw)
{
	return sw->lft_cap ? sw->lft_cap / LFT_BLOCK_SIZE : UINT32_MAX;
}

/* Drops blocks[] past the cap (counted in the pass); the count left. */
static uint32_t within_cap(struct prog_pass *s, const struct ib_node *sw,
			   uint32_t *blocks, uint32_t n)
{
	uint32_t k = 0, lim = cap_blocks(sw);

	for (uint32_t i = 0; i < n; i++)
		if (blocks[i] < lim)
			blocks[k++] = blocks[i];
	s->lft_past_cap += n - k;
	return k;
}

/* Sends blocks[0..n) (taken over) of sw's LFT as one bulk transfer. */
static int send_blocks(struct prog_pass *s, struct ib_node *sw,
		       uint32_t *blocks, uint32_t n)
{
	struct lft_req *q;
	struct bulk_lft_req br = {0};
	int rc;

	if (n == 0) {
		free(blocks);
		return 0;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		free(blocks);
		return -ENOMEM;
	}
	q->s = s;
	q->sw = sw;
	q->blocks = blocks;
	q->n = n;
	br.dr = true;
	br.path = sw->dr_path;
	br.hops = sw->dr_hops;
	br.dest = sw->guid;
	br.lft = sw->lft;
	br.lft_size = sw->lft_size;
	br.blocks = q->blocks;
	br.n = q->n;
	br.retries = s->sm->txnp.retries;
	br.done = lft_done;
	br.ctx = q;
	rc = bulk_lft_start(s->sm->txn, &br);
	if (rc < 0) {
		free(q->blocks);
		free(q);
		return rc;
	}
	prog_hold(s);
	s->lft_switches++;
	s->lft_blocks += q->n;
	s->need_sets += q->n;
	s->sm->smps.lft_blocks += q->n;
	return 0;
}

struct rb_req {
	struct prog_pass *s;
	struct ib_node *sw;
};

/* The blocks that differ from what the switch answered (or could not be
 * read, or lie beyond what was read) are sent. */
static void readback_done(void *ctx, const uint8_t *data, const bool *ok,
			  uint32_t nread)
{
	struct rb_req *r = ctx;
	struct ib_node *sw = r->sw;
	uint32_t nb = lft_blocks(sw), n = 0;
	uint32_t *blocks = malloc(nb * sizeof(*blocks));
	int rc = -ENOMEM;

	for (uint32_t b = 0; blocks && b < nb; b++) {
		size_t o = (size_t)b * LFT_BLOCK_SIZE;
		size_t len = sw->lft_size - o < LFT_BLOCK_SIZE
				 ? sw->lft_size - o
				 : LFT_BLOCK_SIZE;
		if (b >= nread || !ok[b] ||
		    memcmp(data + (size_t)b * SMP_DATA_SIZE, sw->lft + o, len))
			blocks[n++] = b;
	}
	if (blocks) {
		r->s->lft_read += nread;
		n = within_cap(r->s, sw, blocks, n);
		rc = send_blocks(r->s, sw, blocks, n);
	}
	if (rc < 0)
		snprintf(r->s->error, sizeof(r->s->error),
			 "LFT of %s: cannot submit: %s", sw->desc,
			 strerror(-rc));
	prog_release(r->s);
	free(r);
}

/* Blocks the switch may hold from an earlier SM: up to its LinearFDBTop as
 * discovery read it (0 on a switch nobody programmed). */
static uint32_t blocks_held(struct prog_pass *s, const struct ib_node *sw)
{
	struct dnode *dn = disc_node(s->disc, sw);
	struct smp_switch_info si;
	uint32_t n;

	if (!dn || !dn->have_si ||
	    smp_switch_info_decode(&si, dn->si, SMP_DATA_SIZE) < 0 ||
	    si.lft_top == 0)
		return 0;
	n = si.lft_top / LFT_BLOCK_SIZE + 1;
	if (n > cap_blocks(sw))
		n = cap_blocks(sw);
	return n < lft_blocks(sw) ? n : lft_blocks(sw);
}

static int read_back(struct prog_pass *s, struct ib_node *sw, uint32_t n)
{
	struct rb_req *r = calloc(1, sizeof(*r));
	uint32_t *mods = malloc(n * sizeof(*mods));
	int rc = -ENOMEM;

	if (r && mods) {
		for (uint32_t b = 0; b < n; b++)
			mods[b] = b;
		r->s = s;
		r->sw = sw;
		rc = readback_start(s->sm->txn, sw->dr_path, sw->dr_hops,
				    sw->guid, SMP_ATTR_LFT, mods, n,
				    readback_done, r);
	}
	free(mods);
	if (rc < 0) {
		free(r);
		return rc;
	}
	prog_hold(s);
	return 0;
}

static int program_switch(struct prog_pass *s, struct ib_node *sw,
			  const struct ib_node *old)
{
	uint32_t *blocks, n, held;

	if (!sw->lft || !sw->lft_size)
		return 0;
	if (old && !old->lft)
		old = NULL;
	/* No record of what this switch holds: another SM (or an earlier
	 * run) may have programmed it; read before writing. */
	held = old ? 0 : blocks_held(s, sw);
	if (held)
		return read_back(s, sw, held);
	blocks = malloc(lft_blocks(sw) * sizeof(*blocks));
	if (!blocks)
		return -ENOMEM;
	n = bulk_lft_changed(old ? old->lft : NULL, old ? old->lft_size : 0,
			     sw->lft, sw->lft_size, blocks);
	return send_blocks(s, sw, blocks, within_cap(s, sw, blocks, n));
}

int lftprog_start(struct prog_pass *s, struct fabric *old)
{
	struct fabric *f = s->f;
	int rc = 0;

	for (uint32_t i = 0; i < f->n_switches && rc == 0; i++) {
		struct ib_node *sw = f->switches[i];
		const struct ib_node *o =
		    old && !s->sm->tables_unknown
			? fabric_node_by_guid(old, sw->guid)
			: NULL;
		rc = program_switch(s, sw, o);
	}
	return rc;
}

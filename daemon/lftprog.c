/* LFT programming: per switch, the 64-entry blocks that differ from what
 * was last programmed on that switch (the previous sweep's model, matched
 * by node GUID), sent as one windowed bulk transfer (mad/bulk.h) so that a
 * lost block is re-sent alone.  A switch not in the previous model, or
 * whose table size changed, gets every block.  Blocks that failed are
 * marked in the new model (entry 0 of the block poisoned) so that the next
 * sweep sends them again. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sweep.h"
#include "lib/log.h"
#include "mad/bulk.h"
#include "mad/smp_switch.h"

/* A value no routing engine writes: makes a block differ next time. */
#define LFT_POISON 0xFE

struct lft_req {
	struct sweep *s;
	struct ib_node *sw;
	uint32_t *blocks;
	uint32_t n;
};

static void lft_done(void *ctx, int status, const struct bulk_result *r)
{
	struct lft_req *q = ctx;
	struct sweep *s = q->s;

	if (r && r->nfailed) {
		s->lft_errors += r->nfailed;
		log_warn("LFT: %u of %u blocks to %s (0x%016" PRIx64 ") "
			 "failed (%s); they are sent again at the next sweep",
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
	sweep_release(s);
}

static uint32_t lft_blocks(const struct ib_node *sw)
{
	return (sw->lft_size + LFT_BLOCK_SIZE - 1) / LFT_BLOCK_SIZE;
}

static int program_switch(struct sweep *s, struct ib_node *sw,
			  const struct ib_node *old)
{
	struct lft_req *q;
	struct bulk_lft_req br = {0};
	int rc;

	if (!sw->lft || !sw->lft_size)
		return 0;
	if (old && !old->lft)
		old = NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->blocks = malloc(lft_blocks(sw) * sizeof(*q->blocks));
	if (!q->blocks) {
		free(q);
		return -ENOMEM;
	}
	q->s = s;
	q->sw = sw;
	q->n = bulk_lft_changed(old ? old->lft : NULL, old ? old->lft_size : 0,
				sw->lft, sw->lft_size, q->blocks);
	if (q->n == 0) {
		free(q->blocks);
		free(q);
		return 0;
	}
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
	sweep_hold(s);
	s->lft_switches++;
	s->lft_blocks += q->n;
	s->need_sets += q->n;
	s->sm->smps.lft_blocks += q->n;
	return 0;
}

int lftprog_start(struct sweep *s, struct fabric *old)
{
	struct fabric *f = s->nf;
	int rc = 0;

	for (uint32_t i = 0; i < f->n_switches && rc == 0; i++) {
		struct ib_node *sw = f->switches[i];
		const struct ib_node *o =
		    old ? fabric_node_by_guid(old, sw->guid) : NULL;
		rc = program_switch(s, sw, o);
	}
	return rc;
}

/* MFT programming: per switch, the MulticastForwardingTable blocks (32
 * MLIDs x 16 port positions, attribute modifier block | position << 28)
 * that differ from what the switch last acknowledged, as one windowed
 * bulk transfer (mad/bulk.h: a lost block is re-sent alone).  Only the
 * blocks of the colors in use, never above the smallest MulticastFDBCap.
 * A pass programs every switch; groups routed before it started become
 * Ready when it completes without a failed block.  Changes during a pass
 * start another pass after it. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/mcg_priv.h"
#include "daemon/sm.h"
#include "lib/log.h"
#include "mad/bulk.h"
#include "mad/smp_switch.h"

#define MAX_FAILED_PASSES 3

struct mft_shadow {
	uint64_t guid;
	uint32_t nblocks, npos;
	uint16_t *m;	/* [block][position][32] as acknowledged */
	uint8_t *stale; /* [block][position]: unknown, send again */
};

/* A transfer outlives neither the manager nor a shadow it names by GUID
 * (a sweep may replace the fabric and the shadows while it runs). */
struct mft_xfer {
	uint64_t guid;
	uint32_t npos;
	uint16_t *m;	 /* the new table */
	uint32_t *items; /* block * npos + position */
	uint32_t n;
};

static unsigned failed_passes;

static void shadow_free(struct mft_shadow *s)
{
	free(s->m);
	free(s->stale);
	s->m = NULL;
	s->stale = NULL;
}

static struct sd_event_source *kick_src;

void mftprog_free(void)
{
	kick_src = sd_event_source_unref(kick_src);
	for (uint32_t i = 0; i < mcg_m.n_shadow; i++)
		shadow_free(&mcg_m.shadow[i]);
	free(mcg_m.shadow);
	mcg_m.shadow = NULL;
	mcg_m.n_shadow = 0;
}

/* New fabric: shadows follow their switch by GUID (same table shape),
 * others start unknown so every block is sent once. */
void mftprog_reset(void)
{
	const struct fabric *f = mcg_m.sm->fab;
	struct mft_shadow *ns = calloc(f->n_switches + 1, sizeof(*ns));

	if (!ns)
		return; /* keep the old ones: the pass resends by size check */
	for (uint32_t i = 0; i < f->n_switches; i++) {
		const struct ib_node *sw = f->switches[i];
		ns[i].guid = sw->guid;
		ns[i].npos = (sw->nports + 1u + 15) / 16;
		ns[i].nblocks = (mcg_m.colors + 31) / 32;
		for (uint32_t j = 0; j < mcg_m.n_shadow; j++) {
			struct mft_shadow *o = &mcg_m.shadow[j];
			if (o->guid == sw->guid && o->m &&
			    o->npos == ns[i].npos &&
			    o->nblocks == ns[i].nblocks) {
				ns[i].m = o->m;
				ns[i].stale = o->stale;
				o->m = NULL;
				o->stale = NULL;
			}
		}
	}
	for (uint32_t i = 0; i < mcg_m.n_shadow; i++)
		shadow_free(&mcg_m.shadow[i]);
	free(mcg_m.shadow);
	mcg_m.shadow = ns;
	mcg_m.n_shadow = f->n_switches;
}

struct fill_ctx {
	uint16_t *m;
	uint32_t npos, colors;
};

static void put_entry(void *arg, uint32_t color,
		      const uint64_t mask[MC_MASK_WORDS])
{
	struct fill_ctx *k = arg;
	uint32_t b = color / MFT_BLOCK_SIZE, e = color % MFT_BLOCK_SIZE;

	if (color >= k->colors)
		return; /* the engine never gives one; never program it */
	for (uint32_t p = 0; p < k->npos; p++) {
		unsigned bit = p * MFT_PORTS_PER_POSITION;
		k->m[((size_t)b * k->npos + p) * MFT_BLOCK_SIZE + e] =
		    (uint16_t)(mask[bit / 64] >> (bit % 64));
	}
}

static int fill(void *ctx, uint32_t item, uint32_t *attr_mod,
		uint8_t data[SMP_DATA_SIZE])
{
	struct mft_xfer *x = ctx;
	uint32_t it = x->items[item];

	*attr_mod = smp_mft_mod(it / x->npos, (uint8_t)(it % x->npos));
	return smp_mft_encode(x->m + (size_t)it * MFT_BLOCK_SIZE, data,
			      SMP_DATA_SIZE);
}

static void pass_release(void);

static void xfer_done(void *ctx, int status, const struct bulk_result *r)
{
	struct mft_xfer *x = ctx;
	uint32_t nf = r ? r->nfailed : (status < 0 ? x->n : 0);

	struct mft_shadow *sh = NULL;

	for (uint32_t i = 0; i < mcg_m.n_shadow; i++)
		if (mcg_m.shadow[i].guid == x->guid && mcg_m.shadow[i].stale &&
		    mcg_m.shadow[i].npos == x->npos)
			sh = &mcg_m.shadow[i];
	/* The shadow is the new table except where a block failed. */
	for (uint32_t i = 0; sh && i < nf; i++)
		sh->stale[r ? x->items[r->failed[i]] : x->items[i]] = 1;
	if (nf) {
		mcg_m.prog_failed += nf;
		log_warn("MFT: %u of %u blocks to switch 0x%016" PRIx64 " "
			 "failed (%s); they are sent again",
			 nf, x->n, x->guid,
			 strerror(status < 0 ? -status : EIO));
	}
	free(x->m);
	free(x->items);
	free(x);
	pass_release();
}

static int shadow_alloc(struct mft_shadow *sh)
{
	size_t items = (size_t)sh->nblocks * sh->npos;

	if (sh->m)
		return 0;
	sh->m = calloc(items * MFT_BLOCK_SIZE, sizeof(*sh->m));
	sh->stale = malloc(items);
	if (!sh->m || !sh->stale) {
		shadow_free(sh);
		return -ENOMEM;
	}
	memset(sh->stale, 1, items); /* unknown: send every block once */
	return 0;
}

static int program_switch(struct ib_node *sw, struct mft_shadow *sh)
{
	size_t items = (size_t)sh->nblocks * sh->npos;
	struct fill_ctx k = {.npos = sh->npos, .colors = mcg_m.colors};
	struct bulk_req br = {0};
	struct mft_xfer *x;
	int rc = shadow_alloc(sh);

	if (rc < 0)
		return rc;
	x = calloc(1, sizeof(*x));
	k.m = calloc(items * MFT_BLOCK_SIZE, sizeof(*k.m));
	if (x)
		x->items = malloc(items * sizeof(*x->items));
	if (!x || !k.m || !x->items) {
		rc = -ENOMEM;
		goto fail;
	}
	mcast_mft_foreach(mcg_m.mc, (uint32_t)sw->sw_idx, put_entry, &k);
	for (uint32_t i = 0; i < items; i++) {
		size_t o = (size_t)i * MFT_BLOCK_SIZE;
		if (!sh->stale[i] &&
		    !memcmp(sh->m + o, k.m + o, MFT_BLOCK_SIZE * sizeof(*k.m)))
			continue;
		x->items[x->n++] = i;
		sh->stale[i] = 0;
	}
	if (!x->n)
		goto fail; /* nothing changed: not an error */
	memcpy(sh->m, k.m, items * MFT_BLOCK_SIZE * sizeof(*k.m));
	x->guid = sw->guid;
	x->npos = sh->npos;
	x->m = k.m;
	br.dr = true;
	br.path = sw->dr_path;
	br.hops = sw->dr_hops;
	br.dest = sw->guid;
	br.attr_id = SMP_ATTR_MFT;
	br.nitems = x->n;
	br.retries = mcg_m.sm->txnp.retries;
	br.fill = fill;
	br.done = xfer_done;
	br.ctx = x;
	rc = bulk_start(mcg_m.sm->txn, &br, NULL);
	if (rc < 0) {
		for (uint32_t i = 0; i < x->n; i++)
			sh->stale[x->items[i]] = 1;
		goto fail;
	}
	mcg_m.prog_pending++;
	mcg_m.blocks_sent += x->n;
	return 0;
fail:
	if (x)
		free(x->items);
	free(x);
	free(k.m);
	return rc;
}

static void start_pass(void)
{
	struct fabric *f = mcg_m.sm->fab;
	int rc = 0;

	mcg_m.prog_busy = true;
	mcg_m.prog_dirty = false;
	mcg_m.prog_failed = 0;
	mcg_m.gen_pass = mcg_m.gen_req;
	mcg_m.prog_pending = 1; /* held while submitting */
	for (uint32_t i = 0; i < f->n_switches && i < mcg_m.n_shadow; i++) {
		rc = program_switch(f->switches[i], &mcg_m.shadow[i]);
		if (rc < 0) {
			mcg_m.prog_failed++;
			log_err("MFT: cannot program %s (0x%016" PRIx64
				"): %s; "
				"retried with the next change",
				f->switches[i]->desc, f->switches[i]->guid,
				strerror(-rc));
		}
	}
	loop_txn_kick(mcg_m.sm);
	testpoint("mft"); /* blocks are in flight */
	pass_release();
}

static void pass_release(void)
{
	if (--mcg_m.prog_pending)
		return;
	mcg_m.prog_busy = false;
	if (!mcg_m.prog_failed) {
		failed_passes = 0;
		mcg_pass_done(mcg_m.gen_pass);
	} else if (++failed_passes < MAX_FAILED_PASSES) {
		mcg_m.prog_dirty = true;
	} else {
		log_err("MFT: %u passes in a row had failed blocks; the groups "
			"waiting for them stay in ComputingRoutes until the "
			"next change or sweep",
			failed_passes);
		failed_passes = 0;
	}
	if (mcg_m.prog_dirty)
		start_pass();
}

/* Coalescing: a pass starts KICK_QUIET_US after the last change, or
 * KICK_MAX_US after the first one of a burst.  A burst of joins is then
 * answered without MFT blocks queued ahead of each answer in the fabric
 * (ibsim, like a switch's SMA, serves MADs in order), and its changes
 * share one pass. */
#define KICK_QUIET_US 1000
#define KICK_MAX_US   10000
static uint64_t first_change_us;

static int on_kick(sd_event_source *s, uint64_t usec, void *ud)
{
	first_change_us = 0;
	if (!mcg_m.mc || !mcg_m.sm->fab || !mcg_m.shadow || !mcg_m.sm->txn)
		return 0;
	if (mcg_m.prog_busy) {
		mcg_m.prog_dirty = true;
		return 0;
	}
	start_pass();
	return 0;
}

void mftprog_kick(void)
{
	uint64_t now, at;

	sd_event_now(mcg_m.sm->ev, CLOCK_MONOTONIC, &now);
	if (!first_change_us)
		first_change_us = now;
	at = now + KICK_QUIET_US;
	if (at > first_change_us + KICK_MAX_US)
		at = first_change_us + KICK_MAX_US;
	if (!kick_src &&
	    sd_event_add_time(mcg_m.sm->ev, &kick_src, CLOCK_MONOTONIC, at, 100,
			      on_kick, NULL) < 0) {
		on_kick(NULL, 0, NULL);
		return;
	}
	sd_event_source_set_time(kick_src, at);
	sd_event_source_set_enabled(kick_src, SD_EVENT_ONESHOT);
}

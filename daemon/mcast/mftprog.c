/* MFT programming: per switch, the MulticastForwardingTable blocks (32
 * MLIDs x 16 port positions, attribute modifier block | position << 28)
 * that differ from what the switch last acknowledged, as one windowed
 * bulk transfer (mad/bulk.h: a lost block is re-sent alone).  Only the
 * blocks of the colors in use, never above the smallest MulticastFDBCap.
 * After a takeover the first pass reads the switches' blocks back and
 * sends only those that differ.  Otherwise a block this SM never wrote is
 * unknown, and is sent only if it is at or below the highest block any
 * group uses, fabric-wide (as OpenSM's max_block_in_use): that clears
 * whatever a switch held for every MLID in use, on every switch, while the
 * blocks above hold no MLID of ours and are left alone.  With only the
 * IPoIB group that is one block per position instead of the whole table
 * (96 blocks per switch at 16,000 hosts, sent to every switch).
 * A pass looks at the switches whose entries changed since the last one
 * (mcast_sw_changed), those with a block to send again, and every switch
 * after a new fabric, a read-back or when the highest block in use grew;
 * comparing every switch's table at every pass cost half the loop's time
 * during the 40,960-host join burst.  Groups routed before a pass started
 * become Ready when it completes without a failed block.  Changes during
 * a pass start another pass after it. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/mcast/mcg_priv.h"
#include "daemon/program/program.h"
#include "daemon/core/sm.h"
#include "lib/log.h"
#include "mad/bulk.h"
#include "mad/smp_switch.h"

#define MAX_FAILED_PASSES 3

struct mft_shadow {
	uint64_t guid;
	uint32_t nblocks, npos;
	uint16_t *m;	/* [block][position][32] as acknowledged */
	uint8_t *stale; /* [block][position]: unknown, send again */
	bool retry;	/* a block failed: the next pass looks again */
};

/* A transfer outlives neither the manager nor a shadow it names by GUID
 * (a sweep may replace the fabric and the shadows while it runs). */
struct mft_xfer {
	struct mcg_mgr *mgr;
	uint64_t guid;
	uint32_t npos;
	uint16_t *m;	 /* the new table */
	uint32_t *items; /* block * npos + position */
	uint32_t n;
};

static void shadow_free(struct mft_shadow *s)
{
	free(s->m);
	free(s->stale);
	s->m = NULL;
	s->stale = NULL;
}

void mftprog_free(struct mcg_mgr *mgr)
{
	mgr->kick_src = sd_event_source_unref(mgr->kick_src);
	for (uint32_t i = 0; i < mgr->n_shadow; i++)
		shadow_free(&mgr->shadow[i]);
	free(mgr->shadow);
	mgr->shadow = NULL;
	mgr->n_shadow = 0;
}

/* New fabric: shadows follow their switch by GUID (same table shape),
 * others start unknown so every block is sent once. */
void mftprog_reset(struct mcg_mgr *mgr)
{
	const struct fabric *f = mgr->sm->fab;
	struct mft_shadow *ns = calloc(f->n_switches + 1, sizeof(*ns));

	if (!ns)
		return; /* keep the old ones: the pass resends by size check */
	for (uint32_t i = 0; i < f->n_switches; i++) {
		const struct ib_node *sw = f->switches[i];
		ns[i].guid = sw->guid;
		ns[i].npos = (sw->nports + 1u + 15) / 16;
		ns[i].nblocks = (mgr->colors + 31) / 32;
		for (uint32_t j = 0; j < mgr->n_shadow; j++) {
			struct mft_shadow *o = &mgr->shadow[j];
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
	for (uint32_t i = 0; i < mgr->n_shadow; i++)
		shadow_free(&mgr->shadow[i]);
	free(mgr->shadow);
	mgr->shadow = ns;
	mgr->n_shadow = f->n_switches;
	mgr->mft_full = true;
}

struct fill_ctx {
	uint16_t *m;
	uint32_t npos, colors;
	uint32_t top_block; /* unknown blocks from here up are not sent */
};

/* One past the highest MFT block any switch has an entry in: that of
 * the highest color a tree holds. */
static uint32_t blocks_in_use(const struct mcg_mgr *mgr)
{
	return (mcast_colors_top(mgr->mc) + MFT_BLOCK_SIZE - 1) /
	       MFT_BLOCK_SIZE;
}

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

static void pass_release(struct mcg_mgr *mgr);

static void xfer_done(void *ctx, int status, const struct bulk_result *r)
{
	struct mft_xfer *x = ctx;
	struct mcg_mgr *mgr = x->mgr;
	uint32_t nf = r ? r->nfailed : (status < 0 ? x->n : 0);

	struct mft_shadow *sh = NULL;

	for (uint32_t i = 0; i < mgr->n_shadow; i++)
		if (mgr->shadow[i].guid == x->guid && mgr->shadow[i].stale &&
		    mgr->shadow[i].npos == x->npos)
			sh = &mgr->shadow[i];
	/* The shadow is the new table except where a block failed. */
	for (uint32_t i = 0; sh && i < nf; i++)
		sh->stale[r ? x->items[r->failed[i]] : x->items[i]] = 1;
	if (sh && nf)
		sh->retry = true;
	if (nf) {
		mgr->prog_failed += nf;
		log_warn("MFT: %u of %u blocks to switch 0x%016" PRIx64 " "
			 "failed (%s); they are sent again",
			 nf, x->n, x->guid,
			 strerror(status < 0 ? -status : EIO));
	}
	free(x->m);
	free(x->items);
	free(x);
	pass_release(mgr);
}

int mftprog_sa_block(void *ctx, const struct ib_node *sw, uint16_t block,
		     uint8_t position, uint16_t masks[MFT_BLOCK_SIZE])
{
	const struct mcg_mgr *mgr = ctx;
	const struct mft_shadow *sh = NULL;
	size_t it;

	if (sw->sw_idx >= 0 && (uint32_t)sw->sw_idx < mgr->n_shadow &&
	    mgr->shadow[sw->sw_idx].guid == sw->guid)
		sh = &mgr->shadow[sw->sw_idx];
	if (!sh || block >= sh->nblocks)
		return -1;
	it = (size_t)block * sh->npos + position;
	if (position >= sh->npos || !sh->m || sh->stale[it])
		return 0;
	memcpy(masks, sh->m + it * MFT_BLOCK_SIZE,
	       MFT_BLOCK_SIZE * sizeof(*masks));
	for (unsigned i = 0; i < MFT_BLOCK_SIZE; i++)
		if (masks[i])
			return 1;
	return 0;
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

static int program_switch(struct mcg_mgr *mgr, struct ib_node *sw,
			  struct mft_shadow *sh, uint32_t top_block)
{
	size_t items = (size_t)sh->nblocks * sh->npos;
	struct fill_ctx k = {
	    .npos = sh->npos, .colors = mgr->colors, .top_block = top_block};
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
	mcast_mft_foreach(mgr->mc, (uint32_t)sw->sw_idx, put_entry, &k);
	for (uint32_t i = 0; i < items; i++) {
		size_t o = (size_t)i * MFT_BLOCK_SIZE;
		if (!sh->stale[i] &&
		    !memcmp(sh->m + o, k.m + o, MFT_BLOCK_SIZE * sizeof(*k.m)))
			continue;
		if (sh->stale[i] && i / sh->npos >= k.top_block)
			continue; /* unknown, and no MLID of ours in it */
		x->items[x->n++] = i;
		sh->stale[i] = 0;
		memcpy(sh->m + o, k.m + o, MFT_BLOCK_SIZE * sizeof(*k.m));
	}
	if (!x->n)
		goto fail; /* nothing changed: not an error */
	x->mgr = mgr;
	x->guid = sw->guid;
	x->npos = sh->npos;
	x->m = k.m;
	br.dr = true;
	br.path = sw->dr_path;
	br.hops = sw->dr_hops;
	br.dest = sw->guid;
	br.attr_id = SMP_ATTR_MFT;
	br.nitems = x->n;
	br.retries = mgr->sm->txnp.retries;
	br.fill = fill;
	br.done = xfer_done;
	br.ctx = x;
	rc = bulk_start(mgr->sm->txn, &br, NULL);
	if (rc < 0) {
		for (uint32_t i = 0; i < x->n; i++)
			sh->stale[x->items[i]] = 1;
		sh->retry = true;
		goto fail;
	}
	mgr->prog_pending++;
	mgr->blocks_sent += x->n;
	return 0;
fail:
	if (x)
		free(x->items);
	free(x);
	free(k.m);
	return rc;
}

/* After taking over from another SM the shadows say nothing of what the
 * switches hold: one read pass fills them from the switches (a block read
 * is no longer unknown), so the pass after it sends only what differs. */
struct mft_rb {
	struct mcg_mgr *mgr;
	uint64_t guid;
	uint32_t npos, nblocks;
};

static void rb_done(void *ctx, const uint8_t *data, const bool *ok, uint32_t n)
{
	struct mft_rb *q = ctx;
	struct mcg_mgr *mgr = q->mgr;

	for (uint32_t s = 0; s < mgr->n_shadow; s++) {
		struct mft_shadow *sh = &mgr->shadow[s];
		if (sh->guid != q->guid || !sh->m || sh->npos != q->npos ||
		    sh->nblocks != q->nblocks)
			continue;
		for (uint32_t i = 0; i < n; i++)
			if (ok[i] &&
			    smp_mft_decode(sh->m + (size_t)i * MFT_BLOCK_SIZE,
					   data + (size_t)i * SMP_DATA_SIZE,
					   SMP_DATA_SIZE) == 0)
				sh->stale[i] = 0;
	}
	free(q);
	pass_release(mgr);
}

static int read_switch(struct mcg_mgr *mgr, const struct ib_node *sw,
		       struct mft_shadow *sh)
{
	uint32_t n = sh->nblocks * sh->npos;
	uint32_t *mods = malloc((n ? n : 1) * sizeof(*mods));
	struct mft_rb *q = calloc(1, sizeof(*q));
	int rc = shadow_alloc(sh);

	if (rc == 0 && (!mods || !q))
		rc = -ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < n; i++)
		mods[i] = smp_mft_mod(i / sh->npos, (uint8_t)(i % sh->npos));
	if (rc == 0) {
		*q = (struct mft_rb){mgr, sw->guid, sh->npos, sh->nblocks};
		rc =
		    readback_start(mgr->sm->txn, sw->dr_path, sw->dr_hops,
				   sw->guid, SMP_ATTR_MFT, mods, n, rb_done, q);
	}
	free(mods);
	if (rc < 0) {
		free(q);
		return rc;
	}
	mgr->prog_pending++;
	return 0;
}

static void read_pass(struct mcg_mgr *mgr)
{
	struct fabric *f = mgr->sm->fab;

	mgr->sm->mft_unknown = false;
	mgr->mft_full = true; /* the pass after the reading compares all */
	mgr->reading = true;
	mgr->prog_busy = true;
	mgr->prog_pending = 1; /* held while submitting */
	/* every switch: a shadow this SM kept from an earlier time as master
	 * (a standby that was master for a moment) is no truer than none */
	for (uint32_t i = 0; i < f->n_switches && i < mgr->n_shadow; i++) {
		struct mft_shadow *sh = &mgr->shadow[i];

		if (sh->stale)
			memset(sh->stale, 1, (size_t)sh->nblocks * sh->npos);
		read_switch(mgr, f->switches[i], sh);
	}
	loop_txn_kick(mgr->sm);
	pass_release(mgr);
}

static void start_pass(struct mcg_mgr *mgr)
{
	struct fabric *f = mgr->sm->fab;
	uint32_t top;
	bool full;
	int rc = 0;

	if (mgr->sm->stopping) {
		mgr->prog_busy = false;
		return;
	}
	if (sm_mft_unknown(mgr->sm)) {
		read_pass(mgr);
		return;
	}

	mgr->prog_busy = true;
	mgr->prog_dirty = false;
	mgr->prog_failed = 0;
	mgr->gen_pass = mgr->gen_req;
	mgr->prog_pending = 1; /* held while submitting */
	top = blocks_in_use(mgr);
	/* unknown blocks up to a higher top are sent now, on every switch */
	full = mgr->mft_full || top > mgr->mft_top;
	mgr->mft_full = false;
	mgr->mft_top = top;
	for (uint32_t i = 0; i < f->n_switches && i < mgr->n_shadow; i++) {
		struct mft_shadow *sh = &mgr->shadow[i];
		bool changed =
		    mcast_sw_changed(mgr->mc, (uint32_t)f->switches[i]->sw_idx);

		if (!full && !changed && !sh->retry)
			continue;
		sh->retry = false;
		rc = program_switch(mgr, f->switches[i], sh, top);
		if (rc < 0) {
			sh->retry = true;
			mgr->prog_failed++;
			log_err("MFT: cannot program %s (0x%016" PRIx64
				"): %s; "
				"retried with the next change",
				f->switches[i]->desc, f->switches[i]->guid,
				strerror(-rc));
		}
	}
	loop_txn_kick(mgr->sm);
	testpoint("mft"); /* blocks are in flight */
	pass_release(mgr);
}

static void pass_release(struct mcg_mgr *mgr)
{
	if (--mgr->prog_pending)
		return;
	if (mgr->orphan) { /* mcg_fini ran while this pass was out */
		free(mgr);
		return;
	}
	mgr->prog_busy = false;
	if (mgr->reading) {
		mgr->reading = false;
		start_pass(mgr); /* now the blocks that differ */
		return;
	}
	if (!mgr->prog_failed) {
		mgr->failed_passes = 0;
		mgr->pass_done(mgr, mgr->gen_pass);
	} else if (++mgr->failed_passes < MAX_FAILED_PASSES) {
		mgr->prog_dirty = true;
	} else {
		log_err("MFT: %u passes in a row had failed blocks; the groups "
			"waiting for them stay in ComputingRoutes until the "
			"next change or sweep",
			mgr->failed_passes);
		mgr->failed_passes = 0;
	}
	if (mgr->prog_dirty)
		start_pass(mgr);
}

/* Coalescing: a pass starts KICK_QUIET_US after the last change, or
 * KICK_MAX_US after the first one of a burst.  A burst of joins is then
 * answered without MFT blocks queued ahead of each answer in the fabric
 * (ibsim, like a switch's SMA, serves MADs in order), and its changes
 * share one pass. */
#define KICK_QUIET_US 1000
#define KICK_MAX_US   10000

static int on_kick(sd_event_source *s, uint64_t usec, void *ud)
{
	struct mcg_mgr *mgr = ud;

	mgr->first_change_us = 0;
	if (!mgr->mc || !mgr->sm->fab || !mgr->shadow || !mgr->sm->txn)
		return 0;
	if (mgr->prog_busy) {
		mgr->prog_dirty = true;
		return 0;
	}
	start_pass(mgr);
	return 0;
}

void mftprog_kick(struct mcg_mgr *mgr)
{
	uint64_t now, at;

	sd_event_now(mgr->sm->ev, CLOCK_MONOTONIC, &now);
	if (!mgr->first_change_us)
		mgr->first_change_us = now;
	at = now + KICK_QUIET_US;
	if (at > mgr->first_change_us + KICK_MAX_US)
		at = mgr->first_change_us + KICK_MAX_US;
	if (!mgr->kick_src &&
	    sd_event_add_time(mgr->sm->ev, &mgr->kick_src, CLOCK_MONOTONIC, at,
			      100, on_kick, mgr) < 0) {
		on_kick(NULL, 0, mgr);
		return;
	}
	sd_event_source_set_time(mgr->kick_src, at);
	sd_event_source_set_enabled(mgr->kick_src, SD_EVENT_ONESHOT);
}

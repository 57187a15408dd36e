/* Windowed bulk table programming (LFT, MFT, port-group blocks) to one
 * switch, as a receiver-side sliding window: a base index and a bitmap of
 * acknowledged blocks; at most W blocks in flight, all inside
 * [base, base + W); the base slides over contiguous acknowledged blocks; a
 * block that timed out is sent again alone (never the whole table), up to
 * the retry limit; the transfer ends with success or with the list of the
 * blocks that failed.  Built on the transaction engine. */
#ifndef IBSM_MAD_BULK_H
#define IBSM_MAD_BULK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/txn.h"

struct bulk_xfer;

/* Fills the SMP for item i (0 .. nitems-1): attribute modifier and the
 * 64-byte data block.  0, or -errno to fail that item without sending. */
typedef int (*bulk_fill_fn)(void *ctx, uint32_t item, uint32_t *attr_mod,
			    uint8_t data[SMP_DATA_SIZE]);

struct bulk_result {
	uint32_t nitems;
	uint32_t acked;
	uint32_t nfailed;
	const uint32_t *failed; /* item indexes that failed, ascending */
	int first_error;	/* status of the first failed item, 0 if none */
	unsigned sends;		/* SMPs sent, resends included */
	unsigned resends;	/* blocks sent again after a timeout */
	int64_t usecs;		/* wall time of the transfer */
};

/* Called once when every item is acknowledged or failed.  status: 0 when
 * all were acknowledged, else the first failure's (-ETIMEDOUT,
 * -EREMOTEIO, ...).  The result and the transfer are freed after it
 * returns. */
typedef void (*bulk_done_fn)(void *ctx, int status,
			     const struct bulk_result *r);

struct bulk_req {
	/* destination: DR path or LID, as in struct txn_smp_req */
	bool dr;
	const uint8_t *path; /* copied */
	uint8_t hops;
	uint16_t dlid;
	uint64_t dest;	     /* per-destination window key, 0 = derive */
	uint8_t method;	     /* 0 = Set */
	uint16_t attr_id;    /* SMP_ATTR_LFT, _MFT, _PGROUP_TABLE, _PGROUP_FT */
	uint32_t nitems;     /* blocks to send (items 0 .. nitems-1) */
	unsigned window;     /* W, 0 = the engine's node_window */
	unsigned retries;    /* re-sends per block after a timeout */
	unsigned timeout_ms; /* 0 = engine default */
	bulk_fill_fn fill;
	bulk_done_fn done;
	void *ctx;
};

/* Starts the transfer (sends the first window).  0 or -EINVAL/-ENOMEM;
 * nitems 0 completes at the next engine event (never inside bulk_start).
 * *out (optional) lets the caller query progress. */
int bulk_start(struct txn_engine *eng, const struct bulk_req *req,
	       struct bulk_xfer **out);

/* Progress: the window base (first unacknowledged item). */
uint32_t bulk_base(const struct bulk_xfer *x);

/* Convenience for LFTs: items are the LFT blocks listed in blocks[0..n)
 * (e.g. only the changed ones), data from lft[64*block ..] (lft_size
 * entries; bytes past it are sent as 0xFF). */
struct bulk_lft_req {
	bool dr;
	const uint8_t *path;
	uint8_t hops;
	uint16_t dlid;
	uint64_t dest;
	const uint8_t *lft; /* not copied: must stay valid until done */
	uint32_t lft_size;
	const uint32_t *blocks; /* copied; NULL = blocks 0 .. n-1 */
	uint32_t n;
	unsigned window, retries, timeout_ms;
	bulk_done_fn done; /* r->failed holds indexes into blocks[] */
	void *ctx;
};
int bulk_lft_start(struct txn_engine *eng, const struct bulk_lft_req *req);

/* For a resweep: the LFT blocks that differ between what the switch holds
 * (old[0..old_size), NULL = unknown: every block) and the new table
 * (new[0..new_size)); entries past a table's size count as 0xFF.  Writes
 * ascending block numbers of blocks 0 .. ceil(new_size / 64) - 1 to out
 * (room for that many) and returns how many. */
uint32_t bulk_lft_changed(const uint8_t *old, uint32_t old_size,
			  const uint8_t *new_lft, uint32_t new_size,
			  uint32_t *out);

#endif

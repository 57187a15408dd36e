/* Private to the transaction engine: the engine and transaction records,
 * shared by txn.c (windows, sends, timeouts) and txn_recv.c (dispatch of
 * received MADs, responses to requests). */
#ifndef IBSM_MAD_TXN_INT_H
#define IBSM_MAD_TXN_INT_H

#include "mad/txn.h"
#include "mad/txn_rx.h"

struct txn_dest;

struct txn {
	struct txn *qnext; /* FIFO of its destination (or of retries)
			      while queued */
	struct txn_dest *dest;
	txn_cb cb;
	void *ctx;
	int agent;
	struct mad_addr to;
	uint8_t mad[MAD_SIZE];
	size_t len;
	bool is_smp;
	bool optional; /* txn_smp_req.optional */
	bool outstanding;
	uint32_t slot; /* index in eng->slots while outstanding */
	uint32_t tid;  /* low 32 bits of the current try's TID */
	unsigned tries, max_tries, timeout_ms;
	int64_t sent_us, deadline_us;
	int heap_idx;	 /* -1 when not in the deadline heap */
	int last_err;	 /* last send error, 0 if sends worked */
	bool drain_wait; /* txn_destroy waits for this try's answer */
};

/* Per-destination window state; exists while it has MADs. */
struct txn_dest {
	uint64_t key;
	struct txn_dest *hnext; /* hash chain */
	struct txn_dest *rnext; /* ready list */
	struct txn *qhead, *qtail;
	unsigned outstanding;
	bool in_ready;
};

struct txn_deferred {
	struct txn_deferred *next;
	void (*fn)(void *ctx);
	void *ctx;
};

#define TXN_DEST_BUCKETS 4096
#define TXN_MAX_SLOTS	 65536 /* slot is the TID's low 16 bits */

struct txn_engine {
	struct txn_params params;
	struct txn_transport tr;
	struct mad_port *port; /* NULL with a test transport */
	struct txn_rxq rxq;
	struct txn **slots; /* outstanding transactions by slot */
	uint32_t nslots, *free_slots, nfree;
	uint16_t gen;	   /* TID high half of the low 32 bits */
	struct txn **heap; /* deadline min-heap */
	unsigned heap_n, heap_cap;
	struct txn_dest *buckets[TXN_DEST_BUCKETS];
	struct txn_dest *ready_head, *ready_tail;
	struct txn *retry_head, *retry_tail; /* retries waiting for room */
	struct txn_deferred *defer_head, *defer_tail;
	struct txn_stats stats;
	int64_t *stale_exp;		/* FIFO ring of stale-slot expiries */
	unsigned stale_head, stale_cap; /* count is stats.stale */
	txn_request_cb req_cb;
	void *req_ctx;
	txn_mkey_fn mkey_fn;
	void *mkey_ctx;
	/* txn_destroy has begun: nothing more goes on the wire (the
	 * callbacks of cancelled MADs may submit new ones; they are
	 * queued, then cancelled too) */
	bool closing;
};

/* txn.c */
struct txn *txn_by_tid(struct txn_engine *e, uint32_t tid);
void txn_complete(struct txn_engine *e, struct txn *t, int status,
		  const struct mad_rx *rx, const struct smp *s);
void txn_complete_fast_timeout(struct txn_engine *e, struct txn *t);
/* The current try got no answer; late: its answer may still come (our
 * own timer fired), so it keeps a stale window slot for a while. */
void txn_expire(struct txn_engine *e, struct txn *t, bool late);
void txn_pump(struct txn_engine *e);
/* A late answer or umad record for an old try arrived: free one stale slot. */
void txn_stale_release(struct txn_engine *e);
/* txn_recv.c */
void txn_dispatch(struct txn_engine *e, const struct mad_rx *rx);

#endif

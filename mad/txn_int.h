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
	uint64_t tx_seq; /* the current try's place in the send order */
};

/* An answer waiting for room in the send window. */
struct txn_out {
	struct txn_out *next;
	int agent;
	struct mad_addr to;
	size_t len;
	uint8_t mad[];
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
/* slot is the TID's low 16 bits; the last two are the fence's and the
 * exit wake-up's (TXN_WAKE_TID) */
#define TXN_MAX_SLOTS  0xFFFE
#define TXN_FENCE_SLOT 0xFFFE

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
	/* The send window (txn_tx.c), shared with the receiver thread,
	 * which answers SA Gets and takes fence answers: tx_seq counts every
	 * send, tx_acked is the last one known to have left the transport,
	 * unfenced counts answers sent since the last request (no answer
	 * will ever acknowledge them), fence_seq is the place of the fence
	 * out (0: none), rx_count the MADs received. */
	uint64_t tx_seq, tx_acked, fence_seq, rx_count, fence_rx_mark;
	int64_t fence_sent_us;
	unsigned unfenced;
	uint32_t fence_tid, fence_gen;
	struct txn_out *outq, **outq_tail;
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
/* txn_tx.c: the send window */
bool txn_tx_room(const struct txn_engine *e);
uint64_t txn_tx_take(struct txn_engine *e); /* a send's place in order */
/* an answer went (loop: on the loop thread, else the receiver's) */
void txn_tx_sent_answer(struct txn_engine *e, bool loop);
void txn_tx_ack(struct txn_engine *e, uint64_t seq);
/* Any MAD received (either thread, before it is queued): counted; true
 * when it is a fence's answer, which it acknowledges (then not queued). */
bool txn_tx_heard(struct txn_engine *e, const struct mad_rx *rx);
/* Sends the fence when answers went unacknowledged long enough, or when
 * waiting (answers queued) and the window is full.  Either thread. */
void txn_tx_fence_if_due(struct txn_engine *e, bool waiting);
int txn_out_queue(struct txn_engine *e, int agent, const uint8_t *mad,
		  size_t len, const struct mad_addr *to);
void txn_out_pump(struct txn_engine *e); /* answers, then a fence if due */
void txn_out_free(struct txn_engine *e);

#endif

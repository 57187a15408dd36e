/* The MAD transaction engine: bounded windows of outstanding MADs (global
 * and per destination, the rest queued FIFO), TIDs matched on their low 32
 * bits (ibsim rewrites the high ones), timeouts and retries, counters, and
 * the hook for unsolicited requests (SMInfo, traps, SA queries).
 *
 * Event-loop agnostic: the owner polls txn_fd() for readability and calls
 * txn_on_readable(), and arms a timer at txn_next_deadline_us() that calls
 * txn_on_timer().  Times are CLOCK_MONOTONIC microseconds (sd-event's
 * clock).  Completion callbacks run only from txn_on_readable/on_timer/
 * txn_run (never from a submit call) and may submit new transactions. */
#ifndef IBSM_MAD_TXN_H
#define IBSM_MAD_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"
#include "mad/umad_port.h"

struct txn_engine;

struct txn_params {
	/* Max MADs outstanding overall (mad.window).  A try that timed out
	 * keeps holding a slot as "stale" until its late answer (or the
	 * umad timeout record) arrives, or max(4 timeouts, 1 s) pass, and
	 * its retry waits for room: the window bounds what the fabric
	 * (ibsim) really holds even with too short a timeout. */
	unsigned window;
	unsigned node_window; /* max outstanding per destination key */
	unsigned timeout_ms;  /* per try (mad.timeout_ms) */
	unsigned retries;     /* extra tries after the first (mad.retries) */
	/* ibsim answers at once with umad status 110 both for an attribute
	 * it does not implement and for a packet its Error command dropped;
	 * a kernel reports 110 only after the timeout we gave it.  An
	 * immediate 110 (sooner than timeout_ms / 2) ends the try early:
	 * with retry_fast_timeouts (the default) it is re-sent at once like
	 * any lost try, within the same retry budget, so drops cost no
	 * waiting and unimplemented attributes cost at most `retries` extra
	 * SMPs; without it, it is final (-ETIMEDOUT, fast_timeout set).
	 * Probes of optional attributes (PortGroupInfo) should pass
	 * retries = 0 in their txn_smp_req. */
	bool retry_fast_timeouts;
	/* Most MADs handed to the transport and not yet known to have left
	 * it (mad.send_window): requests (SMPs, SA queries) and answers to
	 * requests (SA answers, on the loop and on the receiver thread)
	 * together.  A send is known to have left once the answer to it or
	 * to a later request came back: under ibsim, which reads our socket
	 * in order, that answer proves ibsim read everything sent before.
	 * Answers have no answer of their own, so after send_window / 4 of
	 * them with no request in between, a fence (a NodeInfo Get to our
	 * own port) follows.  What finds no room waits in the engine, never
	 * in a blocking write: libumad2sim holds its global lock while it
	 * writes to ibsim, and ibsim stalls for good once ~300 of our MADs
	 * fill its socket (docs/design.md §3.1).  0: no bound. */
	unsigned send_window;
};

/* The measured defaults (see tests/bench/mad_window.sh and mad/README). */
#define TXN_DEFAULT_WINDOW	64
#define TXN_DEFAULT_NODE_WINDOW 16
#define TXN_DEFAULT_TIMEOUT_MS	200
#define TXN_DEFAULT_RETRIES	3
#define TXN_DEFAULT_SEND_WINDOW 128
void txn_params_default(struct txn_params *p);

struct txn_stats {
	uint64_t sent;	   /* MADs handed to umad, retries included */
	uint64_t received; /* responses matched to a transaction */
	uint64_t retried;  /* re-sends after a timeout */
	uint64_t lost;	   /* transactions that ran out of tries */
	uint64_t timeouts; /* tries that timed out (our timer or umad 110) */
	uint64_t fast_timeouts; /* immediate umad 110 answers (see params) */
	uint64_t remote_errors; /* responses with MAD status != 0 */
	/* optional requests (txn_smp_req.optional) the target does not
	 * implement: an error status, or ibsim's immediate umad 110; counted
	 * here instead of remote_errors, timeouts and lost */
	uint64_t unsupported;
	uint64_t unmatched; /* responses with no outstanding TID (late dups) */
	uint64_t dropped;   /* received MADs that failed validation */
	uint64_t requests;  /* unsolicited requests passed to the handler */
	uint64_t send_errors;	  /* umad_send failures */
	unsigned outstanding;	  /* in flight now */
	unsigned queued;	  /* waiting for a window slot now */
	unsigned max_outstanding; /* high-water mark */
	unsigned stale; /* timed-out tries whose answer may still be on
			   its way; they hold window slots (see window) */
	/* the send window (see send_window) */
	unsigned unconsumed; /* sent, not known to have left the transport */
	unsigned max_unconsumed;  /* high-water mark */
	unsigned answers_waiting; /* answers queued for room now */
	uint64_t answers_waited;  /* answers that had to wait for room */
	uint64_t answers_dropped; /* answers dropped: the queue was full */
	uint64_t rx_handed_back;  /* receiver-thread answers left to the loop
				     for want of room */
	uint64_t fences;	  /* fences sent */
};

/* What a completed transaction reports to its callback. */
struct txn_result {
	int status;	     /* 0; -EREMOTEIO (MAD status != 0, see mad_status);
				-ETIMEDOUT (no answer after all tries); -ECANCELED
				(engine destroyed); other -errno (send failed) */
	uint16_t mad_status; /* status of the response (DR D bit removed) */
	unsigned tries;	     /* sends it took */
	bool fast_timeout;   /* -ETIMEDOUT came as an immediate umad 110
				(ibsim: attribute not implemented) */
	const uint8_t *mad;  /* whole response MAD, NULL when none */
	size_t mad_len;
	const uint8_t *data;   /* SMP: the 64-byte data block of the response,
				  NULL when none */
	const struct smp *smp; /* SMP: decoded response, NULL when none */
};

/* status == r->status, repeated for brevity in callbacks. */
typedef void (*txn_cb)(void *ctx, int status, const struct txn_result *r);

/* Destination keys for the per-destination window: the node GUID when
 * known (best), else derived from the DR path or the LID.  Never 0. */
uint64_t txn_dest_path(const uint8_t *path, uint8_t hops);
uint64_t txn_dest_lid(uint16_t lid);

/* A SMP to send.  path[1..hops] as in smp_init_dr(). */
struct txn_smp_req {
	bool dr;
	const uint8_t *path; /* DR */
	uint8_t hops;	     /* DR */
	uint16_t dlid;	     /* LID-routed */
	uint8_t method;
	uint16_t attr_id;
	uint32_t attr_mod;
	const uint8_t *data; /* 64 bytes, NULL = zeros */
	uint64_t mkey;
	uint64_t dest;	     /* per-destination key, 0 = derive */
	int retries;	     /* -1 = engine default */
	unsigned timeout_ms; /* 0 = engine default */
	/* A probe of an optional attribute: "not implemented" is an
	 * expected answer, counted as unsupported, not as a loss */
	bool optional;
};

/* The M_Key of an SMP submitted with mkey 0 (0 leaves it 0): the SM's
 * key table knows which port a route or LID reaches and what key it
 * holds (daemon/program/mkey.c), so every caller's SMPs carry their port's key.
 * Called at submit; retries resend the same bytes. */
typedef uint64_t (*txn_mkey_fn)(void *ctx, const struct txn_smp_req *req);
void txn_set_mkey_hook(struct txn_engine *eng, txn_mkey_fn fn, void *ctx);

/* Opens the SMI agents on port and creates the engine (it starts a
 * receiver thread: umad2sim's descriptor cannot be epolled, so the thread
 * reads umad and txn_fd() is an eventfd any loop can watch).  *out NULL
 * and -errno on failure.  The port stays owned by the caller. */
int txn_create(struct mad_port *port, const struct txn_params *params,
	       struct txn_engine **out);

/* A transport other than umad, for unit tests: send() gets every MAD the
 * engine sends; received MADs are handed in with txn_inject(). */
struct txn_transport {
	int (*send)(void *ctx, int agent, const uint8_t *mad, size_t len,
		    const struct mad_addr *to, int timeout_ms);
	void *ctx;
	int agent_smi, agent_smi_dr;
};
int txn_create_transport(const struct txn_transport *tr,
			 const struct txn_params *params,
			 struct txn_engine **out);
/* Queues a received MAD as if the transport had read it (thread-safe). */
int txn_inject(struct txn_engine *eng, const struct mad_rx *rx);
/* Completes every pending transaction with -ECANCELED, then frees.  Not
 * from inside a callback of this engine. */
void txn_destroy(struct txn_engine *eng);
/* Changes window/timeout/retries for transactions submitted from now on. */
void txn_set_params(struct txn_engine *eng, const struct txn_params *params);
const struct txn_params *txn_get_params(const struct txn_engine *eng);

int txn_fd(const struct txn_engine *eng);
struct mad_port *txn_port(const struct txn_engine *eng);

/* Queues one SMP; 0 or -EINVAL/-ENOMEM.  cb may be NULL. */
int txn_submit(struct txn_engine *eng, const struct txn_smp_req *req, txn_cb cb,
	       void *ctx);
int txn_submit_dr(struct txn_engine *eng, const uint8_t *path, uint8_t hops,
		  uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		  const uint8_t *data, txn_cb cb, void *ctx);
int txn_submit_lid(struct txn_engine *eng, uint16_t dlid, uint8_t method,
		   uint16_t attr_id, uint32_t attr_mod, const uint8_t *data,
		   txn_cb cb, void *ctx);

/* A non-SMP MAD (e.g. an SA query from ibsmctl) on an agent the caller
 * registered with mad_port_register().  The engine overwrites the TID;
 * the rest of mad[0..len) is sent as is.  Same windows and retries. */
int txn_submit_mad(struct txn_engine *eng, int agent, const uint8_t *mad,
		   size_t len, const struct mad_addr *to, uint64_t dest,
		   txn_cb cb, void *ctx);

/* Reads and dispatches everything waiting on the fd (an eventfd). */
void txn_on_readable(struct txn_engine *eng);
/* Absolute CLOCK_MONOTONIC microseconds of the next timeout, or -1 when
 * nothing is outstanding. */
int64_t txn_next_deadline_us(const struct txn_engine *eng);
/* Expires the tries whose deadline is <= now_us (retry or complete). */
void txn_on_timer(struct txn_engine *eng, int64_t now_us);
/* CLOCK_MONOTONIC in microseconds. */
int64_t txn_now_us(void);

/* Runs fn(ctx) at the next engine event (txn_on_readable/on_timer/
 * txn_run); txn_next_deadline_us() reports "now" while one is waiting.
 * For completions that must not run inside the caller.  0 or -ENOMEM. */
int txn_defer(struct txn_engine *eng, void (*fn)(void *ctx), void *ctx);

/* Blocking helper for tools and tests: polls and dispatches until nothing
 * is outstanding or queued, or max_ms passed (-1 = no limit).
 * 0, -ETIMEDOUT, or -errno from poll. */
int txn_run(struct txn_engine *eng, int max_ms);
/* Outstanding + queued transactions. */
unsigned txn_pending(const struct txn_engine *eng);

/* An unsolicited request that arrived (SMP Get/Set/Trap/TrapRepress on the
 * SMI agents, or any request on an agent the caller registered). */
struct txn_request {
	const struct mad_rx *rx;   /* raw bytes, agent, source address */
	const struct mad_hdr *hdr; /* decoded common header */
	const struct smp *smp;	   /* decoded SMP, NULL for other classes */
};
typedef void (*txn_request_cb)(void *ctx, const struct txn_request *req);
void txn_set_request_handler(struct txn_engine *eng, txn_request_cb cb,
			     void *ctx);

/* Answers an SMP request: GetResp (or for a Trap, TrapRepress is sent by
 * smp_make_trap_repress + txn_respond_raw), same TID, the 64-byte data
 * (NULL = echo the request's), status; for DR the D bit set and the
 * request's hop pointer/count kept so the SMI walks the return path; sent
 * back to the request's source on the agent it arrived on. */
int txn_respond_smp(struct txn_engine *eng, const struct txn_request *req,
		    uint16_t status, const uint8_t *data);
/* Answers a received Trap (SMP, attribute Notice) with the TrapRepress
 * of IBA 13.4.9: same TID, same Notice payload.  -EINVAL if req is not a
 * SMP Trap. */
int txn_repress_trap(struct txn_engine *eng, const struct txn_request *req);

/* Sends a fully built response MAD to the request's source, at once when
 * the send window has room, else after the answers already waiting (a
 * copy is kept): 0, or -ENOMEM/-ENOBUFS when it could not be kept (the
 * requester asks again). */
int txn_respond_raw(struct txn_engine *eng, const struct txn_request *req,
		    const uint8_t *mad, size_t len);

/* A hook offered every received MAD (status 0) on the receiver thread,
 * before it is queued for the loop: it returns true when it answered the
 * MAD itself (it is then not dispatched), false to let the loop have it.
 * It runs concurrently with the loop, so it must touch only what it
 * guards itself; it may answer with txn_respond_rx().  NULL removes it;
 * once txn_set_rx_hook() returns, no call of the previous hook runs.
 * Not called for MADs injected without a port. */
typedef bool (*txn_rx_hook)(void *ctx, const struct mad_rx *rx);
void txn_set_rx_hook(struct txn_engine *eng, txn_rx_hook fn, void *ctx);
/* On the receiver thread, before it answers rx itself: takes room for one
 * answer in the send window (true), or false when the transport holds
 * too much already; the hook must then leave the MAD to the loop (return
 * false), which answers it when there is room. */
bool txn_rx_room(struct txn_engine *eng);
/* Sends a response MAD (GS classes: GSI Q_Key unless the request's
 * address had one) to where rx came from, on its agent, in the room
 * txn_rx_room() took.  Safe on the receiver thread; counts nothing in
 * the engine's statistics but the send window. */
int txn_respond_rx(struct txn_engine *eng, const struct mad_rx *rx,
		   const uint8_t *mad, size_t len);

const struct txn_stats *txn_stats(const struct txn_engine *eng);

#endif

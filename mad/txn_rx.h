/* Private to the transaction engine: the queue of received MADs between
 * the umad receiver thread and the event loop, signalled by an eventfd. */
#ifndef IBSM_MAD_TXN_RX_H
#define IBSM_MAD_TXN_RX_H

#include <pthread.h>
#include <stdbool.h>

#include "mad/umad_port.h"

struct rx_item {
	struct rx_item *next;
	struct mad_rx rx;
};

struct txn_rxq {
	pthread_mutex_t mu;
	struct rx_item *head, *tail;
	int efd;	       /* eventfd, readable while items wait */
	struct mad_port *port; /* NULL: no thread (injected MADs only) */
	pthread_t thread;
	bool running;
	bool stop; /* set by txn_rxq_fini, read atomically */
	/* txn_set_rx_hook(): offered each MAD on the thread before it is
	 * queued; the lock lets a caller know no call is running after it
	 * replaced the hook */
	pthread_rwlock_t hook_lock;
	/* the engine's look at every MAD first (txn_tx_heard): true when it
	 * took it (a fence's answer) */
	bool (*heard)(void *ctx, const struct mad_rx *rx);
	void *heard_ctx;
	bool (*hook)(void *ctx, const struct mad_rx *rx);
	void *hook_ctx;
};

int txn_rxq_init(struct txn_rxq *q);
/* Starts the thread reading port into the queue. */
int txn_rxq_start(struct txn_rxq *q, struct mad_port *port);
/* The TID (low 32 bits) of the exit wake-up, txn_recv.c's NodeInfo Get
 * to our own port: its answer matches no transaction. */
#define TXN_WAKE_TID 0xFFFF
/* Tells the thread to stop at the answer to the wake-up, or at its next
 * 100 ms poll that brings nothing. */
void txn_rxq_stop(struct txn_rxq *q);
/* Stops the thread and frees queued items. */
void txn_rxq_fini(struct txn_rxq *q);
/* Takes a copy of rx into the queue and signals the eventfd. */
int txn_rxq_push(struct txn_rxq *q, const struct mad_rx *rx);
/* Detaches the whole queue (FIFO order), clearing the eventfd. */
struct rx_item *txn_rxq_take(struct txn_rxq *q);

#endif

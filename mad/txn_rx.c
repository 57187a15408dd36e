/* The receiver thread of the transaction engine: blocks in umad (the only
 * way to wait on umad2sim's fake descriptor), queues each MAD and wakes
 * the event loop through an eventfd.  Keeping umad drained also keeps
 * ibsim from blocking on a full socket. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/log.h"
#include "mad/smp.h"
#include "mad/txn.h"
#include "mad/txn_rx.h"

#define RX_POLL_MS 100 /* how often the thread looks at the stop flag */

int txn_rxq_init(struct txn_rxq *q)
{
	memset(q, 0, sizeof(*q));
	q->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->efd < 0)
		return -errno;
	pthread_mutex_init(&q->mu, NULL);
	pthread_rwlock_init(&q->hook_lock, NULL);
	return 0;
}

/* The hook took rx (answered it on this thread): true. */
static bool offer_hook(struct txn_rxq *q, const struct mad_rx *rx)
{
	bool taken = false;

	pthread_rwlock_rdlock(&q->hook_lock);
	if (q->hook)
		taken = q->hook(q->hook_ctx, rx);
	pthread_rwlock_unlock(&q->hook_lock);
	return taken;
}

int txn_rxq_push(struct txn_rxq *q, const struct mad_rx *rx)
{
	struct rx_item *it = malloc(sizeof(*it));
	uint64_t one = 1;

	if (!it)
		return -ENOMEM;
	it->next = NULL;
	it->rx = *rx;
	pthread_mutex_lock(&q->mu);
	if (q->tail)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
	pthread_mutex_unlock(&q->mu);
	if (write(q->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

struct rx_item *txn_rxq_take(struct txn_rxq *q)
{
	struct rx_item *h;
	uint64_t v;

	/* Clear the eventfd before taking the list: a push racing with us
	 * then leaves it readable, never an item without a wake-up. */
	if (read(q->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_debug("txn: eventfd read: %s", strerror(errno));
	pthread_mutex_lock(&q->mu);
	h = q->head;
	q->head = q->tail = NULL;
	pthread_mutex_unlock(&q->mu);
	return h;
}

/* The answer to the exit wake-up (sent after the stop flag is set).
 * The thread reads it before it ends: a MAD left unread when the process
 * exits reaches the umad layer during its teardown (see txn_recv.c). */
static bool is_wake_answer(const struct mad_rx *rx)
{
	struct mad_hdr h;

	return !rx->status && mad_hdr_decode(&h, rx->mad, rx->len) == 0 &&
	       h.mgmt_class == MAD_CLASS_SMI_DR &&
	       (h.method & MAD_METHOD_RESP) && (uint32_t)h.tid == TXN_WAKE_TID;
}

static void *rx_thread(void *arg)
{
	struct txn_rxq *q = arg;
	struct mad_rx rx;
	unsigned errors = 0;

	for (;;) {
		bool stopping = __atomic_load_n(&q->stop, __ATOMIC_ACQUIRE);
		int rc = mad_port_recv(q->port, &rx, RX_POLL_MS);

		if (rc < 0 && stopping)
			break;
		if (rc == -ETIMEDOUT || rc == -EAGAIN || rc == -EINTR)
			continue;
		if (rc < 0) {
			if (errors++ < 5)
				log_err(
				    "txn: umad receive failed: %s; retrying",
				    strerror(-rc));
			usleep(10000);
			continue;
		}
		rx.rx_us = txn_now_us();
		if (is_wake_answer(&rx) &&
		    __atomic_load_n(&q->stop, __ATOMIC_ACQUIRE))
			break;
		if (q->heard && q->heard(q->heard_ctx, &rx))
			continue;
		if (!rx.status && offer_hook(q, &rx))
			continue;
		if (txn_rxq_push(q, &rx) < 0)
			log_err("txn: out of memory queueing a received MAD; "
				"dropped");
	}
	return NULL;
}

int txn_rxq_start(struct txn_rxq *q, struct mad_port *port)
{
	int rc;

	q->port = port;
	__atomic_store_n(&q->stop, false, __ATOMIC_RELEASE);
	rc = pthread_create(&q->thread, NULL, rx_thread, q);
	if (rc)
		return -rc;
	q->running = true;
	return 0;
}

void txn_rxq_stop(struct txn_rxq *q)
{
	__atomic_store_n(&q->stop, true, __ATOMIC_RELEASE);
}

void txn_rxq_fini(struct txn_rxq *q)
{
	struct rx_item *it, *next;

	if (q->running) {
		__atomic_store_n(&q->stop, true, __ATOMIC_RELEASE);
		pthread_join(q->thread, NULL);
		q->running = false;
	}
	for (it = txn_rxq_take(q); it; it = next) {
		next = it->next;
		free(it);
	}
	if (q->efd >= 0)
		close(q->efd);
	q->efd = -1;
	pthread_mutex_destroy(&q->mu);
	pthread_rwlock_destroy(&q->hook_lock);
}

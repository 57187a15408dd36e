/* The endpoint's connections and their deadline: MHD closes a connection
 * that moves no byte for its idle timeout, but a client dripping a byte a
 * second is never idle, and 256 of them would hold every slot for good
 * (slowloris).  So each connection's current request must be read and
 * answered within REQUEST_DEADLINE_US of its start (the connection's, or
 * the end of the previous request on a kept-alive one); past it the
 * socket is shut down under MHD, which then closes the connection as a
 * client that went away.  The list is kept in order of start, so the
 * oldest is first. */
#include <microhttpd.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "daemon/metrics/metrics_priv.h"
#include "lib/log.h"

#define REQUEST_DEADLINE_US (10 * 1000000LL)

struct metrics_conn {
	struct metrics_conn *prev, *next;
	struct MHD_Connection *c;
	int64_t since_us;
	bool cut;
};

static void unlink_conn(struct metrics *m, struct metrics_conn *k)
{
	*(k->prev ? &k->prev->next : &m->conns) = k->next;
	*(k->next ? &k->next->prev : &m->conns_tail) = k->prev;
	k->prev = k->next = NULL;
}

static void append(struct metrics *m, struct metrics_conn *k, int64_t now)
{
	k->since_us = now;
	k->prev = m->conns_tail;
	*(m->conns_tail ? &m->conns_tail->next : &m->conns) = k;
	m->conns_tail = k;
}

void metrics_conn_notify(void *cls, struct MHD_Connection *c, void **sctx,
			 enum MHD_ConnectionNotificationCode toe)
{
	struct metrics *m = cls;
	struct metrics_conn *k = *sctx;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		k = calloc(1, sizeof(*k));
		if (!k)
			return; /* not watched: its idle timeout still holds */
		k->c = c;
		append(m, k, txn_now_us());
		*sctx = k;
		m->conns_open++;
		return;
	}
	if (k) {
		unlink_conn(m, k);
		free(k);
		*sctx = NULL;
		m->conns_open--;
	}
}

/* A request ended: the next one on this connection has its own time. */
void metrics_conn_completed(void *cls, struct MHD_Connection *c, void **rctx,
			    enum MHD_RequestTerminationCode toe)
{
	struct metrics *m = cls;
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct metrics_conn *k = ci ? ci->socket_context : NULL;

	if (!k || k->cut)
		return;
	unlink_conn(m, k);
	append(m, k, txn_now_us());
}

static void cut(struct metrics *m, struct metrics_conn *k)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(k->c, MHD_CONNECTION_INFO_CONNECTION_FD);

	k->cut = true;
	if (!ci)
		return;
	shutdown(ci->connect_fd, SHUT_RDWR);
	m->conns_cut++;
}

int64_t metrics_conn_enforce(struct metrics *m, int64_t now)
{
	for (struct metrics_conn *k = m->conns; k; k = k->next) {
		if (k->cut)
			continue;
		if (k->since_us + REQUEST_DEADLINE_US > now)
			return k->since_us + REQUEST_DEADLINE_US - now;
		cut(m, k);
	}
	return -1;
}

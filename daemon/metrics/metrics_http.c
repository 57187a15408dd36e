/* The /metrics endpoint: libmicrohttpd in its external mode, driven from
 * the event loop.  MHD keeps its sockets in an epoll set of its own; the
 * loop watches that one descriptor and a timer at MHD's next deadline,
 * and calls MHD_run(), which accepts, reads, answers and times out every
 * connection without blocking.  So MHD starts no thread, the page is made
 * on the loop thread from the parts' state as it is, and no lock is
 * needed (docs/design.md §3.1).  A page serves every scrape of its second:
 * 100 scrapers cost one page a second, not 100. */
#include <errno.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/core/sm.h"
#include "daemon/metrics/metrics_priv.h"
#include "lib/listen.h"
#include "lib/log.h"

#define PAGE_MAX_AGE_US 1000000
/* A silent client holds a slot at most this long (seconds); a slow one,
 * metrics_conn.c's deadline. */
#define CONN_TIMEOUT_S 10
#define CONN_LIMIT     256
#define CONTENT_TYPE   "text/plain; version=0.0.4; charset=utf-8"

static struct log_ratelimit http_rl = {.interval_ms = 10000, .burst = 5};

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	if (log_ratelimit_ok(&http_rl))
		log_warn("metrics endpoint: %s; the connection is dropped",
			 msg);
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned code,
				   const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "text/plain");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

/* A page with blocks (prom_put_block) is read out of its pieces as MHD
 * sends it: a block of 100,000 ports' counters is not copied per page. */
static ssize_t read_page(void *cls, uint64_t pos, char *buf, size_t max)
{
	size_t n = prom_out_read(cls, (size_t)pos, buf, max);

	return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void free_page(void *cls)
{
	prom_out_free(cls);
	free(cls);
}

static struct MHD_Response *response_of(struct prom_out *o)
{
	struct prom_out *keep;
	struct MHD_Response *r;

	/* MHD frees o.buf with the last connection sending it */
	if (!o->n_pieces)
		return MHD_create_response_from_buffer(o->len, o->buf,
						       MHD_RESPMEM_MUST_FREE);
	keep = malloc(sizeof(*keep));
	if (!keep)
		return NULL;
	*keep = *o;
	r = MHD_create_response_from_callback(prom_out_size(o), 64 * 1024,
					      read_page, keep, free_page);
	if (!r)
		free(keep);
	return r;
}

/* The page of this second, made now if the last one is older. */
static struct MHD_Response *page(struct sm *sm, struct metrics *m)
{
	int64_t now = txn_now_us();
	struct MHD_Response *r;
	struct prom_out o;

	if (m->page && now - (int64_t)m->page_us < PAGE_MAX_AGE_US)
		return m->page;
	if (metrics_render(sm, &o) < 0) {
		log_err("metrics: out of memory making the page; the scrape "
			"gets an error");
		return NULL;
	}
	r = response_of(&o);
	if (!r) {
		prom_out_free(&o);
		return NULL;
	}
	MHD_add_response_header(r, "Content-Type", CONTENT_TYPE);
	if (m->page)
		MHD_destroy_response(m->page);
	m->page = r;
	m->page_us = (uint64_t)now;
	return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct sm *sm = cls;
	struct metrics *m = sm->metrics;
	struct MHD_Response *r;

	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				   "only GET and HEAD\n");
	if (!strcmp(url, "/"))
		return answer_text(c, MHD_HTTP_OK,
				   "ibsmd: Prometheus metrics at /metrics\n");
	if (strcmp(url, "/metrics"))
		return answer_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
	r = page(sm, m);
	if (!r)
		return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "out of memory\n");
	m->scrapes++;
	return MHD_queue_response(c, MHD_HTTP_OK, r);
}

/* The loop's timer at MHD's next deadline or the next request deadline
 * (none: off). */
static void rearm(struct sm *sm, struct metrics *m, int64_t next_us)
{
	MHD_UNSIGNED_LONG_LONG ms;
	uint64_t now;

	if (MHD_get_timeout(m->mhd, &ms) == MHD_YES &&
	    (next_us < 0 || (int64_t)ms * 1000 < next_us))
		next_us = (int64_t)ms * 1000;
	if (next_us < 0) {
		sd_event_source_set_enabled(m->timer, SD_EVENT_OFF);
		return;
	}
	sd_event_now(sm->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(m->timer, now + (uint64_t)next_us);
	sd_event_source_set_enabled(m->timer, SD_EVENT_ONESHOT);
}

static void run(struct sm *sm)
{
	struct metrics *m = sm->metrics;

	MHD_run(m->mhd);
	rearm(sm, m, metrics_conn_enforce(m, txn_now_us()));
}

static int on_io(sd_event_source *s, int fd, uint32_t rev, void *ud)
{
	run(ud);
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *ud)
{
	run(ud);
	return 0;
}

static struct MHD_Daemon *mhd_open(struct sm *sm, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char why[96];

	if (listen_addr_parse(addr, &ss, &sl, why, sizeof(why)) < 0) {
		log_err("metrics.listen \"%s\": %s; no endpoint", addr, why);
		return NULL;
	}
	return MHD_start_daemon(
	    MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
		(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
	    0, NULL, NULL, on_request, sm, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
	    NULL, MHD_OPTION_NOTIFY_CONNECTION, metrics_conn_notify,
	    sm->metrics, MHD_OPTION_NOTIFY_COMPLETED, metrics_conn_completed,
	    sm->metrics, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_TIMEOUT_S,
	    MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1, MHD_OPTION_END);
}

static void close_endpoint(struct metrics *m)
{
	m->io = sd_event_source_disable_unref(m->io);
	m->timer = sd_event_source_disable_unref(m->timer);
	if (m->page)
		MHD_destroy_response(m->page);
	m->page = NULL;
	if (m->mhd)
		MHD_stop_daemon(m->mhd);
	m->mhd = NULL;
	free(m->listen);
	m->listen = NULL;
}

static int open_endpoint(struct sm *sm, struct metrics *m, const char *addr)
{
	const union MHD_DaemonInfo *di;
	int rc;

	m->mhd = mhd_open(sm, addr);
	if (!m->mhd) {
		log_err("metrics: cannot listen on %s (%s); no endpoint", addr,
			errno ? strerror(errno) : "bad address");
		return -EADDRNOTAVAIL;
	}
	di = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	rc = di ? 0 : -EIO;
	if (rc == 0)
		rc = sd_event_add_io(sm->ev, &m->io, di->epoll_fd, EPOLLIN,
				     on_io, sm);
	if (rc >= 0)
		rc = sd_event_add_time(sm->ev, &m->timer, CLOCK_MONOTONIC,
				       UINT64_MAX, 1000, on_timer, sm);
	m->listen = strdup(addr);
	if (rc < 0 || !m->listen) {
		log_err("metrics: cannot watch the endpoint in the event "
			"loop: %s; no endpoint",
			strerror(rc < 0 ? -rc : ENOMEM));
		close_endpoint(m);
		return rc < 0 ? rc : -ENOMEM;
	}
	rearm(sm, m, -1);
	log_notice("metrics: Prometheus endpoint at http://%s/metrics", addr);
	return 0;
}

/* SIGHUP: a changed metrics.listen moves the endpoint; a bad one (it
 * cannot be bound) leaves none, logged. */
static void on_config(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	struct metrics *m = sm->metrics;
	const char *want = sm->cfg.metrics_listen;

	if (!strcmp(want, m->listen ? m->listen : ""))
		return;
	close_endpoint(m);
	if (want[0])
		open_endpoint(sm, m, want);
	else
		log_notice("metrics: endpoint closed (metrics.listen is "
			   "empty)");
}

int metrics_start(struct sm *sm)
{
	struct metrics *m = metrics_get(sm);
	int rc;

	if (!m)
		return -ENOMEM;
	if (sm->once)
		return 0;
	rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_config, NULL);
	if (rc == 0 && sm->cfg.metrics_listen[0])
		rc = open_endpoint(sm, m, sm->cfg.metrics_listen);
	return rc;
}

void metrics_stop(struct sm *sm)
{
	struct metrics *m = sm->metrics;

	if (!m)
		return;
	sm_unsubscribe(sm, on_config, NULL);
	close_endpoint(m);
	free(m);
	sm->metrics = NULL;
}

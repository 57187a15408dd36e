/* ibsmd's SA: see sa_daemon.h.  One SA per daemon, hung off struct sm
 * (sm->sa); discovery feeds it through the observer it finds in
 * sm->disc_obs, and it follows the model on SM_EV_FABRIC_REPLACED.  SA
 * requests reach ibsmd because the daemon holds the port's issm device
 * open (daemon/issm.c).
 *
 * Gets of the records answered from the model and the raw-attribute cache
 * alone (PathRecord, NodeRecord, ...: rx_answerable()) are answered on
 * the MAD receiver thread as they arrive (txn_set_rx_hook), so a routing
 * computation, a multicast slice or a state-file write on the loop never
 * delays them; everything else goes to the loop as before.  What those
 * answers read is written only under d->lock: the model pointer (a model,
 * once adopted, is not changed; the sweep frees the old one only after
 * SM_EV_FABRIC_REPLACED moved the SA off it), the cache and the SM's own
 * fields. */
#include "daemon/sa_daemon/sa_daemon.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/discover/discover.h"
#include "daemon/sa/sa_server.h"
#include "daemon/sa_daemon/sa_answers.h"
#include "daemon/core/sm.h"
#include "lib/log.h"
#include "routing/unicast/layers.h"
#include "mad/sa_mad.h"
#include "mad/sa_stats.h"
#include "mad/sa_wire.h"
#include "mad/umad_port.h"

struct sa_daemon {
	struct sa sa;
	struct sa_out out;
	struct fabric empty; /* answered from before the first sweep ends */
	int agent;
	struct disc_observer obs;
	struct sa_svc_store *svc;	/* services.state */
	struct sa_inform_store *inform; /* informs.state */
	struct sa_reports *reports;
	/* the receiver thread's side (see the top of the file) */
	pthread_rwlock_t lock;	    /* write: the loop changes what Gets read */
	bool live;		    /* a model is adopted: Gets are answered */
	struct sa_out rx_out;	    /* the receiver thread's answer buffer */
	struct sa_answers *answers; /* its Get answers, cleared on changes */
	struct txn_engine *txn;
	uint64_t rx_gets, rx_cached; /* answered there, from the cache */
	struct sa_answer_stats answered; /* by attribute, status, latency */
	/* the SA's own copy of the QoS policy (PathRecord SLs), swapped under
	 * the lock on a reload while sm->qos is replaced beside it */
	struct qos_policy qos;
};

static void note_smp(void *ctx, const struct ib_node *n, const struct smp *smp,
		     const uint8_t *data);

static void refresh(struct sm *sm);

/* The SA answers from the model of the last complete sweep. */
static void on_fabric(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	struct sa_daemon *d = ctx;

	pthread_rwlock_wrlock(&d->lock);
	sa_set_fabric(&d->sa, sm->fab ? sm->fab : &d->empty);
	/* the layers route.c adopted with this model: SLs switch with the
	 * LFT paths they were computed for */
	d->sa.layers = sm->fab && sm->layers &&
			       sm->layers->n_switches == sm->fab->n_switches
			   ? sm->layers
			   : NULL;
	/* With partitions the plan of the new model comes from pkeyprog.c's
	 * subscriber, later in this turn (sa_daemon_change_end): till then
	 * Gets go to the loop, which answers them after it. */
	d->live = sm->fab != NULL && !sm->pkeys;
	sa_answers_clear(d->answers);
	pthread_rwlock_unlock(&d->lock);
	refresh(sm);
}

/* A reload's QoS policy, parsed again from the new configuration (which
 * reload.c checked) and swapped in under the lock. */
static void on_reload(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	struct sa_daemon *d = ctx;
	struct qos_policy nq, old;
	char err[256];

	if (qos_policy_from_config(&nq, &sm->cfg, err, sizeof(err)) < 0) {
		log_err("SA: cannot take the reloaded QoS policy (%s); "
			"PathRecord SLs stay as they were",
			err[0] ? err : "out of memory");
		refresh(sm);
		return;
	}
	pthread_rwlock_wrlock(&d->lock);
	old = d->qos;
	d->qos = nq;
	sa_answers_clear(d->answers);
	pthread_rwlock_unlock(&d->lock);
	qos_policy_free(&old);
	refresh(sm);
}

void sa_daemon_change_begin(struct sm *sm)
{
	if (sm->sa)
		pthread_rwlock_wrlock(&sm->sa->lock);
}

void sa_daemon_change_end(struct sm *sm)
{
	struct sa_daemon *d = sm->sa;

	if (!d)
		return;
	d->live = sm->fab != NULL;
	sa_answers_clear(d->answers);
	pthread_rwlock_unlock(&d->lock);
}

/* Records built from the model, the raw-attribute cache and the SM's
 * fields alone, never changed by a request: their Gets may be answered
 * on the receiver thread. */
static bool rx_answerable(const uint8_t *mad, size_t len)
{
	struct sa_hdr h;

	if (sa_hdr_decode(&h, mad, len) < 0 || h.base_version != 1 ||
	    h.mgmt_class != SA_MGMT_CLASS ||
	    h.class_version != SA_CLASS_VERSION ||
	    (h.method != SA_METHOD_GET && h.method != SA_METHOD_GET_TABLE) ||
	    (h.rmpp_flags & RMPP_FLAG_ACTIVE))
		return false;
	switch (h.attr_id) {
	case SA_ATTR_CLASS_PORT_INFO:
	case SA_ATTR_NODE_REC:
	case SA_ATTR_PORTINFO_REC:
	case SA_ATTR_SWITCHINFO_REC:
	case SA_ATTR_LFT_REC:
	case SA_ATTR_LINK_REC:
	case SA_ATTR_GUIDINFO_REC:
	case SA_ATTR_PATH_REC:
		return true;
	}
	return false;
}

/* The answer to rx into d->rx_out: a copy from the answer cache, else
 * built (and kept).  0, or <0 for a request dropped. */
static int rx_answer(struct sa_daemon *d, const struct mad_rx *rx,
		     const struct sa_peer *from)
{
	size_t klen = sa_request_size(rx->mad, rx->len);
	int rc;

	if (sa_out_reserve(&d->rx_out, SA_MAD_SIZE) == 0 &&
	    sa_answers_get(d->answers, rx->mad, klen, from->lid,
			   d->rx_out.buf)) {
		d->rx_out.len = SA_MAD_SIZE;
		__atomic_fetch_add(&d->rx_cached, 1, __ATOMIC_RELAXED);
		return 0;
	}
	rc = sa_handle(&d->sa, from, rx->mad, rx->len, &d->rx_out);
	if (rc == 0)
		sa_answers_put(d->answers, rx->mad, klen, from->lid,
			       d->rx_out.buf, d->rx_out.len);
	return rc;
}

/* The receiver thread's hook: answers an answerable Get at once, under
 * the read lock; anything else (and everything before the first model)
 * goes to the loop. */
static bool rx_get(void *ctx, const struct mad_rx *rx)
{
	struct sa_daemon *d = ctx;
	struct sa_peer from = {.lid = rx->from.lid};
	bool taken = false;

	/* no room in the send window: the loop answers it when there is
	 * (this thread must never wait in a write, docs/design.md §3.1) */
	if (!rx_answerable(rx->mad, rx->len) || !txn_rx_room(d->txn))
		return false;
	pthread_rwlock_rdlock(&d->lock);
	if (d->live) {
		taken = true; /* a drop is counted and logged by sa_handle */
		__atomic_fetch_add(&d->rx_gets, 1, __ATOMIC_RELAXED);
		if (rx_answer(d, rx, &from) == 0) {
			int rc = txn_respond_rx(d->txn, rx, d->rx_out.buf,
						d->rx_out.len);
			sa_answer_stats_note(&d->answered, d->rx_out.buf,
					     d->rx_out.len, rx->rx_us);
			if (rc < 0 && log_ratelimit_ok(&d->sa.drop_rl))
				log_warn("SA: cannot answer a Get from LID "
					 "%u: %s",
					 from.lid, strerror(-rc));
		}
	}
	pthread_rwlock_unlock(&d->lock);
	return taken;
}

static int start(struct sm *sm, struct sa_daemon *d)
{
	pthread_rwlockattr_t la;
	char err[256];
	int rc;

	fabric_init(&d->empty);
	sa_answer_stats_init(&d->answered);
	/* The receiver thread takes the lock for every Get, back to back
	 * under load: a writer (the loop) must not wait behind that. */
	pthread_rwlockattr_init(&la);
	pthread_rwlockattr_setkind_np(
	    &la, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&d->lock, &la);
	pthread_rwlockattr_destroy(&la);
	d->answers = sa_answers_new(); /* NULL: every Get built afresh */
	rc = sa_init(&d->sa, &d->empty, NULL);
	if (rc < 0) {
		log_err("SA: out of memory creating the SA");
		return rc;
	}
	err[0] = '\0';
	rc = qos_policy_from_config(&d->qos, &sm->cfg, err, sizeof(err));
	if (rc < 0) {
		log_err("SA: cannot take the QoS policy: %s",
			err[0] ? err : "out of memory");
		return rc;
	}
	d->sa.qos = &d->qos;
	d->obs.smp = note_smp;
	d->obs.ctx = d;
	sm->disc_obs = &d->obs;
	sm->sa = d;
	rc = sm_subscribe(sm, SM_EV_FABRIC_REPLACED, on_fabric, d);
	if (rc == 0)
		rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_reload, d);
	if (rc == 0 && sm->txn) {
		d->txn = sm->txn;
		txn_set_rx_hook(sm->txn, rx_get, d);
	}
	return rc;
}

/* A standby's copy of its master's services.state took this one's place. */
static int svc_reload(struct sm *sm)
{
	return sm->sa && sm->sa->svc ? sa_svc_store_reload(sm->sa->svc)
				     : -ENODEV;
}

/* The same for informs.state. */
static int inform_reload(struct sm *sm)
{
	return sm->sa && sm->sa->inform ? sa_inform_store_reload(sm->sa->inform)
					: -ENODEV;
}

int sa_daemon_init(struct sm *sm)
{
	struct sa_daemon *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return -ENOMEM;
	rc = mad_port_register_sa(sm->port, true, &d->agent);

	if (rc < 0) {
		log_err(
		    "SA: cannot register the SA agent (class 0x03 v2, RMPP) "
		    "on the SM port: %s; the SA will not answer",
		    strerror(-rc));
		free(d);
		return rc;
	}
	rc = start(sm, d);
	if (rc < 0) {
		sa_daemon_fini(sm);
		return rc;
	}
	log_info("SA: agent %d registered (class 0x03 version 2, RMPP)",
		 d->agent);
	d->svc = sa_svc_store_open(sm, &d->sa);
	sm->svc_reload = svc_reload;
	d->inform = sa_inform_store_open(sm, &d->sa);
	sm->inform_reload = inform_reload;
	d->reports = sa_reports_start(sm, &d->sa, d->agent);
	if (!d->reports)
		log_warn("SA: cannot start event reports; subscribers get "
			 "none");
	return 0;
}

void sa_daemon_fini(struct sm *sm)
{
	struct sa_daemon *d = sm->sa;

	sa_durable_drop();
	if (!d)
		return;
	if (sm->txn)
		txn_set_rx_hook(sm->txn, NULL, NULL);
	sm_unsubscribe(sm, on_fabric, d);
	sm_unsubscribe(sm, on_reload, d);
	sm->disc_obs = NULL;
	sm->svc_reload = NULL;
	sm->inform_reload = NULL;
	sa_reports_stop(sm, d->reports);
	sm->sa = NULL;
	sa_svc_store_close(d->svc);
	sa_inform_store_close(d->inform);
	sa_free(&d->sa);
	sa_out_free(&d->out);
	sa_out_free(&d->rx_out);
	sa_answers_free(d->answers);
	qos_policy_free(&d->qos);
	fabric_free(&d->empty);
	pthread_rwlock_destroy(&d->lock);
	free(d);
}

void sa_daemon_print_status(struct sm *sm, FILE *out)
{
	struct sa_daemon *d = sm->sa;

	if (!d)
		return;
	fprintf(out, "sa_requests %lu\n",
		__atomic_load_n(&d->sa.stats.requests, __ATOMIC_RELAXED));
	fprintf(out, "sa_gets_on_receiver %" PRIu64 "\n",
		__atomic_load_n(&d->rx_gets, __ATOMIC_RELAXED));
	fprintf(out, "sa_answers_cached %" PRIu64 "\n",
		__atomic_load_n(&d->rx_cached, __ATOMIC_RELAXED));
	sa_durable_print_status(out);
}

const struct sa_answer_stats *sa_daemon_answer_stats(struct sm *sm)
{
	return sm->sa ? &sm->sa->answered : NULL;
}

struct sa *sa_daemon_get(struct sm *sm)
{
	return sm->sa ? &sm->sa->sa : NULL;
}

/* The SM's side of the records, as of now (written under the lock only
 * when it changed: the receiver thread's answers read it). */
static void refresh(struct sm *sm)
{
	struct sa_daemon *d = sm->sa;
	struct sa_sm_info si = d->sa.sm;

	si.guid = sm->sm_guid;
	si.lid = sm->sm_lid;
	si.act_count = sm->act_count;
	si.priority = elect_priority(sm);
	si.sm_key = sm->cfg.sm_sm_key;
	si.proxy_trusted_only = sm->cfg.sa_proxy_join == CFG_PROXY_TRUSTED;
	si.state = (uint8_t)sm->sm_state;
	d->sa.lease_max_s = sm->cfg.sa_service_lease_max_s; /* loop only */
	if (si.guid == d->sa.sm.guid && si.lid == d->sa.sm.lid &&
	    si.act_count == d->sa.sm.act_count &&
	    si.priority == d->sa.sm.priority && si.sm_key == d->sa.sm.sm_key &&
	    si.proxy_trusted_only == d->sa.sm.proxy_trusted_only &&
	    si.state == d->sa.sm.state)
		return;
	pthread_rwlock_wrlock(&d->lock);
	d->sa.sm = si;
	sa_answers_clear(d->answers);
	pthread_rwlock_unlock(&d->lock);
}

bool sa_daemon_request(struct sm *sm, const struct txn_request *req)
{
	struct sa_daemon *d = sm->sa;
	struct sa_peer from;
	int rc;

	if (req->hdr->mgmt_class != SA_MGMT_CLASS)
		return false;
	if (!d)
		return true;
	if (join_limit_refuse(sm, req))
		return true;
	refresh(sm);
	from.lid = req->rx->from.lid;
	rc = sa_handle(&d->sa, &from, req->rx->mad, req->rx->len, &d->out);
	if (rc < 0)
		return true; /* dropped, counted and logged by the SA */
	/* Until the first sweep is done the SA knows no fabric: say busy
	 * rather than answer from an empty model. */
	if (!sm->fab)
		sa_put16(d->out.buf + 4, MAD_STATUS_BUSY);
	/* a held answer is timed to now, not to its store's write */
	sa_answer_stats_note(&d->answered, d->out.buf, d->out.len,
			     req->rx->rx_us);
	if (sa_durable_hold(sm, req, d->out.buf, d->out.len))
		return true; /* answered once the change is on disk */
	rc = txn_respond_raw(sm->txn, req, d->out.buf, d->out.len);
	if (rc < 0)
		log_warn("SA: cannot answer %s %s from LID %u: %s",
			 sa_method_name(req->rx->mad[3]),
			 sa_attr_name(sa_get16(req->rx->mad + 16)), from.lid,
			 strerror(-rc));
	return true;
}

/* Discovery saw this SMP answer (NodeInfo, PortInfo, SwitchInfo) for
 * node n (NULL for NodeInfo: the node is taken from the data). */
static void note_smp(void *ctx, const struct ib_node *n, const struct smp *smp,
		     const uint8_t *data)
{
	struct sa_daemon *d = ctx;
	uint16_t attr;
	uint64_t guid;
	uint8_t port = 0;

	if (!smp || !data)
		return;
	attr = smp->hdr.attr_id;
	switch (attr) {
	case SMP_ATTR_NODE_INFO:
		guid = sa_get64(data + 12);
		break;
	case SMP_ATTR_PORT_INFO:
		if (!n)
			return;
		guid = n->guid;
		port = (uint8_t)smp->hdr.attr_mod;
		break;
	case SMP_ATTR_SWITCH_INFO:
		if (!n)
			return;
		guid = n->guid;
		break;
	default:
		return;
	}
	pthread_rwlock_wrlock(&d->lock);
	sa_cache_put(&d->sa, guid, port, attr, data,
		     attr == SMP_ATTR_SWITCH_INFO ? 20
		     : attr == SMP_ATTR_NODE_INFO ? 40
						  : 64);
	sa_answers_clear(d->answers);
	pthread_rwlock_unlock(&d->lock);
}

/* ibsmd's SA: see sa_daemon.h.  One SA per daemon, hung off struct sm
 * (sm->sa); discovery feeds it through the observer it finds in
 * sm->disc_obs, and it follows the model on SM_EV_FABRIC_REPLACED.  SA
 * requests reach ibsmd because the daemon holds the port's issm device
 * open (daemon/issm.c). */
#include "daemon/sa_daemon.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/discover.h"
#include "daemon/sa_server.h"
#include "daemon/sm.h"
#include "daemon/sm_elect.h"
#include "lib/log.h"
#include "mad/sa_mad.h"
#include "mad/sa_wire.h"
#include "mad/umad_port.h"

struct sa_daemon {
	struct sa sa;
	struct sa_out out;
	struct fabric empty; /* answered from before the first sweep ends */
	int agent;
	struct disc_observer obs;
	struct sa_svc_store *svc; /* services.state */
	struct sa_inform_store *inform; /* informs.state */
	struct sa_reports *reports;
};

static void note_smp(void *ctx, const struct ib_node *n, const struct smp *smp,
		     const uint8_t *data);

/* The SA answers from the model of the last complete sweep. */
static void on_fabric(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	struct sa_daemon *d = ctx;

	d->sa.fabric = sm->fab ? sm->fab : &d->empty;
}

static int start(struct sm *sm, struct sa_daemon *d)
{
	int rc;

	fabric_init(&d->empty);
	rc = sa_init(&d->sa, &d->empty, NULL);
	if (rc < 0) {
		log_err("SA: out of memory creating the SA");
		return rc;
	}
	d->sa.qos = &sm->qos; /* reload.c replaces its content in place */
	d->obs.smp = note_smp;
	d->obs.ctx = d;
	sm->disc_obs = &d->obs;
	sm->sa = d;
	return sm_subscribe(sm, SM_EV_FABRIC_REPLACED, on_fabric, d);
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
	return sm->sa && sm->sa->inform
		   ? sa_inform_store_reload(sm->sa->inform)
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
	sm_unsubscribe(sm, on_fabric, d);
	sm->disc_obs = NULL;
	sm->svc_reload = NULL;
	sm->inform_reload = NULL;
	sa_reports_stop(sm, d->reports);
	sm->sa = NULL;
	sa_svc_store_close(d->svc);
	sa_inform_store_close(d->inform);
	sa_free(&d->sa);
	sa_out_free(&d->out);
	fabric_free(&d->empty);
	free(d);
}

struct sa *sa_daemon_get(struct sm *sm)
{
	return sm->sa ? &sm->sa->sa : NULL;
}

/* The SM's side of the records, as of now. */
static void refresh(struct sm *sm)
{
	struct sa_sm_info *si = &sm->sa->sa.sm;

	si->guid = sm->sm_guid;
	si->lid = sm->sm_lid;
	si->act_count = sm->act_count;
	si->priority = elect_priority(sm);
	si->sm_key = sm->cfg.sm_sm_key;
	si->proxy_trusted_only = sm->cfg.sa_proxy_join == CFG_PROXY_TRUSTED;
	si->state = (uint8_t)sm->sm_state;
	sm->sa->sa.lease_max_s = sm->cfg.sa_service_lease_max_s;
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
	sa_cache_put(&d->sa, guid, port, attr, data,
		     attr == SMP_ATTR_SWITCH_INFO ? 20
		     : attr == SMP_ATTR_NODE_INFO ? 40
						  : 64);
}

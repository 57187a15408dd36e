/* ibsmd's SA: see sa_daemon.h.  One SA per daemon; the state is file
 * static because discovery feeds it from callbacks that know nothing of
 * the daemon's struct sm.  SA requests reach ibsmd because the daemon
 * holds the port's issm device open (daemon/issm.c). */
#include "daemon/sa_daemon.h"

#include <errno.h>
#include <string.h>

#include "daemon/sa_server.h"
#include "daemon/sm.h"
#include "lib/log.h"
#include "mad/sa_mad.h"
#include "mad/sa_wire.h"
#include "mad/umad_port.h"

static struct {
	struct sa sa;
	struct sa_out out;
	struct fabric empty; /* answered from before the first sweep ends */
	int agent;
	bool ready;
} g;

int sa_daemon_init(struct sm *sm)
{
	int rc = mad_port_register_sa(sm->port, true, &g.agent);

	if (rc < 0) {
		log_err(
		    "SA: cannot register the SA agent (class 0x03 v2, RMPP) "
		    "on the SM port: %s; the SA will not answer",
		    strerror(-rc));
		return rc;
	}
	fabric_init(&g.empty);
	rc = sa_init(&g.sa, &g.empty, NULL);
	if (rc < 0) {
		log_err("SA: out of memory creating the SA");
		return rc;
	}
	g.ready = true;
	log_info("SA: agent %d registered (class 0x03 version 2, RMPP)",
		 g.agent);
	return 0;
}

void sa_daemon_fini(struct sm *sm)
{
	sa_durable_drop();
	if (!g.ready)
		return;
	sa_free(&g.sa);
	sa_out_free(&g.out);
	fabric_free(&g.empty);
	g.ready = false;
}

struct sa *sa_daemon_get(void)
{
	return g.ready ? &g.sa : NULL;
}

/* The SM's side of the records, as of now. */
static void refresh(struct sm *sm)
{
	struct sa_sm_info *si = &g.sa.sm;

	g.sa.fabric = sm->fab ? sm->fab : &g.empty;
	si->guid = sm->sm_guid;
	si->lid = sm->sm_lid;
	si->act_count = sm->act_count;
	si->priority = (uint8_t)sm->cfg.sm_priority;
	si->state = (uint8_t)sm->sm_state;
}

bool sa_daemon_request(struct sm *sm, const struct txn_request *req)
{
	struct sa_peer from;
	int rc;

	if (req->hdr->mgmt_class != SA_MGMT_CLASS)
		return false;
	if (!g.ready)
		return true;
	if (join_limit_refuse(sm, req))
		return true;
	refresh(sm);
	from.lid = req->rx->from.lid;
	rc = sa_handle(&g.sa, &from, req->rx->mad, req->rx->len, &g.out);
	if (rc < 0)
		return true; /* dropped, counted and logged by the SA */
	/* Until the first sweep is done the SA knows no fabric: say busy
	 * rather than answer from an empty model. */
	if (!sm->fab)
		sa_put16(g.out.buf + 4, MAD_STATUS_BUSY);
	if (sa_durable_hold(sm, req, g.out.buf, g.out.len))
		return true; /* answered once the change is on disk */
	rc = txn_respond_raw(sm->txn, req, g.out.buf, g.out.len);
	if (rc < 0)
		log_warn("SA: cannot answer %s %s from LID %u: %s",
			 sa_method_name(req->rx->mad[3]),
			 sa_attr_name(sa_get16(req->rx->mad + 16)), from.lid,
			 strerror(-rc));
	return true;
}

void sa_daemon_note_smp(const struct ib_node *n, const struct smp *smp,
			const uint8_t *data)
{
	uint16_t attr;
	uint64_t guid;
	uint8_t port = 0;

	if (!g.ready || !smp || !data)
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
	sa_cache_put(&g.sa, guid, port, attr, data,
		     attr == SMP_ATTR_SWITCH_INFO ? 20
		     : attr == SMP_ATTR_NODE_INFO ? 40
						  : 64);
}

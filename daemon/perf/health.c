/* Unhealthy links (docs/design.md §3.12).  A link is unhealthy when, at
 * either end, an error counter grows by more than its
 * health.thresholds.* value in one perfmgr interval, or when it goes down
 * more than health.flap_limit times within health.flap_window_s (seen
 * as a link of one model missing from the next while both nodes stay).
 * An episode starts with the first crossing and is logged once, as a
 * warning and as a "health" event line; health.policy decides the
 * action.  It ends after health.recover_s quiet seconds (a disabled port
 * only by ibsmctl health clear), or on clear. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/perf/perf_priv.h"
#include "daemon/sweep/sweep.h"
#include "lib/event.h"
#include "lib/log.h"

/* The counters judged, with their thresholds' place in struct config. */
static const struct {
	enum perf_counter c;
	size_t off;
} JUDGED[] = {
    {PC_SYMBOL_ERRORS,
     offsetof(struct config, health_thresholds_symbol_errors)},
    {PC_LINK_ERROR_RECOVERY,
     offsetof(struct config, health_thresholds_link_error_recovery)},
    {PC_LINK_DOWNED, offsetof(struct config, health_thresholds_link_downed)},
    {PC_RCV_ERRORS, offsetof(struct config, health_thresholds_rcv_errors)},
    {PC_LOCAL_LINK_INTEGRITY_ERRORS,
     offsetof(struct config, health_thresholds_local_link_integrity)},
    {PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
     offsetof(struct config, health_thresholds_excessive_buffer_overrun)},
    {PC_XMIT_DISCARDS,
     offsetof(struct config, health_thresholds_xmit_discards)},
};

/* The two ends of a link, end 0 the lower (GUID, port). */
struct ends {
	uint64_t guid[2];
	uint8_t port[2];
	const char *desc[2];
};

static void order(struct ends *e)
{
	if (e->guid[0] > e->guid[1] ||
	    (e->guid[0] == e->guid[1] && e->port[0] > e->port[1])) {
		struct ends t = *e;

		for (unsigned i = 0; i < 2; i++) {
			e->guid[i] = t.guid[1 - i];
			e->port[i] = t.port[1 - i];
			e->desc[i] = t.desc[1 - i];
		}
	}
}

static bool same(const uint64_t g[2], const uint8_t p[2], const struct ends *e)
{
	return g[0] == e->guid[0] && p[0] == e->port[0] && g[1] == e->guid[1] &&
	       p[1] == e->port[1];
}

static struct hlink *find(struct health *h, const struct ends *e)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (same(h->links[i].guid, h->links[i].port, e))
			return &h->links[i];
	return NULL;
}

const char *health_action_name(enum health_action a)
{
	static const char *const names[] = {"reported", "isolated", "disabled",
					    "kept"};

	return (unsigned)a < 4 ? names[a] : "?";
}

static void event(const struct hlink *l, const char *change)
{
	struct event_line e;

	if (event_begin(&e, "health") < 0)
		return;
	json_kv_string(&e.j, "change", change);
	event_kv_guid(&e, "node_guid", l->guid[0]);
	json_kv_uint(&e.j, "port", l->port[0]);
	json_kv_string(&e.j, "node_desc", l->desc[0]);
	event_kv_guid(&e, "remote_guid", l->guid[1]);
	json_kv_uint(&e.j, "remote_port", l->port[1]);
	json_kv_string(&e.j, "remote_desc", l->desc[1]);
	json_kv_string(&e.j, "tripped", l->tripped);
	json_kv_uint(&e.j, "value", l->value);
	json_kv_string(&e.j, "action", health_action_name(l->action));
	event_end(&e);
}

/* The end to set Disabled: a switch's port (a host may lose its only
 * link either way; the switch end is the one the SM reaches). */
static unsigned disable_end(const struct sm *sm, const struct hlink *l)
{
	const struct ib_node *n = fabric_node_by_guid(sm->fab, l->guid[0]);

	return n && node_is_switch(n) ? 0 : 1;
}

/* health.policy for a new episode: isolate and disable hold the link out
 * of routing, unless that would cut a node off. */
static void act(struct perf *pf, struct hlink *l)
{
	struct sm *sm = pf->sm;
	int pol = sm->cfg.health_policy;

	l->action = HEALTH_REPORTED;
	if (pol == CFG_HEALTH_REPORT)
		return;
	if (!sm->fab || !health_link_spare(sm->fab, l->guid[0], l->port[0])) {
		l->action = HEALTH_KEPT;
		return;
	}
	l->held = true;
	l->action =
	    pol == CFG_HEALTH_DISABLE ? HEALTH_DISABLED : HEALTH_ISOLATED;
	if (l->action == HEALTH_DISABLED) {
		unsigned e = disable_end(sm, l);

		if (health_set_phys(pf, l->guid[e], l->port[e], true) < 0)
			log_err("health: cannot send the Disabled Set to "
				"0x%016" PRIx64 " port %u; the link is routed "
				"around only",
				l->guid[e], l->port[e]);
	}
	sweep_request_hold(sm, "health: a link is held out of routing");
}

static void trip(struct perf *pf, const struct ends *e, const char *what,
		 uint64_t value)
{
	struct health *h = pf->health;
	struct hlink *l = find(h, e);
	int64_t now = time(NULL);

	if (l) { /* the same episode */
		l->last_bad = now;
		return;
	}
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 16;
		struct hlink *nl = realloc(h->links, cap * sizeof(*nl));

		if (!nl)
			return;
		h->links = nl;
		h->cap = cap;
	}
	l = &h->links[h->n++];
	memset(l, 0, sizeof(*l));
	for (unsigned i = 0; i < 2; i++) {
		l->guid[i] = e->guid[i];
		l->port[i] = e->port[i];
		snprintf(l->desc[i], sizeof(l->desc[i]), "%s",
			 e->desc[i] ? e->desc[i] : "");
	}
	snprintf(l->tripped, sizeof(l->tripped), "%s", what);
	l->value = value;
	l->since = l->last_bad = now;
	act(pf, l);
	log_warn("health: link %s (0x%016" PRIx64
		 ") port %u - %s (0x%016" PRIx64
		 ") port %u is unhealthy: %s %" PRIu64 "; %s",
		 l->desc[0], l->guid[0], l->port[0], l->desc[1], l->guid[1],
		 l->port[1], what, value,
		 l->action == HEALTH_KEPT
		     ? "kept in routing: without it a node would be cut off"
		     : health_action_name(l->action));
	event(l, "unhealthy");
	health_store_save(pf);
}

/* The far end of (guid, port) in the model, or the one it had before
 * the policy held the link out. */
static bool peer_of(const struct perf *pf, uint64_t guid, uint8_t port,
		    struct ends *e)
{
	const struct ib_node *n = fabric_node_by_guid(pf->sm->fab, guid);
	const struct ib_port *r;

	if (!n || port > n->nports)
		return false;
	e->guid[0] = guid;
	e->port[0] = port;
	e->desc[0] = n->desc;
	r = n->ports[port].remote;
	if (r) {
		e->guid[1] = r->node->guid;
		e->port[1] = r->num;
		e->desc[1] = r->node->desc;
		return true;
	}
	return health_held_peer(pf, guid, port, &e->guid[1], &e->port[1],
				&e->desc[1]);
}

void health_on_reading(struct perf *pf, uint64_t guid, uint8_t port,
		       const struct pm_port *p)
{
	double iv = pf->sm->cfg.perfmgr_interval_ms / 1000.0;
	double scale = p->interval_s > iv ? iv / p->interval_s : 1.0;
	struct ends e;

	if (p->interval_s <= 0)
		return; /* one reading: no growth yet */
	for (unsigned i = 0; i < sizeof(JUDGED) / sizeof(JUDGED[0]); i++) {
		enum perf_counter c = JUDGED[i].c;
		uint32_t limit =
		    *(const uint32_t *)((const char *)&pf->sm->cfg +
					JUDGED[i].off);
		uint64_t d = p->s.total[c] - p->prev[c];

		if (!limit || !(p->s.valid & (1u << c)) ||
		    (double)d * scale <= limit)
			continue;
		if (!peer_of(pf, guid, port, &e))
			return;
		order(&e);
		trip(pf, &e, perf_counters[c].name, d);
	}
}

static struct flaps *flaps_of(struct health *h, const struct ends *e,
			      uint32_t limit)
{
	struct flaps *f;

	for (uint32_t i = 0; i < h->n_flaps; i++)
		if (same(h->flaps[i].guid, h->flaps[i].port, e))
			return &h->flaps[i];
	if (h->n_flaps == h->cap_flaps) {
		uint32_t cap = h->cap_flaps ? h->cap_flaps * 2 : 16;
		struct flaps *nf = realloc(h->flaps, cap * sizeof(*nf));

		if (!nf)
			return NULL;
		h->flaps = nf;
		h->cap_flaps = cap;
	}
	f = &h->flaps[h->n_flaps];
	memset(f, 0, sizeof(*f));
	f->cap = limit + 1;
	f->downs = calloc(f->cap, sizeof(*f->downs));
	if (!f->downs)
		return NULL;
	for (unsigned i = 0; i < 2; i++) {
		f->guid[i] = e->guid[i];
		f->port[i] = e->port[i];
	}
	h->n_flaps++;
	return f;
}

/* One down of the link: more than the limit within the window trips. */
static void flap(struct perf *pf, struct ends *e)
{
	const struct config *c = &pf->sm->cfg;
	int64_t now = time(NULL);
	struct flaps *f;
	uint32_t n = 0;

	order(e);
	f = flaps_of(pf->health, e, c->health_flap_limit);
	if (!f || f->cap != c->health_flap_limit + 1)
		return; /* the limit changed: counted afresh (reload) */
	f->downs[f->head] = now;
	f->head = (f->head + 1) % f->cap;
	if (f->n < f->cap)
		f->n++;
	for (uint32_t i = 0; i < f->n; i++)
		n += now - f->downs[i] < (int64_t)c->health_flap_window_s;
	log_info("health: link 0x%016" PRIx64 " port %u - 0x%016" PRIx64
		 " port %u went down (%u times within %u s)",
		 e->guid[0], e->port[0], e->guid[1], e->port[1], n,
		 c->health_flap_window_s);
	if (n > c->health_flap_limit)
		trip(pf, e, "flaps", n);
}

void health_on_model(struct perf *pf, const struct fabric *old,
		     const struct fabric *now)
{
	if (!old || !now || !pf->sm->cfg.health_flap_limit)
		return;
	for (uint32_t i = 0; i < old->n_nodes; i++) {
		const struct ib_node *o = old->nodes[i];
		const struct ib_node *n = fabric_node_by_guid(now, o->guid);

		for (unsigned p = 1; n && p <= o->nports && p <= n->nports;
		     p++) {
			const struct ib_port *r = o->ports[p].remote;
			struct ends e = {
			    {o->guid, 0}, {(uint8_t)p, 0}, {o->desc, NULL}};

			/* each link once, from its lower end; a node gone
			 * (cut off, dead) is not a link's flap */
			if (!r || n->ports[p].remote || n->ports[p].held ||
			    !fabric_node_by_guid(now, r->node->guid) ||
			    r->node->guid < o->guid ||
			    (r->node->guid == o->guid && r->num < p))
				continue;
			e.guid[1] = r->node->guid;
			e.port[1] = r->num;
			e.desc[1] = r->node->desc;
			flap(pf, &e);
		}
	}
}

static void end_episode(struct perf *pf, uint32_t i, const char *change)
{
	struct health *h = pf->health;
	struct hlink l = h->links[i];

	memmove(&h->links[i], &h->links[i + 1],
		(h->n - i - 1) * sizeof(*h->links));
	h->n--;
	log_notice("health: link %s (0x%016" PRIx64 ") port %u - %s "
		   "(0x%016" PRIx64 ") port %u %s%s",
		   l.desc[0], l.guid[0], l.port[0], l.desc[1], l.guid[1],
		   l.port[1], change, l.held ? "; routed again" : "");
	event(&l, change);
	if (l.action == HEALTH_DISABLED) {
		unsigned e = disable_end(pf->sm, &l);

		health_set_phys(pf, l.guid[e], l.port[e], false);
	}
	if (l.held)
		sweep_request(pf->sm, true, "health: a held link is back");
}

void health_tick(struct perf *pf)
{
	struct health *h = pf->health;
	uint32_t rec = pf->sm->cfg.health_recover_s;
	int64_t now = time(NULL);
	bool changed = false;

	for (uint32_t i = 0; rec && i < h->n;) {
		if (h->links[i].action != HEALTH_DISABLED &&
		    now - h->links[i].last_bad >= (int64_t)rec) {
			end_episode(pf, i, "recovered");
			changed = true;
		} else {
			i++;
		}
	}
	if (changed)
		health_store_save(pf);
}

int health_clear(struct perf *pf, uint64_t guid, uint8_t port, bool all)
{
	struct health *h = pf->health;
	int found = 0;

	for (uint32_t i = 0; i < h->n;) {
		const struct hlink *l = &h->links[i];

		if (all || (l->guid[0] == guid && l->port[0] == port) ||
		    (l->guid[1] == guid && l->port[1] == port)) {
			end_episode(pf, i, "cleared");
			found++;
		} else {
			i++;
		}
	}
	if (found)
		health_store_save(pf);
	return found || all ? 0 : -ENOENT;
}

bool health_held_peer(const struct perf *pf, uint64_t guid, uint8_t port,
		      uint64_t *rguid, uint8_t *rport, const char **rdesc)
{
	const struct health *h = pf->health;

	for (uint32_t i = 0; h && i < h->n; i++)
		for (unsigned e = 0; e < 2; e++)
			if (h->links[i].held && h->links[i].guid[e] == guid &&
			    h->links[i].port[e] == port) {
				*rguid = h->links[i].guid[1 - e];
				*rport = h->links[i].port[1 - e];
				*rdesc = h->links[i].desc[1 - e];
				return true;
			}
	return false;
}

uint32_t health_count(const struct perf *pf)
{
	return pf->health ? pf->health->n : 0;
}

int health_init(struct perf *pf)
{
	pf->health = calloc(1, sizeof(*pf->health));
	if (!pf->health)
		return -ENOMEM;
	return health_store_load(pf);
}

void health_fini(struct perf *pf)
{
	struct health *h = pf->health;

	if (!h)
		return;
	for (uint32_t i = 0; i < h->n_flaps; i++)
		free(h->flaps[i].downs);
	free(h->flaps);
	free(h->links);
	free(h);
	pf->health = NULL;
}

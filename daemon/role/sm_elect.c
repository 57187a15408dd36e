/* The election among the SMs of a subnet (IBA vol. 1, 14.4.1): after a
 * heavy sweep's discovery, every other port advertising IsSM is asked for
 * its SMInfo; a MASTER found is followed (an SM that starts never takes
 * the subnet from a running master: the master hands it over), else the
 * best SM (priority, then the lower port GUID) becomes master.  A master
 * that finds a better STANDBY hands the subnet over to it. */
#include "daemon/role/sm_elect.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "lib/log.h"
#include "mad/smp_port.h"

/* PortInfo:CapabilityMask.IsSM */
#define CAP_IS_SM 0x00000002u
/* A peer that does not answer its SMInfo Get is left out of the election:
 * one retry keeps a dead master from delaying the takeover. */
#define PEER_QUERY_RETRIES 1

static void on_sweep_done(struct sm *sm, enum sm_event ev,
			  const struct sm_event_arg *a, void *ctx);

/* The election hangs off struct sm: the sweep reaches it through
 * sm->elect_fn, and it hears of each sweep's end through the event (it
 * subscribes before the SM role, so it sees the state the sweep ended
 * in). */
int elect_init(struct sm *sm)
{
	sm->elect = calloc(1, sizeof(*sm->elect));
	if (!sm->elect)
		return -ENOMEM;
	sm->elect->sm = sm;
	sm->elect_fn = elect_after_discovery;
	return sm_subscribe(sm, SM_EV_SWEEP_DONE, on_sweep_done, NULL);
}

void elect_fini(struct sm *sm)
{
	if (!sm->elect)
		return;
	sm_unsubscribe(sm, on_sweep_done, NULL);
	sm->elect_fn = NULL;
	poll_stop(sm);
	sm->elect->poll_timer = sd_event_source_unref(sm->elect->poll_timer);
	free(sm->elect);
	sm->elect = NULL;
}

static void refresh_peers(struct sm *sm);

/* Each sweep's end: a master refreshes its view of the other SMs; the
 * first sweep as master has read the tables back and asked the CA ports
 * to re-register. */
static void on_sweep_done(struct sm *sm, enum sm_event ev,
			  const struct sm_event_arg *a, void *ctx)
{
	(void)ev;
	(void)ctx;
	if (a->rc != 0 || !sm->elect || sm->sm_state != SM_STATE_MASTER)
		return;
	if (!sm->once)
		refresh_peers(sm);
	sm->tables_unknown = false;
	if (sm->rereg_pending) {
		sm->rereg_pending = false;
		log_notice("CA ports were asked to re-register (the previous "
			   "master's multicast and service state is not "
			   "known here)");
	}
}

void elect_follow(struct sm *sm, const struct sm_peer *m, const char *why)
{
	struct sm_elect *e = sm->elect;
	char msg[160];

	if (m->guid != e->master_guid)
		sm_repl_forget(sm);
	e->master_guid = m->guid;
	e->master_lid = m->lid;
	memcpy(e->master_path, m->path, sizeof(e->master_path));
	e->master_hops = m->hops;
	e->master_act_count = m->si.act_count;
	e->handing_over = false;
	e->misses = 0;
	e->trap_sent = false;
	sm->tables_unknown = true;
	sm->mft_unknown = true;
	sm->subnet_up = false;
	snprintf(msg, sizeof(msg),
		 "%s: SM 0x%016" PRIx64 " (LID %u, %s), "
		 "priority %u, %s",
		 why, m->guid, m->lid, m->desc, m->si.priority,
		 sm_state_name((enum smp_sm_state)m->si.state));
	sm_change_state(sm, SM_STATE_STANDBY, msg);
	poll_start(sm);
}

static void round_end(struct sm_elect *e, bool master)
{
	void (*done)(void *, bool) = e->done;

	e->done = NULL;
	if (done)
		done(e->done_ctx, master);
}

/* The best answered peer in state st (NULL if none). */
static const struct sm_peer *best_in(const struct sm_elect *e,
				     enum smp_sm_state st)
{
	const struct sm_peer *b = NULL;

	for (unsigned i = 0; i < e->n_peers; i++) {
		const struct sm_peer *p = &e->peers[i];
		if (!p->answered || p->si.state != st)
			continue;
		if (!b || elect_beats(p->si.priority, p->guid, b->si.priority,
				      b->guid))
			b = p;
	}
	return b;
}

static bool peer_beats_me(const struct sm *sm, const struct sm_peer *p)
{
	return p && elect_beats(p->si.priority, p->guid, elect_priority(sm),
				sm->sm_guid);
}

static void decide(struct sm_elect *e)
{
	struct sm *sm = e->sm;
	bool master = sm->sm_state == SM_STATE_MASTER;
	const struct sm_peer *m = best_in(e, SM_STATE_MASTER);
	const struct sm_peer *sb = best_in(e, SM_STATE_STANDBY);
	const struct sm_peer *dc = best_in(e, SM_STATE_DISCOVERING);

	if (m && (!master || peer_beats_me(sm, m))) {
		elect_follow(sm, m,
			     master ? "another master outranks this one"
				    : "a master is in place");
		round_end(e, false);
		return;
	}
	if (master && peer_beats_me(sm, sb)) {
		if (elect_send_handover(sm, sb) == 0) {
			round_end(e, false);
			return;
		}
	} else if (!master &&
		   (peer_beats_me(sm, sb) || peer_beats_me(sm, dc))) {
		elect_follow(sm, peer_beats_me(sm, sb) ? sb : dc,
			     "no master; a better SM will take the subnet");
		round_end(e, false);
		return;
	}
	if (!master) {
		e->master_guid = sm->sm_guid;
		e->master_lid = 0;
		sm_change_state(sm, SM_STATE_MASTER,
				e->n_peers ? "won the election"
					   : "no other SM on the subnet");
	}
	round_end(e, true);
}

static void decide_deferred(void *ctx)
{
	decide(ctx);
}

struct query {
	struct sm_elect *e;
	unsigned i;
	uint64_t guid;
};

static void query_cb(void *ctx, int status, const struct txn_result *r)
{
	struct query *q = ctx;
	struct sm_elect *e = q->e;
	struct sm_peer *p = &e->peers[q->i];

	free(q);
	if (status == -ECANCELED)
		return; /* the engine is going away */
	p->answered = status == 0 && r->data &&
		      smp_sm_info_decode(&p->si, r->data, SMP_DATA_SIZE) == 0;
	if (!p->answered)
		log_info("SM 0x%016" PRIx64 " (%s) did not answer SMInfo: %s; "
			 "left out of the election",
			 p->guid, p->desc, strerror(-status));
	if (--e->pending == 0)
		decide(e);
}

/* SMInfo Get of peer i over its directed route, answered to cb.  An
 * election query carries our own SMInfo (IBA 14.4.1: the peer learns of
 * us from it); a refresh does not. */
static int send_peer_query(struct sm *sm, unsigned i, bool with_own,
			   void (*cb)(void *, int, const struct txn_result *))
{
	struct sm_peer *p = &sm->elect->peers[i];
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct smp_sm_info own;
	struct query *q = malloc(sizeof(*q));
	struct txn_smp_req req = {
	    .dr = true,
	    .path = p->path,
	    .hops = p->hops,
	    .method = MAD_METHOD_GET,
	    .attr_id = SMP_ATTR_SM_INFO,
	    .data = with_own ? data : NULL,
	    .retries = PEER_QUERY_RETRIES,
	};
	int rc;

	if (!q)
		return -ENOMEM;
	q->e = sm->elect;
	q->i = i;
	q->guid = p->guid;
	if (with_own) {
		elect_own_sminfo(sm, &own);
		smp_sm_info_encode(&own, data, sizeof(data));
	}
	rc = txn_submit(sm->txn, &req, cb, q);
	if (rc < 0)
		free(q);
	return rc;
}

static int query_peer(struct sm *sm, unsigned i)
{
	int rc = send_peer_query(sm, i, true, query_cb);

	if (rc == 0)
		sm->elect->pending++;
	return rc;
}

/* Port pn of n as a peer, when it advertises IsSM and is not ours. */
static void add_peer(struct sm *sm, struct fabric *f, struct dnode *dn,
		     uint8_t pn)
{
	struct sm_elect *e = sm->elect;
	struct ib_node *n = dn->node;
	struct smp_port_info pi;
	struct sm_peer *p;
	uint64_t guid = node_is_switch(n) ? n->guid : n->ports[pn].guid;

	if (!dn->ports[pn].have_pi ||
	    smp_port_info_decode(&pi, dn->ports[pn].pi, SMP_DATA_SIZE) < 0)
		return;
	if (n == f->sm_node && pn == f->sm_port) {
		if (sm->sm_state != SM_STATE_MASTER && pi.lid)
			sm->sm_lid = pi.lid; /* what the master gave us */
		return;
	}
	if (!(pi.capability_mask & CAP_IS_SM) || guid == sm->sm_guid)
		return;
	if (e->n_peers == ELECT_MAX_PEERS) {
		log_warn(
		    "more than %u other SMs on the subnet; SM 0x%016" PRIx64
		    " (%s) is not considered",
		    ELECT_MAX_PEERS, guid, n->desc);
		return;
	}
	p = &e->peers[e->n_peers];
	memset(p, 0, sizeof(*p));
	if (disc_port_path(f, n, pn, p->path, &p->hops) < 0)
		return;
	p->guid = guid;
	p->lid = pi.lid;
	snprintf(p->desc, sizeof(p->desc), "%s", n->desc);
	e->n_peers++;
}

static void refresh_cb(void *ctx, int status, const struct txn_result *r)
{
	struct query *q = ctx;
	struct sm_elect *e = q->e;
	struct sm_peer *p = &e->peers[q->i];
	struct sm *sm = e->sm;
	struct smp_sm_info si;
	bool was = p->answered, changed;

	if (status == -ECANCELED || e->pending || e->done ||
	    q->i >= e->n_peers || p->guid != q->guid) {
		free(q); /* gone, or an election round owns the peers now */
		return;
	}
	free(q);
	p->answered = status == 0 && r->data &&
		      smp_sm_info_decode(&si, r->data, SMP_DATA_SIZE) == 0;
	if (!p->answered)
		return;
	/* Only a change is acted on: a rival master this one outranks
	 * stays what it is, and must not make every sweep heavy. */
	changed =
	    !was || si.state != p->si.state || si.priority != p->si.priority;
	p->si = si;
	if (changed && sm->sm_state == SM_STATE_MASTER && !e->handing_over &&
	    (si.state == SM_STATE_MASTER ||
	     (si.state == SM_STATE_STANDBY && peer_beats_me(sm, p)))) {
		log_notice("SM 0x%016" PRIx64 " (%s) is %s, priority %u: "
			   "looking at the subnet again",
			   p->guid, p->desc,
			   sm_state_name((enum smp_sm_state)si.state),
			   si.priority);
		sweep_request(sm, true, "another SM changed");
	}
}

/* A master keeps its view of the other SMs current between heavy sweeps
 * (for `ibsmctl status`, and to notice a master that appeared or a
 * standby that now outranks it: both make the next sweep heavy). */
static void refresh_peers(struct sm *sm)
{
	struct sm_elect *e = sm->elect;

	for (unsigned i = 0; i < e->n_peers; i++)
		if (send_peer_query(sm, i, false, refresh_cb) == -ENOMEM)
			return;
}

int elect_after_discovery(struct sm *sm, struct fabric *f, struct discovery *d,
			  void (*done)(void *ctx, bool master), void *ctx)
{
	struct sm_elect *e = sm->elect;
	int rc = 0;

	e->n_peers = 0;
	e->done = done;
	e->done_ctx = ctx;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = f->nodes[i];
		struct dnode *dn = disc_node(d, n);
		if (!dn)
			continue;
		for (unsigned p = node_is_switch(n) ? 0 : 1;
		     p <= (node_is_switch(n) ? 0u : n->nports); p++)
			add_peer(sm, f, dn, (uint8_t)p);
	}
	for (unsigned i = 0; i < e->n_peers; i++) {
		/* A peer that cannot be asked counts as silent. */
		rc = query_peer(sm, i);
		if (rc < 0)
			log_err("cannot ask SM 0x%016" PRIx64
				" for its SMInfo: "
				"%s; it is left out of the election",
				e->peers[i].guid, strerror(-rc));
	}
	if (e->pending == 0) {
		rc = txn_defer(sm->txn, decide_deferred, e);
		if (rc < 0)
			e->done = NULL;
		return rc;
	}
	return 0;
}

void elect_get_counts(const struct sm *sm, struct elect_counts *c)
{
	const struct sm_elect *e = sm->elect;

	*c = (struct elect_counts){0};
	if (!e)
		return;
	*c = (struct elect_counts){.peers = e->n_peers,
				   .polls = e->polls,
				   .poll_misses = e->poll_misses,
				   .takeovers = e->takeovers,
				   .handovers_sent = e->handovers_sent,
				   .handovers_taken = e->handovers_taken};
}

void elect_print_status(const struct sm *sm, FILE *out)
{
	const struct sm_elect *e = sm->elect;

	if (!e)
		return;
	fprintf(out, "sm_role %s\n", sm_state_name(sm->sm_state));
	fprintf(out, "sm_priority_announced %u\n", elect_priority(sm));
	if (sm->sm_state == SM_STATE_MASTER) {
		fprintf(out, "master_guid 0x%016" PRIx64 "\n", sm->sm_guid);
		fprintf(out, "master_lid %u\n", sm->sm_lid);
	} else if (sm->sm_state == SM_STATE_STANDBY) {
		fprintf(out, "master_guid 0x%016" PRIx64 "\n", e->master_guid);
		fprintf(out, "master_lid %u\n", e->master_lid);
	} else {
		fprintf(out, "master_guid none\nmaster_lid 0\n");
	}
	fprintf(out, "sm_peers %u\n", e->n_peers);
	for (unsigned i = 0; i < e->n_peers; i++) {
		const struct sm_peer *p = &e->peers[i];
		fprintf(out,
			"sm_peer 0x%016" PRIx64 " lid %u priority %u state %s "
			"act_count %u node %s\n",
			p->guid, p->lid, p->si.priority,
			p->answered
			    ? sm_state_name((enum smp_sm_state)p->si.state)
			    : "silent",
			p->si.act_count, p->desc);
	}
	fprintf(out, "sm_polls %" PRIu64 "\n", e->polls);
	fprintf(out, "sm_poll_misses %" PRIu64 "\n", e->poll_misses);
	fprintf(out, "sm_takeovers %" PRIu64 "\n", e->takeovers);
	fprintf(out, "sm_handovers_sent %" PRIu64 "\n", e->handovers_sent);
	fprintf(out, "sm_handovers_taken %" PRIu64 "\n", e->handovers_taken);
	fprintf(out, "sminfo_bad_key %" PRIu64 "\n", e->bad_key);
	sm_repl_print(out);
}

/* The incremental sweep (docs/design.md §3.4).  Switches named by trap
 * 128, or reporting PortStateChange in a light sweep, have the change bit
 * cleared and every port read (PortInfo Get), instead of the whole fabric
 * being rediscovered (seconds at 16,000 hosts).  When every change is a
 * link of the model gone down, the new model is a copy of the current one
 * without those links, with new directed routes; nodes it no longer
 * reaches leave it.  Switches whose old route crossed a lost link, or that
 * a light sweep did not hear, are asked over their new routes: one that
 * reports a change too has its ports read the same way; one still mute
 * has its neighbours asked (a dead switch is then cut off).  The sweep
 * then routes the copy and sends what differs, as after a discovery.
 * Anything else (a port come up, a Get that fails, a switch mute with its
 * links up, the SM's own link) is a heavy sweep: only losses are handled
 * here, where the edited model is sure to be right. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sweep/sweep_priv.h"
#include "lib/log.h"
#include "mad/smp_port.h"
#include "mad/smp_switch.h"

struct incr_sw {
	uint64_t guid;
	bool have_si;		   /* else the probe reads it first */
	uint8_t si[SMP_DATA_SIZE]; /* SwitchInfo as the light sweep read it */
};

struct incr_link {
	uint64_t guid;
	uint8_t port;
};

struct incr {
	struct incr_sw *sw;
	uint32_t n_sw, cap_sw;
	uint32_t probed;  /* sw[0..probed) had their ports read */
	uint64_t *silent; /* switches the light sweep did not hear */
	uint32_t n_silent, cap_silent;
	uint64_t *mute; /* ... nor the recheck over their new routes */
	uint32_t n_mute, cap_mute;
	uint64_t *asked; /* rechecked once already */
	uint32_t n_asked, cap_asked;
	unsigned rounds; /* rechecks done */
	uint32_t n_cut;	 /* links cut so far */
	struct incr_link *lost;
	uint32_t n_lost, cap_lost;
	char unsure[160]; /* why the model cannot just be edited */
};

struct probe_req {
	struct sweep *s;
	uint64_t guid;
	uint8_t port;
	bool linked; /* in the model */
};

static int grow(void **v, uint32_t *cap, uint32_t n, size_t sz)
{
	void *nv;

	if (n < *cap)
		return 0;
	nv = realloc(*v, (*cap ? *cap * 2 : 16) * sz);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = *cap ? *cap * 2 : 16;
	return 0;
}

void incr_reset(struct sweep *s)
{
	if (!s->incr)
		return;
	free(s->incr->sw);
	free(s->incr->silent);
	free(s->incr->mute);
	free(s->incr->asked);
	free(s->incr->lost);
	free(s->incr);
	s->incr = NULL;
}

static struct incr *get(struct sweep *s)
{
	if (!s->incr)
		s->incr = calloc(1, sizeof(*s->incr));
	return s->incr;
}

static void set_unsure(struct incr *in, const char *why)
{
	if (!in->unsure[0])
		snprintf(in->unsure, sizeof(in->unsure), "%s", why);
}

bool incr_recheck_ok(const struct sweep *s, char *why, size_t len)
{
	if (!s->incr->unsure[0])
		return true;
	snprintf(why, len, "%s", s->incr->unsure);
	return false;
}

void incr_note_psc(struct sweep *s, uint64_t guid,
		   const uint8_t si[SMP_DATA_SIZE])
{
	struct incr *in = get(s);

	if (!in)
		return;
	if (grow((void **)&in->sw, &in->cap_sw, in->n_sw, sizeof(*in->sw))) {
		set_unsure(in, "out of memory");
		return;
	}
	for (uint32_t i = 0; i < in->n_sw; i++)
		if (in->sw[i].guid == guid && i >= in->probed)
			return; /* a trap and a light sweep may name it twice */
	in->sw[in->n_sw].guid = guid;
	in->sw[in->n_sw].have_si = si != NULL;
	if (si)
		memcpy(in->sw[in->n_sw].si, si, SMP_DATA_SIZE);
	in->n_sw++;
}

/* A switch whose directed route crossed the lost link cannot answer; the
 * recheck asks it again over its new route. */
void incr_note_silent(struct sweep *s, uint64_t guid)
{
	struct incr *in = get(s);

	if (!in)
		return;
	if (grow((void **)&in->silent, &in->cap_silent, in->n_silent,
		 sizeof(*in->silent))) {
		set_unsure(in, "out of memory");
		return;
	}
	in->silent[in->n_silent++] = guid;
}

bool incr_possible(const struct sweep *s)
{
	const struct sm *sm = s->sm;

	return s->incr && s->incr->n_sw && !s->incr->unsure[0] &&
	       sm->cfg.sm_incremental && sm->subnet_up &&
	       sm->sm_state == SM_STATE_MASTER && !sm->tables_unknown;
}

/* The SA's PortInfoRecords show the port as read now, as after a
 * discovery (the observer is the SA's record cache). */
static void tell_sa(struct sweep *s, uint64_t guid, uint8_t port,
		    const uint8_t *data)
{
	const struct disc_observer *o = s->sm->disc_obs;
	const struct ib_node *n = fabric_node_by_guid(s->sm->fab, guid);
	struct smp smp = {0};

	if (!o || !o->smp || !n)
		return;
	smp.hdr.attr_id = SMP_ATTR_PORT_INFO;
	smp.hdr.attr_mod = port;
	o->smp(o->ctx, n, &smp, data);
}

/* A port the model links: down now means the link is gone, still ACTIVE
 * means nothing changed there.  A port the model does not link that is
 * not down is a new link: a heavy sweep brings it up. */
static void probe_cb(void *ctx, int status, const struct txn_result *r)
{
	struct probe_req *q = ctx;
	struct incr *in = q->s->incr;
	struct smp_port_info pi;

	if (status < 0 || !r->data ||
	    smp_port_info_decode(&pi, r->data, SMP_DATA_SIZE) < 0) {
		set_unsure(in, "a port did not answer PortInfo");
		goto out;
	}
	tell_sa(q->s, q->guid, q->port, r->data);
	if (!q->linked) {
		if (pi.port_state != IB_PORT_DOWN)
			set_unsure(in, "a port came up");
	} else if (pi.port_state == IB_PORT_DOWN) {
		if (grow((void **)&in->lost, &in->cap_lost, in->n_lost,
			 sizeof(*in->lost)) == 0)
			in->lost[in->n_lost++] =
			    (struct incr_link){q->guid, q->port};
		else
			set_unsure(in, "out of memory");
	} else if (pi.port_state != IB_PORT_ACTIVE) {
		set_unsure(in, "a linked port is neither ACTIVE nor DOWN");
	}
out:
	sweep_release(q->s);
	free(q);
}

/* Clears PortStateChange (writing 1 clears it) so the next light sweep
 * sees only later changes; LinearFDBTop is written as it was. */
static int clear_psc_at(struct sweep *s, const uint8_t *path, uint8_t hops,
			const uint8_t raw[SMP_DATA_SIZE])
{
	struct smp_switch_info si;
	uint8_t data[SMP_DATA_SIZE] = {0};

	if (smp_switch_info_decode(&si, raw, SMP_DATA_SIZE) < 0 ||
	    smp_switch_info_encode(&si, data, sizeof(data)) < 0)
		return -EINVAL;
	return txn_submit_dr(s->sm->txn, path, hops, MAD_METHOD_SET,
			     SMP_ATTR_SWITCH_INFO, 0, data, NULL, NULL);
}

/* A switch named by a trap: its SwitchInfo is read, then written back
 * with PortStateChange cleared. */
struct si_req {
	struct sweep *s;
	uint8_t path_copy[IB_MAX_DR_HOPS + 1];
	uint8_t hops;
};

static void si_read_cb(void *ctx, int status, const struct txn_result *r)
{
	struct si_req *q = ctx;

	if (status < 0 || !r->data)
		set_unsure(q->s->incr, "a switch named by a trap does not "
				       "answer SwitchInfo");
	else if (clear_psc_at(q->s, q->path_copy, q->hops, r->data) < 0)
		set_unsure(q->s->incr, "cannot clear PortStateChange");
	sweep_release(q->s);
	free(q);
}

static int read_and_clear(struct sweep *s, const struct ib_node *sw)
{
	struct si_req *q = calloc(1, sizeof(*q));
	int rc;

	if (!q)
		return -ENOMEM;
	q->s = s;
	memcpy(q->path_copy, sw->dr_path, sizeof(q->path_copy));
	q->hops = sw->dr_hops;
	rc = txn_submit_dr(s->sm->txn, sw->dr_path, sw->dr_hops, MAD_METHOD_GET,
			   SMP_ATTR_SWITCH_INFO, 0, NULL, si_read_cb, q);
	if (rc < 0) {
		free(q);
		return rc;
	}
	sweep_hold(s);
	return 0;
}

static int probe_port(struct sweep *s, const struct ib_node *sw, uint8_t p)
{
	struct probe_req *q = calloc(1, sizeof(*q));
	int rc;

	if (!q)
		return -ENOMEM;
	/* a held link is up though the model does not route it */
	*q = (struct probe_req){s, sw->guid, p,
				sw->ports[p].remote || sw->ports[p].held};
	rc = txn_submit_dr(s->sm->txn, sw->dr_path, sw->dr_hops, MAD_METHOD_GET,
			   SMP_ATTR_PORT_INFO,
			   smp_port_info_mod(p, port_speed_caps(&sw->ports[p]) &
						    IB_SPEED_CAP_EXT),
			   NULL, probe_cb, q);
	if (rc < 0) {
		free(q);
		return rc;
	}
	sweep_hold(s);
	return 0;
}

/* Every port of the switches that reported a change, after clearing the
 * change bit (so a change after the probe is seen by the next sweep). */
int incr_probe_start(struct sweep *s)
{
	struct incr *in = s->incr;
	int rc = 0;

	/* the far ends found by the recheck: over the edited model */
	const struct fabric *model = s->nf ? s->nf : s->sm->fab;

	for (uint32_t i = in->probed; i < in->n_sw && rc == 0; i++) {
		const struct ib_node *sw =
		    fabric_node_by_guid(model, in->sw[i].guid);

		if (!sw)
			return -ENOENT;
		in->probed = i + 1;
		rc = in->sw[i].have_si ? clear_psc_at(s, sw->dr_path,
						      sw->dr_hops, in->sw[i].si)
				       : read_and_clear(s, sw);
		for (unsigned p = 1; p <= sw->nports && rc == 0; p++)
			rc = probe_port(s, sw, (uint8_t)p);
		s->sm->smps.light_gets += sw->nports + 1u;
	}
	return rc;
}

/* Cuts the lost links in nf (a copy of the model). */
static void cut_links(struct fabric *nf, struct incr *in)
{
	for (uint32_t i = 0; i < in->n_lost; i++) {
		struct ib_node *n = fabric_node_by_guid(nf, in->lost[i].guid);

		if (!n || in->lost[i].port > n->nports ||
		    !n->ports[in->lost[i].port].remote)
			continue; /* the far end of a link cut already */
		log_notice("incremental sweep: link %s (0x%016" PRIx64
			   ") port %u - %s port %u is down",
			   n->desc, n->guid, in->lost[i].port,
			   n->ports[in->lost[i].port].remote->node->desc,
			   n->ports[in->lost[i].port].remote->num);
		fabric_unlink(&n->ports[in->lost[i].port]);
		in->n_cut++;
	}
}

/* The switch a recheck answer came from: its NodeGUID is not in
 * SwitchInfo, so the request context carries it (see recheck_start). */
struct recheck_req {
	struct sweep *s;
	uint64_t guid;
};

/* A silent switch answers over its new route; if it reports a change too
 * (the far end of a lost link does), its ports are read as well. */
static void recheck_cb(void *ctx, int status, const struct txn_result *r)
{
	struct recheck_req *q = ctx;
	struct sweep *s = q->s;
	struct smp_switch_info si;

	if (status < 0 || !r->data ||
	    smp_switch_info_decode(&si, r->data, SMP_DATA_SIZE) < 0) {
		/* dead, if the far ends' ports say all its links are down */
		struct incr *in = s->incr;

		if (grow((void **)&in->mute, &in->cap_mute, in->n_mute,
			 sizeof(*in->mute)) == 0)
			in->mute[in->n_mute++] = q->guid;
		else
			set_unsure(in, "out of memory");
	} else if (si.port_state_change)
		incr_note_psc(s, q->guid, r->data);
	free(q);
	sweep_release(s);
}

/* Nodes the edited model no longer reaches from the SM (a switch whose
 * every link went down, and what hangs only off it) are gone from the
 * fabric, as a discovery would not find them either. */
static uint32_t drop_cut_off(struct fabric *nf)
{
	uint32_t n = fabric_dr_paths(nf), dropped = 0;

	for (uint32_t i = nf->n_nodes; n && i-- > 0;) {
		struct ib_node *nd = nf->nodes[i];

		if (nd->seen)
			continue;
		log_notice("incremental sweep: %s (0x%016" PRIx64
			   ") is cut off "
			   "and leaves the model",
			   nd->desc, nd->guid);
		fabric_remove_node(nf, nd);
		dropped++;
	}
	if (dropped)
		fabric_dr_paths(nf); /* indexes moved; the routes did not */
	return dropped;
}

/* Far ends found by the recheck whose ports are still to be read. */
bool incr_need_probe(const struct sweep *s)
{
	return s->incr && s->incr->probed < s->incr->n_sw;
}

static bool in_list(const uint64_t *v, uint32_t n, uint64_t g)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == g)
			return true;
	return false;
}

static bool named(const struct incr *in, uint64_t guid)
{
	for (uint32_t k = 0; k < in->n_sw; k++)
		if (in->sw[k].guid == guid)
			return true;
	return false;
}

static bool is_lost(const struct incr *in, uint64_t guid, uint8_t port)
{
	for (uint32_t i = 0; i < in->n_lost; i++)
		if (in->lost[i].guid == guid && in->lost[i].port == port)
			return true;
	return false;
}

/* Did n's directed route in the old model use a link now lost? */
static bool route_crosses(const struct fabric *f, const struct ib_node *n,
			  const struct incr *in)
{
	const struct ib_node *cur = f->sm_node;

	for (unsigned h = 1; h <= n->dr_hops && cur; h++) {
		uint8_t p = n->dr_path[h];
		const struct ib_port *r;

		if (p > cur->nports || !(r = cur->ports[p].remote) ||
		    is_lost(in, cur->guid, p) ||
		    is_lost(in, r->node->guid, r->num))
			return true;
		cur = r->node;
	}
	return false;
}

/* Switches whose old route used a lost link, still in the edited model
 * and not asked yet, are to be asked over their new routes: the far end
 * of a lost link is among them, and so is any switch a trap did not name
 * whose own change its dead route would have hidden. */
static uint32_t add_suspects(struct sweep *s)
{
	const struct fabric *old = s->sm->fab;
	struct incr *in = s->incr;
	uint32_t n = 0;

	for (uint32_t i = 0; i < old->n_switches; i++) {
		const struct ib_node *sw = old->switches[i];

		if (named(in, sw->guid) || !route_crosses(old, sw, in) ||
		    !fabric_node_by_guid(s->nf, sw->guid) ||
		    in_list(in->silent, in->n_silent, sw->guid) ||
		    in_list(in->asked, in->n_asked, sw->guid))
			continue;
		incr_note_silent(s, sw->guid);
		n++;
	}
	return n;
}

/* A switch mute over its new route may be dead: its neighbours, asked
 * too, report their links to it down (then it is cut off), or not.  New
 * neighbours to ask are returned; the mute switch is asked again. */
static uint32_t requeue_mute(struct incr *in, const struct fabric *nf,
			     struct sweep *s, uint32_t *still)
{
	uint32_t added = 0, m = in->n_mute;

	*still = 0;
	in->n_mute = 0;
	for (uint32_t i = 0; i < m; i++) {
		const struct ib_node *sw = fabric_node_by_guid(nf, in->mute[i]);

		if (!sw)
			continue;
		(*still)++;
		incr_note_silent(s, sw->guid);
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct ib_node *nb =
			    port_peer_node(sw, (uint8_t)p);

			if (!nb || !node_is_switch(nb) || named(in, nb->guid) ||
			    in_list(in->asked, in->n_asked, nb->guid) ||
			    in_list(in->silent, in->n_silent, nb->guid))
				continue;
			incr_note_silent(s, nb->guid);
			added++;
		}
	}
	return added;
}

/* After the far ends' ports were read: their lost links cut too.  0: the
 * model is complete; 1: switches are to be asked (again) over routes that
 * changed; -1: why not. */
#define MAX_ROUNDS 6
int incr_apply(struct sweep *s, char *why, size_t len)
{
	struct incr *in = s->incr;
	uint32_t cut = in->n_cut, mute, added;
	uint64_t first_mute = in->n_mute ? in->mute[0] : 0;

	if (in->unsure[0]) {
		snprintf(why, len, "%s", in->unsure);
		return -1;
	}
	cut_links(s->nf, in);
	drop_cut_off(s->nf);
	add_suspects(s);
	added = requeue_mute(in, s->nf, s, &mute);
	if (mute && in->n_cut == cut && !added) {
		snprintf(why, len,
			 "switch 0x%016" PRIx64 " is silent though "
			 "its links are up",
			 first_mute);
		return -1;
	}
	if (!in->n_silent)
		return 0;
	if (in->rounds >= MAX_ROUNDS) {
		snprintf(why, len, "no stable model after %u rounds",
			 in->rounds);
		return -1;
	}
	return 1;
}

bool incr_need_recheck(const struct sweep *s)
{
	return s->incr && s->incr->n_silent;
}

int incr_recheck_start(struct sweep *s)
{
	struct incr *in = s->incr;
	int rc = 0;

	in->rounds++;
	for (uint32_t i = 0; i < in->n_silent && rc == 0; i++) {
		const struct ib_node *sw =
		    fabric_node_by_guid(s->nf, in->silent[i]);

		if (!in_list(in->asked, in->n_asked, in->silent[i])) {
			if (grow((void **)&in->asked, &in->cap_asked,
				 in->n_asked, sizeof(*in->asked)))
				return -ENOMEM;
			in->asked[in->n_asked++] = in->silent[i];
		}
		if (!sw)
			continue; /* cut off: it left the model */
		struct recheck_req *q = calloc(1, sizeof(*q));

		if (!q)
			return -ENOMEM;
		*q = (struct recheck_req){s, sw->guid};
		rc = txn_submit_dr(s->sm->txn, sw->dr_path, sw->dr_hops,
				   MAD_METHOD_GET, SMP_ATTR_SWITCH_INFO, 0,
				   NULL, recheck_cb, q);
		if (rc < 0) {
			free(q);
			break;
		}
		sweep_hold(s);
		s->sm->smps.light_gets++;
	}
	in->n_silent = 0;
	return rc;
}

int incr_build(struct sweep *s, char *why, size_t len)
{
	struct incr *in = s->incr;
	struct fabric *nf;

	if (in->unsure[0]) {
		snprintf(why, len, "%s", in->unsure);
		return -1;
	}
	if (!in->n_lost && in->n_silent) {
		snprintf(why, len, "switches silent with no link lost");
		return -1;
	}
	if (!in->n_lost)
		return 0; /* a change with no link lost: nothing to route */
	nf = calloc(1, sizeof(*nf));
	if (!nf || fabric_copy(nf, s->sm->fab) < 0) {
		free(nf);
		snprintf(why, len, "out of memory copying the model");
		return -1;
	}
	cut_links(nf, in);
	if (!nf->sm_node || (!node_is_switch(nf->sm_node) &&
			     !nf->sm_node->ports[nf->sm_port].remote)) {
		fabric_free(nf);
		free(nf);
		snprintf(why, len, "the SM's own link is down");
		return -1;
	}
	drop_cut_off(nf);
	sweep_set_model(s, nf);
	add_suspects(s);
	return 1;
}

int incr_hold_build(struct sweep *s, char *why, size_t len)
{
	struct fabric *nf = calloc(1, sizeof(*nf));
	struct sm *sm = s->sm;

	if (!nf || fabric_copy(nf, sm->fab) < 0) {
		free(nf);
		snprintf(why, len, "out of memory copying the model");
		return -1;
	}
	if (!sm->hold_links || sm->hold_links(sm, nf) == 0) {
		fabric_free(nf);
		free(nf);
		return 0;
	}
	sweep_set_model(s, nf);
	return 1;
}

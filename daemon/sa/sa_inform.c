/* Event subscriptions (IBA 13.4.8.3, 15.2.5.12): a SubnAdmSet of
 * InformInfo subscribes the requesting port (Subscribe 1) or takes one of
 * its subscriptions back (Subscribe 0); InformInfoRecord Get/GetTable
 * lists them.  The table is the SA's; what the SM reports against it is
 * in sa_report.c, and sa_inform_store.c keeps it in informs.state.
 *
 * Decisions where the IBA leaves room (OpenSM 3.3.23 does the same):
 * - the subscriber is the requesting port (its GID from its source LID);
 *   reports go to that port's LID and the QPN the InformInfo names;
 * - subscribing twice to the same thing is one subscription, answered
 *   as a success; taking back one that does not exist is
 *   ERR_REQ_INVALID;
 * - a GID that is not 0 must be a known port's (else ERR_INVALID_GID);
 * - at most SA_INFORM_MAX subscriptions in all (ERR_NO_RESOURCES), so a
 *   client cannot exhaust memory. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SA_INFORM_MAX 4096

static const uint8_t zero_gid[16];

void sa_inform_free(struct sa *sa)
{
	free(sa->informs.v);
	sa->informs.v = NULL;
	sa->informs.n = sa->informs.cap = 0;
}

/* Same subscription: subscriber and every InformInfo field but the
 * Subscribe bit and the response time. */
static bool same_sub(const struct sa_inform_rec *a,
		     const struct sa_inform_rec *b)
{
	const struct sa_inform_info *x = &a->info, *y = &b->info;

	return !memcmp(a->subscriber_gid, b->subscriber_gid, 16) &&
	       !memcmp(x->gid, y->gid, 16) && x->lid_begin == y->lid_begin &&
	       x->lid_end == y->lid_end && x->is_generic == y->is_generic &&
	       x->type == y->type && x->trap_num == y->trap_num &&
	       x->qpn == y->qpn && x->producer == y->producer;
}

static bool enum_taken(const struct sa_informs *t, const uint8_t gid[16],
		       uint16_t e)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].enumeration == e &&
		    !memcmp(t->v[i].subscriber_gid, gid, 16))
			return true;
	return false;
}

/* The subscriber's first enumeration value no subscription of it has
 * (the table holds fewer than 65,536, so there is one). */
static uint16_t free_enum(const struct sa_informs *t, const uint8_t gid[16])
{
	uint64_t used[SA_INFORM_MAX / 64 + 1] = {0};
	uint32_t e;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].enumeration <= SA_INFORM_MAX &&
		    !memcmp(t->v[i].subscriber_gid, gid, 16))
			used[t->v[i].enumeration / 64] |=
			    1ull << (t->v[i].enumeration % 64);
	for (e = 0; used[e / 64] >> (e % 64) & 1; e++)
		;
	return (uint16_t)e;
}

int sa_inform_add(struct sa *sa, const struct sa_inform_rec *r, bool saved)
{
	struct sa_informs *t = &sa->informs;

	for (uint32_t i = 0; i < t->n; i++)
		if (same_sub(&t->v[i], r))
			return 0;
	if (t->n >= SA_INFORM_MAX)
		return SA_STATUS_NO_RESOURCES;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct sa_inform_rec *nv = realloc(t->v, cap * sizeof(*nv));

		if (!nv)
			return SA_STATUS_NO_RESOURCES;
		t->v = nv;
		t->cap = cap;
	}
	t->v[t->n] = *r;
	t->v[t->n].info.subscribe = 1;
	if (!saved || enum_taken(t, r->subscriber_gid, r->enumeration))
		t->v[t->n].enumeration = free_enum(t, r->subscriber_gid);
	t->n++;
	return 0;
}

static bool remove_sub(struct sa_informs *t, const struct sa_inform_rec *r)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (same_sub(&t->v[i], r)) {
			t->v[i] = t->v[--t->n];
			return true;
		}
	return false;
}

unsigned sa_inform_drop_subscriber(struct sa *sa, const uint8_t gid[16])
{
	struct sa_informs *t = &sa->informs;
	unsigned n = 0;

	for (uint32_t i = 0; i < t->n;)
		if (!memcmp(t->v[i].subscriber_gid, gid, 16)) {
			t->v[i] = t->v[--t->n];
			n++;
		} else {
			i++;
		}
	if (n && t->changed)
		t->changed(t->ctx);
	return n;
}

int sa_inform_handle(struct sa_ctx *c)
{
	struct sa_inform_rec r = {0};
	const struct ib_port *p =
	    c->from ? fabric_port_by_lid(c->sa->fabric, c->from->lid) : NULL;
	int st;

	sa_rec_decode(&sa_inform_info_desc, c->req, c->desc->size, &r.info);
	if (!p)
		return SA_STATUS_REQ_INVALID; /* nowhere to report to */
	if (memcmp(r.info.gid, zero_gid, 16) &&
	    !sa_port_by_gid(c->sa, r.info.gid))
		return SA_STATUS_INVALID_GID;
	sa_port_gid(c->sa, p, r.subscriber_gid);
	if (r.info.subscribe == 1)
		st = sa_inform_add(c->sa, &r, false);
	else if (r.info.subscribe == 0)
		st =
		    remove_sub(&c->sa->informs, &r) ? 0 : SA_STATUS_REQ_INVALID;
	else
		st = SA_STATUS_REQ_INVALID;
	if (st)
		return st;
	if (c->sa->informs.changed)
		c->sa->informs.changed(c->sa->informs.ctx);
	return sa_append(c, &r.info) < 0 ? -ENOMEM : 0;
}

int sa_inform_rec_handle(struct sa_ctx *c)
{
	const struct sa_informs *t = &c->sa->informs;

	for (uint32_t i = 0; i < t->n && !sa_ctx_done(c); i++)
		if (sa_emit(c, &t->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* ---- matching a notice ---- */

static bool wild16_eq(uint16_t want, uint16_t v)
{
	return want == SA_II_ALL16 || want == v;
}

/* A subscription without a GID asks for a LID range (all: 0xFFFF); a
 * notice about no LID (a multicast group's) is in every range. */
static bool in_range(const struct sa_inform_info *ii, uint16_t lid)
{
	if (ii->lid_begin == SA_II_ALL16 || !lid)
		return true;
	return lid >= ii->lid_begin &&
	       lid <= (ii->lid_end ? ii->lid_end : ii->lid_begin);
}

bool sa_inform_matches(const struct sa_inform_info *ii,
		       const struct sa_notice *n, const uint8_t gid[16],
		       uint16_t lid)
{
	if (ii->is_generic != n->is_generic || !wild16_eq(ii->type, n->type))
		return false;
	if (n->is_generic &&
	    (!wild16_eq(ii->trap_num, n->trap_num) ||
	     (ii->producer != SA_II_ALL24 && ii->producer != n->producer)))
		return false;
	if (memcmp(ii->gid, zero_gid, 16))
		return gid && !memcmp(ii->gid, gid, 16);
	return in_range(ii, lid);
}

/* ServiceRecord database: register (Set), query (Get/GetTable), remove
 * (Delete), with leases.  A record is identified by ServiceID, ServiceGID
 * and ServiceP_Key (IBA 15.2.5.14); the lease counts down in seconds and
 * an expired record is removed on the next look at the database.  The
 * P_Key is honoured as OpenSM does: a request naming a ServiceP_Key must
 * come from a port holding it (and name a ServiceGID holding it), and a
 * record is seen only by ports holding its P_Key. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pkeys.h"
#include "mad/sa_service.h"

/* Bounds the database so a misbehaving client cannot exhaust memory. */
#define SERVICE_MAX 4096

struct sa_service {
	struct sa_service_rec rec;
	uint64_t expires_ms; /* 0: infinite lease */
};

void sa_service_free(struct sa *sa)
{
	free(sa->services.v);
	memset(&sa->services, 0, sizeof(sa->services));
}

static void remove_at(struct sa_services *db, uint32_t i)
{
	memmove(&db->v[i], &db->v[i + 1], (db->n - i - 1) * sizeof(db->v[0]));
	db->n--;
}

/* Removes expired ServiceRecords, before each query. */
static void sa_service_expire(struct sa *sa)
{
	uint64_t now = sa->now_ms();

	for (uint32_t i = 0; i < sa->services.n;) {
		struct sa_service *s = &sa->services.v[i];

		if (s->expires_ms && s->expires_ms <= now) {
			log_info("SA: ServiceRecord 0x%016llx \"%.64s\" lease "
				 "expired, removed",
				 (unsigned long long)s->rec.id,
				 (const char *)s->rec.name);
			remove_at(&sa->services, i);
		} else {
			i++;
		}
	}
}

/* The record as answered: the lease is what remains of it. */
static struct sa_service_rec current(const struct sa *sa,
				     const struct sa_service *s)
{
	struct sa_service_rec r = s->rec;

	if (s->expires_ms) {
		uint64_t now = sa->now_ms();

		r.lease = s->expires_ms > now
			      ? (uint32_t)((s->expires_ms - now + 999) / 1000)
			      : 0;
	}
	return r;
}

static bool same_key(const struct sa_service_rec *a,
		     const struct sa_service_rec *b)
{
	return a->id == b->id && !memcmp(a->gid, b->gid, 16) &&
	       a->pkey == b->pkey;
}

/* The record of key q, or a new slot for it; NULL when full. */
static struct sa_service *slot_for(struct sa_services *db,
				   const struct sa_service_rec *q)
{
	for (uint32_t i = 0; i < db->n; i++)
		if (same_key(&db->v[i].rec, q))
			return &db->v[i];
	if (db->n >= SERVICE_MAX)
		return NULL;
	if (db->n == db->cap) {
		uint32_t cap = db->cap ? db->cap * 2 : 16;
		struct sa_service *nv = realloc(db->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		db->v = nv;
		db->cap = cap;
	}
	return &db->v[db->n++];
}

static int do_set(struct sa_ctx *c, struct sa_service_rec *q)
{
	struct sa_services *db = &c->sa->services;
	struct sa_service *s;
	int st;

	if (!sa_has(c, SA_SR_ID) || !sa_has(c, SA_SR_GID))
		return SA_STATUS_INSUF_COMPS;
	if (!sa_port_by_gid(c->sa, q->gid))
		return SA_STATUS_INVALID_GID;
	if ((st = sa_trust_service(c, q->gid)))
		return st;
	if (!sa_has(c, SA_SR_PKEY))
		q->pkey = 0xFFFF;
	if (!sa_has(c, SA_SR_LEASE))
		q->lease = SA_SR_LEASE_INFINITE;
	/* The answer carries the lease granted, so the client knows when
	 * to register again (IBA 15.2.5.14: the SA may shorten it). */
	if (c->sa->lease_max_s && (q->lease == SA_SR_LEASE_INFINITE ||
				   q->lease > c->sa->lease_max_s))
		q->lease = c->sa->lease_max_s;
	s = slot_for(db, q);
	if (!s)
		return SA_STATUS_NO_RESOURCES;
	s->rec = *q;
	s->expires_ms = q->lease == SA_SR_LEASE_INFINITE
			    ? 0
			    : c->sa->now_ms() + (uint64_t)q->lease * 1000;
	if (db->changed)
		db->changed(db->ctx, &s->rec, s->expires_ms, false);
	{
		struct sa_service_rec r = current(c->sa, s);

		return sa_append(c, &r) < 0 ? -ENOMEM : 0;
	}
}

static int do_delete(struct sa_ctx *c, struct sa_service_rec *q)
{
	struct sa_services *db = &c->sa->services;
	int st;

	if (!sa_has(c, SA_SR_ID) || !sa_has(c, SA_SR_GID))
		return SA_STATUS_INSUF_COMPS;
	if (!sa_has(c, SA_SR_PKEY))
		q->pkey = 0xFFFF;
	if ((st = sa_trust_service(c, q->gid)))
		return st;
	for (uint32_t i = 0; i < db->n; i++) {
		if (!same_key(&db->v[i].rec, q))
			continue;
		struct sa_service_rec r = current(c->sa, &db->v[i]);

		if (db->changed)
			db->changed(db->ctx, &db->v[i].rec, 0, true);
		remove_at(db, i);
		return sa_append(c, &r) < 0 ? -ENOMEM : 0;
	}
	return SA_STATUS_NO_RECORDS;
}

/* A ServiceP_Key in the request: the requester and the ServiceGID's
 * port hold it. */
static bool pkey_request_ok(const struct sa_ctx *c,
			    const struct sa_service_rec *q)
{
	const struct ib_port *gp;

	if (!sa_has(c, SA_SR_PKEY))
		return true;
	if (!sa_may_see_pkey(c, q->pkey))
		return false;
	if (!sa_has(c, SA_SR_GID) || q->gid[0] == 0xff)
		return true;
	gp = sa_port_by_gid(c->sa, q->gid);
	return !gp || sa_holds_pkey(c->sa, gp, q->pkey);
}

int sa_service_handle(struct sa_ctx *c)
{
	struct sa_services *db = &c->sa->services;
	struct sa_service_rec q;

	sa_service_expire(c->sa);
	sa_rec_decode(c->desc, c->req, c->desc->size, &q);
	if (!pkey_request_ok(c, &q))
		return SA_STATUS_REQ_INVALID;
	if (c->hdr->method == SA_METHOD_SET)
		return do_set(c, &q);
	if (c->hdr->method == SA_METHOD_DELETE)
		return do_delete(c, &q);
	for (uint32_t i = 0; i < db->n && !sa_ctx_done(c); i++) {
		struct sa_service_rec r = current(c->sa, &db->v[i]);

		if (pkey_base(r.pkey) && !sa_may_see_pkey(c, r.pkey))
			continue;
		if (sa_emit(c, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

bool sa_service_at(const struct sa *sa, uint32_t i, struct sa_service_rec *rec,
		   uint64_t *expires_ms)
{
	if (i >= sa->services.n)
		return false;
	*rec = sa->services.v[i].rec;
	*expires_ms = sa->services.v[i].expires_ms;
	return true;
}

int sa_service_restore(struct sa *sa, const struct sa_service_rec *rec,
		       uint64_t expires_ms)
{
	struct sa_service *s = slot_for(&sa->services, rec);

	if (!s)
		return SA_STATUS_NO_RESOURCES;
	s->rec = *rec;
	s->expires_ms = expires_ms;
	return 0;
}

void sa_service_remove(struct sa *sa, const struct sa_service_rec *rec)
{
	for (uint32_t i = 0; i < sa->services.n; i++)
		if (same_key(&sa->services.v[i].rec, rec)) {
			remove_at(&sa->services, i);
			return;
		}
}

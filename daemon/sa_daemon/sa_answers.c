/* The SA's answer cache: Get answers the receiver thread built
 * (daemon/sa_daemon/sa_daemon.c), kept by request, so the same question asked again
 * (an MPI job's ranks asking for the same paths, a client retrying) is
 * answered with a copy instead of another LFT walk.  Direct mapped: a
 * request hashes to one slot, a newer answer replaces what was there.  The
 * key is the request's bytes the SA reads (header but its TID, and the
 * record: sa_request_size(); the padding after it is not the client's to
 * vary, and under ibsim holds whatever libumad2sim's buffer held), plus
 * the requester's LID (answers may one day depend on who asks).  Any change to
 * what answers are built from (a model adopted, a raw attribute cached, the
 * SM's fields) empties it by a generation bump, under the SA's write lock; only
 * the receiver thread, under the read lock, fills and reads it. */
#include "daemon/sa_daemon/sa_answers.h"

#include <stdlib.h>
#include <string.h>

#include "mad/sa_mad.h"

#define SLOTS	4096 /* 2 MiB: requests and answers of 256 bytes */
#define TID_OFF 8    /* the MAD header's TransactionID, 8 bytes */

struct slot {
	uint64_t gen; /* valid when equal to the cache's */
	uint16_t lid;
	uint16_t klen; /* key bytes of req */
	uint8_t req[SA_MAD_SIZE], ans[SA_MAD_SIZE];
};

struct sa_answers {
	struct slot *slots;
	uint64_t gen;
};

struct sa_answers *sa_answers_new(void)
{
	struct sa_answers *c = calloc(1, sizeof(*c));

	if (c && !(c->slots = calloc(SLOTS, sizeof(*c->slots)))) {
		free(c);
		c = NULL;
	}
	if (c)
		c->gen = 1;
	return c;
}

void sa_answers_free(struct sa_answers *c)
{
	if (c)
		free(c->slots);
	free(c);
}

void sa_answers_clear(struct sa_answers *c)
{
	if (c)
		c->gen++;
}

/* FNV-1a over the key without the TID, and the requester. */
static struct slot *slot_of(struct sa_answers *c, const uint8_t *req,
			    size_t klen, uint16_t lid)
{
	uint64_t h = 0xcbf29ce484222325ull ^ lid;

	for (size_t i = 0; i < klen; i++)
		if (i < TID_OFF || i >= TID_OFF + 8)
			h = (h ^ req[i]) * 0x100000001b3ull;
	return &c->slots[(h ^ h >> 32) & (SLOTS - 1)];
}

/* Same key but for the TID. */
static bool same(const struct slot *s, const uint8_t *req, size_t klen)
{
	return s->klen == klen && !memcmp(s->req, req, TID_OFF) &&
	       !memcmp(s->req + TID_OFF + 8, req + TID_OFF + 8,
		       klen - TID_OFF - 8);
}

static bool cacheable(const uint8_t *req, size_t klen)
{
	return klen > TID_OFF + 8 && klen <= SA_MAD_SIZE &&
	       req[3] == SA_METHOD_GET;
}

bool sa_answers_get(struct sa_answers *c, const uint8_t *req, size_t klen,
		    uint16_t lid, uint8_t ans[256])
{
	struct slot *s;

	if (!c || !cacheable(req, klen))
		return false;
	s = slot_of(c, req, klen, lid);
	if (s->gen != c->gen || s->lid != lid || !same(s, req, klen))
		return false;
	memcpy(ans, s->ans, SA_MAD_SIZE);
	memcpy(ans + TID_OFF, req + TID_OFF, 8);
	return true;
}

void sa_answers_put(struct sa_answers *c, const uint8_t *req, size_t klen,
		    uint16_t lid, const uint8_t *ans, size_t alen)
{
	struct slot *s;

	if (!c || !cacheable(req, klen) || alen != SA_MAD_SIZE)
		return;
	s = slot_of(c, req, klen, lid);
	memcpy(s->req, req, klen);
	s->klen = (uint16_t)klen;
	memcpy(s->ans, ans, SA_MAD_SIZE);
	s->lid = lid;
	s->gen = c->gen;
}

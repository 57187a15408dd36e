/* Raw SMP attribute blocks per (node GUID, port, attribute), fed by
 * discovery, so SA records carry the fields the fabric model does not keep
 * (CapabilityMask, VL caps, revision...).  Open addressing, no removal:
 * blocks of nodes that left are simply never asked for again. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_BLOCK 64

struct sa_cache_ent {
	uint64_t guid;
	uint16_t attr;
	uint8_t port, used;
	uint8_t data[CACHE_BLOCK];
};

static uint32_t hash(uint64_t guid, uint8_t port, uint16_t attr)
{
	uint64_t h = (guid ^ ((uint64_t)port << 48) ^ ((uint64_t)attr << 32)) *
		     0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32);
}

static struct sa_cache_ent *lookup(const struct sa_cache *c, uint64_t guid,
				   uint8_t port, uint16_t attr)
{
	if (!c->cap)
		return NULL;
	for (uint32_t i = hash(guid, port, attr) & (c->cap - 1);;
	     i = (i + 1) & (c->cap - 1)) {
		struct sa_cache_ent *e = &c->ents[i];

		if (!e->used ||
		    (e->guid == guid && e->port == port && e->attr == attr))
			return e;
	}
}

static int grow(struct sa_cache *c)
{
	struct sa_cache old = *c;

	c->cap = old.cap ? old.cap * 2 : 256;
	c->used = 0;
	c->ents = calloc(c->cap, sizeof(*c->ents));
	if (!c->ents) {
		*c = old;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < old.cap; i++) {
		struct sa_cache_ent *e = &old.ents[i];

		if (e->used) {
			*lookup(c, e->guid, e->port, e->attr) = *e;
			c->used++;
		}
	}
	free(old.ents);
	return 0;
}

int sa_cache_put(struct sa *sa, uint64_t guid, uint8_t port, uint16_t attr,
		 const uint8_t *data, size_t len)
{
	struct sa_cache *c = &sa->cache;
	struct sa_cache_ent *e;

	if (!data || len > CACHE_BLOCK)
		return -EINVAL;
	if ((c->used + 1) * 2 > c->cap && grow(c))
		return -ENOMEM;
	e = lookup(c, guid, port, attr);
	if (!e->used) {
		c->used++;
		e->used = 1;
		e->guid = guid;
		e->port = port;
		e->attr = attr;
	}
	memset(e->data, 0, sizeof(e->data));
	memcpy(e->data, data, len);
	return 0;
}

const uint8_t *sa_cache_get(const struct sa *sa, uint64_t guid, uint8_t port,
			    uint16_t attr)
{
	struct sa_cache_ent *e = lookup(&sa->cache, guid, port, attr);

	return e && e->used ? e->data : NULL;
}

void sa_cache_free(struct sa_cache *c)
{
	free(c->ents);
	memset(c, 0, sizeof(*c));
}

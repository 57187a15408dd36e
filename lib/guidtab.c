/* GUID-keyed pointer table: open addressing, kept at most half full. */
#include "lib/guidtab.h"

#include <errno.h>
#include <stdlib.h>

static uint32_t slot_of(const struct guidtab *t, uint64_t guid)
{
	uint64_t h = guid * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */

	return (uint32_t)(h >> 32) & (t->cap - 1);
}

void *guidtab_get(const struct guidtab *t, uint64_t guid)
{
	if (!t->cap || !guid)
		return NULL;
	for (uint32_t i = slot_of(t, guid);; i = (i + 1) & (t->cap - 1)) {
		if (t->keys[i] == guid)
			return t->vals[i];
		if (!t->keys[i])
			return NULL;
	}
}

static void put_slot(struct guidtab *t, uint64_t guid, void *val)
{
	uint32_t i = slot_of(t, guid);

	while (t->keys[i] && t->keys[i] != guid)
		i = (i + 1) & (t->cap - 1);
	t->used += !t->keys[i];
	t->keys[i] = guid;
	t->vals[i] = val;
}

static int grow(struct guidtab *t)
{
	struct guidtab n = {.cap = t->cap ? t->cap * 2 : 64};

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->keys[i])
			put_slot(&n, t->keys[i], t->vals[i]);
	free(t->keys);
	free(t->vals);
	*t = n;
	return 0;
}

int guidtab_put(struct guidtab *t, uint64_t guid, void *val)
{
	if (!guid)
		return -EINVAL;
	if (2 * (t->used + 1) > t->cap && grow(t) < 0)
		return -ENOMEM;
	put_slot(t, guid, val);
	return 0;
}

void guidtab_free(struct guidtab *t, void (*fn)(void *val))
{
	for (uint32_t i = 0; i < t->cap && fn; i++)
		if (t->keys[i])
			fn(t->vals[i]);
	free(t->keys);
	free(t->vals);
	*t = (struct guidtab){0};
}

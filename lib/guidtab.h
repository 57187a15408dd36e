/* A table of pointers keyed by GUID (open addressing, linear probing),
 * for state a daemon part keeps per node across models: the models are
 * replaced at every heavy sweep, the GUIDs stay. */
#ifndef IBSM_LIB_GUIDTAB_H
#define IBSM_LIB_GUIDTAB_H

#include <stdint.h>

struct guidtab {
	uint64_t *keys; /* 0 = empty slot (no node has GUID 0) */
	void **vals;
	uint32_t cap, used; /* cap a power of two */
};

void *guidtab_get(const struct guidtab *t, uint64_t guid);
/* Adds or replaces.  0 or -ENOMEM (-EINVAL for GUID 0). */
int guidtab_put(struct guidtab *t, uint64_t guid, void *val);
/* Calls fn on every value (in no order), then frees the table. */
void guidtab_free(struct guidtab *t, void (*fn)(void *val));

#endif

/* A fixed pthread pool used in parallel-for style: the caller blocks until
 * every index has been processed, so no state is shared outside one call.
 * Workers take indexes in chunks from an atomic counter. */
#ifndef IBSM_POOL_H
#define IBSM_POOL_H

#include <stddef.h>

struct pool;

/* threads == 0 means one per online CPU.  NULL on failure. */
struct pool *pool_create(unsigned threads);
void pool_destroy(struct pool *p);
unsigned pool_threads(const struct pool *p);

/* Calls fn(arg, i, worker) for every i in [0, n); worker is in
 * [0, pool_threads(p)) so callers can keep per-worker scratch.  p may be
 * NULL: then everything runs on the calling thread as worker 0. */
void pool_for(struct pool *p, size_t n,
	      void (*fn)(void *arg, size_t i, unsigned worker), void *arg);

#endif

/* Parallel-for thread pool: see pool.h.
 *
 * The caller works through the chunks itself and waits only for helpers
 * that took part in the job, never for one that has not woken up yet: on
 * a loaded machine a helper can wait milliseconds for a CPU, and the
 * daemon calls pool_for in the event loop (a multicast join routes its
 * group with it), where that wait would delay every other answer. A
 * helper that wakes after the chunks are gone goes back to sleep without
 * touching the job. */
#include "lib/pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct pool {
	pthread_t *tids;
	unsigned n; /* workers including the caller */
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned long gen; /* bumped for each pool_for */
	unsigned active;   /* helpers inside the current job */
	bool stop;
	/* current job */
	void (*fn)(void *, size_t, unsigned);
	void *arg;
	size_t total, chunk;
	size_t next; /* atomic */
};

struct worker_arg {
	struct pool *p;
	unsigned id;
};

static void run_chunks(struct pool *p, unsigned id)
{
	for (;;) {
		size_t s =
		    __atomic_fetch_add(&p->next, p->chunk, __ATOMIC_RELAXED);
		if (s >= p->total)
			return;
		size_t e = s + p->chunk < p->total ? s + p->chunk : p->total;
		for (size_t i = s; i < e; i++)
			p->fn(p->arg, i, id);
	}
}

static void *worker(void *a)
{
	struct worker_arg *wa = a;
	struct pool *p = wa->p;
	unsigned id = wa->id;
	unsigned long seen = 0;

	free(wa);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->gen == seen)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->stop)
			break;
		seen = p->gen;
		/* next only grows during a job and is reset under mu */
		if (__atomic_load_n(&p->next, __ATOMIC_RELAXED) >= p->total)
			continue;
		p->active++;
		pthread_mutex_unlock(&p->mu);
		run_chunks(p, id);
		pthread_mutex_lock(&p->mu);
		if (--p->active == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct pool *pool_create(unsigned threads)
{
	struct pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (threads == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		threads = c > 0 ? (unsigned)c : 1;
	}
	p->n = threads;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	p->tids = calloc(threads, sizeof(*p->tids));
	if (!p->tids)
		goto fail;
	for (unsigned i = 1; i < threads; i++) {
		struct worker_arg *wa = malloc(sizeof(*wa));
		if (!wa)
			goto fail;
		wa->p = p;
		wa->id = i;
		if (pthread_create(&p->tids[i], NULL, worker, wa) != 0) {
			free(wa);
			p->n = i;
			break;
		}
	}
	return p;
fail:
	p->n = 1;
	pool_destroy(p);
	return NULL;
}

void pool_destroy(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 1; i < p->n; i++)
		pthread_join(p->tids[i], NULL);
	free(p->tids);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p);
}

unsigned pool_threads(const struct pool *p)
{
	return p ? p->n : 1;
}

void pool_for(struct pool *p, size_t n,
	      void (*fn)(void *arg, size_t i, unsigned worker), void *arg)
{
	if (!p || p->n == 1 || n < 2) {
		for (size_t i = 0; i < n; i++)
			fn(arg, i, 0);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = arg;
	p->total = n;
	p->chunk = n / (p->n * 8) ? n / (p->n * 8) : 1;
	p->next = 0;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	run_chunks(p, 0);
	pthread_mutex_lock(&p->mu);
	while (p->active)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

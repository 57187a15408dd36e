/* The parallel-for pool (lib/pool.c): every index runs exactly once, on a
 * worker id below pool_threads(), for jobs of every size, including many
 * tiny jobs back to back, where a helper that wakes late for one job must
 * neither run an index of it nor miss the next one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "lib/pool.h"

struct job {
	unsigned *hits;
	unsigned threads;
	unsigned bad_worker;
};

static void count(void *arg, size_t i, unsigned worker)
{
	struct job *j = arg;

	__atomic_fetch_add(&j->hits[i], 1, __ATOMIC_RELAXED);
	if (worker >= j->threads)
		__atomic_fetch_add(&j->bad_worker, 1, __ATOMIC_RELAXED);
}

static void run_sizes(struct pool *p, const size_t *sizes, size_t nsizes,
		      unsigned rounds)
{
	for (unsigned r = 0; r < rounds; r++)
		for (size_t k = 0; k < nsizes; k++) {
			size_t n = sizes[k];
			struct job j = {.hits = calloc(n + 1, sizeof(unsigned)),
					.threads = pool_threads(p)};

			assert_non_null(j.hits);
			pool_for(p, n, count, &j);
			for (size_t i = 0; i < n; i++)
				assert_int_equal(j.hits[i], 1);
			assert_int_equal(j.hits[n], 0);
			assert_int_equal(j.bad_worker, 0);
			free(j.hits);
		}
}

static void test_every_index_once(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 100000};

	(void)state;
	for (unsigned t = 1; t <= 4; t++) {
		struct pool *p = pool_create(t);

		assert_non_null(p);
		assert_int_equal(pool_threads(p), t);
		run_sizes(p, sizes, sizeof(sizes) / sizeof(sizes[0]), 3);
		pool_destroy(p);
	}
}

static void test_tiny_jobs_back_to_back(void **state)
{
	static const size_t sizes[] = {2, 3, 5, 8};
	struct pool *p = pool_create(3);

	(void)state;
	assert_non_null(p);
	run_sizes(p, sizes, sizeof(sizes) / sizeof(sizes[0]), 5000);
	pool_destroy(p);
}

static void test_null_pool_runs_inline(void **state)
{
	static const size_t sizes[] = {0, 1, 10};

	(void)state;
	assert_int_equal(pool_threads(NULL), 1);
	run_sizes(NULL, sizes, sizeof(sizes) / sizeof(sizes[0]), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_index_once),
	    cmocka_unit_test(test_tiny_jobs_back_to_back),
	    cmocka_unit_test(test_null_pool_runs_inline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

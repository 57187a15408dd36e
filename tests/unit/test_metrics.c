/* The metrics registry (daemon/metrics): sources write in the order they
 * were added, a removed one no longer writes, the endpoint's own families
 * close the page, and a full table says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/sm.h"
#include "daemon/metrics/metrics.h"

static void src(struct sm *sm, struct prom_out *o, void *ctx)
{
	const char *name = ctx;

	prom_family(o, name, PROM_GAUGE, "a test family");
	prom_sample(o, name, NULL, 0, 1);
}

static char *page(struct sm *sm)
{
	struct prom_out o;
	char *s;

	assert_int_equal(metrics_render(sm, &o), 0);
	s = strndup(o.buf, o.len);
	prom_out_free(&o);
	return s;
}

static void test_order_remove(void **state)
{
	struct sm sm = {0};
	char *s, *a, *b, *own;

	assert_int_equal(metrics_add(&sm, src, "ibsmd_a"), 0);
	assert_int_equal(metrics_add(&sm, src, "ibsmd_b"), 0);
	s = page(&sm);
	a = strstr(s, "\nibsmd_a 1\n");
	b = strstr(s, "\nibsmd_b 1\n");
	own = strstr(s, "# TYPE ibsmd_metrics_renders_total counter\n");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(own);
	assert_true(a < b && b < own);
	free(s);
	metrics_remove(&sm, src, "ibsmd_a");
	s = page(&sm);
	assert_null(strstr(s, "ibsmd_a"));
	assert_non_null(strstr(s, "\nibsmd_b 1\n"));
	/* the second page counts the first */
	assert_non_null(strstr(s, "\nibsmd_metrics_renders_total 1\n"));
	free(s);
	metrics_stop(&sm);
	assert_null(sm.metrics);
}

static void test_full(void **state)
{
	struct sm sm = {0};

	for (unsigned i = 0; i < METRICS_MAX_SOURCES; i++)
		assert_int_equal(metrics_add(&sm, src, "ibsmd_x"), 0);
	assert_int_equal(metrics_add(&sm, src, "ibsmd_x"), -ENOSPC);
	metrics_stop(&sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_remove),
	    cmocka_unit_test(test_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

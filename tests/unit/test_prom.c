/* The Prometheus text writer: exact text of families, samples and
 * histograms, escaping of help texts and label values, long label sets,
 * and names the format allows.  (promtool checks the daemon's whole page
 * in tests/integration/metrics_prom.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/prom.h"

static char *text(struct prom_out *o)
{
	char *s = malloc(o->len + 1);

	assert_non_null(s);
	memcpy(s, o->buf, o->len);
	s[o->len] = '\0';
	return s;
}

static void test_family_samples(void **state)
{
	struct prom_out o = {0};
	struct prom_label l[] = {{"kind", "light"}, {"x", "a\"b\\c\nd"}};
	char *s;

	prom_family(&o, "ibsmd_sweeps_total", PROM_COUNTER,
		    "Sweeps \\ run\nby kind.");
	prom_sample_u64(&o, "ibsmd_sweeps_total", l, 1, 42);
	prom_sample(&o, "ibsmd_sweeps_total", l, 2, 1.5);
	prom_sample(&o, "ibsmd_up", NULL, 0, 1);
	prom_sample(&o, "ibsmd_nan", NULL, 0, NAN);
	s = text(&o);
	assert_string_equal(
	    s, "# HELP ibsmd_sweeps_total Sweeps \\\\ run\\nby kind.\n"
	       "# TYPE ibsmd_sweeps_total counter\n"
	       "ibsmd_sweeps_total{kind=\"light\"} 42\n"
	       "ibsmd_sweeps_total{kind=\"light\",x=\"a\\\"b\\\\c\\nd\"} 1.5\n"
	       "ibsmd_up 1\n"
	       "ibsmd_nan NaN\n");
	assert_false(o.oom);
	free(s);
	prom_out_free(&o);
}

static void test_histogram(void **state)
{
	static const uint32_t b[] = {100, 1000};
	struct prom_out o = {0};
	struct prom_label l[] = {{"attribute", "PathRecord"}};
	struct prom_hist h;
	char *s;

	prom_hist_init(&h, b, 2);
	prom_hist_observe(&h, 50);
	prom_hist_observe(&h, 100);
	prom_hist_observe(&h, 500);
	prom_hist_observe(&h, 5000);
	prom_hist_write(&o, "lat_seconds", l, 1, &h);
	s = text(&o);
	assert_string_equal(
	    s, "lat_seconds_bucket{attribute=\"PathRecord\",le=\"0.0001\"} 2\n"
	       "lat_seconds_bucket{attribute=\"PathRecord\",le=\"0.001\"} 3\n"
	       "lat_seconds_bucket{attribute=\"PathRecord\",le=\"+Inf\"} 4\n"
	       "lat_seconds_sum{attribute=\"PathRecord\"} 0.00565\n"
	       "lat_seconds_count{attribute=\"PathRecord\"} 4\n");
	free(s);
	prom_out_free(&o);
}

/* Labels longer than the writer's stack buffer, and preformatted ones. */
static void test_long_labels(void **state)
{
	char v[2000], lab[4096];
	struct prom_out o = {0};
	struct prom_label l[] = {{"node_desc", v}};
	size_t n;
	char *s;

	memset(v, 'q', sizeof(v) - 1);
	v[sizeof(v) - 1] = '\0';
	prom_sample_u64(&o, "m", l, 1, 7);
	s = text(&o);
	assert_int_equal(strlen(s), strlen("m{node_desc=\"\"} 7\n") + 1999);
	assert_memory_equal(s + strlen(s) - 5, "\"} 7\n", 5);
	free(s);
	n = prom_labels_fmt(lab, 10, l, 1);
	assert_int_equal(n, 1999 + strlen("{node_desc=\"\"}"));
	assert_int_equal(strlen(lab), 9);
	n = prom_labels_fmt(lab, sizeof(lab), l, 1);
	o.len = 0;
	prom_sample_raw(&o, "m", lab, 7);
	s = text(&o);
	assert_int_equal(strlen(s), n + strlen("m 7\n"));
	free(s);
	prom_out_free(&o);
}

/* A block put into two pages by reference: each page reads as if its
 * text were copied in at the place, from any offset and in any slice
 * size, and the block lives until the last page is freed. */
static void test_blocks(void **state)
{
	struct prom_out b = {0}, p1 = {0}, p2 = {0};
	struct prom_block *blk;
	const char *want = "a 1\nB 7\nB 8\nz 2\n";
	char got[64];

	prom_sample_raw(&b, "B", "", 7);
	prom_sample_raw(&b, "B", "", 8);
	blk = prom_block_make(&b);
	assert_non_null(blk);
	assert_null(b.buf);
	assert_int_equal(prom_block_len(blk), 8);
	prom_sample_raw(&p1, "a", "", 1);
	prom_put_block(&p1, blk);
	prom_sample_raw(&p1, "z", "", 2);
	prom_put_block(&p2, blk);
	prom_block_unref(blk); /* the pages hold it */
	assert_int_equal(prom_out_size(&p1), strlen(want));
	for (size_t slice = 1; slice <= 16; slice++) {
		size_t off = 0, n;

		memset(got, 0, sizeof(got));
		while ((n = prom_out_read(&p1, off, got + off, slice)))
			off += n;
		assert_int_equal(off, strlen(want));
		assert_string_equal(got, want);
	}
	prom_out_flatten(&p2);
	assert_int_equal(p2.n_pieces, 0);
	assert_int_equal(p2.len, 8);
	assert_memory_equal(p2.buf, "B 7\nB 8\n", 8);
	prom_out_free(&p1);
	prom_out_free(&p2);
}

/* An empty block (text NULL) in a page reads as nothing there, also
 * under UBSan (no memcpy from NULL). */
static void test_empty_block(void **state)
{
	struct prom_out b = {0}, p = {0};
	struct prom_block *blk = prom_block_make(&b);
	char got[16] = "";
	size_t off = 0, n;

	assert_non_null(blk);
	assert_int_equal(prom_block_len(blk), 0);
	prom_sample_raw(&p, "a", "", 1);
	prom_put_block(&p, blk);
	prom_sample_raw(&p, "z", "", 2);
	prom_block_unref(blk);
	while ((n = prom_out_read(&p, off, got + off, 3)))
		off += n;
	assert_int_equal(off, 8);
	assert_string_equal(got, "a 1\nz 2\n");
	prom_out_free(&p);
}

static void test_names(void **state)
{
	assert_true(prom_name_ok("ibsmd_sa_requests_total", false));
	assert_true(prom_name_ok("a:b", false));
	assert_false(prom_name_ok("a:b", true));
	assert_false(prom_name_ok("1abc", false));
	assert_false(prom_name_ok("a-b", false));
	assert_false(prom_name_ok("", false));
	assert_true(prom_name_ok("_x9", true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_family_samples),
	    cmocka_unit_test(test_histogram),
	    cmocka_unit_test(test_long_labels),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_blocks),
	    cmocka_unit_test(test_empty_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

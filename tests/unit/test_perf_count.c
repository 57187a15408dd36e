/* The performance manager's arithmetic (daemon/perf/pm_count.c,
 * pm_table.c): raw readings into 64-bit totals across clears, width
 * changes and a restart, the clears asked before a counter saturates,
 * and the port table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/perf/perf_priv.h"

static struct perf_sample reading(enum perf_counter c, uint8_t width,
				  uint64_t v)
{
	struct perf_sample s = {0};

	s.v[c] = v;
	s.width[c] = width;
	return s;
}

static void test_totals(void **state)
{
	struct pm_port p = {0};
	struct perf_sample s = reading(PC_SYMBOL_ERRORS, 16, 40);

	(void)state;
	/* the first reading starts at what the counter holds */
	assert_int_equal(pm_count(&p, &s, 1000000, 100), 0);
	assert_int_equal(p.s.total[PC_SYMBOL_ERRORS], 40);
	assert_true(p.interval_s == 0);
	s.v[PC_SYMBOL_ERRORS] = 100;
	pm_count(&p, &s, 3000000, 102);
	assert_int_equal(p.s.total[PC_SYMBOL_ERRORS], 100);
	assert_int_equal(p.prev[PC_SYMBOL_ERRORS], 40);
	assert_true(p.interval_s > 1.99 && p.interval_s < 2.01);
	/* cleared by someone else: the new value is the growth */
	s.v[PC_SYMBOL_ERRORS] = 7;
	pm_count(&p, &s, 4000000, 103);
	assert_int_equal(p.s.total[PC_SYMBOL_ERRORS], 107);
	/* a counter not in this reading keeps its total, not valid */
	assert_int_equal(p.s.valid, 1u << PC_SYMBOL_ERRORS);
}

static void test_clear_before_saturation(void **state)
{
	struct pm_port p = {0};
	struct perf_sample s = reading(PC_SYMBOL_ERRORS, 16, 30000);
	struct perf_sample after = reading(PC_SYMBOL_ERRORS, 16, 2);

	(void)state;
	s.v[PC_LOCAL_LINK_INTEGRITY_ERRORS] = 9;
	s.width[PC_LOCAL_LINK_INTEGRITY_ERRORS] = 4;
	s.v[PC_XMIT_DATA] = 1ull << 40;
	s.width[PC_XMIT_DATA] = 64;
	assert_int_equal(pm_count(&p, &s, 1, 1),
			 1u << PC_LOCAL_LINK_INTEGRITY_ERRORS);
	s.v[PC_SYMBOL_ERRORS] = 40000; /* past half of 65535 */
	assert_int_equal(pm_count(&p, &s, 2, 2),
			 1u << PC_SYMBOL_ERRORS |
			     1u << PC_LOCAL_LINK_INTEGRITY_ERRORS);
	assert_int_equal(p.s.total[PC_SYMBOL_ERRORS], 40000);
	/* the clear's answer: counting restarts from its values, nothing lost
	 * or counted twice */
	pm_cleared(&p, &after, 1u << PC_SYMBOL_ERRORS);
	s.v[PC_SYMBOL_ERRORS] = 12;
	pm_count(&p, &s, 3, 3);
	assert_int_equal(p.s.total[PC_SYMBOL_ERRORS], 40010);
}

static void test_width_change(void **state)
{
	struct pm_port p = {0};
	struct perf_sample s = reading(PC_XMIT_DATA, 32, 5000);

	(void)state;
	pm_count(&p, &s, 1, 1);
	/* PortCountersExtended became known: another counter, no growth */
	s = reading(PC_XMIT_DATA, 64, 900000);
	pm_count(&p, &s, 2, 2);
	assert_int_equal(p.s.total[PC_XMIT_DATA], 5000);
	s.v[PC_XMIT_DATA] = 900100;
	pm_count(&p, &s, 3, 3);
	assert_int_equal(p.s.total[PC_XMIT_DATA], 5100);
}

/* A restart keeps struct pm_saved (port_counters.state) only: what grew
 * while ibsmd was down is counted once, the interval comes from the
 * wall clock. */
static void test_restart(void **state)
{
	struct pm_port p = {0}, q = {0};
	struct perf_sample s = reading(PC_RCV_ERRORS, 16, 10);

	(void)state;
	pm_count(&p, &s, 5000000, 1000);
	s.v[PC_RCV_ERRORS] = 25;
	pm_count(&p, &s, 6000000, 1001);
	q.s = p.s;
	s.v[PC_RCV_ERRORS] = 31;
	pm_count(&q, &s, 10, 1061);
	assert_int_equal(q.s.total[PC_RCV_ERRORS], 31);
	assert_int_equal(q.prev[PC_RCV_ERRORS], 25);
	assert_true(q.interval_s == 60);
}

static void test_table(void **state)
{
	struct perf pf = {0};

	(void)state;
	for (uint32_t i = 0; i < 5000; i++) {
		struct pm_port *p = pm_port_get(&pf, 0x1000 + i / 36, i % 36);

		assert_non_null(p);
		p->s.total[0] = i;
	}
	for (uint32_t i = 0; i < 5000; i++) {
		const struct pm_port *p =
		    pm_port_find(&pf, 0x1000 + i / 36, i % 36);

		assert_non_null(p);
		assert_int_equal(p->s.total[0], i);
		assert_int_equal(p->s.guid, 0x1000 + i / 36);
		assert_int_equal(p->s.port, i % 36);
	}
	assert_null(pm_port_find(&pf, 0x9999, 1));
	assert_ptr_equal(pm_port_get(&pf, 0x1000, 0),
			 pm_port_find(&pf, 0x1000, 0));
	assert_int_equal(pf.n_ports, 5000);
	pm_table_free(&pf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_totals),
	    cmocka_unit_test(test_clear_before_saturation),
	    cmocka_unit_test(test_width_change),
	    cmocka_unit_test(test_restart),
	    cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

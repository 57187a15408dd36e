/* ibsmroute's planner order (mc_events_interleave): groups of the same
 * member switches take turns, file order within a shape, each event ranked
 * by its own count among its shape (not another event's: the file's line
 * numbers skip comments, so a table keyed by line is not one keyed by
 * event).  A file with deletes keeps its order.  The tool's source is
 * compiled in directly (tools are programs, not an archive). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_mcast_fab.h"
#include "tools/ibsmroute/mcast_order.c"

#define NH 6 /* 3 leaves of 2 hosts */

struct order {
	struct fabric f;
	struct ib_port *hosts[NH];
	struct ib_port *ports[64];
	struct mc_event ev[16];
	struct mc_events e;
};

static void order_init(struct order *o)
{
	memset(o, 0, sizeof(*o));
	fabric_init(&o->f);
	fab_fat2(&o->f, 3, 2, 1, o->hosts);
	o->e.ev = o->ev;
	o->e.ports = o->ports;
}

/* Appends an event at file line `line` whose members are the hosts of the
 * leaves in the bit mask `leaves`. */
static void order_add(struct order *o, char op, uint32_t line, unsigned leaves)
{
	struct mc_event *ev = &o->e.ev[o->e.n];

	memset(ev, 0, sizeof(*ev));
	ev->op = op;
	ev->line = line;
	ev->seq = o->e.n++;
	ev->first = (uint32_t)o->e.nports;
	for (unsigned l = 0; l < 3; l++)
		if (leaves & (1u << l))
			for (unsigned h = 0; h < 2; h++, ev->n++)
				o->e.ports[o->e.nports++] = o->hosts[l * 2 + h];
}

static void order_expect(const struct order *o, const uint32_t *seq,
			 const uint32_t *line)
{
	for (uint32_t i = 0; i < o->e.n; i++) {
		assert_int_equal(o->e.ev[i].seq, seq[i]);
		assert_int_equal(o->e.ev[i].line, line[i]);
	}
}

/* Shapes A (leaves 0+1) x3, B (leaf 2) x2, C (leaf 0) x1, after two
 * comment lines and with a blank line between: lines are not seq + 1. */
static void test_interleave_turns(void **state)
{
	struct order o;
	const uint32_t want_seq[] = {0, 3, 5, 1, 4, 2};
	const uint32_t want_line[] = {3, 7, 9, 4, 8, 5};

	(void)state;
	order_init(&o);
	order_add(&o, '+', 3, 0x3); /* seq 0: A, rank 0 */
	order_add(&o, '+', 4, 0x3); /* seq 1: A, rank 1 */
	order_add(&o, '+', 5, 0x3); /* seq 2: A, rank 2 */
	order_add(&o, '+', 7, 0x4); /* seq 3: B, rank 0 */
	order_add(&o, '+', 8, 0x4); /* seq 4: B, rank 1 */
	order_add(&o, '+', 9, 0x1); /* seq 5: C, rank 0 */
	assert_int_equal(mc_events_interleave(&o.e), 0);
	order_expect(&o, want_seq, want_line);
	fabric_free(&o.f);
}

/* One event per line from line 1: still each event's own rank. */
static void test_interleave_dense(void **state)
{
	struct order o;
	const uint32_t want_seq[] = {0, 2, 1, 3, 4};
	const uint32_t want_line[] = {1, 3, 2, 4, 5};

	(void)state;
	order_init(&o);
	order_add(&o, '+', 1, 0x1); /* seq 0: rank 0 */
	order_add(&o, '+', 2, 0x1); /* seq 1: rank 1 */
	order_add(&o, '+', 3, 0x2); /* seq 2: rank 0 */
	order_add(&o, '+', 4, 0x2); /* seq 3: rank 1 */
	order_add(&o, '+', 5, 0x1); /* seq 4: rank 2 */
	assert_int_equal(mc_events_interleave(&o.e), 0);
	order_expect(&o, want_seq, want_line);
	fabric_free(&o.f);
}

/* A delete anywhere: the events keep the order they mean. */
static void test_interleave_deletes_keep_order(void **state)
{
	struct order o;
	const uint32_t want_seq[] = {0, 1, 2, 3};
	const uint32_t want_line[] = {1, 2, 3, 4};

	(void)state;
	order_init(&o);
	order_add(&o, '+', 1, 0x1);
	order_add(&o, '+', 2, 0x1);
	order_add(&o, '-', 3, 0x1);
	order_add(&o, '+', 4, 0x2);
	assert_int_equal(mc_events_interleave(&o.e), 0);
	order_expect(&o, want_seq, want_line);
	fabric_free(&o.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_interleave_turns),
	    cmocka_unit_test(test_interleave_dense),
	    cmocka_unit_test(test_interleave_deletes_keep_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

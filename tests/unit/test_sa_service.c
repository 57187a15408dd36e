/* ServiceRecord database: register, update, query, delete, leases (with
 * the SA's clock replaced by the fixture's), component requirements. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "sa_fixture.h"
#include "mad/sa_service.h"

#define CM(c) (1ull << (c))
#define KEY   (CM(SA_SR_ID) | CM(SA_SR_GID))

static struct sa_service_rec svc(uint64_t id, uint64_t port_guid,
				 uint32_t lease, const char *name)
{
	struct sa_service_rec r = {.id = id, .lease = lease};

	sa_put64(r.gid, 0xfe80000000000000ull);
	sa_put64(r.gid + 8, port_guid);
	snprintf((char *)r.name, sizeof(r.name), "%s", name);
	return r;
}

static void test_register_query_delete(void **state)
{
	struct fx *x = *state;
	struct sa_service_rec a = svc(0x10, 0x100001, 10, "alpha"),
			      b = svc(0x20, 0x100004, SA_SR_LEASE_INFINITE,
				      "beta"),
			      r = {0};

	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC,
				KEY | CM(SA_SR_LEASE) | CM(SA_SR_NAME),
				&sa_service_rec_desc, &a),
			 0);
	fx_rec(x, &sa_service_rec_desc, 0, &r);
	assert_int_equal(r.lease, 10);
	assert_int_equal(r.pkey, 0xFFFF); /* default partition when absent */
	x->from_lid = 4; /* b is Hca2's: registered from its port */
	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC,
				KEY | CM(SA_SR_NAME), &sa_service_rec_desc, &b),
			 0);
	x->from_lid = 0;
	/* re-registering the same key updates, it does not duplicate */
	snprintf((char *)a.name, 64, "alpha2");
	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC,
				KEY | CM(SA_SR_LEASE) | CM(SA_SR_NAME),
				&sa_service_rec_desc, &a),
			 0);
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_REC, 0, NULL, NULL),
	    0);
	assert_int_equal(x->out.records, 2);
	/* query by name */
	memset(&r, 0, sizeof(r));
	snprintf((char *)r.name, 64, "alpha2");
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_SERVICE_REC,
				CM(SA_SR_NAME), &sa_service_rec_desc, &r),
			 0);
	fx_rec(x, &sa_service_rec_desc, 0, &r);
	assert_true(r.id == 0x10);
	/* the lease counts down, then the record is gone */
	x->now += 4000;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_SERVICE_REC,
				CM(SA_SR_ID), &sa_service_rec_desc, &a),
			 0);
	fx_rec(x, &sa_service_rec_desc, 0, &r);
	assert_int_equal(r.lease, 6);
	x->now += 6001;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_SERVICE_REC,
				CM(SA_SR_ID), &sa_service_rec_desc, &a),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	x->now += 1000000;
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_REC, 0, NULL, NULL),
	    0);
	assert_int_equal(x->out.records, 1); /* beta: infinite lease */
	/* delete answers the deleted record; a second delete finds none */
	x->from_lid = 4;
	assert_int_equal(fx_ask(x, SA_METHOD_DELETE, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &b),
			 0);
	assert_int_equal(x->out.buf[3], SA_METHOD_DELETE_RESP);
	fx_rec(x, &sa_service_rec_desc, 0, &r);
	assert_string_equal((char *)r.name, "beta");
	assert_int_equal(fx_ask(x, SA_METHOD_DELETE, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &b),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
}

static void test_set_errors(void **state)
{
	struct fx *x = *state;
	struct sa_service_rec a = svc(0x10, 0x100001, 10, "alpha");

	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC,
				CM(SA_SR_ID), &sa_service_rec_desc, &a),
			 SA_MAD_STATUS(SA_STATUS_INSUF_COMPS));
	assert_int_equal(fx_ask(x, SA_METHOD_DELETE, SA_ATTR_SERVICE_REC,
				CM(SA_SR_GID), &sa_service_rec_desc, &a),
			 SA_MAD_STATUS(SA_STATUS_INSUF_COMPS));
	a = svc(0x10, 0xdead, 10, "nowhere");
	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &a),
			 SA_MAD_STATUS(SA_STATUS_INVALID_GID));
	/* the database is bounded */
	for (int i = 0; i < 4096; i++) {
		a = svc(0x1000 + (uint64_t)i, 0x100001, 100, "many");
		assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC,
					KEY, &sa_service_rec_desc, &a),
				 0);
	}
	a = svc(0x99999, 0x100001, 100, "one too many");
	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &a),
			 SA_MAD_STATUS(SA_STATUS_NO_RESOURCES));
}

/* The lease the SA grants r (its answer), or -1 if the Set failed. */
static long granted(struct fx *x, struct sa_service_rec *r)
{
	struct sa_service_rec a = {0};

	if (fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC, KEY | CM(SA_SR_LEASE),
		   &sa_service_rec_desc, r) != 0)
		return -1;
	fx_rec(x, &sa_service_rec_desc, 0, &a);
	return a.lease;
}

/* sa.service_lease_max_s: longer leases, infinite ones included, are
 * cut to it, and the answer says what was granted; shorter ones stand;
 * the record expires with the granted lease. */
static void test_lease_max(void **state)
{
	struct fx *x = *state;
	struct sa_service_rec a = svc(0x10, 0x100001, SA_SR_LEASE_INFINITE,
				      "forever"),
			      b = svc(0x20, 0x100001, 600, "long"),
			      c = svc(0x30, 0x100001, 20, "short");

	x->sa.lease_max_s = 60;
	assert_int_equal(granted(x, &a), 60);
	assert_int_equal(granted(x, &b), 60);
	assert_int_equal(granted(x, &c), 20);
	/* 61 s later every record is gone */
	x->now += 61000;
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_REC, 0, NULL, NULL),
	    0);
	assert_int_equal(x->out.records, 0);
}

/* Only the port itself, or a requester carrying the SM_Key (the
 * fixture's SM has 0x1234), sets or deletes a port's ServiceRecord; an
 * SM_Key that is neither 0 nor the SM's is dropped (C15-0.1.5). */
static void test_own_records(void **state)
{
	struct fx *x = *state;
	struct sa_service_rec b = svc(0x20, 0x100004, 100, "beta");

	/* from LID 2 (Hca1) for Hca2's port */
	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &b),
			 SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	assert_int_equal(x->sa.stats.untrusted, 1);
	x->sm_key = 0x9999;
	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &b),
			 -1);
	assert_int_equal(x->sa.stats.bad_sm_key, 1);
	x->sm_key = 0x1234; /* trusted */
	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &b),
			 0);
	x->sm_key = 0;
	assert_int_equal(fx_ask(x, SA_METHOD_DELETE, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &b),
			 SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	x->from_lid = 4; /* Hca2 itself */
	assert_int_equal(fx_ask(x, SA_METHOD_DELETE, SA_ATTR_SERVICE_REC, KEY,
				&sa_service_rec_desc, &b),
			 0);
	/* reading is for everyone */
	x->from_lid = 2;
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_REC, 0, NULL, NULL),
	    0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)
int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_own_records),
	    T(test_register_query_delete),
	    T(test_set_errors),
	    T(test_lease_max),
	};
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

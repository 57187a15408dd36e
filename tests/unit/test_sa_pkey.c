/* Partitions in the SA, on the fixture fabric (sa_fixture.h) with a plan:
 * partition a (0x10) = Hca1, Hca2; b (0x11) = Hca3, Hca4 full, Hca5
 * limited; every port limited in the default partition, the SM's port
 * (Switch1 port 0, LID 1) full.  Every ordered pair of end ports is asked
 * for a PathRecord by its source and the answers compared with the
 * membership written out below (not computed by the code under test):
 * zero answers across partitions.  MCMemberRecord and ServiceRecord
 * answers are filtered by the requester's partitions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "sa_fixture.h"
#include "daemon/sa/sa_mcm.h"
#include "lib/config.h"
#include "lib/pkeys.h"
#include "mad/sa_mcm.h"
#include "mad/sa_multipath.h"
#include "mad/sa_path.h"
#include "mad/sa_service.h"

#define CM(c) (1ull << (c))

static struct config cfg;
static struct pkey_plan plan;

/* LIDs of the fixture: 1 Switch1, 2 Hca1, 3 Switch2, 4 Hca2, 5 Hca3,
 * 6 Hca4, 7 Switch3, 8 Hca5.  The expected membership, by hand:
 * P_Key of partition per LID, 0 none, bit 15 full. */
static uint16_t member(uint16_t lid, uint16_t base)
{
	if (base == 0x7fff)
		return lid == 1 ? 0xffff : 0x7fff;
	if (base == 0x10)
		return lid == 2 || lid == 4 ? 0x8010 : 0;
	if (base == 0x11)
		return lid == 5 || lid == 6 ? 0x8011 : lid == 8 ? 0x0011 : 0;
	return 0;
}

/* The lowest partition both hold with one full member, as the source's
 * entry; 0 if none. */
static uint16_t want_pkey(uint16_t s, uint16_t d)
{
	static const uint16_t bases[] = {0x10, 0x11, 0x7fff};

	for (unsigned i = 0; i < 3; i++) {
		uint16_t a = member(s, bases[i]), b = member(d, bases[i]);
		if (a && b && ((a | b) & 0x8000))
			return a;
	}
	return 0;
}

static int setup(void **state)
{
	char err[512];

	fx_setup(state);
	assert_int_equal(config_defaults(&cfg), 0);
	if (config_override(&cfg,
			    "partitions=[{name: a, pkey: 0x10, members: "
			    "[Hca1, Hca2]}, {name: b, pkey: 0x11, members: "
			    "[Hca3, 0x100009], limited: Hca5}]",
			    err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(pkey_plan_build(&plan, &((struct fx *)*state)->f,
					 &cfg.partitions, false),
			 0);
	((struct fx *)*state)->sa.pkeys = &plan;
	return 0;
}

static int teardown(void **state)
{
	pkey_plan_free(&plan);
	config_free(&cfg);
	return fx_teardown(state);
}

/* A request from the port with LID from; the answer's MAD status. */
static int ask_from(struct fx *x, uint16_t from, uint8_t method, uint16_t attr,
		    uint64_t mask, const struct sa_rec_desc *d, const void *rec)
{
	uint8_t mad[SA_MAD_SIZE];
	struct sa_peer p = {.lid = from};

	fx_req(mad, method, attr, mask, d, rec);
	if (sa_handle(&x->sa, &p, mad, sizeof(mad), &x->out) < 0)
		return -1;
	return sa_get16(x->out.buf + 4);
}

/* Every ordered pair, asked by its source. */
static void test_every_pair(void **state)
{
	struct fx *x = *state;
	unsigned answered = 0, refused = 0;

	for (uint16_t s = 1; s <= 8; s++)
		for (uint16_t d = 1; d <= 8; d++) {
			struct sa_path_rec q = {.slid = s, .dlid = d}, r = {0};
			int st = ask_from(x, s, SA_METHOD_GET, SA_ATTR_PATH_REC,
					  CM(SA_PR_SLID) | CM(SA_PR_DLID),
					  &sa_path_rec_desc, &q);
			uint16_t want = want_pkey(s, d);

			if (!want) {
				if (st != SA_MAD_STATUS(SA_STATUS_NO_RECORDS))
					fail_msg("%u -> %u share no partition "
						 "but got status 0x%x",
						 s, d, st);
				refused++;
				continue;
			}
			assert_int_equal(st, 0);
			fx_rec(x, &sa_path_rec_desc, 0, &r);
			if (r.pkey != want)
				fail_msg("%u -> %u: P_Key 0x%04x, want 0x%04x",
					 s, d, r.pkey, want);
			answered++;
		}
	/* the fixture has both kinds, or the test proves nothing */
	assert_true(answered >= 20 && refused >= 20);
}

/* The world table asked by Hca1 holds only pairs it may know of. */
static void test_world_filtered(void **state)
{
	struct fx *x = *state;

	/* fx_ask asks from Hca1 */
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_PATH_REC, 0, NULL, NULL), 0);
	for (uint32_t i = 0; i < x->out.records; i++) {
		struct sa_path_rec r = {0};
		fx_rec(x, &sa_path_rec_desc, i, &r);
		/* Hca1 (LID 2) shares a: with 2 and 4 only, and the
		 * default partition only with the SM (LID 1) */
		assert_true(want_pkey(2, r.slid) && want_pkey(2, r.dlid));
		assert_int_equal(r.pkey, want_pkey(r.slid, r.dlid));
	}
	assert_int_equal(x->out.records, 9); /* {1, 2, 4} x {1, 2, 4} */
}

/* A P_Key named in the request: answered only if both ends share it,
 * and only to a requester sharing a partition with both ends. */
static void test_given_pkey(void **state)
{
	struct fx *x = *state;
	struct sa_path_rec q = {.slid = 5, .dlid = 8, .pkey = 0x8011}, r = {0};
	uint64_t m = CM(SA_PR_SLID) | CM(SA_PR_DLID) | CM(SA_PR_PKEY);

	assert_int_equal(ask_from(x, 5, SA_METHOD_GET, SA_ATTR_PATH_REC, m,
				  &sa_path_rec_desc, &q),
			 0);
	fx_rec(x, &sa_path_rec_desc, 0, &r);
	assert_int_equal(r.pkey, 0x8011);
	q.pkey = 0x8010;
	assert_int_equal(ask_from(x, 5, SA_METHOD_GET, SA_ATTR_PATH_REC, m,
				  &sa_path_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	q.pkey = 0xffff; /* both limited in the default partition */
	assert_int_equal(ask_from(x, 5, SA_METHOD_GET, SA_ATTR_PATH_REC, m,
				  &sa_path_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	/* Hca1 may not learn of partition b's paths; the SM may */
	q.pkey = 0x8011;
	assert_int_equal(ask_from(x, 2, SA_METHOD_GET, SA_ATTR_PATH_REC, m,
				  &sa_path_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	assert_int_equal(ask_from(x, 1, SA_METHOD_GET, SA_ATTR_PATH_REC, m,
				  &sa_path_rec_desc, &q),
			 0);
}

/* Groups are seen by ports of their partition only. */
static void test_mcmember_filtered(void **state)
{
	struct fx *x = *state;
	struct sa_mcm_rec g = {.qkey = 1, .pkey = 0x8011, .mtu = 4, .rate = 3};
	uint8_t gid[16] = {0xfe, 0x80};

	g.mgid[0] = 0xff;
	g.mgid[1] = 0x12;
	g.mgid[15] = 0x42;
	assert_non_null(sa_mcg_add(&x->sa, &g));
	sa_put64(gid + 8, 0x100007);
	assert_int_equal(
	    sa_mcg_member_set(sa_mcg_find(&x->sa, g.mgid), gid, 1, 0), 0);
	/* Hca1: the broadcast group (default partition) only */
	assert_int_equal(ask_from(x, 2, SA_METHOD_GET_TABLE,
				  SA_ATTR_MCMEMBER_REC, 0, NULL, NULL),
			 0);
	assert_int_equal(x->out.records, 1);
	/* Hca3: both */
	assert_int_equal(ask_from(x, 5, SA_METHOD_GET_TABLE,
				  SA_ATTR_MCMEMBER_REC, 0, NULL, NULL),
			 0);
	assert_int_equal(x->out.records, 2);
	assert_int_equal(ask_from(x, 2, SA_METHOD_GET_TABLE,
				  SA_ATTR_MCGSTATE_REC, 0, NULL, NULL),
			 0);
	assert_int_equal(x->out.records, 1);
}

/* ServiceRecords: registered only in a partition the requester and the
 * service's port hold; seen only by ports holding its P_Key. */
static void test_service(void **state)
{
	struct fx *x = *state;
	struct sa_service_rec s = {.id = 7, .pkey = 0x8010};
	uint64_t m = CM(SA_SR_ID) | CM(SA_SR_GID) | CM(SA_SR_PKEY);

	sa_put64(s.gid, 0xfe80000000000000ull);
	sa_put64(s.gid + 8, 0x100001); /* Hca1 */
	assert_int_equal(ask_from(x, 5, SA_METHOD_SET, SA_ATTR_SERVICE_REC, m,
				  &sa_service_rec_desc, &s),
			 SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	assert_int_equal(ask_from(x, 2, SA_METHOD_SET, SA_ATTR_SERVICE_REC, m,
				  &sa_service_rec_desc, &s),
			 0);
	sa_put64(s.gid + 8, 0x100007); /* Hca3 does not hold 0x10 */
	assert_int_equal(ask_from(x, 2, SA_METHOD_SET, SA_ATTR_SERVICE_REC, m,
				  &sa_service_rec_desc, &s),
			 SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	assert_int_equal(ask_from(x, 4, SA_METHOD_GET_TABLE,
				  SA_ATTR_SERVICE_REC, 0, NULL, NULL),
			 0);
	assert_int_equal(x->out.records, 1);
	assert_int_equal(ask_from(x, 5, SA_METHOD_GET_TABLE,
				  SA_ATTR_SERVICE_REC, 0, NULL, NULL),
			 0);
	assert_int_equal(x->out.records, 0);
}

/* A MultiPathRecord GetMulti from LID from: sources then destinations by
 * port GUID; the answer's MAD status. */
static int ask_multi(struct fx *x, uint16_t from, uint64_t mask,
		     const uint64_t *src, unsigned ns, const uint64_t *dst,
		     unsigned nd, uint8_t numb_path)
{
	struct sa_multipath_rec m = {.sgid_count = (uint8_t)ns,
				     .dgid_count = (uint8_t)nd,
				     .numb_path = numb_path};
	uint8_t mad[SA_MAD_SIZE], *g = mad + SA_HDR_SIZE + SA_MPR_HEAD;
	struct sa_peer p = {.lid = from};

	fx_req(mad, SA_METHOD_GET_MULTI, SA_ATTR_MULTIPATH_REC, mask,
	       &sa_multipath_rec_desc, &m);
	for (unsigned i = 0; i < ns + nd; i++, g += 16) {
		sa_put64(g, 0xfe80000000000000ull);
		sa_put64(g + 8, i < ns ? src[i] : dst[i - ns]);
	}
	if (sa_handle(&x->sa, &p, mad, sizeof(mad), &x->out) < 0)
		return -1;
	return sa_get16(x->out.buf + 4);
}

/* MultiPathRecord: PathRecords of the pairs that share a partition, in
 * a GetMultiResp; the same checks as OpenSM's. */
static void test_multipath(void **state)
{
	struct fx *x = *state;
	const uint64_t counts = CM(SA_MPR_SGID_COUNT) | CM(SA_MPR_DGID_COUNT);
	/* port GUIDs: Hca1 .. Hca5 (LIDs 2, 4, 5, 6, 8) */
	const uint64_t h1 = 0x100001, h2 = 0x100004, h3 = 0x100007,
		       h4 = 0x10000a, h5 = 0x10000d;
	struct sa_path_rec r = {0};

	/* Hca1 to three hosts: only Hca2 shares a partition with it */
	assert_int_equal(ask_multi(x, 2, counts, &h1, 1,
				   (const uint64_t[]){h2, h3, h5}, 3, 0),
			 0);
	assert_int_equal(x->out.records, 1);
	assert_int_equal(sa_get16(x->out.buf + 16), SA_ATTR_PATH_REC);
	assert_int_equal(x->out.buf[3], SA_METHOD_GET_MULTI_RESP);
	fx_rec(x, &sa_path_rec_desc, 0, &r);
	assert_int_equal(r.dlid, 4);
	assert_int_equal(r.pkey, 0x8010);
	/* the SM asks for blue's pairs: Hca3 -> Hca4, Hca5; not -> Hca1 */
	assert_int_equal(ask_multi(x, 1, counts, &h3, 1,
				   (const uint64_t[]){h4, h5, h1}, 3, 0),
			 0);
	assert_int_equal(x->out.records, 2);
	for (uint32_t i = 0; i < 2; i++) {
		fx_rec(x, &sa_path_rec_desc, i, &r);
		assert_int_equal(r.slid, 5);
		assert_int_equal(r.pkey, 0x8011);
	}
	/* Hca1 may not learn of them */
	assert_int_equal(
	    ask_multi(x, 2, counts, &h3, 1, (const uint64_t[]){h4, h5}, 2, 0),
	    0);
	assert_int_equal(x->out.records, 0);
	/* NumbPath caps the answer */
	assert_int_equal(ask_multi(x, 1, counts | CM(SA_MPR_NUMBPATH), &h3, 1,
				   (const uint64_t[]){h4, h5}, 2, 1),
			 0);
	assert_int_equal(x->out.records, 1);
	/* the counts are required; a GID of no port is refused */
	assert_int_equal(
	    ask_multi(x, 2, CM(SA_MPR_SGID_COUNT), &h1, 1, &h2, 1, 0),
	    SA_MAD_STATUS(SA_STATUS_INSUF_COMPS));
	assert_int_equal(
	    ask_multi(x, 2, counts, &h1, 1, (const uint64_t[]){0x999999}, 1, 0),
	    SA_MAD_STATUS(SA_STATUS_INVALID_GID));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_every_pair, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_world_filtered, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_given_pkey, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mcmember_filtered, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_service, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_multipath, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

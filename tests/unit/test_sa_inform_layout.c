/* InformInfo, InformInfoRecord and Notice laid out byte for byte as
 * OpenSM's own header lays them out (iba/ib_types.h, an implementation we
 * did not write); it is kept apart from the SA tests because its macros
 * clash with the fabric model's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <iba/ib_types.h>

#include "mad/sa_inform.h"

static struct sa_inform_info sample_info(void)
{
	struct sa_inform_info ii = {.lid_begin = 0x1234,
				    .lid_end = 0x5678,
				    .is_generic = 1,
				    .subscribe = 1,
				    .type = 4,
				    .trap_num = 64,
				    .qpn = 0xABCDEF,
				    .resp_time = 19,
				    .producer = 0x123456};

	for (int i = 0; i < 16; i++)
		ii.gid[i] = (uint8_t)(0xA0 + i);
	return ii;
}

static void fill_ib(ib_inform_info_t *ib, const struct sa_inform_info *ii)
{
	memcpy(ib->gid.raw, ii->gid, 16);
	ib->lid_range_begin = cl_hton16(ii->lid_begin);
	ib->lid_range_end = cl_hton16(ii->lid_end);
	ib->is_generic = ii->is_generic;
	ib->subscribe = ii->subscribe;
	ib->trap_type = cl_hton16(ii->type);
	ib->g_or_v.generic.trap_num = cl_hton16(ii->trap_num);
	ib->g_or_v.generic.qpn_resp_time_val =
	    cl_hton32(ii->qpn << 8 | ii->resp_time);
	ib->g_or_v.generic.node_type_msb = (uint8_t)(ii->producer >> 16);
	ib->g_or_v.generic.node_type_lsb = cl_hton16(ii->producer & 0xFFFF);
}

static void test_layouts(void **state)
{
	struct sa_inform_info ii = sample_info(), back = {0};
	struct sa_inform_rec r = {.enumeration = 0x0102, .info = ii},
			     rback = {0};
	struct sa_notice n = {.is_generic = 1,
			      .type = 4,
			      .producer = 4,
			      .trap_num = 66,
			      .issuer_lid = 0x0009,
			      .notice_toggle = 1,
			      .notice_count = 0x1234},
			 nback = {0};
	ib_inform_info_t ib = {0};
	ib_inform_info_record_t ibr = {0};
	ib_mad_notice_attr_t ibn = {0};
	uint8_t w[96];

	(void)state;
	assert_int_equal(sizeof(ib), sa_inform_info_desc.size);
	assert_int_equal(sizeof(ibr), sa_rec_stride(&sa_inform_rec_desc));
	assert_int_equal(sizeof(ibn), sa_notice_desc.size);
	fill_ib(&ib, &ii);
	memset(w, 0, sizeof(w));
	assert_int_equal(sa_rec_encode(&sa_inform_info_desc, &ii, w), 0);
	assert_memory_equal(w, &ib, sizeof(ib));
	sa_rec_decode(&sa_inform_info_desc, w, sizeof(ib), &back);
	assert_memory_equal(&back, &ii, sizeof(ii));

	for (int i = 0; i < 16; i++)
		r.subscriber_gid[i] = (uint8_t)i;
	memcpy(ibr.subscriber_gid.raw, r.subscriber_gid, 16);
	ibr.subscriber_enum = cl_hton16(r.enumeration);
	ibr.inform_info = ib;
	memset(w, 0, sizeof(w));
	assert_int_equal(sa_rec_encode(&sa_inform_rec_desc, &r, w), 0);
	assert_memory_equal(w, &ibr, sizeof(ibr));
	sa_rec_decode(&sa_inform_rec_desc, w, sizeof(ibr), &rback);
	assert_memory_equal(&rback, &r, sizeof(r));

	for (int i = 0; i < 16; i++) {
		n.details[6 + i] = (uint8_t)(0xF0 + i); /* the GID of 64-67 */
		n.issuer_gid[i] = (uint8_t)(0x10 + i);
	}
	ibn.generic_type = 0x80 | 4; /* IsGeneric, Type */
	ibn.g_or_v.generic.prod_type_lsb = cl_hton16(4);
	ibn.g_or_v.generic.trap_num = cl_hton16(66);
	ibn.issuer_lid = cl_hton16(9);
	ibn.toggle_count = cl_hton16(0x8000 | 0x1234);
	memcpy(ibn.data_details.ntc_64_67.gid.raw, n.details + 6, 16);
	memcpy(ibn.issuer_gid.raw, n.issuer_gid, 16);
	memset(w, 0, sizeof(w));
	assert_int_equal(sa_rec_encode(&sa_notice_desc, &n, w), 0);
	assert_memory_equal(w, &ibn, sizeof(ibn));
	sa_rec_decode(&sa_notice_desc, w, sizeof(ibn), &nback);
	assert_memory_equal(&nback, &n, sizeof(n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

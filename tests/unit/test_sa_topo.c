/* The SA on a fabric read from a topology file and routed by the daemon's
 * own code (tests/data/ft2-small.net: 24 hosts, 10 switches).  Whole
 * tables are checked record by record here, below the transport, because
 * ibsim has no RMPP and cuts every table answer to its first MAD: a client
 * there sees 3 PathRecords of the 1,156 checked below. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <string.h>
#include <unistd.h>

#include "sa_topo.h"
#include "daemon/sa/sa_server.h"
#include "mad/sa_link.h"
#include "mad/sa_mad.h"
#include "mad/sa_node.h"
#include "mad/sa_path.h"

#define NET "tests/data/ft2-small.net"

struct tx {
	struct fabric f;
	struct sa sa;
	struct sa_out out;
};

static int setup(void **state)
{
	static struct tx x;

	if (access(NET, R_OK)) {
		fprintf(stderr, "%s missing (run from the source tree)\n", NET);
		return -1;
	}
	memset(&x, 0, sizeof(x));
	if (sa_topo_build(&x.f, NET))
		return -1;
	if (sa_init(&x.sa, &x.f, NULL))
		return -1;
	*state = &x;
	return 0;
}

static int teardown(void **state)
{
	struct tx *x = *state;

	sa_free(&x->sa);
	sa_out_free(&x->out);
	fabric_free(&x->f);
	return 0;
}

static void ask_table(struct tx *x, uint16_t attr)
{
	uint8_t mad[SA_MAD_SIZE] = {0};
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = 3,
			   .class_version = 2,
			   .method = SA_METHOD_GET_TABLE,
			   .attr_id = attr};
	struct sa_peer from = {.lid = 1};

	sa_hdr_encode(&h, mad);
	assert_int_equal(sa_handle(&x->sa, &from, mad, sizeof(mad), &x->out),
			 0);
	assert_int_equal(sa_get16(x->out.buf + 4), 0);
}

/* The test's own walk of the LFTs: hops from src to the port owning dlid,
 * -1 if the route breaks. */
static int walk(const struct ib_port *src, uint16_t dlid,
		const struct fabric *f)
{
	const struct ib_port *dst = fabric_port_by_lid(f, dlid);
	const struct ib_node *n = src->node;
	int hops = 0;

	if (src == dst)
		return 0;
	if (!node_is_switch(n))
		n = src->remote ? src->remote->node : NULL, hops = 1;
	while (n && hops < 64) {
		uint8_t out;

		if (dst->node == n)
			return hops;
		if (!node_is_switch(n) || dlid >= n->lft_size)
			return -1;
		out = n->lft[dlid];
		if (!out || out > n->nports || !n->ports[out].remote)
			return -1;
		n = n->ports[out].remote->node;
		hops++;
	}
	return -1;
}

static void test_path_world(void **state)
{
	struct tx *x = *state;
	uint32_t ends = fabric_count_hosts(&x->f) + x->f.n_switches;
	static bool seen[64][64];
	size_t stride = sa_rec_stride(&sa_path_rec_desc);

	ask_table(x, SA_ATTR_PATH_REC);
	assert_int_equal(ends, 34);
	assert_int_equal(x->out.records, ends * ends);
	assert_int_equal(x->out.len, SA_HDR_SIZE + ends * ends * stride);
	memset(seen, 0, sizeof(seen));
	for (uint32_t i = 0; i < x->out.records; i++) {
		struct sa_path_rec r;
		const struct ib_port *s;

		memset(&r, 0, sizeof(r));
		sa_rec_decode(&sa_path_rec_desc,
			      x->out.buf + SA_HDR_SIZE + i * stride, stride,
			      &r);
		assert_true(r.slid && r.slid < 64 && r.dlid && r.dlid < 64);
		assert_false(seen[r.slid][r.dlid]);
		seen[r.slid][r.dlid] = true;
		s = fabric_port_by_lid(&x->f, r.slid);
		assert_non_null(s);
		/* every answered path exists in the LFTs as programmed */
		assert_true(walk(s, r.dlid, &x->f) >= 0);
		assert_int_equal(r.mtu, 4);
		assert_int_equal(r.rate, 3);
		assert_int_equal(r.life, r.slid == r.dlid ? 0 : 18);
		assert_true(sa_get64(r.sgid + 8) ==
			    node_port(s->node, s->num)->guid);
	}
}

static void test_node_and_link_tables(void **state)
{
	struct tx *x = *state;
	size_t stride = sa_rec_stride(&sa_node_rec_desc);
	uint64_t prev = 0;

	ask_table(x, SA_ATTR_NODE_REC);
	assert_int_equal(x->out.records, x->f.n_nodes);
	for (uint32_t i = 0; i < x->out.records; i++) {
		struct sa_node_rec r;
		struct ib_node *n;

		sa_rec_decode(&sa_node_rec_desc,
			      x->out.buf + SA_HDR_SIZE + i * stride, stride,
			      &r);
		n = fabric_node_by_guid(&x->f, r.node_guid);
		assert_non_null(n);
		assert_string_equal((char *)r.desc, n->desc);
		/* OpenSM's order: byte-reversed GUIDs ascending */
		assert_true(__builtin_bswap64(r.node_guid) > prev || i == 0);
		prev = __builtin_bswap64(r.node_guid);
	}
	ask_table(x, SA_ATTR_LINK_REC);
	assert_int_equal(x->out.records, 2 * fabric_count_links(&x->f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_world),
	    cmocka_unit_test(test_node_and_link_tables),
	};
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* M_Key protection on a model (ibsim neither keeps nor checks M_Key, so
 * this is where the logic is shown to hold): ibsmd's key table
 * (daemon/program/mkey.c) against a model of the check every port's SMA makes
 * (IBA 14.2.4, as the kernel's soft SMAs qib/hfi1 implement it).  The
 * SMPs go through the real MAD engine to a transport that keeps them, and
 * each one's M_Key is judged by the model port it is routed to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/program/mkey.h"
#include "daemon/program/program.h"
#include "daemon/core/sm.h"
#include "lib/mkey.h"
#include "mad/cursor.h"
#include "mad/smp_port.h"

/* ---- the model SMA: IBA 14.2.4 ---- */

struct sma {
	uint64_t mkey;
	uint8_t protect;
};

enum verdict { PASS, PASS_HIDDEN, DROP };

/* A matching key, or a port holding 0, passes.  Otherwise a Get passes
 * below protect 2 (at 1 with PortInfo's M_Key hidden); a Set, a
 * TrapRepress and at protect 2 and 3 a Get are dropped (and trap 256). */
static enum verdict sma_check(const struct sma *p, uint8_t method, uint64_t key)
{
	if (!p->mkey || p->mkey == key)
		return PASS;
	if (method == MAD_METHOD_GET && p->protect < 2)
		return p->protect == 1 ? PASS_HIDDEN : PASS;
	return DROP;
}

/* ---- the SMPs sent ---- */

#define MAXSENT 64
static uint8_t sent[MAXSENT][MAD_SIZE];
static unsigned n_sent;

static int fake_send(void *ctx, int agent, const uint8_t *mad, size_t len,
		     const struct mad_addr *to, int timeout_ms)
{
	assert_true(n_sent < MAXSENT);
	memcpy(sent[n_sent++], mad, len);
	return 0;
}

static uint64_t last_key(void)
{
	struct smp s;

	assert_true(n_sent > 0);
	assert_int_equal(smp_decode(&s, sent[n_sent - 1], MAD_SIZE), 0);
	return s.mkey;
}

/* ---- the fabric: H0 (SM) - S0 - S1 - H1 ---- */

#define H0   0x100ull
#define S0   0x200ull
#define S1   0x300ull
#define H1   0x400ull
#define K_S1 0x5151515151515151ull /* what guid2mkey says S1 and H1 hold */
#define K_H1 0x4141414141414141ull

static char dir[] = "/tmp/ibsm-dmkey-XXXXXX";
static const uint8_t secret[16] = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60,
				   0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0,
				   0xd0, 0xe0, 0xf0, 0x01};
static struct sm sm;
/* the model a sweep is building, as the sweep hands it to sm */
static struct fabric *swept;

/* H0 port 1 - S0 port 1; S0 port 2 - S1 port 2 (when s1); S1 port 5 -
 * H1 port 1. */
static struct fabric *model(bool s1)
{
	struct fabric *f = calloc(1, sizeof(*f));
	struct ib_node *h0, *s0, *s1n, *h1;

	fabric_init(f);
	h0 = fabric_add_node(f, IB_NODE_CA, H0, 1, "H0");
	s0 = fabric_add_node(f, IB_NODE_SWITCH, S0, 8, "S0");
	fabric_set_port_guid(f, &h0->ports[1], H0 + 1);
	fabric_link(f, h0, 1, s0, 1);
	f->sm_node = h0;
	f->sm_port = 1;
	fabric_set_lid(f, &h0->ports[1], 1, 0);
	fabric_set_lid(f, &s0->ports[0], 2, 0);
	if (!s1)
		return f;
	s1n = fabric_add_node(f, IB_NODE_SWITCH, S1, 8, "S1");
	h1 = fabric_add_node(f, IB_NODE_CA, H1, 1, "H1");
	fabric_set_port_guid(f, &h1->ports[1], H1 + 1);
	fabric_link(f, s0, 2, s1n, 2);
	fabric_link(f, s1n, 5, h1, 1);
	fabric_set_lid(f, &s1n->ports[0], 3, 0);
	fabric_set_lid(f, &h1->ports[1], 4, 0);
	return f;
}

static void put(const char *name, const char *text)
{
	char p[256];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_non_null(fp = fopen(p, "w"));
	fputs(text, fp);
	fclose(fp);
}

/* A daemon restarted on this state directory. */
static void start(int mode, bool nbrs)
{
	struct txn_transport tr = {
	    .send = fake_send, .agent_smi = 1, .agent_smi_dr = 2};
	struct txn_params p;
	char cmd[300], hex[40];

	snprintf(cmd, sizeof(cmd), "rm -f %s/*", dir);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", secret[i]);
	strcat(hex, "\n");
	put("mkey.secret", hex);
	put("guid2mkey", "0x0000000000000300 0x5151515151515151\n"
			 "0x0000000000000401 0x4141414141414141\n");
	if (nbrs)
		put("neighbors", "0x0000000000000200 2 0x0000000000000300\n");
	memset(&sm, 0, sizeof(sm));
	swept = NULL;
	assert_int_equal(config_defaults(&sm.cfg), 0);
	free(sm.cfg.state_dir);
	sm.cfg.state_dir = strdup(dir);
	sm.cfg.m_key_mode = mode;
	sm.cfg.m_key_protect = 2;
	sm.cfg.m_key_lease_s = 90;
	if (mode == CFG_MKEY_FIXED)
		sm.cfg.m_key_key = 0xF1F1F1F1F1F1F1F1ull;
	sm.sm_guid = H0 + 1;
	sm.sm_lid = 1;
	txn_params_default(&p);
	assert_int_equal(txn_create_transport(&tr, &p, &sm.txn), 0);
	assert_int_equal(mkey_start(&sm), 0);
	n_sent = 0;
}

static void stop(void)
{
	mkey_stop(&sm);
	txn_destroy(sm.txn);
	if (sm.fab)
		fabric_free(sm.fab);
	if (swept)
		fabric_free(swept);
	free(sm.fab);
	free(swept);
	config_free(&sm.cfg);
}

static uint64_t key_dr(const uint8_t *path, uint8_t hops, uint16_t attr)
{
	assert_int_equal(txn_submit_dr(sm.txn, path, hops, MAD_METHOD_GET, attr,
				       0, NULL, NULL, NULL),
			 0);
	return last_key();
}

/* ---- the cases ---- */

/* A restart: the keys guid2mkey lists qualify every SMP to those ports,
 * by directed route and by LID; a port ibsmd never keyed gets the key it
 * would install (its own M_Key is 0: anything passes). */
static void test_restart_keys(void **state)
{
	static const uint8_t p_s0[] = {0, 1}, p_s1[] = {0, 1, 2},
			     p_h1[] = {0, 1, 2, 5};
	struct sma s1 = {K_S1, 2}, h1 = {K_H1, 3}, s0 = {0, 0};

	start(CFG_MKEY_PER_PORT, true);
	sm.fab = model(true);
	assert_int_equal(
	    sma_check(&s1, MAD_METHOD_GET, key_dr(p_s1, 2, SMP_ATTR_NODE_INFO)),
	    PASS);
	assert_int_equal(
	    sma_check(&h1, MAD_METHOD_GET, key_dr(p_h1, 3, SMP_ATTR_PORT_INFO)),
	    PASS);
	assert_true(key_dr(p_s0, 1, SMP_ATTR_NODE_INFO) ==
		    mkey_derive(secret, S0));
	assert_int_equal(sma_check(&s0, MAD_METHOD_SET, last_key()), PASS);
	/* LID-routed: the LID's port */
	assert_int_equal(txn_submit_lid(sm.txn, 3, MAD_METHOD_SET, SMP_ATTR_LFT,
					0, NULL, NULL, NULL),
			 0);
	assert_true(last_key() == K_S1);
	/* our own port: hop 0 */
	assert_true(key_dr(p_s0, 0, SMP_ATTR_NODE_INFO) ==
		    mkey_derive(secret, H0 + 1));
	stop();
}

/* Before discovery has seen a link (the first sweep after a restart),
 * the neighbors file names the port behind it: at protect 2 and 3 that
 * port drops a Get without its key, so without the file it is lost. */
static void test_unseen_link(void **state)
{
	static const uint8_t p_s1[] = {0, 1, 2};
	struct sma s1 = {K_S1, 2};

	start(CFG_MKEY_PER_PORT, true);
	sm.sweep_model = swept = model(false); /* discovery knows H0 and S0 only */
	assert_int_equal(
	    sma_check(&s1, MAD_METHOD_GET, key_dr(p_s1, 2, SMP_ATTR_NODE_INFO)),
	    PASS);
	/* an older model that knows less (H0's link gone) changes nothing:
	 * the neighbors file is asked about a last hop only */
	sm.fab = model(false);
	fabric_unlink(&sm.fab->nodes[0]->ports[1]);
	assert_true(key_dr(p_s1, 2, SMP_ATTR_NODE_INFO) == K_S1);
	stop();
	start(CFG_MKEY_PER_PORT, false);
	sm.sweep_model = swept = model(false);
	assert_int_equal(
	    sma_check(&s1, MAD_METHOD_GET, key_dr(p_s1, 2, SMP_ATTR_NODE_INFO)),
	    DROP);
	s1.protect = 1; /* protect 1: answered, the key hidden */
	assert_int_equal(sma_check(&s1, MAD_METHOD_GET, last_key()),
			 PASS_HIDDEN);
	stop();
}

/* PortInfo Sets: the key, protect bits and lease the configuration
 * wants; a key a port shows (protect 0) is learned and qualifies until
 * the port has acknowledged the new one. */
static void test_portinfo_sets(void **state)
{
	static const uint8_t p_h1[] = {0, 1, 2, 5};
	struct smp_port_info pi = {0}, ext = {0};
	struct ib_node *h1, *s1;
	uint64_t want;
	char path[300], line[128];
	FILE *fp;

	start(CFG_MKEY_PER_PORT, true);
	sm.fab = model(true);
	h1 = fabric_node_by_guid(sm.fab, H1);
	s1 = fabric_node_by_guid(sm.fab, S1);
	want = mkey_derive(secret, H1 + 1);
	pi.m_key = 0x7777777777777777ull; /* shown at protect 0 */
	assert_true(mkey_pi_fill(&sm, h1, 1, &pi));
	assert_true(pi.m_key == want);
	assert_int_equal(pi.m_key_protect_bits, 2);
	assert_int_equal(pi.m_key_lease_period, 90);
	/* the Set goes out with the key the port holds */
	assert_true(key_dr(p_h1, 3, SMP_ATTR_PORT_INFO) ==
		    0x7777777777777777ull);
	assert_false(mkey_pi_fill(&sm, h1, 1, &pi)); /* nothing differs */
	mkey_pi_acked(&sm, h1, 1, want);
	assert_true(key_dr(p_h1, 3, SMP_ATTR_PORT_INFO) == want);
	/* switch external ports carry no key of their own */
	assert_false(mkey_pi_fill(&sm, s1, 5, &ext));
	assert_true(ext.m_key == 0 && ext.m_key_protect_bits == 0);
	mkey_stop(&sm);
	sm.mkey = NULL;
	snprintf(path, sizeof(path), "%s/guid2mkey", dir);
	assert_non_null(fp = fopen(path, "r"));
	bool found = false;
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, "0x0000000000000401 ", 19) == 0) {
			unsigned long long k = strtoull(line + 19, NULL, 16);
			found = k == want;
		}
	fclose(fp);
	assert_true(found);
	txn_destroy(sm.txn);
	fabric_free(sm.fab);
	free(sm.fab);
	config_free(&sm.cfg);
}

/* m_key.mode off installs nothing and leaves the fields as read, yet
 * still qualifies with the keys guid2mkey lists; fixed mode qualifies an
 * unknown port with its key. */
static void test_modes(void **state)
{
	static const uint8_t p_s1[] = {0, 1, 2}, p_s0[] = {0, 1};
	struct smp_port_info pi = {.m_key_protect_bits = 1};
	struct ib_node *h1;

	start(CFG_MKEY_OFF, true);
	sm.fab = model(true);
	h1 = fabric_node_by_guid(sm.fab, H1);
	assert_false(mkey_pi_fill(&sm, h1, 1, &pi));
	assert_true(pi.m_key == 0 && pi.m_key_protect_bits == 1);
	assert_true(key_dr(p_s1, 2, SMP_ATTR_NODE_INFO) == K_S1);
	assert_true(key_dr(p_s0, 1, SMP_ATTR_NODE_INFO) == 0);
	stop();
	start(CFG_MKEY_FIXED, false);
	sm.sweep_model = swept = model(false);
	assert_true(key_dr((const uint8_t[]){0, 1, 7}, 2, SMP_ATTR_NODE_INFO) ==
		    0xF1F1F1F1F1F1F1F1ull);
	stop();
}

/* Trap 256: counted; as master the reporting port is read with its key
 * (which stops its lease timer). */
static void test_trap256(void **state)
{
	struct smp_notice n = {
	    .is_generic = 1, .trap_num = 256, .issuer_lid = 4};
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	start(CFG_MKEY_PER_PORT, true);
	sm.fab = model(true);
	n.details[3] = 9; /* the LID that sent the wrong key */
	sm.sm_state = SM_STATE_MASTER;
	mkey_on_trap256(&sm, &n, 4);
	assert_int_equal(n_sent, 1);
	assert_true(last_key() == K_H1);
	out = open_memstream(&text, &len);
	mkey_print_status(&sm, out);
	fclose(out);
	assert_non_null(strstr(text, "mkey_violations 1\n"));
	assert_non_null(strstr(text, "mkey_mode per-port\n"));
	free(text);
	stop();
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_restart_keys),
	    cmocka_unit_test(test_unseen_link),
	    cmocka_unit_test(test_portinfo_sets),
	    cmocka_unit_test(test_modes),
	    cmocka_unit_test(test_trap256),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* libFuzzer target for the SA request decoder and handler: every input is
 * one request MAD handed to sa_handle() on the fixture fabric.  Inputs with
 * the low bit of byte 0 set get a valid MAD/SA header prefix (version,
 * class, a real method and attribute chosen by input bytes) so mutations
 * reach the record handlers instead of dying in validation.  Byte 1 picks
 * the requester, bit 1 of byte 2 whether partitions apply (two of them over
 * the fixture's hosts), so the partition rules are fuzzed too. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../unit/sa_fixture.h"
#include "lib/pkeys.h"
#include "lib/qos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t methods[] = {SA_METHOD_GET, SA_METHOD_GET_TABLE,
				  SA_METHOD_SET, SA_METHOD_DELETE,
				  SA_METHOD_GET_MULTI};
static const uint16_t attrs[] = {
    SA_ATTR_CLASS_PORT_INFO, SA_ATTR_NODE_REC,	     SA_ATTR_PORTINFO_REC,
    SA_ATTR_SWITCHINFO_REC,  SA_ATTR_LFT_REC,	     SA_ATTR_MFT_REC,
    SA_ATTR_SMINFO_REC,	     SA_ATTR_LINK_REC,	     SA_ATTR_GUIDINFO_REC,
    SA_ATTR_SERVICE_REC,     SA_ATTR_PKEY_TABLE_REC, SA_ATTR_PATH_REC,
    SA_ATTR_MCMEMBER_REC,    SA_ATTR_MCGSTATE_REC,   SA_ATTR_MULTIPATH_REC,
    SA_ATTR_SL2VL_REC,	     SA_ATTR_VLARB_REC,	     SA_ATTR_INFORM_INFO,
    SA_ATTR_INFORM_INFO_REC,
};

/* An MFT source so MulticastForwardingTableRecord code runs too. */
static int fz_mft(void *ctx, const struct ib_node *sw, uint16_t block,
		  uint8_t pos, uint16_t masks[32])
{
	(void)ctx;
	if (block > 2)
		return -1;
	masks[block] = (uint16_t)(sw->guid ^ pos);
	return 1;
}

/* QoS tables the way qosprog.c hands them down: some known, some not. */
static int fz_sl2vl(void *ctx, const struct ib_node *n, uint8_t in, uint8_t out,
		    uint8_t vl[16])
{
	(void)ctx;
	for (unsigned sl = 0; sl < 16; sl++)
		vl[sl] = (uint8_t)((sl + in + out) % 15);
	return (n->guid + in + out) % 3 != 0;
}

static int fz_vlarb(void *ctx, const struct ib_node *n, uint8_t port,
		    uint8_t block, uint8_t data[64])
{
	(void)ctx;
	memset(data, (uint8_t)(port + block), 64);
	return (n->guid + block) % 2;
}

/* PathRecord SLs through a policy with classes. */
static struct qos_policy fz_qos = {
    .default_sl = 3,
    .classes =
	(struct qos_class[]){
	    {.has_sid = true, .sid_hi = ~0ull, .sl = 5},
	    {.has_pkey = true, .pkey_lo = 0x10, .pkey_hi = 0x7fff, .sl = 6}},
    .n_classes = 2,
};

static void fz_hooks(struct fx *x)
{
	x->sa.mft_block = fz_mft;
	x->sa.sl2vl_row = fz_sl2vl;
	x->sa.vlarb_block = fz_vlarb;
	x->sa.qos = &fz_qos;
}

/* Partition red: Hca1, Hca2; blue: Hca3 and Hca4 (by node GUID) full,
 * Hca5 limited; everyone else limited in the default partition. */
static char *red_m[] = {"Hca1", "Hca2"}, *blue_m[] = {"Hca3", "0x100009"},
	    *blue_l[] = {"Hca5"};
static struct cfg_partition parts[] = {
    {.name = "red", .pkey = 0x10, .members = {red_m, 2}},
    {.name = "blue",
     .pkey = 0x11,
     .members = {blue_m, 2},
     .limited = {blue_l, 1}},
};
static const struct cfg_table part_table = {parts, 2};
static struct pkey_plan plan;

static struct fx *fz_setup(void **state)
{
	struct fx *x;

	fx_setup(state);
	x = *state;
	fz_hooks(x);
	if (pkey_plan_build(&plan, &x->f, &part_table, false) < 0)
		__builtin_trap();
	return x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *state;
	static struct fx *x;
	static unsigned iter;
	uint8_t mad[1024];
	struct sa_peer from = {.lid = size > 1 ? 1 + data[1] % 9 : 2};
	size_t len = size < sizeof(mad) ? size : sizeof(mad);

	if (!x) {
		log_set_level(LOG_LVL_ERR);
		x = fz_setup(&state);
	}
	x->sa.pkeys = size > 2 && (data[2] & 2) ? &plan : NULL;
	memcpy(mad, data, len);
	if (len >= 20 && (data[0] & 1)) {
		mad[0] = 1;
		mad[1] = SA_MGMT_CLASS;
		mad[2] = SA_CLASS_VERSION;
		mad[3] = methods[data[3] % sizeof(methods)];
		sa_put16(mad + 16,
			 attrs[data[16] % (sizeof(attrs) / sizeof(attrs[0]))]);
		if (len > 46)
			mad[44] = mad[45] = 0;
	}
	x->now += data[0] * 1000ull; /* let leases expire now and then */
	sa_handle(&x->sa, &from, mad, len, &x->out);
	if (x->out.len && x->out.len > x->out.cap)
		__builtin_trap();
	/* start from a fresh SA now and then so state stays small */
	if (++iter % 5000 == 0) {
		fx_teardown(&state);
		pkey_plan_free(&plan);
		x = fz_setup(&state);
	}
	return 0;
}

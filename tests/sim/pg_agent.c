/* pg_agent: a switch that implements the port-group attributes, for tests.
 * ibsim has no handler for PortGroupInfo/Table/ForwardingTable (0xFF30-32):
 * it hands an SMP request it cannot answer to a client attached to the
 * target node that holds the issm device, and drops it (umad status 110 at
 * the sender) when there is none.  This agent attaches to a switch
 * (SIM_HOST=<switch>), claims IsSM, and answers Get/Set of the three
 * attributes from its own memory, as docs/design.md §4.3 lays them out.
 * SMInfo Gets (IsSM makes the switch look like an SM) get NOTACTIVE;
 * everything else is answered "unsupported".
 *
 *   pg_agent [-c CAP] [-f FDB_CAP] -d DUMPFILE
 *
 * After every Set (and on SIGUSR1) it rewrites DUMPFILE: its tables in
 * the lines of port-groups.dump (groups with a nonzero mask, LIDs with a
 * nonzero group below FDB_CAP) plus one line
 *   0x<guid> info cap C fdb_cap F top T enable E algorithm A threshold H
 * Prints "agent ready guid=0x..." once attached; exits on SIGTERM. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "mad/smp_node.h"
#include "mad/smp_pgroup.h"
#include "mad/smp_sm.h"
#include "mad/txn.h"

struct agent {
	struct txn_engine *eng;
	uint64_t guid;
	uint8_t nports;
	struct smp_pgroup_info info;
	struct pgroup_mask table[256]; /* group id -> mask */
	uint8_t *ft;		       /* [fdb_cap] */
	const char *dump;
	unsigned sets;
};

static volatile sig_atomic_t stop, dump_now;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump_now = 1;
	else
		stop = 1;
}

static void write_dump(const struct agent *a)
{
	char tmp[4200];
	FILE *fp;

	snprintf(tmp, sizeof(tmp), "%s.tmp", a->dump);
	if (!(fp = fopen(tmp, "w")))
		return;
	for (unsigned g = 1; g <= a->info.cap; g++) {
		const char *sep = "";
		bool any = false;
		for (unsigned p = 0; p < 256; p++)
			any |= pgroup_mask_test(&a->table[g], p);
		if (!any)
			continue;
		fprintf(fp, "0x%016" PRIx64 " pg %u ports ", a->guid, g);
		for (unsigned p = 0; p < 256; p++)
			if (pgroup_mask_test(&a->table[g], p)) {
				fprintf(fp, "%s%u", sep, p);
				sep = ",";
			}
		fputc('\n', fp);
	}
	for (unsigned l = 0; l < a->info.fdb_cap; l++)
		if (a->ft[l])
			fprintf(fp, "0x%016" PRIx64 " lid 0x%04x pg %u\n",
				a->guid, l, a->ft[l]);
	fprintf(fp,
		"0x%016" PRIx64 " info cap %u fdb_cap %u top %u enable %u "
		"algorithm %u threshold %u sets %u\n",
		a->guid, a->info.cap, a->info.fdb_cap, a->info.top,
		a->info.enable, a->info.algorithm, a->info.threshold, a->sets);
	fclose(fp);
	rename(tmp, a->dump);
}

/* PortGroupInfo: cap and FDB cap are read-only. */
static uint16_t do_info(struct agent *a, bool set, const uint8_t *in,
			uint8_t *out)
{
	if (set) {
		struct smp_pgroup_info v;
		if (smp_pgroup_info_decode(&v, in, SMP_DATA_SIZE) < 0 ||
		    v.top > a->info.cap || v.algorithm > 2)
			return MAD_STATUS_INVALID_FIELD;
		a->info.top = v.top;
		a->info.enable = v.enable;
		a->info.algorithm = v.algorithm;
		a->info.threshold = v.threshold;
	}
	smp_pgroup_info_encode(&a->info, out, SMP_DATA_SIZE);
	return 0;
}

/* Block b holds groups 2b and 2b+1; ports past NumPorts are cleared. */
static uint16_t do_table(struct agent *a, bool set, uint32_t b,
			 const uint8_t *in, uint8_t *out)
{
	struct pgroup_mask m[2];

	if (2 * b > a->info.cap)
		return MAD_STATUS_INVALID_FIELD;
	if (set) {
		if (smp_pgroup_table_decode(m, in, SMP_DATA_SIZE) < 0)
			return MAD_STATUS_INVALID_FIELD;
		for (unsigned i = 0; i < 2; i++) {
			unsigned g = 2 * b + i;
			if (g == 0 || g > a->info.cap)
				continue; /* group 0 is "none" */
			for (unsigned p = a->nports + 1u; p < 256; p++)
				m[i].bits[p / 8] &= (uint8_t)~(1u << (p % 8));
			a->table[g] = m[i];
		}
	}
	m[0] = a->table[2 * b];
	m[1] = 2 * b + 1 <= a->info.cap ? a->table[2 * b + 1]
					: (struct pgroup_mask){ { 0 } };
	smp_pgroup_table_encode(m, out, SMP_DATA_SIZE);
	return 0;
}

static uint16_t do_ft(struct agent *a, bool set, uint32_t b,
		      const uint8_t *in, uint8_t *out)
{
	uint32_t first = b * PGROUP_FT_BLOCK_SIZE;
	uint8_t ids[PGROUP_FT_BLOCK_SIZE];

	if (first >= a->info.fdb_cap)
		return MAD_STATUS_INVALID_FIELD;
	if (set) {
		if (smp_pgroup_ft_decode(ids, in, SMP_DATA_SIZE) < 0)
			return MAD_STATUS_INVALID_FIELD;
		for (unsigned i = 0; i < PGROUP_FT_BLOCK_SIZE; i++)
			if (ids[i] > a->info.cap)
				return MAD_STATUS_INVALID_FIELD;
		for (unsigned i = 0; i < PGROUP_FT_BLOCK_SIZE &&
				     first + i < a->info.fdb_cap; i++)
			a->ft[first + i] = ids[i];
	}
	memset(ids, 0, sizeof(ids));
	for (unsigned i = 0; i < PGROUP_FT_BLOCK_SIZE &&
			     first + i < a->info.fdb_cap; i++)
		ids[i] = a->ft[first + i];
	smp_pgroup_ft_encode(ids, out, SMP_DATA_SIZE);
	return 0;
}

static void on_request(void *ctx, const struct txn_request *req)
{
	struct agent *a = ctx;
	uint8_t out[SMP_DATA_SIZE] = { 0 };
	uint16_t st = MAD_STATUS_METHOD_ATTR_UNSUPP;
	uint8_t method = req->hdr->method;
	bool set = method == MAD_METHOD_SET;

	if (!req->smp || (method != MAD_METHOD_GET && !set)) {
		if (req->smp && !(method & MAD_METHOD_RESP))
			txn_respond_smp(a->eng, req, st, NULL);
		return;
	}
	switch (req->hdr->attr_id) {
	case SMP_ATTR_PGROUP_INFO:
		st = do_info(a, set, req->smp->data, out);
		break;
	case SMP_ATTR_PGROUP_TABLE:
		st = do_table(a, set, req->hdr->attr_mod, req->smp->data, out);
		break;
	case SMP_ATTR_PGROUP_FT:
		st = do_ft(a, set, req->hdr->attr_mod, req->smp->data, out);
		break;
	case SMP_ATTR_SM_INFO:
		if (!set) {
			struct smp_sm_info si = { .guid = a->guid,
						  .state = SM_STATE_NOT_ACTIVE };
			smp_sm_info_encode(&si, out, sizeof(out));
			st = 0;
		}
		break;
	default:
		break;
	}
	txn_respond_smp(a->eng, req, st, st ? NULL : out);
	if (set && !st && req->hdr->attr_id != SMP_ATTR_SM_INFO) {
		a->sets++;
		write_dump(a);
	}
}

static void on_node_info(void *ctx, int status, const struct txn_result *r)
{
	struct agent *a = ctx;
	struct smp_node_info ni;

	if (status || !r->data ||
	    smp_node_info_decode(&ni, r->data, SMP_DATA_SIZE) < 0)
		return;
	a->guid = ni.node_guid;
	a->nports = ni.num_ports;
}

static int attach(struct agent *a, struct mad_port **port)
{
	struct mad_port_sel sel = { 0 };
	struct txn_params prm;
	uint8_t path[SMP_PATH_SIZE] = { 0 };
	int rc;

	if (mad_port_open(&sel, port))
		return -ENODEV;
	txn_params_default(&prm);
	if ((rc = txn_create(*port, &prm, &a->eng)) < 0)
		return rc;
	/* our own NodeInfo over a 0-hop directed route */
	txn_submit_dr(a->eng, path, 0, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0,
		      NULL, on_node_info, a);
	txn_run(a->eng, 5000);
	if (!a->guid)
		return -EHOSTUNREACH;
	if ((rc = mad_port_set_sm(*port, true)) < 0)
		return rc;
	txn_set_request_handler(a->eng, on_request, a);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: pg_agent [-c CAP] [-f FDB_CAP] -d DUMPFILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct agent a = { .info = { .cap = 16, .fdb_cap = 1024 } };
	struct mad_port *port = NULL;
	int c, rc;

	log_set_ident("pg_agent");
	while ((c = getopt(argc, argv, "c:f:d:")) != -1) {
		if (c == 'c')
			a.info.cap = (uint8_t)strtoul(optarg, NULL, 0);
		else if (c == 'f')
			a.info.fdb_cap = (uint16_t)strtoul(optarg, NULL, 0);
		else if (c == 'd')
			a.dump = optarg;
		else
			usage();
	}
	if (!a.dump || !a.info.cap || !a.info.fdb_cap)
		usage();
	a.ft = calloc(a.info.fdb_cap, 1);
	if (!a.ft)
		return 1;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGUSR1, on_signal);
	rc = attach(&a, &port);
	if (rc < 0) {
		fprintf(stderr, "pg_agent: cannot attach: %s\n", strerror(-rc));
		return 1;
	}
	write_dump(&a);
	printf("agent ready guid=0x%016" PRIx64 " ports=%u\n", a.guid, a.nports);
	fflush(stdout);
	while (!stop) {
		struct pollfd pfd = { .fd = txn_fd(a.eng), .events = POLLIN };
		if (poll(&pfd, 1, 100) > 0)
			txn_on_readable(a.eng);
		if (dump_now) {
			dump_now = 0;
			write_dump(&a);
		}
	}
	txn_destroy(a.eng);
	mad_port_close(port);
	free(a.ft);
	return 0;
}

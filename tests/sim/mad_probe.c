/* mad_probe: exercises the mad/ stack against ibsim.  Discovers every node
 * with directed-route NodeInfo/PortInfo through the transaction engine,
 * optionally programs LFT blocks on every switch with the bulk transfer
 * and reads them back, and optionally measures DR NodeInfo throughput.
 *
 *   mad_probe [-w WINDOW] [-n NODE_WINDOW] [-t TIMEOUT_MS] [-r RETRIES]
 *             [-e EXPECTED_NODES] [-l LFT_BLOCKS] [-b BENCH_GETS]
 *             [-T MAX_MS] [-g (PortGroupInfo Get on every switch)]
 *             [-q (no per-switch lines)] [-s SERVE_MS (answer SMInfo)]
 *             [-G PORT_GUID | -C CA [-P PORT]] [-v]
 *
 * Prints key=value lines; exits 0 when everything asked for checked out. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "mad/bulk.h"
#include "mad/smp_node.h"
#include "mad/smp_port.h"
#include "mad/smp_sm.h"
#include "mad/smp_switch.h"
#include "mad/txn.h"

struct pnode {
	uint64_t guid;
	uint8_t type, nports, entry, hops;
	uint8_t path[SMP_PATH_SIZE];
};

struct probe {
	struct txn_engine *eng;
	struct pnode *nodes;
	unsigned n, cap;
	unsigned failed_smps;
	unsigned lft_blocks, lft_bad, lft_failed_blocks, lft_done;
	unsigned bench_ok, bench_fail;
};

struct req {
	struct probe *pr;
	unsigned node; /* node the SMP is about (PortInfo) or came from */
	uint8_t port;
	uint8_t hops;
	uint8_t path[SMP_PATH_SIZE];
};

static struct pnode *find(struct probe *pr, uint64_t guid)
{
	for (unsigned i = 0; i < pr->n; i++)
		if (pr->nodes[i].guid == guid)
			return &pr->nodes[i];
	return NULL;
}

static void get_node_info(struct probe *pr, const uint8_t *path, uint8_t hops);

static void on_port_info(void *ctx, int status, const struct txn_result *r)
{
	struct req *q = ctx;
	struct probe *pr = q->pr;
	struct smp_port_info pi;

	if (status) {
		pr->failed_smps++;
	} else if (!smp_port_info_decode(&pi, r->data, SMP_DATA_SIZE) &&
		   pi.port_phys_state == PI_PHYS_LINKUP) {
		struct pnode *n = &pr->nodes[q->node];
		uint8_t path[SMP_PATH_SIZE];

		memcpy(path, n->path, sizeof(path));
		path[n->hops + 1] = q->port;
		get_node_info(pr, path, (uint8_t)(n->hops + 1));
	}
	free(q);
}

static void get_port_info(struct probe *pr, unsigned node, uint8_t port)
{
	struct req *q = calloc(1, sizeof(*q));
	struct pnode *n = &pr->nodes[node];

	q->pr = pr;
	q->node = node;
	q->port = port;
	if (txn_submit_dr(pr->eng, n->path, n->hops, MAD_METHOD_GET,
			  SMP_ATTR_PORT_INFO, port, NULL, on_port_info, q)) {
		pr->failed_smps++;
		free(q);
	}
}

static void on_node_info(void *ctx, int status, const struct txn_result *r)
{
	struct req *q = ctx;
	struct probe *pr = q->pr;
	struct smp_node_info ni;
	struct pnode *n;

	if (status || smp_node_info_decode(&ni, r->data, SMP_DATA_SIZE)) {
		pr->failed_smps++;
		goto out;
	}
	if (find(pr, ni.node_guid) || q->hops > SMP_MAX_HOPS - 1)
		goto out;
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? 2 * pr->cap : 64;
		pr->nodes = realloc(pr->nodes, pr->cap * sizeof(*pr->nodes));
	}
	n = &pr->nodes[pr->n++];
	memset(n, 0, sizeof(*n));
	n->guid = ni.node_guid;
	n->type = ni.node_type;
	n->nports = ni.num_ports;
	n->entry = ni.local_port_num;
	n->hops = q->hops;
	memcpy(n->path, q->path, sizeof(n->path));
	if (n->type == 2) {
		for (unsigned p = 1; p <= n->nports; p++)
			if (p != n->entry || n->hops == 0)
				get_port_info(pr, pr->n - 1, (uint8_t)p);
	} else if (n->hops == 0) {
		get_port_info(pr, pr->n - 1, n->entry);
	}
out:
	free(q);
}

static void get_node_info(struct probe *pr, const uint8_t *path, uint8_t hops)
{
	struct req *q = calloc(1, sizeof(*q));

	q->pr = pr;
	q->hops = hops;
	memcpy(q->path, path, SMP_PATH_SIZE);
	if (txn_submit_dr(pr->eng, q->path, hops, MAD_METHOD_GET,
			  SMP_ATTR_NODE_INFO, 0, NULL, on_node_info, q)) {
		pr->failed_smps++;
		free(q);
	}
}

/* ---- LFT program + read back ---- */

static uint8_t lft_pattern(const struct pnode *n, unsigned lid)
{
	return (uint8_t)(1 + (lid + n->guid) % n->nports);
}

struct lftx {
	struct probe *pr;
	struct pnode *n;
	uint8_t *lft;
	uint32_t block; /* read-back block */
};

static void on_lft_read(void *ctx, int status, const struct txn_result *r)
{
	struct lftx *x = ctx;

	if (status) {
		x->pr->lft_bad++;
		fprintf(stderr,
			"LFT read back of block %u on 0x%016llx failed: %s\n",
			x->block, (unsigned long long)x->n->guid,
			strerror(-status));
	} else {
		for (unsigned i = 0; i < LFT_BLOCK_SIZE; i++)
			if (r->data[i] !=
			    lft_pattern(x->n, x->block * 64 + i)) {
				x->pr->lft_bad++;
				fprintf(
				    stderr,
				    "LFT 0x%016llx LID %u: read %u, set %u\n",
				    (unsigned long long)x->n->guid,
				    x->block * 64 + i, r->data[i],
				    lft_pattern(x->n, x->block * 64 + i));
				break;
			}
	}
	free(x);
}

/* LinearFDBTop, so that ibroute (and LID routing) see the blocks. */
static void on_si_set(void *ctx, int status, const struct txn_result *r)
{
	struct lftx *x = ctx;

	if (status) {
		x->pr->lft_bad++;
		fprintf(stderr, "SwitchInfo Set on 0x%016llx failed: %s\n",
			(unsigned long long)x->n->guid, strerror(-status));
	}
	free(x);
}

static void on_si_get(void *ctx, int status, const struct txn_result *r)
{
	struct lftx *x = ctx;
	struct smp_switch_info si;
	uint8_t data[SMP_DATA_SIZE] = {0};

	if (status || smp_switch_info_decode(&si, r->data, SMP_DATA_SIZE)) {
		x->pr->lft_bad++;
		free(x);
		return;
	}
	si.lft_top = (uint16_t)(x->pr->lft_blocks * 64 - 1);
	si.port_state_change = 0;
	smp_switch_info_encode(&si, data, sizeof(data));
	if (txn_submit_dr(x->pr->eng, x->n->path, x->n->hops, MAD_METHOD_SET,
			  SMP_ATTR_SWITCH_INFO, 0, data, on_si_set, x)) {
		x->pr->lft_bad++;
		free(x);
	}
}

static bool quiet; /* -q: no per-switch lines */

static void on_lft_set(void *ctx, int status, const struct bulk_result *r)
{
	struct lftx *x = ctx;
	struct probe *pr = x->pr;
	struct lftx *sx = calloc(1, sizeof(*sx));
	char pbuf[256];

	*sx = (struct lftx){.pr = pr, .n = x->n};
	if (txn_submit_dr(pr->eng, x->n->path, x->n->hops, MAD_METHOD_GET,
			  SMP_ATTR_SWITCH_INFO, 0, NULL, on_si_get, sx))
		free(sx);
	if (!quiet)
		printf("lft_switch guid=0x%016llx path=%s nports=%u\n",
		       (unsigned long long)x->n->guid,
		       smp_path_str(x->n->path, x->n->hops, pbuf, sizeof(pbuf)),
		       x->n->nports);

	pr->lft_done++;
	pr->lft_failed_blocks += r->nfailed;
	if (status)
		fprintf(stderr,
			"LFT set on 0x%016llx: %u of %u blocks failed (%s)\n",
			(unsigned long long)x->n->guid, r->nfailed, r->nitems,
			strerror(-status));
	for (uint32_t b = 0; b < pr->lft_blocks; b++) {
		struct lftx *rx = calloc(1, sizeof(*rx));

		*rx = (struct lftx){.pr = pr, .n = x->n, .block = b};
		if (txn_submit_dr(pr->eng, x->n->path, x->n->hops,
				  MAD_METHOD_GET, SMP_ATTR_LFT, b, NULL,
				  on_lft_read, rx)) {
			pr->lft_bad++;
			free(rx);
		}
	}
	free(x->lft);
	free(x);
}

static int program_lfts(struct probe *pr, unsigned retries)
{
	for (unsigned i = 0; i < pr->n; i++) {
		struct pnode *n = &pr->nodes[i];
		struct lftx *x;
		unsigned size = pr->lft_blocks * 64;

		if (n->type != 2)
			continue;
		x = calloc(1, sizeof(*x));
		x->pr = pr;
		x->n = n;
		x->lft = malloc(size);
		for (unsigned lid = 0; lid < size; lid++)
			x->lft[lid] = lft_pattern(n, lid);
		struct bulk_lft_req req = {.dr = true,
					   .path = n->path,
					   .hops = n->hops,
					   .dest = n->guid,
					   .lft = x->lft,
					   .lft_size = size,
					   .n = pr->lft_blocks,
					   .retries = retries,
					   .done = on_lft_set,
					   .ctx = x};
		if (bulk_lft_start(pr->eng, &req))
			return -ENOMEM;
	}
	return 0;
}

/* ---- an attribute ibsim does not implement ---- */

static unsigned pg_fast, pg_other;

static void on_pgroup(void *ctx, int status, const struct txn_result *r)
{
	if (status == -ETIMEDOUT && r->fast_timeout && r->tries == 1)
		pg_fast++;
	else
		pg_other++;
}

static void probe_pgroups(struct probe *pr)
{
	for (unsigned i = 0; i < pr->n; i++) {
		struct txn_smp_req r = {.dr = true,
					.path = pr->nodes[i].path,
					.hops = pr->nodes[i].hops,
					.method = MAD_METHOD_GET,
					.attr_id = SMP_ATTR_PGROUP_INFO,
					.retries = 0 /* optional: one try */};

		if (pr->nodes[i].type == 2)
			txn_submit(pr->eng, &r, on_pgroup, pr);
	}
}

/* ---- answering SMInfo (the request path) ---- */

static unsigned sminfo_answered;

static void on_request(void *ctx, const struct txn_request *req)
{
	struct probe *pr = ctx;
	struct smp_sm_info si = {.priority = 5, .state = SM_STATE_MASTER};
	uint8_t data[SMP_DATA_SIZE] = {0};

	if (!req->smp || req->hdr->attr_id != SMP_ATTR_SM_INFO ||
	    req->hdr->method != MAD_METHOD_GET) {
		txn_respond_smp(pr->eng, req, MAD_STATUS_METHOD_ATTR_UNSUPP,
				NULL);
		return;
	}
	si.guid = mad_port_info(txn_port(pr->eng))->port_guid;
	si.act_count = ++sminfo_answered;
	smp_sm_info_encode(&si, data, sizeof(data));
	txn_respond_smp(pr->eng, req, 0, data);
}

/* ---- throughput ---- */

static void on_bench(void *ctx, int status, const struct txn_result *r)
{
	struct probe *pr = ctx;

	if (status)
		pr->bench_fail++;
	else
		pr->bench_ok++;
}

static int bench(struct probe *pr, unsigned gets, int max_ms)
{
	const struct txn_stats *s = txn_stats(pr->eng);
	uint64_t sent0 = s->sent, lost0 = s->lost, retr0 = s->retried;
	int64_t t0 = txn_now_us(), t1;
	int rc;

	for (unsigned i = 0; i < gets; i++) {
		struct pnode *n = &pr->nodes[i % pr->n];

		if (txn_submit_dr(pr->eng, n->path, n->hops, MAD_METHOD_GET,
				  SMP_ATTR_NODE_INFO, 0, NULL, on_bench, pr))
			return -ENOMEM;
	}
	rc = txn_run(pr->eng, max_ms);
	t1 = txn_now_us();
	printf("bench window=%u node_window=%u gets=%u ok=%u failed=%u "
	       "secs=%.3f rate=%.0f sent=%llu lost=%llu retried=%llu "
	       "max_outstanding=%u%s\n",
	       txn_get_params(pr->eng)->window,
	       txn_get_params(pr->eng)->node_window, gets, pr->bench_ok,
	       pr->bench_fail, (t1 - t0) / 1e6,
	       pr->bench_ok / ((t1 - t0) / 1e6),
	       (unsigned long long)(s->sent - sent0),
	       (unsigned long long)(s->lost - lost0),
	       (unsigned long long)(s->retried - retr0), s->max_outstanding,
	       rc ? " STALLED" : "");
	return rc;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mad_probe [-w window] [-n node_window] [-t timeout_ms] "
		"[-r retries] [-e expected_nodes] [-l lft_blocks] "
		"[-b bench_gets] [-T max_ms] [-g] [-q] [-s serve_ms] "
		"[-G port_guid | -C ca [-P port]] [-v]\n");
	exit(2);
}

struct opts {
	struct txn_params prm;
	unsigned expect, gets, lft_blocks;
	bool pgroups, quiet;
	int serve_ms, max_ms;
	struct mad_port_sel sel;
};

static void parse(int argc, char **argv, struct opts *o)
{
	int opt;

	memset(o, 0, sizeof(*o));
	txn_params_default(&o->prm);
	o->max_ms = 60000;
	while ((opt = getopt(argc, argv, "w:n:t:r:e:l:b:T:s:G:C:P:gqv")) !=
	       -1) {
		switch (opt) {
		case 'w':
			o->prm.window = (unsigned)atoi(optarg);
			break;
		case 'n':
			o->prm.node_window = (unsigned)atoi(optarg);
			break;
		case 't':
			o->prm.timeout_ms = (unsigned)atoi(optarg);
			break;
		case 'r':
			o->prm.retries = (unsigned)atoi(optarg);
			break;
		case 'e':
			o->expect = (unsigned)atoi(optarg);
			break;
		case 'l':
			o->lft_blocks = (unsigned)atoi(optarg);
			break;
		case 'b':
			o->gets = (unsigned)atoi(optarg);
			break;
		case 'T':
			o->max_ms = atoi(optarg);
			break;
		case 'g':
			o->pgroups = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 's':
			o->serve_ms = atoi(optarg);
			break;
		case 'G':
			o->sel.guid = strtoull(optarg, NULL, 0);
			break;
		case 'C':
			o->sel.ca = optarg;
			break;
		case 'P':
			o->sel.num = atoi(optarg);
			break;
		case 'v':
			log_set_level(LOG_LVL_DEBUG);
			break;
		default:
			usage();
		}
	}
}

static unsigned count_switches(const struct probe *pr)
{
	unsigned sw = 0;

	for (unsigned i = 0; i < pr->n; i++)
		sw += pr->nodes[i].type == 2;
	return sw;
}

static bool run_discovery(struct probe *pr, const struct opts *o)
{
	uint8_t path0[SMP_PATH_SIZE] = {0};
	int64_t t0 = txn_now_us();
	unsigned sw;
	int rc;

	get_node_info(pr, path0, 0);
	rc = txn_run(pr->eng, o->max_ms);
	sw = count_switches(pr);
	printf("discovered nodes=%u switches=%u cas=%u secs=%.3f "
	       "failed_smps=%u%s\n",
	       pr->n, sw, pr->n - sw, (txn_now_us() - t0) / 1e6,
	       pr->failed_smps, rc ? " STALLED" : "");
	return !rc && (!o->expect || pr->n == o->expect);
}

static bool run_lfts(struct probe *pr, const struct opts *o)
{
	int64_t l0 = txn_now_us();
	unsigned sw = count_switches(pr);
	int rc;

	program_lfts(pr, o->prm.retries);
	rc = txn_run(pr->eng, o->max_ms);
	printf("lft switches=%u programmed=%u blocks=%u failed_blocks=%u "
	       "readback_mismatches=%u secs=%.3f%s\n",
	       sw, pr->lft_done, pr->lft_blocks, pr->lft_failed_blocks,
	       pr->lft_bad, (txn_now_us() - l0) / 1e6, rc ? " STALLED" : "");
	return !rc && pr->lft_done == sw && !pr->lft_failed_blocks &&
	       !pr->lft_bad;
}

static void run_pgroups(struct probe *pr, const struct opts *o)
{
	int64_t p0 = txn_now_us();

	probe_pgroups(pr);
	txn_run(pr->eng, o->max_ms);
	printf("pgroup switches=%u immediate_timeouts=%u other=%u secs=%.3f\n",
	       count_switches(pr), pg_fast, pg_other,
	       (txn_now_us() - p0) / 1e6);
}

static bool serve(struct probe *pr, struct mad_port *port, int serve_ms)
{
	int64_t end = txn_now_us() + (int64_t)serve_ms * 1000;
	bool ok = !mad_port_set_sm(port, true);

	txn_set_request_handler(pr->eng, on_request, pr);
	printf("serving\n");
	fflush(stdout);
	while (txn_now_us() < end) {
		struct pollfd pfd = {.fd = txn_fd(pr->eng), .events = POLLIN};

		if (poll(&pfd, 1, 50) > 0)
			txn_on_readable(pr->eng);
	}
	printf("sminfo answered=%u\n", sminfo_answered);
	return ok;
}

static void print_stats(const struct txn_stats *s)
{
	printf(
	    "stats sent=%llu received=%llu retried=%llu lost=%llu "
	    "timeouts=%llu "
	    "fast_timeouts=%llu remote_errors=%llu unmatched=%llu dropped=%llu "
	    "max_outstanding=%u\n",
	    (unsigned long long)s->sent, (unsigned long long)s->received,
	    (unsigned long long)s->retried, (unsigned long long)s->lost,
	    (unsigned long long)s->timeouts,
	    (unsigned long long)s->fast_timeouts,
	    (unsigned long long)s->remote_errors,
	    (unsigned long long)s->unmatched, (unsigned long long)s->dropped,
	    s->max_outstanding);
}

int main(int argc, char **argv)
{
	struct probe pr = {0};
	struct mad_port *port;
	struct opts o;
	bool ok;
	int rc;

	log_set_ident("mad_probe");
	parse(argc, argv, &o);
	quiet = o.quiet;
	pr.lft_blocks = o.lft_blocks;
	if (mad_port_open(&o.sel, &port))
		return 1;
	printf("port ca=%s num=%d guid=0x%016llx state=%u\n",
	       mad_port_info(port)->ca, mad_port_info(port)->num,
	       (unsigned long long)mad_port_info(port)->port_guid,
	       mad_port_info(port)->state);
	rc = txn_create(port, &o.prm, &pr.eng);
	if (rc) {
		fprintf(stderr, "mad_probe: cannot create the engine: %s\n",
			strerror(-rc));
		return 1;
	}
	ok = run_discovery(&pr, &o);
	if (ok && pr.lft_blocks)
		ok = run_lfts(&pr, &o);
	if (ok && o.pgroups)
		run_pgroups(&pr, &o);
	if (ok && o.gets)
		ok = !bench(&pr, o.gets, o.max_ms);
	if (o.serve_ms > 0)
		ok = serve(&pr, port, o.serve_ms) && ok;
	print_stats(txn_stats(pr.eng));
	txn_destroy(pr.eng);
	mad_port_close(port);
	free(pr.nodes);
	return ok ? 0 : 1;
}

/* The SA's own cost, without a transport: PathRecord and NodeRecord Gets
 * (random end-port pairs) and a PathRecord GetTable to one destination,
 * answered by sa_handle() on a routed fabric read from a topology file.
 *   sa_handle NETFILE [SECONDS_PER_CASE] */
#include <stdlib.h>
#include <time.h>

#include "../unit/sa_topo.h"
#include "daemon/sa/sa_server.h"
#include "mad/sa_mad.h"
#include "mad/sa_node.h"
#include "mad/sa_path.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct ib_port **ends;
static uint32_t n_ends;

static void build(uint8_t *mad, int kind, unsigned rnd)
{
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = 3,
			   .class_version = 2,
			   .method = SA_METHOD_GET};
	const struct ib_port *s = ends[rnd % n_ends],
			     *d = ends[(rnd >> 12) % n_ends];

	memset(mad, 0, SA_MAD_SIZE);
	if (kind == 1) {
		struct sa_node_rec r = {.lid = d->lid};

		h.attr_id = SA_ATTR_NODE_REC;
		h.comp_mask = 1ull << SA_NR_LID;
		sa_rec_encode(&sa_node_rec_desc, &r, mad + SA_HDR_SIZE);
	} else {
		struct sa_path_rec r = {.slid = s->lid, .dlid = d->lid};

		h.attr_id = SA_ATTR_PATH_REC;
		h.comp_mask = SA_PR_CM(SA_PR_DLID) |
			      (kind == 0 ? SA_PR_CM(SA_PR_SLID) : 0);
		h.method = kind == 0 ? SA_METHOD_GET : SA_METHOD_GET_TABLE;
		sa_rec_encode(&sa_path_rec_desc, &r, mad + SA_HDR_SIZE);
	}
	sa_hdr_encode(&h, mad);
}

int main(int argc, char **argv)
{
	static const char *names[] = {
	    "PathRecord Get (SLID, DLID)", "NodeRecord Get (LID)",
	    "PathRecord GetTable (DLID: all sources)"};
	double secs = argc > 2 ? atof(argv[2]) : 1.0;
	struct fabric f;
	struct sa sa;
	struct sa_out out = {0};
	struct sa_peer from = {.lid = 1};
	uint8_t mad[SA_MAD_SIZE];

	if (argc < 2 || sa_topo_build(&f, argv[1]))
		return 1;
	log_set_level(LOG_LVL_ERR);
	sa_init(&sa, &f, NULL);
	ends = malloc(f.n_nodes * 2 * sizeof(*ends));
	for (uint32_t i = 0; i < f.n_nodes; i++) {
		struct ib_node *n = f.nodes[i];

		if (node_is_switch(n))
			ends[n_ends++] = &n->ports[0];
		else
			for (unsigned p = 1; p <= n->nports; p++)
				if (n->ports[p].lid)
					ends[n_ends++] = &n->ports[p];
	}
	printf("%s: %u nodes, %u end ports, max LID %u\n", argv[1], f.n_nodes,
	       n_ends, f.max_lid);
	for (int kind = 0; kind < 3; kind++) {
		unsigned long n = 0, recs = 0, errors = 0;
		unsigned rnd = 12345;
		double t0 = now(), t;

		do {
			for (int i = 0; i < 64; i++) {
				rnd = rnd * 1103515245u + 12345u;
				build(mad, kind, rnd >> 4);
				if (sa_handle(&sa, &from, mad, sizeof(mad),
					      &out) < 0 ||
				    sa_get16(out.buf + 4))
					errors++;
				recs += out.records;
				n++;
			}
			t = now() - t0;
		} while (t < secs);
		printf("  %-42s %9.0f answers/s  %6.2f us each  %lu records  "
		       "%lu errors\n",
		       names[kind], n / t, t * 1e6 / n, recs, errors);
	}
	sa_free(&sa);
	sa_out_free(&out);
	fabric_free(&f);
	return 0;
}

/* The daemon's own cost of a multicast join, without a transport: the SA
 * and the multicast manager of ibsmd (sa_handle -> MCMemberRecord Set ->
 * the manager, journal record included) on a routed fabric read from a
 * topology file, so that fabrics of every size can be set side by side.
 *   join_cost NETFILE [JOINS]
 * Collective joins: groups of 32 member ports with MemberCount 32, the
 * members' joins (the group is routed later, in the loop's slices, which
 * this does not run).  Standard joins: groups of 8, each join extending
 * the group's tree at once.  One group of every host (standard joins, as
 * every host joins the IPoIB broadcast group at boot).  Proxy joins from
 * the first host, as a client node sends them.  Prints the microseconds
 * per join of each kind. */
#include <stdlib.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "../unit/sa_topo.h"
#include "daemon/core/sm.h"
#include "daemon/mcast/mcg.h"
#include "daemon/sa/sa_mcm.h"
#include "daemon/sa/sa_server.h"
#include "mad/sa_mad.h"
#include "mad/sa_mcm.h"

#define C(x) (1ull << (x))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void build(uint8_t *mad, uint32_t grp, uint64_t guid, uint16_t count,
		  uint32_t tid)
{
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = SA_MGMT_CLASS,
			   .class_version = SA_CLASS_VERSION,
			   .method = SA_METHOD_SET,
			   .attr_id = SA_ATTR_MCMEMBER_REC,
			   .tid = tid,
			   .comp_mask = C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) |
					C(SA_MCMR_JOIN_STATE) |
					C(SA_MCMR_QKEY) | C(SA_MCMR_PKEY) |
					C(SA_MCMR_TCLASS) | C(SA_MCMR_FLOW) |
					C(SA_MCMR_SL)};
	struct sa_mcm_rec r = {.pkey = 0xFFFF,
			       .join_state = SA_JOIN_FULL,
			       .qkey = 0x0B1B,
			       .member_count = count};

	if (count)
		h.comp_mask |= C(SA_MCMR_MEMBER_COUNT);
	r.mgid[0] = 0xff;
	r.mgid[1] = 0x12;
	r.mgid[2] = 0x60;
	r.mgid[3] = 0x1b;
	sa_put32(r.mgid + 12, grp);
	sa_put64(r.port_gid, 0xfe80000000000000ull);
	sa_put64(r.port_gid + 8, guid);
	memset(mad, 0, SA_MAD_SIZE);
	sa_hdr_encode(&h, mad);
	sa_rec_encode(&sa_mcm_rec_desc, &r, mad + SA_HDR_SIZE);
}

static struct ib_port **hosts;
static uint32_t n_hosts;

/* us per join of `joins` joins in groups of `size` (count: MemberCount,
 * 0 for standard), group numbers from base; refused joins counted. */
static double run(struct sa *sa, uint32_t joins, uint32_t size, uint16_t count,
		  uint32_t base, unsigned *refused)
{
	struct sa_peer from = {.lid = hosts[0]->lid};
	struct sa_out out = {0};
	uint8_t mad[SA_MAD_SIZE];
	uint32_t stride = size < n_hosts ? n_hosts / size : 1;
	double t0 = now();

	for (uint32_t j = 0; j < joins; j++) {
		uint32_t g = j / size, k = j % size;
		/* members spread over the fabric, a different set per group */
		const struct ib_port *p = hosts[(g * 7 + k * stride) % n_hosts];

		build(mad, base + g, p->guid, count, j);
		if (sa_handle(sa, &from, mad, sizeof(mad), &out) < 0 ||
		    sa_get16(out.buf + 4))
			(*refused)++;
	}
	t0 = now() - t0;
	sa_out_free(&out);
	return t0 * 1e6 / joins;
}

int main(int argc, char **argv)
{
	uint32_t joins = argc > 2 ? (uint32_t)atoi(argv[2]) : 20000;
	char dir[] = "/tmp/join_cost.XXXXXX", kv[64], err[256], cmd[64];
	const char *ov[1] = {kv};
	static struct sm sm;
	struct fabric f;
	struct sa sa;
	unsigned rc_refused = 0, rs_refused = 0, ra_refused = 0;
	double coll, std, all;

	if (argc < 2 || sa_topo_build(&f, argv[1]) || !mkdtemp(dir))
		return 1;
	log_set_level(LOG_LVL_ERR);
	hosts = malloc(f.n_nodes * sizeof(*hosts));
	for (uint32_t i = 0; i < f.n_nodes; i++)
		if (!node_is_switch(f.nodes[i]) && f.nodes[i]->ports[1].lid)
			hosts[n_hosts++] = &f.nodes[i]->ports[1];
	snprintf(kv, sizeof(kv), "state_dir=%s", dir);
	if (config_build(&sm.cfg, NULL, ov, 1, err, sizeof(err)) ||
	    sd_event_new(&sm.ev) < 0)
		return 1;
	sm.fab = &f;
	if (hops_compute(&f, &sm.hops, NULL) || sa_init(&sa, &f, NULL))
		return 1;
	sa.sm.subnet_prefix = 0xfe80000000000000ull;
	if (mcg_init_sa(&sm, &sa))
		return 1;
	sm_publish(&sm, SM_EV_FABRIC_REPLACED, NULL); /* what a sweep does */
	coll = run(&sa, joins, 32, 32, 1, &rc_refused);
	std = run(&sa, joins / 4, 8, 0, 1u << 20, &rs_refused);
	all = run(&sa, n_hosts, n_hosts, 0, 1u << 28, &ra_refused);
	printf("%u hosts, %u nodes: collective join %.2f us (%u of %u "
	       "refused), standard join %.2f us (%u of %u refused), one "
	       "group of every host %.2f us (%u refused)\n",
	       n_hosts, f.n_nodes, coll, rc_refused, joins, std, rs_refused,
	       joins / 4, all, ra_refused);
	mcg_fini(&sm);
	sa_free(&sa);
	hops_free(&sm.hops);
	sm.ev = sd_event_unref(sm.ev);
	config_free(&sm.cfg);
	fabric_free(&f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : 0;
}

/* ibsmctl sa: an SA client over MADs (libibumad), for any SA:
 *   sa [--sm-lid LID] [--sm-key KEY] join MGID [--port-guid G]
 *      [--member-count N]
 *      [--join-state S] [--qkey Q] [--pkey P] [--sl SL] [--mask HEX]
 *   sa [--sm-lid LID] [--sm-key KEY] leave MGID [--port-guid G]
 *      [--join-state S]
 *   sa [--sm-lid LID] mcg-state [MGID]
 * MGID 0 (or ::) creates a group whose MGID the SA assigns.  A join sends
 * the components a create needs (Q_Key, P_Key, TClass, FlowLabel, SL),
 * --mask replaces the component mask (tests of invalid requests).
 * Prints the answer as "key value" lines; exit 0 on SA success, 1 on an
 * SA error status, 2 on a usage error, 3 when no answer came.  Under
 * ibsim, SIM_HOST=<node> makes the request come from that node. */
#include <arpa/inet.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mad/sa_client.h"
#include "mad/sa_mcm.h"

int ibsmctl_sa_main(int argc, char **argv);

#define C(x) (1ull << (x))

struct sa_opts {
	const char *cmd, *mgid;
	uint16_t sm_lid;
	uint64_t sm_key; /* SA header SM_Key: a trusted requester's */
	uint64_t port_guid, mask;
	bool mask_set;
	uint16_t member_count;
	bool mc_set;
	uint8_t join_state, sl;
	uint32_t qkey;
	uint16_t pkey;
};

static const char *status_name(unsigned s)
{
	static const char *const n[] = {"success",
					"ERR_NO_RESOURCES",
					"ERR_REQ_INVALID",
					"ERR_NO_RECORDS",
					"ERR_TOO_MANY_RECORDS",
					"ERR_REQ_INVALID_GID",
					"ERR_REQ_INSUFFICIENT_COMPONENTS",
					"ERR_REQ_DENIED"};
	return s < 8 ? n[s] : "ERR_UNKNOWN";
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ibsmctl sa [--sm-lid LID] [--sm-key KEY] join MGID "
		"[--port-guid G] "
		"[--member-count N] [--join-state S] [--qkey Q] [--pkey P] "
		"[--sl SL] [--mask HEX]\n"
		"       ibsmctl sa [--sm-lid LID] [--sm-key KEY] leave MGID "
		"[--port-guid G] "
		"[--join-state S]\n"
		"       ibsmctl sa [--sm-lid LID] mcg-state [MGID]\n");
}

static int parse(int argc, char **argv, struct sa_opts *o)
{
	int i = 1;

	o->join_state = SA_JOIN_FULL;
	o->pkey = 0xFFFF;
	for (; i + 1 < argc && !strncmp(argv[i], "--sm-", 5); i += 2)
		if (!strcmp(argv[i], "--sm-lid"))
			o->sm_lid = (uint16_t)strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--sm-key"))
			o->sm_key = strtoull(argv[i + 1], NULL, 16);
		else
			return -1;
	if (i >= argc)
		return -1;
	o->cmd = argv[i++];
	if (i < argc && argv[i][0] != '-')
		o->mgid = argv[i++];
	for (; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		unsigned long long x = strtoull(v, NULL, 0);

		if (!strcmp(k, "--port-guid"))
			o->port_guid = x;
		else if (!strcmp(k, "--member-count"))
			o->member_count = (uint16_t)x, o->mc_set = true;
		else if (!strcmp(k, "--join-state"))
			o->join_state = (uint8_t)x;
		else if (!strcmp(k, "--qkey"))
			o->qkey = (uint32_t)x;
		else if (!strcmp(k, "--pkey"))
			o->pkey = (uint16_t)x;
		else if (!strcmp(k, "--sl"))
			o->sl = (uint8_t)x;
		else if (!strcmp(k, "--mask"))
			o->mask = strtoull(v, NULL, 16), o->mask_set = true;
		else
			return -1;
	}
	if (i != argc)
		return -1;
	if (strcmp(o->cmd, "mcg-state") && !o->mgid)
		return -1;
	return 0;
}

static int parse_mgid(const char *s, uint8_t m[16])
{
	memset(m, 0, 16);
	if (!strcmp(s, "0"))
		return 0;
	return inet_pton(AF_INET6, s, m) == 1 ? 0 : -1;
}

static void print_mgid(const char *k, const uint8_t m[16])
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, m, s, sizeof(s));
	printf("%s %s\n", k, s);
}

/* The MCMemberRecord of a join or leave and its component mask. */
static uint64_t build_mcm(const struct sa_opts *o, const umad_port_t *port,
			  struct sa_mcm_rec *rp)
{
	struct sa_mcm_rec r = {.qkey = o->qkey,
			       .pkey = o->pkey,
			       .sl = o->sl,
			       .join_state = o->join_state,
			       .member_count = o->member_count};

	parse_mgid(o->mgid, r.mgid);
	sa_put64(r.port_gid, be64toh(port->gid_prefix));
	sa_put64(r.port_gid + 8,
		 o->port_guid ? o->port_guid : be64toh(port->port_guid));
	*rp = r;
	if (o->mask_set)
		return o->mask;
	if (strcmp(o->cmd, "join"))
		return C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) |
		       C(SA_MCMR_JOIN_STATE);
	return C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE) |
	       C(SA_MCMR_QKEY) | C(SA_MCMR_PKEY) | C(SA_MCMR_TCLASS) |
	       C(SA_MCMR_FLOW) | C(SA_MCMR_SL) |
	       (o->mc_set ? C(SA_MCMR_MEMBER_COUNT) : 0);
}

static void print_mcm(const uint8_t *rec)
{
	struct sa_mcm_rec r;

	sa_rec_decode(&sa_mcm_rec_desc, rec, sa_mcm_rec_desc.size, &r);
	print_mgid("mgid", r.mgid);
	print_mgid("port_gid", r.port_gid);
	printf("mlid 0x%04x\nqkey 0x%08x\npkey 0x%04x\nmtu %u\nrate %u\n"
	       "sl %u\njoin_state 0x%x\nproxy_join %u\nmember_count %u\n",
	       r.mlid, r.qkey, r.pkey, r.mtu, r.rate, r.sl, r.join_state,
	       r.proxy_join, r.member_count);
}

static void print_state(const uint8_t *rec)
{
	static const char *const st[] = {
	    "?",     "ReceivingJoinReq",  "ComputingRoutes",
	    "Ready", "ReceivingLeaveReq", "Destroying"};
	struct sa_mcgstate_rec r;

	sa_rec_decode(&sa_mcgstate_rec_desc, rec, sa_mcgstate_rec_desc.size,
		      &r);
	print_mgid("mgid", r.mgid);
	printf("mlid 0x%04x\nstate %s\nmember_count %u\njoined %u\nleft %u\n"
	       "tree_groups %u\ntree_height %u\n",
	       r.mlid, r.state <= 5 ? st[r.state] : "?", r.member_count,
	       r.joined_count, r.left_count, r.tree_groups, r.tree_height);
}

/* Sends the request; 0, or 3 when no answer came (message printed). */
static int send_request(const struct sa_opts *o, struct sa_client *c,
			bool state)
{
	if (state) {
		struct sa_mcgstate_rec r = {0};

		if (o->mgid)
			parse_mgid(o->mgid, r.mgid);
		sa_client_build(c,
				o->mgid ? SA_METHOD_GET : SA_METHOD_GET_TABLE,
				SA_ATTR_MCGSTATE_REC,
				o->mgid ? C(SA_MCGS_MGID) : 0,
				&sa_mcgstate_rec_desc, &r);
	} else {
		struct sa_mcm_rec r;
		uint64_t mask = build_mcm(o, &c->port, &r);

		sa_client_build(c,
				!strcmp(o->cmd, "join") ? SA_METHOD_SET
							: SA_METHOD_DELETE,
				SA_ATTR_MCMEMBER_REC, mask, &sa_mcm_rec_desc,
				&r);
	}
	sa_put64(sa_client_mad(c) + 36, o->sm_key); /* SA header SM_Key */
	if (sa_client_transact(c, o->sm_lid) < 0) {
		fprintf(stderr, "ibsmctl sa: no answer from the SA at LID %u\n",
			o->sm_lid ? o->sm_lid : c->port.sm_lid);
		return 3;
	}
	return 0;
}

static int run(const struct sa_opts *o, struct sa_client *c)
{
	bool state = !strcmp(o->cmd, "mcg-state");
	uint8_t *m = sa_client_mad(c);
	struct sa_hdr a;
	unsigned code;

	if (send_request(o, c, state))
		return 3;
	sa_hdr_decode(&a, m, SA_MAD_SIZE);
	code = (a.status >> 8) & 0x7F;
	printf("status 0x%04x %s\n", a.status,
	       a.status & 0xFF ? "MAD_ERROR" : status_name(code));
	if (a.status)
		return 1;
	for (unsigned off = SA_HDR_SIZE, n = 0;
	     off + (state ? sa_mcgstate_rec_desc.size : sa_mcm_rec_desc.size) <=
	     SA_MAD_SIZE;
	     off += a.attr_offset ? a.attr_offset * 8u : SA_MAD_SIZE, n++) {
		if (n && (a.method != SA_METHOD_GET_TABLE_RESP ||
			  (!sa_get64(m + off) && !sa_get64(m + off + 8))))
			break; /* zero MGID: padding */
		if (state)
			print_state(m + off);
		else
			print_mcm(m + off);
	}
	return 0;
}

int ibsmctl_sa_main(int argc, char **argv)
{
	struct sa_opts o = {0};
	struct sa_client c;
	int rc;

	if (parse(argc, argv, &o) < 0 ||
	    (strcmp(o.cmd, "join") && strcmp(o.cmd, "leave") &&
	     strcmp(o.cmd, "mcg-state"))) {
		usage();
		return 2;
	}
	if (o.mgid) {
		uint8_t tmp[16];
		if (parse_mgid(o.mgid, tmp) < 0) {
			fprintf(stderr, "ibsmctl sa: bad MGID '%s'\n", o.mgid);
			return 2;
		}
	}
	if (sa_client_open(&c) < 0) {
		fprintf(stderr, "ibsmctl sa: no umad port (is an HCA or "
				"ibsim's libumad2sim there?)\n");
		return 3;
	}
	rc = run(&o, &c);
	sa_client_close(&c);
	return rc;
}

/* Sends malformed or unusual SA requests to the SM's SA and prints what
 * came back, one line per case: "CASE status 0xNNNN" or "CASE dropped"
 * (no answer within the timeout).  For comparing SAs (ibsmd, OpenSM) on
 * requests the IBA says must be answered with an error, or dropped:
 *   sa_raw [-t TIMEOUT_MS] CASE...     (sa_raw -l lists the cases)
 * With "fuzz:N:SEED", sends N requests mutated from the well-formed ones
 * (random methods, attributes, modifiers, component masks, record bytes,
 * RMPP header bytes, bit flips) and prints how many were answered.
 * With "mpr:SRC,...:DST,..." (port GUIDs), sends a MultiPathRecord
 * GetMulti (one RMPP segment) and prints "mpr status 0xNNNN records N"
 * and the SLID, DLID and P_Key of each PathRecord answered (of the first
 * three: ibsim passes one MAD). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>

#include "mad/sa_mad.h"
#include "mad/sa_wire.h"

#define C(x) (1ull << (x))

static int fd, agent, timeout_ms = 1000;
static umad_port_t port;
static uint64_t next_tid = 0x72610000;

struct sa_case {
	const char *name;
	uint8_t method, class_version;
	uint16_t attr;
	uint64_t comp;
	uint8_t rmpp_flags, rmpp_type;
	void (*fill)(uint8_t *rec); /* record bytes, may be NULL */
	const char *what;
};

static void own_gid(uint8_t *b)
{
	sa_put64(b, be64toh(port.gid_prefix));
	sa_put64(b + 8, be64toh(port.port_guid));
}

static void nr_lid_none(uint8_t *r)
{
	sa_put16(r, 0xbfff);
}
static void pr_sgid(uint8_t *r)
{
	own_gid(r + 24);
}
static void pr_gids(uint8_t *r)
{
	own_gid(r + 8);
	own_gid(r + 24);
}
static void mcm_mgid_port(uint8_t *r)
{
	static const uint8_t mgid[16] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff,
					 0,    0,    0,	   0,	 0,    0,
					 0,    0,    0x7a, 0x01};
	memcpy(r, mgid, 16);
	own_gid(r + 16);
}

/* SA attribute IDs and MAD methods by number: the point is the raw wire. */
static const struct sa_case cases[] = {
    {"unknown_attr", 0x01, 2, 0x00fe, 0, 0, 0, NULL,
     "Get of an attribute the SA does not have"},
    {"unknown_method", 0x03, 2, 0x0011, 0, 0, 0, NULL,
     "method Send on NodeRecord"},
    {"set_noderecord", 0x02, 2, 0x0011, 0, 0, 0, NULL,
     "Set of NodeRecord (read-only)"},
    {"bad_class_version", 0x01, 1, 0x0011, 0, 0, 0, NULL,
     "NodeRecord Get with class version 1"},
    {"rmpp_ack", 0x12, 2, 0x0011, 0, 1, 2, NULL,
     "an RMPP ACK for a transfer that never was"},
    {"get_many", 0x01, 2, 0x0011, 0, 0, 0, NULL,
     "NodeRecord Get matching every node"},
    {"get_none", 0x01, 2, 0x0011, C(0), 0, 0, nr_lid_none,
     "NodeRecord Get of LID 0xbfff"},
    {"path_no_dest", 0x01, 2, 0x0035, C(3), 0, 0, pr_sgid,
     "PathRecord Get with a source and no destination"},
    {"path_half_serviceid", 0x01, 2, 0x0035, C(0) | C(2) | C(3), 0, 0, pr_gids,
     "PathRecord Get with ServiceID MSB but not LSB"},
    {"join_no_joinstate", 0x02, 2, 0x0038, C(0) | C(1), 0, 0, mcm_mgid_port,
     "MCMemberRecord join with MGID and PortGID only"},
    {"comp_mask_beyond", 0x12, 2, 0x0011, C(60), 0, 0, NULL,
     "NodeRecord GetTable with a component bit beyond the record"},
    {"sr_delete_none", 0x15, 2, 0x0031, 0, 0, 0, NULL,
     "ServiceRecord Delete matching nothing"},
    {NULL, 0, 0, 0, 0, 0, 0, NULL, NULL},
};

static void build(const struct sa_case *c, uint8_t *m)
{
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = SA_MGMT_CLASS,
			   .class_version = c->class_version,
			   .method = c->method,
			   .attr_id = c->attr,
			   .comp_mask = c->comp,
			   .rmpp_version = c->rmpp_flags ? 1 : 0,
			   .rmpp_flags = c->rmpp_flags,
			   .rmpp_type = c->rmpp_type,
			   .tid = next_tid++};

	memset(m, 0, SA_MAD_SIZE);
	sa_hdr_encode(&h, m);
	if (c->fill)
		c->fill(m + SA_HDR_SIZE);
}

/* Sends the MAD in umad; -1 if no answer with its TID came back. */
static int exchange(void *umad, uint16_t *status)
{
	uint8_t *m = umad_get_mad(umad);
	/* the low 32 bits: the high ones are the agent's (umad rewrites them)
	 */
	uint32_t tid = sa_get32(m + 12);
	int len;

	umad_set_addr(umad, port.sm_lid, 1, 0, 0x80010000);
	if (umad_send(fd, agent, umad, SA_MAD_SIZE, 0, 0) < 0)
		return -1;
	for (;;) {
		len = SA_MAD_SIZE;
		if (umad_recv(fd, umad, &len, timeout_ms) < 0)
			return -1;
		if (umad_status(umad) == 0 && sa_get32(m + 12) == tid)
			break;
	}
	*status = sa_get16(m + 4);
	return 0;
}

static int run_case(const struct sa_case *c, void *umad)
{
	uint16_t st;

	build(c, umad_get_mad(umad));
	if (exchange(umad, &st) < 0)
		printf("%s dropped\n", c->name);
	else
		printf("%s status 0x%04x\n", c->name, st);
	return 0;
}

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/* One of the well-formed requests, then one kind of mutation. */
static void mutate(uint8_t *m, uint64_t *s)
{
	static const uint16_t attrs[] = {
	    0x0011, 0x0012, 0x0014, 0x0015, 0x0016, 0x0018, 0x0020, 0x0031,
	    0x0033, 0x0035, 0x0038, 0x0030, 0x0001, 0x00fe, 0x003a};
	static const uint8_t methods[] = {0x01, 0x02, 0x12, 0x15, 0x03, 0x14};
	struct sa_case c = cases[5];

	c.attr = attrs[rnd(s) % (sizeof(attrs) / 2)];
	c.method = methods[rnd(s) % sizeof(methods)];
	c.comp = (uint64_t)rnd(s) << 32 | rnd(s);
	c.comp &= rnd(s) % 2 ? 0xff : ~0ull;
	build(&c, m);
	for (unsigned i = 0; i < 8; i++)
		m[SA_HDR_SIZE + rnd(s) % SA_DATA_SIZE] = (uint8_t)rnd(s);
	switch (rnd(s) % 4) {
	case 0: /* RMPP header bytes */
		m[24 + rnd(s) % 12] = (uint8_t)rnd(s);
		break;
	case 1: /* attribute modifier */
		sa_put32(m + 20, rnd(s));
		break;
	case 2: /* a bit flip anywhere past the TID */
		m[16 + rnd(s) % (SA_MAD_SIZE - 16)] ^=
		    (uint8_t)(1u << (rnd(s) % 8));
		break;
	default:
		break;
	}
	sa_put64(m + 8, next_tid++);
}

/* GUIDs of a comma-separated list into gids (fe80:: prefix); count. */
static unsigned parse_gids(char *list, uint8_t *gids, unsigned room)
{
	unsigned n = 0;

	for (char *t = strtok(list, ","); t && n < room;
	     t = strtok(NULL, ",")) {
		sa_put64(gids + 16 * n, 0xfe80000000000000ull);
		sa_put64(gids + 16 * n + 8, strtoull(t, NULL, 16));
		n++;
	}
	return n;
}

static int run_mpr(const char *spec, void *umad)
{
	uint8_t *m = umad_get_mad(umad), *rec = m + SA_HDR_SIZE;
	char buf[512], *dst;
	struct sa_case c = {"mpr", 0x14, 2,    0x003a, C(19) | C(20),
			    0x07,  1,	 NULL, NULL};
	unsigned ns, nd, n;
	uint16_t st;

	snprintf(buf, sizeof(buf), "%s", spec + 4);
	dst = strchr(buf, ':');
	if (!dst)
		return fprintf(stderr, "sa_raw: mpr:SRC,..:DST,..\n"), 2;
	*dst++ = '\0';
	build(&c, m);
	ns = parse_gids(buf, rec + 24, 11);
	nd = parse_gids(dst, rec + 24 + 16 * ns, 11 - ns);
	rec[15] = (uint8_t)ns;
	rec[16] = (uint8_t)nd;
	sa_put32(m + 28, 1);			    /* RMPP SegmentNumber */
	sa_put32(m + 32, 20 + 24 + 16 * (ns + nd)); /* PayloadLength */
	if (exchange(umad, &st) < 0) {
		printf("mpr dropped\n");
		return 0;
	}
	/* ibsim delivers an answer's first MAD only (3 PathRecords), and
	 * OpenSM's RMPP header under it still holds the request's length:
	 * the records are counted as the slots holding a path (an SLID) */
	for (n = 0;
	     !st && n < SA_DATA_SIZE / 64 && sa_get16(rec + 64 * n + 42);)
		n++;
	printf("mpr status 0x%04x records %u\n", st, n);
	for (unsigned i = 0; i < n; i++)
		printf("path slid %u dlid %u pkey 0x%04x sl %u\n",
		       sa_get16(rec + 64 * i + 42), sa_get16(rec + 64 * i + 40),
		       sa_get16(rec + 64 * i + 50),
		       sa_get16(rec + 64 * i + 52) & 0xfu); /* QoSClass|SL */
	return 0;
}

static int run_fuzz(const char *spec, void *umad)
{
	unsigned n = 0, answered = 0, dropped = 0;
	uint64_t seed = 1;
	uint16_t st;

	sscanf(spec, "fuzz:%u:%lu", &n, &seed);
	for (unsigned i = 0; i < n; i++) {
		mutate(umad_get_mad(umad), &seed);
		if (exchange(umad, &st) < 0)
			dropped++;
		else
			answered++;
	}
	printf("fuzz sent %u answered %u dropped %u\n", n, answered, dropped);
	return 0;
}

int main(int argc, char **argv)
{
	void *umad;
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "-l")) {
		for (const struct sa_case *c = cases; c->name; c++)
			printf("%s\t%s\n", c->name, c->what);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "-t")) {
		timeout_ms = atoi(argv[2]);
		i = 3;
	}
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 ||
	    (fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, SA_MGMT_CLASS, SA_CLASS_VERSION, 0,
				   NULL)) < 0) {
		fprintf(stderr, "sa_raw: cannot open a umad port\n");
		return 1;
	}
	umad = calloc(1, umad_size() + SA_MAD_SIZE);
	for (; i < argc; i++) {
		const struct sa_case *c = cases;

		if (!strncmp(argv[i], "fuzz:", 5)) {
			run_fuzz(argv[i], umad);
			continue;
		}
		if (!strncmp(argv[i], "mpr:", 4)) {
			run_mpr(argv[i], umad);
			continue;
		}
		while (c->name && strcmp(c->name, argv[i]))
			c++;
		if (!c->name) {
			fprintf(stderr, "sa_raw: no case %s (-l lists them)\n",
				argv[i]);
			return 2;
		}
		run_case(c, umad);
	}
	free(umad);
	umad_close_port(fd);
	return 0;
}

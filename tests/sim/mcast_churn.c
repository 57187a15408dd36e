/* Multicast churn against an SA, from one simulated node with proxy joins
 * (ibsim allows few clients; a proxy join lets one client act for every
 * port):  mcast_churn CYCLES GROUPS PORTGUID...
 * A cycle is one port joining one of GROUPS standard groups
 * (ff12:601b:ffff::c0:N) with JoinState FullMember, SendOnlyFullMember or
 * both, then leaving it again later; a port holding both bits leaves in
 * two steps (SendOnlyFullMember first: the partial leave that leaks MLIDs
 * in OpenSM).  Up to a quarter of the ports are members at a time.  Every
 * answer is checked (status, JoinState); at the end every membership is
 * left.  Prints "cycles N joins J leaves L seconds S" and exits 0, or 1 at
 * the first wrong answer.
 * With GROUPS 0, every cycle creates a fresh group (ff12:601b:ffff::c1:N)
 * by a join with FullMember + SendOnlyFullMember, leaves SendOnlyFullMember
 * (partial), then FullMember (the group is deleted): an SA that leaks the
 * MLID on the partial leave runs out of MLIDs within the MFT size. */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/sa_client.h"
#include "mad/sa_mcm.h"

#define C(x) (1ull << (x))

static struct sa_client sac;

/* One Set (join) or Delete (leave); returns the answer's JoinState, or -1
 * on an error status or no answer. */
static int request(uint8_t method, uint32_t group, uint64_t guid, uint8_t js)
{
	/* Q_Key of the IPoIB broadcast group: OpenSM gives ff12:601b:: groups
	 * the broadcast group's parameters and refuses another Q_Key. */
	struct sa_mcm_rec r = {
	    .pkey = 0xFFFF, .join_state = js, .qkey = 0x0B1B};
	uint64_t mask =
	    C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE);
	int st;

	r.mgid[0] = 0xff;
	r.mgid[1] = 0x12;
	r.mgid[2] = 0x60;
	r.mgid[3] = 0x1b;
	r.mgid[4] = r.mgid[5] = 0xff;
	r.mgid[13] = group >> 16 ? 0xc1 : 0xc0;
	sa_put16(r.mgid + 14, (uint16_t)group);
	sa_put64(r.port_gid, be64toh(sac.port.gid_prefix));
	sa_put64(r.port_gid + 8, guid);
	if (method == SA_METHOD_SET)
		mask |= C(SA_MCMR_QKEY) | C(SA_MCMR_PKEY) | C(SA_MCMR_TCLASS) |
			C(SA_MCMR_FLOW) | C(SA_MCMR_SL);
	sa_client_build(&sac, method, SA_ATTR_MCMEMBER_REC, mask,
			&sa_mcm_rec_desc, &r);
	st = sa_client_transact(&sac, 0);
	if (st < 0) {
		fprintf(stderr, "mcast_churn: no answer\n");
		return -1;
	}
	if (st) {
		fprintf(stderr,
			"mcast_churn: %s group %u port 0x%llx js %u: "
			"status 0x%04x\n",
			method == SA_METHOD_SET ? "join" : "leave", group,
			(unsigned long long)guid, js, st);
		return -1;
	}
	sa_rec_decode(&sa_mcm_rec_desc, sa_client_mad(&sac) + SA_HDR_SIZE,
		      sa_mcm_rec_desc.size, &r);
	return r.join_state;
}

/* Leaves membership (group, port) holding bits js; 0 or -1. */
static int leave(uint32_t g, uint64_t guid, uint8_t js)
{
	if (js == 9) { /* SendOnlyFullMember partial leave first */
		if (request(SA_METHOD_DELETE, g, guid, 8) != 1)
			return -1;
		js = 1;
	}
	return request(SA_METHOD_DELETE, g, guid, js) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const uint8_t states[] = {1, 8, 9};
	uint32_t cycles, groups, np, live = 0, joins = 0, leaves = 0;
	uint64_t *guid;
	uint8_t *js; /* [port * groups + group] */
	struct timespec t0, t1;

	if (argc < 4) {
		fprintf(stderr,
			"usage: mcast_churn CYCLES GROUPS PORTGUID...\n");
		return 2;
	}
	cycles = (uint32_t)strtoul(argv[1], NULL, 0);
	groups = (uint32_t)strtoul(argv[2], NULL, 0);
	np = (uint32_t)(argc - 3);
	guid = calloc(np, sizeof(*guid));
	js = calloc((size_t)np * groups, 1);
	for (uint32_t i = 0; i < np; i++)
		guid[i] = strtoull(argv[3 + i], NULL, 0);
	if (sa_client_open(&sac) < 0) {
		fprintf(stderr, "mcast_churn: cannot open a umad port\n");
		return 1;
	}
	if (!groups) { /* fresh group per cycle */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (uint32_t i = 0; i < cycles; i++) {
			uint32_t g = 0x10000 | i;
			if (request(SA_METHOD_SET, g, guid[i % np], 9) != 9 ||
			    leave(g, guid[i % np], 9) < 0) {
				printf("failed_at_cycle %u\n", i);
				return 1;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("cycles %u joins %u leaves %u seconds %.2f\n", cycles,
		       cycles, 2 * cycles,
		       (double)(t1.tv_sec - t0.tv_sec) +
			   (t1.tv_nsec - t0.tv_nsec) / 1e9);
		return 0;
	}
	srand(42);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (leaves < cycles) {
		uint32_t p = (uint32_t)rand() % np,
			 g = (uint32_t)rand() % groups;
		uint8_t *s = &js[(size_t)p * groups + g];

		if (!*s && live < np * groups / 4 + 1 && joins < cycles) {
			uint8_t want = states[rand() % 3];
			if (request(SA_METHOD_SET, g, guid[p], want) != want) {
				printf(
				    "failed_at_cycle %u joins %u leaves %u\n",
				    leaves, joins, leaves);
				return 1;
			}
			*s = want;
			live++;
			joins++;
		} else if (*s) {
			if (leave(g, guid[p], *s) < 0) {
				printf(
				    "failed_at_cycle %u joins %u leaves %u\n",
				    leaves, joins, leaves);
				return 1;
			}
			*s = 0;
			live--;
			leaves++;
		}
	}
	for (uint32_t i = 0; i < np * groups; i++)
		if (js[i] && leave(i % groups, guid[i / groups], js[i]) < 0)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("cycles %u joins %u leaves %u seconds %.2f\n", leaves, joins,
	       leaves,
	       (double)(t1.tv_sec - t0.tv_sec) +
		   (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}

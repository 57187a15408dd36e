/* Join benchmark client for any SA (ibsmd or OpenSM), from one simulated
 * node with proxy joins:
 *   mcast_joins [--wait-ready] [--leave-after] [--acked ACKFILE] FILE
 * FILE lines are "MGID PORTGUID MEMBERCOUNT" (MEMBERCOUNT 0: a standard
 * join, without the MemberCount component).  Joins are sent one at a
 * time, in file order; each answer's latency is measured.  --wait-ready
 * then polls MCGStateRecord (ibsmd) of every group until all are Ready.
 * --acked ACKFILE appends "MGID PORTGUID" to ACKFILE (flushed) as each
 * join is acknowledged, for the crash tests.  --leave-after then leaves
 * every group it joined (not timed), so repeated runs start from the same
 * groups.  SIGTERM stops the joins and ends with the usual printout
 * and a normal exit, so libumad2sim gives the client's slot back to
 * ibsim (a killed client keeps its own; ibsim has 10).
 * Prints "key value" lines: joins, ok, refused, busy (MAD status BUSY),
 * status_N counts (SA status codes; BUSY counts under 0),
 * groups_created (distinct MGIDs with a successful join), seconds,
 * joins_per_s, median_ms, p99_ms, last_join_epoch (CLOCK_REALTIME of the
 * last answer), ready_ms (last answer -> all Ready). */
#include <arpa/inet.h>
#include <endian.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/sa_client.h"
#include "mad/sa_mcm.h"

#define C(x)		     (1ull << (x))
#define MAXJ		     200000
#define MAD_STATUS_BUSY_WORD 0x0001 /* MAD status: busy, retry later */

struct job {
	uint8_t mgid[16];
	uint64_t guid;
	uint16_t n;
};

static struct sa_client sac;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}
static uint16_t last_mlid;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int join_or_leave(const struct job *j, uint8_t method)
{
	/* Q_Key of the IPoIB broadcast group: OpenSM gives ff12:601b:: (IPoIB
	 * signature) groups the broadcast group's parameters and refuses any
	 * other Q_Key. */
	struct sa_mcm_rec r = {.pkey = 0xFFFF,
			       .join_state = SA_JOIN_FULL,
			       .member_count = j->n,
			       .qkey = 0x0B1B};
	int st;

	memcpy(r.mgid, j->mgid, 16);
	sa_put64(r.port_gid, be64toh(sac.port.gid_prefix));
	sa_put64(r.port_gid + 8, j->guid);
	sa_client_build(&sac, method, SA_ATTR_MCMEMBER_REC,
			C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) |
			    C(SA_MCMR_JOIN_STATE) | C(SA_MCMR_QKEY) |
			    C(SA_MCMR_PKEY) | C(SA_MCMR_TCLASS) |
			    C(SA_MCMR_FLOW) | C(SA_MCMR_SL) |
			    (j->n ? C(SA_MCMR_MEMBER_COUNT) : 0),
			&sa_mcm_rec_desc, &r);
	st = sa_client_transact(&sac, 0);
	if (st == 0 && method == SA_METHOD_SET)
		last_mlid = sa_get16(sa_client_mad(&sac) + SA_HDR_SIZE + 36);
	return st < 0 ? -1 : st;
}

static int join(const struct job *j)
{
	return join_or_leave(j, SA_METHOD_SET);
}

/* MCGStateRecord state of mgid, or -1. */
static int state_of(const uint8_t mgid[16])
{
	struct sa_mcgstate_rec r = {0};

	memcpy(r.mgid, mgid, 16);
	sa_client_build(&sac, SA_METHOD_GET, SA_ATTR_MCGSTATE_REC,
			C(SA_MCGS_MGID), &sa_mcgstate_rec_desc, &r);
	if (sa_client_transact(&sac, 0) != 0)
		return -1;
	sa_rec_decode(&sa_mcgstate_rec_desc, sa_client_mad(&sac) + SA_HDR_SIZE,
		      sa_mcgstate_rec_desc.size, &r);
	return r.state;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int seen_before(const struct job *j, uint32_t i)
{
	for (uint32_t k = 0; k < i; k++)
		if (!memcmp(j[k].mgid, j[i].mgid, 16))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct job jobs[MAXJ];
	static double lat[MAXJ];
	static uint8_t okg[MAXJ];
	static unsigned st_count[256];
	int wait_ready = 0, leave_after = 0;
	FILE *acked = NULL;
	FILE *fp = fopen(argv[argc - 1], "r");
	uint32_t n = 0, ok = 0, groups = 0, busy = 0;
	char mg[64];
	unsigned long long g;
	unsigned cnt;
	double t0, t1, ready = -1;
	struct timespec wall;

	for (int a = 1; a + 1 < argc; a++) {
		wait_ready |= !strcmp(argv[a], "--wait-ready");
		leave_after |= !strcmp(argv[a], "--leave-after");
		if (a + 2 < argc && !strcmp(argv[a], "--acked") &&
		    !(acked = fopen(argv[a + 1], "a")))
			perror(argv[a + 1]);
	}
	if (argc < 2 || !fp) {
		fprintf(stderr,
			"usage: mcast_joins [--wait-ready] [--leave-after] "
			"[--acked ACKFILE] FILE\n");
		return 2;
	}
	while (n < MAXJ && fscanf(fp, "%63s %llx %u", mg, &g, &cnt) == 3)
		if (inet_pton(AF_INET6, mg, jobs[n].mgid) == 1) {
			jobs[n].guid = g;
			jobs[n++].n = (uint16_t)cnt;
		}
	fclose(fp);
	if (sa_client_open(&sac) < 0) {
		fprintf(stderr, "mcast_joins: cannot open a umad port\n");
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	t0 = now();
	for (uint32_t i = 0; i < n && !stop; i++) {
		double a = now();
		int st = join(&jobs[i]);
		lat[i] = (now() - a) * 1e3;
		st_count[st < 0 ? 255 : (st >> 8) & 0x7F]++;
		busy += st == MAD_STATUS_BUSY_WORD;
		if (st == 0) {
			ok++;
			okg[i] = 1;
			if (acked) {
				char txt[64];
				inet_ntop(AF_INET6, jobs[i].mgid, txt,
					  sizeof(txt));
				fprintf(acked, "%s 0x%016llx\n", txt,
					(unsigned long long)jobs[i].guid);
				fflush(acked);
			}
		}
	}
	t1 = now();
	for (uint32_t i = 0; i < n; i++) {
		int first = okg[i];
		for (uint32_t k = 0; k < i && first; k++)
			if (okg[k] && !memcmp(jobs[k].mgid, jobs[i].mgid, 16))
				first = 0;
		groups += first;
	}
	clock_gettime(CLOCK_REALTIME, &wall);
	if (wait_ready) {
		for (uint32_t i = 0; i < n && ready != -2; i++) {
			if (!okg[i] || seen_before(jobs, i))
				continue;
			while (state_of(jobs[i].mgid) != 3)
				if (now() - t1 > 30) {
					ready = -2;
					break;
				}
		}
		if (ready != -2)
			ready = (now() - t1) * 1e3;
	}
	for (uint32_t i = 0; leave_after && i < n; i++)
		if (okg[i] && !seen_before(jobs, i))
			join_or_leave(&jobs[i], SA_METHOD_DELETE);
	qsort(lat, n, sizeof(*lat), cmp_d);
	printf("joins %u\nok %u\nrefused %u\nbusy %u\n", n, ok, n - ok, busy);
	for (unsigned s = 0; s < 256; s++)
		if (st_count[s])
			printf("status_%s%u %u\n", s == 255 ? "noanswer" : "",
			       s == 255 ? 0 : s, st_count[s]);
	printf("groups_created %u\nseconds %.3f\njoins_per_s %.0f\n"
	       "median_ms %.3f\np99_ms %.3f\nlast_join_epoch %ld.%09ld\n",
	       groups, t1 - t0, n / (t1 - t0), n ? lat[n / 2] : 0,
	       n ? lat[(size_t)(n * 0.99)] : 0, (long)wall.tv_sec,
	       wall.tv_nsec);
	printf("last_mlid 0x%04x\n", last_mlid);
	if (wait_ready)
		printf("ready_ms %.1f\n", ready);
	return 0;
}

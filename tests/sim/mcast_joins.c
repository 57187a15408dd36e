/* Join benchmark client for any SA (ibsmd or OpenSM), from one simulated
 * node with proxy joins:
 *   mcast_joins [-w WINDOW] [-T TIMEOUT_MS] [--wait-ready]
 *               [--ready-timeout S] [--leave-after] [--leave-all]
 *               [--retry-busy] [--leave-only] [--acked ACKFILE] FILE
 * FILE lines are "MGID PORTGUID MEMBERCOUNT" (MEMBERCOUNT 0: a standard
 * join, without the MemberCount component).  Joins go in file order with
 * WINDOW of them outstanding at once (default 1: one at a time), as the
 * processes of a job send theirs; each answer's latency is measured.  A
 * join with no answer after TIMEOUT_MS (default 10000) is sent again
 * (counted as a retry), up to 3 tries; with --retry-busy a BUSY answer
 * is sent again too (else it is final, counted under busy).
 * --wait-ready then asks MCGStateRecord (ibsmd) of every group, WINDOW at
 * a time and again for those not Ready, until all are Ready or
 * --ready-timeout seconds (default 30) pass.
 * --acked ACKFILE appends "MGID PORTGUID" to ACKFILE (flushed) as each
 * join is acknowledged, for the crash tests.  --leave-after then leaves
 * every group once (its first line; not timed), so repeated runs start
 * from the same groups; --leave-all leaves every line, as the end of a
 * job does, timed like the joins (leave_* keys); --leave-only sends only
 * those leaves (of joins an earlier run made).  SIGTERM stops the joins
 * and ends with the usual printout and a normal exit, so libumad2sim
 * gives the client's slot back to ibsim (a killed client keeps its own;
 * ibsim has 10).
 * Prints "key value" lines: joins, ok, refused, busy (BUSY answers),
 * retries, status_N counts (SA status codes; BUSY counts under 0),
 * groups_created (distinct MGIDs with a successful join), seconds,
 * joins_per_s, median_ms, p99_ms, last_join_epoch (CLOCK_REALTIME of the
 * last answer), last_mlid, ready_ms (last answer -> all Ready), and with
 * --leave-all leaves, leaves_ok, leave_seconds, leaves_per_s,
 * leave_p99_ms, last_leave_epoch. */
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
#define MAXJ		     2000000
#define MAX_WIN		     1024
#define MAX_TRIES	     3
#define MAD_STATUS_BUSY_WORD 0x0001 /* MAD status: busy, retry later */
#define MCG_READY	     3

struct job {
	uint8_t mgid[16];
	uint64_t guid;
	uint16_t n;
	uint8_t ok;    /* joined */
	uint8_t first; /* the first line of its MGID */
};

/* One request in flight: which item, its TID, when and how often sent. */
struct slot {
	uint64_t tid;
	double sent, first;
	double due; /* > 0: to be sent again then (a state query) */
	uint32_t item;
	unsigned tries;
	int busy;
};

/* A phase sends one request per item (a join, a leave, a state query),
 * `win` at a time; done() gets each item's answer (status, or -1 when
 * every try went unanswered) and returns 1 when the item is finished,
 * 0 to send it again later (a state query of a group not Ready yet). */
struct phase {
	uint8_t method;
	uint32_t n;
	const uint32_t *items; /* indexes into jobs */
	int (*done)(struct phase *ph, uint32_t item, int status, double ms);
	double *lat;
	uint32_t n_lat;
	double end; /* > 0: the phase gives up then */
};

/* A group not Ready yet is asked again this much later. */
#define REASK_S 0.01

static struct sa_client sac;
static volatile sig_atomic_t stop;
static struct job *jobs;
static int win = 1, timeout_ms = 10000, retry_busy;
static uint16_t last_mlid;
static unsigned st_count[256], busy, retries;
static FILE *acked;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The request for item i into the client's MAD, with a fresh TID. */
static void build(uint8_t method, uint32_t i)
{
	const struct job *j = &jobs[i];
	/* Q_Key of the IPoIB broadcast group: OpenSM gives ff12:601b:: (IPoIB
	 * signature) groups the broadcast group's parameters and refuses any
	 * other Q_Key. */
	struct sa_mcm_rec r = {.pkey = 0xFFFF,
			       .join_state = SA_JOIN_FULL,
			       .member_count = j->n,
			       .qkey = 0x0B1B};
	struct sa_mcgstate_rec s = {0};

	if (method == SA_METHOD_GET) {
		memcpy(s.mgid, j->mgid, 16);
		sa_client_build(&sac, SA_METHOD_GET, SA_ATTR_MCGSTATE_REC,
				C(SA_MCGS_MGID), &sa_mcgstate_rec_desc, &s);
		return;
	}
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
}

static int send_slot(const struct phase *ph, struct slot *s)
{
	build(ph->method, s->item);
	s->tid = sac.tid;
	s->sent = now();
	s->tries++;
	s->busy = 1;
	/* no umad resend: this client times out and resends itself */
	return sa_client_send(&sac, 0, timeout_ms);
}

/* The slot whose request has this TID's low 32 bits (ibsim rewrites the
 * high ones), or NULL. */
static struct slot *slot_of(struct slot *sl, uint32_t tid)
{
	for (int i = 0; i < win; i++)
		if (sl[i].busy && (uint32_t)sl[i].tid == tid)
			return &sl[i];
	return NULL;
}

/* An answer (or a umad error) came for s: finish it or send it again. */
static int answered(struct phase *ph, struct slot *s, int status)
{
	double t = now();

	s->busy = 0;
	if (status == MAD_STATUS_BUSY_WORD)
		busy++;
	if (status == MAD_STATUS_BUSY_WORD && retry_busy && s->tries < 100) {
		retries++;
		return send_slot(ph, s);
	}
	if (!ph->done(ph, s->item, status, (t - s->first) * 1e3)) {
		s->tries = 0;
		s->first = t;
		s->busy = 1;
		s->due = t + REASK_S;
		return 0;
	}
	return 1; /* free */
}

/* Slots whose answer is late are sent again, or given up. */
static int expire(struct phase *ph, struct slot *sl)
{
	double t = now();

	for (int i = 0; i < win; i++) {
		struct slot *s = &sl[i];

		if (s->busy && s->due > 0 && s->due <= t) {
			s->due = 0;
			if (send_slot(ph, s) < 0)
				return -1;
			continue;
		}
		if (!s->busy || s->due > 0 || (t - s->sent) * 1e3 < timeout_ms)
			continue;
		if (s->tries < MAX_TRIES) {
			retries++;
			if (send_slot(ph, s) < 0)
				return -1;
			continue;
		}
		s->busy = 0;
		ph->done(ph, s->item, -1, (t - s->first) * 1e3);
	}
	return 0;
}

/* Fills the free slots with the next items; -1 when a send failed. */
static int fill(struct phase *ph, struct slot *sl, uint32_t *next)
{
	for (int i = 0; i < win && *next < ph->n && !stop; i++) {
		if (sl[i].busy)
			continue;
		sl[i] =
		    (struct slot){.item = ph->items[(*next)++], .first = now()};
		if (send_slot(ph, &sl[i]) < 0)
			return -1;
	}
	return 0;
}

/* One received MAD: the answer of a slot, or a umad error record of one
 * of its tries (ibsim dropped it: sent again when it is due). */
static int receive(struct phase *ph, struct slot *sl, int wait_ms)
{
	int us = sa_client_recv(&sac, wait_ms);
	struct sa_hdr h;
	struct slot *s;

	if (us < 0)
		return 0; /* nothing came */
	sa_hdr_decode(&h, sa_client_mad(&sac), SA_MAD_SIZE);
	s = slot_of(sl, (uint32_t)h.tid);
	if (!s || s->due > 0)
		return 0; /* a late answer to an earlier try */
	if (us) {
		s->sent = 0; /* lost: expire() sends it again */
		return 0;
	}
	return answered(ph, s, h.status) < 0 ? -1 : 0;
}

/* Runs a phase to its end: 0, or -1 when a send failed or its end
 * came first. */
static int run_phase(struct phase *ph)
{
	static struct slot sl[MAX_WIN];
	uint32_t next = 0;
	int out = 1;

	memset(sl, 0, sizeof(sl));
	while ((next < ph->n && !stop) || out) {
		if (ph->end > 0 && now() > ph->end)
			return -1;
		if (fill(ph, sl, &next) < 0 ||
		    receive(ph, sl, ph->end > 0 ? 5 : 50) < 0 ||
		    expire(ph, sl) < 0)
			return -1;
		out = 0;
		for (int i = 0; i < win; i++)
			out += sl[i].busy;
	}
	return 0;
}

static void log_acked(const struct job *j)
{
	char txt[64];

	if (!acked)
		return;
	inet_ntop(AF_INET6, j->mgid, txt, sizeof(txt));
	fprintf(acked, "%s 0x%016llx\n", txt, (unsigned long long)j->guid);
	fflush(acked);
}

static int join_done(struct phase *ph, uint32_t i, int st, double ms)
{
	ph->lat[ph->n_lat++] = ms;
	st_count[st < 0 ? 255 : (st >> 8) & 0x7F]++;
	if (st == 0) {
		jobs[i].ok = 1;
		last_mlid = sa_get16(sa_client_mad(&sac) + SA_HDR_SIZE + 36);
		log_acked(&jobs[i]);
	}
	return 1;
}

static int leave_done(struct phase *ph, uint32_t i, int st, double ms)
{
	ph->lat[ph->n_lat++] = ms;
	if (st == 0)
		jobs[i].ok = 2;
	return 1;
}

/* A state query: finished when the group is Ready (or gone wrong). */
static int ready_done(struct phase *ph, uint32_t i, int st, double ms)
{
	struct sa_mcgstate_rec r;

	if (st != 0)
		return st < 0; /* unanswered: given up; an error: asked again */
	sa_rec_decode(&sa_mcgstate_rec_desc, sa_client_mad(&sac) + SA_HDR_SIZE,
		      sa_mcgstate_rec_desc.size, &r);
	return r.state == MCG_READY;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, uint32_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_d);
	return v[(size_t)(n * p)];
}

struct opts {
	int wait_ready, leave_after, leave_all, leave_only, ready_s;
	const char *file;
};

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){.ready_s = 30};
	for (int a = 1; a < argc; a++) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(argv[a], "--wait-ready"))
			o->wait_ready = 1;
		else if (!strcmp(argv[a], "--leave-after"))
			o->leave_after = 1;
		else if (!strcmp(argv[a], "--leave-all"))
			o->leave_all = 1;
		else if (!strcmp(argv[a], "--retry-busy"))
			retry_busy = 1;
		else if (!strcmp(argv[a], "--leave-only"))
			o->leave_only = 1;
		else if (v && !strcmp(argv[a], "--acked") && ++a) {
			if (!(acked = fopen(v, "a")))
				perror(v);
		} else if (v && !strcmp(argv[a], "--ready-timeout") && ++a)
			o->ready_s = atoi(v);
		else if (v && !strcmp(argv[a], "-w") && ++a)
			win = atoi(v);
		else if (v && !strcmp(argv[a], "-T") && ++a)
			timeout_ms = atoi(v);
		else if (a == argc - 1)
			o->file = argv[a];
		else
			return -1;
	}
	return o->file && win >= 1 && win <= MAX_WIN && timeout_ms > 0 ? 0 : -1;
}

/* Reads FILE; the number of jobs, or -1. */
static int load(const char *path, uint32_t *n)
{
	FILE *fp = fopen(path, "r");
	char mg[64];
	unsigned long long g;
	unsigned cnt;

	if (!fp)
		return -1;
	*n = 0;
	while (*n < MAXJ && fscanf(fp, "%63s %llx %u", mg, &g, &cnt) == 3)
		if (inet_pton(AF_INET6, mg, jobs[*n].mgid) == 1) {
			jobs[*n].guid = g;
			jobs[(*n)++].n = (uint16_t)cnt;
		}
	fclose(fp);
	return 0;
}

static int cmp_mgid(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	int c = memcmp(jobs[*x].mgid, jobs[*y].mgid, 16);

	return c ? c : (*x > *y) - (*x < *y);
}

/* Marks the first line of each MGID; returns their indexes in file order
 * in out, and how many. */
static uint32_t first_lines(uint32_t n, uint32_t *out)
{
	uint32_t *ord = malloc((n + 1) * sizeof(*ord)), k = 0;

	if (!ord)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		ord[i] = i;
	qsort(ord, n, sizeof(*ord), cmp_mgid);
	for (uint32_t i = 0; i < n; i++)
		jobs[ord[i]].first =
		    !i || memcmp(jobs[ord[i]].mgid, jobs[ord[i - 1]].mgid, 16);
	free(ord);
	for (uint32_t i = 0; i < n; i++)
		if (jobs[i].first)
			out[k++] = i;
	return k;
}

/* Leaves (Deletes) of the listed lines; latencies into lat, how many. */
static uint32_t leave(uint32_t *items, uint32_t m, double *lat)
{
	struct phase lp = {.method = SA_METHOD_DELETE,
			   .n = m,
			   .items = items,
			   .done = leave_done,
			   .lat = lat};

	stop = 0;
	run_phase(&lp);
	return lp.n_lat;
}

/* --leave-all: every line joined leaves, timed, as a job's end does. */
static void leave_all(uint32_t n, uint32_t *items, double *lat)
{
	uint32_t m = 0, lok = 0, nl;
	double t0 = now(), t1;
	struct timespec wall;

	for (uint32_t i = 0; i < n; i++)
		if (jobs[i].ok)
			items[m++] = i;
	nl = leave(items, m, lat);
	t1 = now();
	for (uint32_t i = 0; i < n; i++)
		lok += jobs[i].ok == 2;
	clock_gettime(CLOCK_REALTIME, &wall);
	printf("leaves %u\nleaves_ok %u\nleave_seconds %.3f\n"
	       "leaves_per_s %.0f\nleave_p99_ms %.3f\n"
	       "last_leave_epoch %ld.%09ld\n",
	       m, lok, t1 - t0, m / (t1 - t0), pct(lat, nl, 0.99),
	       (long)wall.tv_sec, wall.tv_nsec);
}

/* The groups with a successful join (their first lines) into okf; how
 * many. */
static uint32_t groups_joined(uint32_t n, const uint32_t *firsts, uint32_t ng,
			      uint32_t *okf)
{
	uint32_t nok = 0;

	for (uint32_t k = 0; k < ng; k++) {
		uint32_t i = firsts[k];
		int any = 0;

		for (uint32_t j = i; j < n && !any; j++)
			any = jobs[j].ok &&
			      !memcmp(jobs[j].mgid, jobs[i].mgid, 16);
		if (any)
			okf[nok++] = i;
	}
	return nok;
}

/* ms from the last join until every group in okf is Ready, -2 when the
 * timeout came first. */
static double wait_ready(uint32_t nok, uint32_t *okf, int ready_s, double t1)
{
	struct phase rp = {.method = SA_METHOD_GET,
			   .n = nok,
			   .items = okf,
			   .done = ready_done,
			   .end = now() + ready_s};

	return run_phase(&rp) == 0 ? (now() - t1) * 1e3 : -2;
}

static void print_joins(uint32_t n, uint32_t groups, double secs, double *lat,
			uint32_t n_lat, const struct timespec *wall)
{
	uint32_t ok = 0;

	for (uint32_t i = 0; i < n; i++)
		ok += jobs[i].ok == 1;
	printf("joins %u\nok %u\nrefused %u\nbusy %u\nretries %u\n", n, ok,
	       n - ok, busy, retries);
	for (unsigned s = 0; s < 256; s++)
		if (st_count[s])
			printf("status_%s%u %u\n", s == 255 ? "noanswer" : "",
			       s == 255 ? 0 : s, st_count[s]);
	printf("groups_created %u\nseconds %.3f\njoins_per_s %.0f\n"
	       "median_ms %.3f\np99_ms %.3f\nlast_join_epoch %ld.%09ld\n",
	       groups, secs, n / secs, pct(lat, n_lat, 0.5),
	       pct(lat, n_lat, 0.99), (long)wall->tv_sec, wall->tv_nsec);
	printf("last_mlid 0x%04x\n", last_mlid);
}

int main(int argc, char **argv)
{
	struct opts o;
	uint32_t n = 0, ng, nok;
	uint32_t *all, *firsts, *okf;
	double *lat, t0, t1, ready = -1;
	struct timespec wall;

	jobs = calloc(MAXJ, sizeof(*jobs));
	lat = calloc(MAXJ, sizeof(*lat));
	all = calloc(MAXJ, sizeof(*all));
	firsts = calloc(MAXJ, sizeof(*firsts));
	okf = calloc(MAXJ, sizeof(*okf));
	if (!jobs || !lat || !all || !firsts || !okf)
		return 1;
	if (parse(argc, argv, &o) < 0 || load(o.file, &n) < 0) {
		fprintf(stderr,
			"usage: mcast_joins [-w WINDOW<=%d] [-T MS] "
			"[--wait-ready] [--ready-timeout S] "
			"[--leave-after] [--leave-all] [--acked "
			"ACKFILE] FILE\n",
			MAX_WIN);
		return 2;
	}
	if (sa_client_open(&sac) < 0) {
		fprintf(stderr, "mcast_joins: cannot open a umad port\n");
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	for (uint32_t i = 0; i < n; i++)
		all[i] = i;
	ng = first_lines(n, firsts);
	if (o.leave_only) { /* a job's end: the joins were made before */
		for (uint32_t i = 0; i < n; i++)
			jobs[i].ok = 1;
		leave_all(n, all, lat);
		sa_client_close(&sac);
		return 0;
	}

	struct phase jp = {.method = SA_METHOD_SET,
			   .n = n,
			   .items = all,
			   .done = join_done,
			   .lat = lat};
	t0 = now();
	if (run_phase(&jp) < 0)
		fprintf(stderr, "mcast_joins: a send failed; stopping\n");
	t1 = now();
	clock_gettime(CLOCK_REALTIME, &wall);
	nok = groups_joined(n, firsts, ng, okf);
	if (o.wait_ready && !stop)
		ready = wait_ready(nok, okf, o.ready_s, t1);
	print_joins(n, nok, t1 - t0, lat, jp.n_lat, &wall);
	if (o.wait_ready)
		printf("ready_ms %.1f\n", ready);
	if (o.leave_after)
		leave(okf, nok, lat);
	if (o.leave_all)
		leave_all(n, all, lat);
	sa_client_close(&sac);
	return 0;
}

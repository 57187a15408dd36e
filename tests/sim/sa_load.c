/* SA load client for the benchmark (tests/bench/sa.sh): sends PathRecord
 * or NodeRecord Gets to the SM with a window of outstanding requests over
 * libibumad (under ibsim: one client per SIM_HOST node), measures each
 * request's latency, and prints one summary line plus, with -o, every
 * latency in microseconds (one per line) for the script to pool.
 *
 *   sa_load -t path|node -n COUNT [-w WINDOW] [-l LID,LID,...] [-o FILE]
 *           [-T TIMEOUT_MS] [-d MS] [-r FILE]
 *
 * -d stops sending after MS milliseconds (COUNT is then a cap); -r writes
 * every answer as "LID STATUS HEX" (the first record's bytes in hex, or
 * "-" on an error status), for a test to check what was answered
 * while the tables changed. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/sa_client.h"
#include "mad/sa_node.h"
#include "mad/sa_path.h"

#define MAX_WIN 64

struct opts {
	int path, count, window, timeout_ms, duration_ms;
	uint16_t lids[4096];
	int n_lids;
	const char *out, *record;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static int parse(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){
	    .path = 1, .count = 1000, .window = 8, .timeout_ms = 1000};
	while ((c = getopt(argc, argv, "t:n:w:l:o:T:d:r:")) != -1) {
		switch (c) {
		case 't':
			o->path = strcmp(optarg, "node") != 0;
			break;
		case 'n':
			o->count = atoi(optarg);
			break;
		case 'w':
			o->window = atoi(optarg);
			break;
		case 'T':
			o->timeout_ms = atoi(optarg);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'd':
			o->duration_ms = atoi(optarg);
			break;
		case 'r':
			o->record = optarg;
			break;
		case 'l':
			for (char *s = strtok(optarg, ",");
			     s && o->n_lids < 4096; s = strtok(NULL, ","))
				o->lids[o->n_lids++] =
				    (uint16_t)strtoul(s, NULL, 0);
			break;
		default:
			return -1;
		}
	}
	if (o->window < 1 || o->window > MAX_WIN || o->count < 1 || !o->n_lids)
		return -1;
	return 0;
}

/* Builds request i: a Get of the PathRecord from our LID to a listed LID,
 * or of the NodeRecord of a listed LID. */
static void build(const struct opts *o, uint16_t my_lid, int i, uint32_t tid,
		  uint8_t *mad)
{
	uint16_t lid = o->lids[(unsigned)i % (unsigned)o->n_lids];
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = SA_MGMT_CLASS,
			   .class_version = SA_CLASS_VERSION,
			   .method = SA_METHOD_GET,
			   .tid = tid};

	memset(mad, 0, SA_MAD_SIZE);
	if (o->path) {
		struct sa_path_rec r = {
		    .slid = my_lid, .dlid = lid, .numb_path = 1};

		h.attr_id = SA_ATTR_PATH_REC;
		h.comp_mask = SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DLID) |
			      SA_PR_CM(SA_PR_NUMBPATH);
		sa_rec_encode(&sa_path_rec_desc, &r, mad + SA_HDR_SIZE);
	} else {
		struct sa_node_rec r = {.lid = lid};

		h.attr_id = SA_ATTR_NODE_REC;
		h.comp_mask = 1ull << SA_NR_LID;
		sa_rec_encode(&sa_node_rec_desc, &r, mad + SA_HDR_SIZE);
	}
	sa_hdr_encode(&h, mad);
}

struct slot {
	uint32_t tid;
	uint64_t sent;
	int busy;
	uint16_t lid;
};

/* One answer for -r: LID, MAD status and the first record in hex. */
static void record_answer(FILE *f, uint16_t lid, const struct sa_hdr *h,
			  const uint8_t *mad, int path)
{
	size_t len = path ? sa_path_rec_desc.size : sa_node_rec_desc.size;

	fprintf(f, "%u 0x%04x ", lid, h->status);
	if (h->status)
		fputc('-', f);
	for (size_t i = 0; !h->status && i < len; i++)
		fprintf(f, "%02x", mad[SA_HDR_SIZE + i]);
	fputc('\n', f);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct slot slots[MAX_WIN] = {{0}};
	struct sa_client sac;
	FILE *rec = NULL;
	int sent = 0, done = 0, n_lat = 0, errors = 0, lost = 0;
	uint64_t *lat, t0;
	uint32_t tid_base = (uint32_t)(now_us() & 0xFFFF) << 16;

	if (parse(argc, argv, &o)) {
		fprintf(stderr,
			"usage: sa_load -t path|node -n COUNT [-w WIN<=64] "
			"-l LID,... [-o FILE] [-T MS]\n");
		return 2;
	}
	if (sa_client_open(&sac) < 0) {
		fprintf(stderr, "sa_load: cannot open a umad port\n");
		return 1;
	}
	lat = calloc((size_t)o.count, sizeof(*lat));
	if (!lat) {
		fprintf(stderr, "sa_load: out of memory\n");
		return 1;
	}
	if (o.record && !(rec = fopen(o.record, "w"))) {
		perror(o.record);
		return 1;
	}
	t0 = now_us();
	while (done < sent || sent < o.count) {
		if (o.duration_ms &&
		    now_us() - t0 > (uint64_t)o.duration_ms * 1000) {
			o.count = sent; /* no more: collect what is out */
			if (done == sent)
				break;
		}
		for (int s = 0; s < o.window && sent < o.count; s++) {
			if (slots[s].busy)
				continue;
			slots[s] = (struct slot){
			    .tid = tid_base + (uint32_t)sent,
			    .sent = now_us(),
			    .busy = 1,
			    .lid = o.lids[(unsigned)sent % (unsigned)o.n_lids]};
			build(&o, sac.port.base_lid, sent, slots[s].tid,
			      sa_client_mad(&sac));
			if (sa_client_send(&sac, 0, o.timeout_ms) < 0) {
				fprintf(stderr, "sa_load: send failed\n");
				return 1;
			}
			sent++;
		}
		int us = sa_client_recv(&sac, o.timeout_ms * 2);
		if (us < 0) {
			fprintf(stderr,
				"sa_load: no answer for %d ms, %d lost\n",
				o.timeout_ms * 2, sent - done);
			lost += sent - done;
			break;
		}
		uint8_t *m = sa_client_mad(&sac);
		struct sa_hdr h;

		sa_hdr_decode(&h, m, SA_MAD_SIZE);
		for (int s = 0; s < o.window; s++) {
			if (!slots[s].busy || slots[s].tid != (uint32_t)h.tid)
				continue;
			slots[s].busy = 0;
			if (rec && !us)
				record_answer(rec, slots[s].lid, &h, m, o.path);
			if (us)
				lost++;
			else if (h.status)
				errors++;
			else
				lat[n_lat++] = now_us() - slots[s].sent;
			done++;
			break;
		}
	}
	uint64_t t1 = now_us();
	double secs = (double)(t1 - t0) / 1e6;
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	qsort(lat, (size_t)n_lat, sizeof(*lat), cmp_u64);
	/* span: wall-clock start and end (s) so a script can pool clients */
	double end = (double)rt.tv_sec + rt.tv_nsec / 1e9;
	printf("sa_load %s: %d answered, %d errors, %d lost, %.3f s, %.0f q/s, "
	       "p50 %" PRIu64 " us, p99 %" PRIu64 " us, span %.6f %.6f\n",
	       o.path ? "PathRecord" : "NodeRecord", done, errors, lost, secs,
	       done / secs, n_lat ? lat[n_lat / 2] : 0,
	       n_lat ? lat[(size_t)n_lat * 99 / 100] : 0, end - secs, end);
	if (o.out) {
		FILE *f = fopen(o.out, "w");

		for (int i = 0; f && i < n_lat; i++)
			fprintf(f, "%" PRIu64 "\n", lat[i]);
		if (f)
			fclose(f);
	}
	if (rec)
		fclose(rec);
	sa_client_close(&sac);
	return errors || lost ? 3 : 0;
}

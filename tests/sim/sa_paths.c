/* Asks the SM's SA for the PathRecord of many (SLID, DLID) pairs, a
 * window of Gets at a time over one umad port (one process: under ibsim a
 * saquery per pair costs ~45 ms of attaching, this ~1 ms per pair), and
 * prints one line per pair:
 *
 *   SLID DLID SL          the answer's SL
 *   SLID DLID - STATUS    an error status (no path: 0x0300 ...)
 *
 * Pairs come from -l LID,LID,... (every ordered pair of distinct LIDs)
 * or from standard input, one "SLID DLID" per line.  A request without
 * an answer is sent again (3 tries), then reported as "- lost".  For the
 * layered-routing checker (tests/integration/vl_check.py): it reads each
 * pair's SL from the real SA, ibsmd's or OpenSM's. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/sa_client.h"
#include "mad/sa_path.h"

#define MAX_WIN 64
#define TRIES	3

struct pair {
	uint16_t slid, dlid;
	uint8_t tries;
};

struct slot {
	uint32_t tid;
	int pair; /* -1: free */
};

static int read_pairs(const char *lids, struct pair **out, size_t *n)
{
	size_t cap = 1024, k = 0;
	struct pair *p = malloc(cap * sizeof(*p));
	uint16_t l[4096];
	unsigned a, b, nl = 0;

	if (!p)
		return -ENOMEM;
	if (lids) {
		char *s = strdup(lids);
		for (char *t = strtok(s, ","); t && nl < 4096;
		     t = strtok(NULL, ","))
			l[nl++] = (uint16_t)strtoul(t, NULL, 0);
		free(s);
	}
	for (unsigned i = 0; lids ? i < nl * nl : scanf("%u %u", &a, &b) == 2;
	     i++) {
		if (lids && (a = l[i / nl]) == (b = l[i % nl]))
			continue;
		if (k == cap) {
			struct pair *q = realloc(p, 2 * cap * sizeof(*p));
			if (!q)
				return free(p), -ENOMEM;
			p = q;
			cap *= 2;
		}
		p[k++] = (struct pair){(uint16_t)a, (uint16_t)b, 0};
	}
	*out = p;
	*n = k;
	return 0;
}

static void build(struct sa_client *c, const struct pair *p, uint32_t tid)
{
	struct sa_path_rec r = {
	    .slid = p->slid, .dlid = p->dlid, .numb_path = 1};
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = SA_MGMT_CLASS,
			   .class_version = SA_CLASS_VERSION,
			   .method = SA_METHOD_GET,
			   .attr_id = SA_ATTR_PATH_REC,
			   .tid = tid,
			   .comp_mask = SA_PR_CM(SA_PR_SLID) |
					SA_PR_CM(SA_PR_DLID) |
					SA_PR_CM(SA_PR_NUMBPATH)};
	uint8_t *mad = sa_client_mad(c);

	memset(mad, 0, SA_MAD_SIZE);
	sa_rec_encode(&sa_path_rec_desc, &r, mad + SA_HDR_SIZE);
	sa_hdr_encode(&h, mad);
}

static void answer(const struct pair *p, const uint8_t *mad)
{
	struct sa_hdr h;
	struct sa_path_rec r;

	sa_hdr_decode(&h, mad, SA_MAD_SIZE);
	if (h.status) {
		printf("%u %u - 0x%04x\n", p->slid, p->dlid, h.status);
		return;
	}
	sa_rec_decode(&sa_path_rec_desc, mad + SA_HDR_SIZE,
		      SA_MAD_SIZE - SA_HDR_SIZE, &r);
	printf("%u %u %u\n", p->slid, p->dlid, r.sl);
}

/* Which slot holds the answer's TID (low 32 bits: ibsim keeps no
 * more), or -1. */
static int slot_of(const struct slot *s, int win, const uint8_t *mad)
{
	struct sa_hdr h;

	sa_hdr_decode(&h, mad, SA_MAD_SIZE);
	for (int i = 0; i < win; i++)
		if (s[i].pair >= 0 && s[i].tid == (uint32_t)h.tid)
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	const char *lids = NULL;
	int win = 16, tmo = 1000, c, out = 0;
	struct slot slots[MAX_WIN];
	struct sa_client sac;
	struct pair *pairs;
	size_t n, next = 0, done = 0;
	uint32_t tid = (uint32_t)time(NULL) << 12;

	while ((c = getopt(argc, argv, "l:w:T:")) != -1) {
		if (c == 'l')
			lids = optarg;
		else if (c == 'w')
			win = atoi(optarg);
		else if (c == 'T')
			tmo = atoi(optarg);
		else
			return fprintf(stderr, "usage: sa_paths [-l LID,...] "
					       "[-w WIN] [-T MS] < pairs\n"),
			       2;
	}
	win = win < 1 ? 1 : win > MAX_WIN ? MAX_WIN : win;
	if (read_pairs(lids, &pairs, &n) < 0 || sa_client_open(&sac) < 0) {
		fprintf(stderr, "sa_paths: no pairs or no umad port\n");
		return 1;
	}
	for (int i = 0; i < win; i++)
		slots[i].pair = -1;
	while (done < n) {
		for (int i = 0; i < win && next < n; i++) {
			if (slots[i].pair >= 0)
				continue;
			slots[i] = (struct slot){++tid, (int)next++};
			build(&sac, &pairs[slots[i].pair], slots[i].tid);
			if (sa_client_send(&sac, 0, tmo) < 0)
				return fprintf(stderr, "sa_paths: send\n"), 1;
		}
		int us = sa_client_recv(&sac, 2 * tmo);
		int s = us == -ETIMEDOUT
			    ? -1
			    : slot_of(slots, win, sa_client_mad(&sac));
		if (us == -ETIMEDOUT) { /* nothing at all: resend the window */
			for (int i = 0; i < win; i++)
				if (slots[i].pair >= 0) {
					struct pair *p = &pairs[slots[i].pair];
					if (++p->tries >= TRIES) {
						printf("%u %u - lost\n",
						       p->slid, p->dlid);
						done++, out++;
						slots[i].pair = -1;
						continue;
					}
					slots[i].tid = ++tid;
					build(&sac, p, slots[i].tid);
					sa_client_send(&sac, 0, tmo);
				}
			continue;
		}
		if (s < 0)
			continue; /* a late answer to a resent request */
		struct pair *p = &pairs[slots[s].pair];
		if (us == 0) {
			answer(p, sa_client_mad(&sac));
			done++;
			slots[s].pair = -1;
		} else if (++p->tries >= TRIES) { /* the request timed out */
			printf("%u %u - lost\n", p->slid, p->dlid);
			done++, out++;
			slots[s].pair = -1;
		} else {
			slots[s].tid = ++tid;
			build(&sac, p, slots[s].tid);
			sa_client_send(&sac, 0, tmo);
		}
	}
	sa_client_close(&sac);
	free(pairs);
	return out ? 3 : 0;
}

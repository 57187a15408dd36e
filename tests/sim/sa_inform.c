/* An event subscriber at the SA, from one simulated node (SIM_HOST):
 *   sa_inform [--no-answer] SECONDS TRAP[,TRAP...]
 * subscribes this port to each generic trap (InformInfo Set, Subscribe 1,
 * QPN 1), prints "subscribed TRAP status 0xSSSS", then for SECONDS
 * receives the SA's Reports and prints each as
 * "report TRAP GID ISSUER_LID" (GID: the port's or group's the notice is
 * about), answering each with a ReportResp unless --no-answer (a
 * subscriber that has gone silent).  Ends with "reports N".  Holds the
 * port's issm device meanwhile: ibsim gives unsolicited requests only to
 * such a client.  SIGTERM ends it early with the same printout. */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mad/sa_client.h"
#include "mad/sa_inform.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int subscribe(struct sa_client *c, uint16_t trap)
{
	struct sa_inform_info ii = {.lid_begin = SA_II_ALL16,
				    .is_generic = 1,
				    .subscribe = 1,
				    .type = SA_II_ALL16,
				    .trap_num = trap,
				    .qpn = 1,
				    .resp_time = 18,
				    .producer = SA_II_ALL24};

	sa_client_build(c, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0,
			&sa_inform_info_desc, &ii);
	return sa_client_transact(c, 0);
}

/* Answers the Report in the client's buffer (ReportResp, same TID and
 * data) to where it came from. */
static void answer(struct sa_client *c)
{
	ib_mad_addr_t *a = umad_get_mad_addr(c->umad);
	uint8_t *m = sa_client_mad(c);

	m[3] = SA_METHOD_REPORT_RESP;
	umad_set_addr(c->umad, ntohs(a->lid), ntohl(a->qpn), 0, 0x80010000);
	umad_send(c->fd, c->agent, c->umad, SA_MAD_SIZE, 0, 0);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int no_answer = argc > 1 && !strcmp(argv[1], "--no-answer");
	struct sa_client c;
	int issm = -1, reports = 0;
	double end;
	char *traps, *tok;

	if (argc != 3 + no_answer) {
		fprintf(stderr, "usage: sa_inform [--no-answer] SECONDS "
				"TRAP[,TRAP...]\n");
		return 2;
	}
	end = now() + atof(argv[1 + no_answer]);
	traps = argv[2 + no_answer];
	if (sa_client_open(&c) < 0) {
		fprintf(stderr, "sa_inform: cannot open a umad port\n");
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	for (tok = strtok(traps, ","); tok; tok = strtok(NULL, ","))
		printf("subscribed %s status 0x%04x\n", tok,
		       (unsigned)subscribe(&c, (uint16_t)atoi(tok)) & 0xFFFF);
	fflush(stdout);
	if (sa_client_listen(&c, SA_METHOD_REPORT, &issm) < 0)
		fprintf(stderr, "sa_inform: cannot hold issm: %s\n",
			strerror(errno));
	while (!stop && now() < end) {
		const uint8_t *m;
		struct sa_notice n = {0};
		char g[64];

		if (sa_client_recv(&c, 200) != 0)
			continue;
		m = sa_client_mad(&c);
		if (m[3] != SA_METHOD_REPORT ||
		    sa_get16(m + 16) != SA_ATTR_NOTICE)
			continue;
		sa_rec_decode(&sa_notice_desc, m + SA_HDR_SIZE,
			      SA_MAD_SIZE - SA_HDR_SIZE, &n);
		inet_ntop(AF_INET6, n.details + 6, g, sizeof(g));
		printf("report %u %s %u\n", n.trap_num, g, n.issuer_lid);
		fflush(stdout);
		reports++;
		if (!no_answer)
			answer(&c);
	}
	printf("reports %d\n", reports);
	if (issm >= 0)
		close(issm);
	sa_client_close(&c);
	return 0;
}

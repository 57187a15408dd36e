/* Sends traps to the SM from one simulated node (SIM_HOST), as fast as
 * umad takes them, or at RATE traps per second:
 *   trap_flood COUNT TRAPNUM [RATE]
 * TRAPNUM 128 (link state change, naming this port's LID), 129-131, 144:
 * LID-routed Trap(Notice) SMPs to the SM's LID.  ibsim's SMA takes the
 * TrapRepress answers itself (it logs "got trap repress"), so this client
 * cannot see them; it prints "sent N".  SIGTERM ends the flood with a
 * normal exit, so libumad2sim gives the client's slot back to ibsim (it
 * has 10, and a killed client keeps its own). */
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "mad/smp.h"
#include "mad/smp_sm.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	unsigned count = argc > 2 ? (unsigned)atoi(argv[1]) : 0;
	unsigned trap = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	unsigned rate = argc > 3 ? (unsigned)atoi(argv[3]) : 0;

	if (rate && rate < 17)
		rate = 17; /* a pause per 16 traps stays under a second */
	unsigned sent = 0;
	umad_port_t port;
	int fd, agent;
	void *umad;

	if (!count || !trap) {
		fprintf(stderr, "usage: trap_flood COUNT TRAPNUM [RATE]\n");
		return 2;
	}
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 ||
	    (fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, MAD_CLASS_SMI, 1, 0, NULL)) < 0) {
		fprintf(stderr, "trap_flood: cannot open a umad port\n");
		return 1;
	}
	umad = calloc(1, umad_size() + MAD_SIZE);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	for (; sent < count && !stop; sent++) {
		struct smp sm;
		struct smp_notice n = {.is_generic = 1,
				       .type = 1,
				       .producer_type = 2,
				       .trap_num = (uint16_t)trap,
				       .issuer_lid = port.base_lid};
		struct timespec pause = {0,
					 rate ? 16000000000ull / rate : 200000};

		smp_init_lid(&sm, MAD_METHOD_TRAP, SMP_ATTR_NOTICE, 0);
		sm.hdr.tid = 0x74720000u + sent;
		/* trap 128 names the switch whose link changed: here this
		 * port's LID (the SM rediscovers all the same) */
		n.details[0] = (uint8_t)(port.base_lid >> 8);
		n.details[1] = (uint8_t)port.base_lid;
		smp_notice_encode(&n, sm.data, sizeof(sm.data));
		smp_encode(&sm, umad_get_mad(umad), MAD_SIZE);
		umad_set_addr(umad, port.sm_lid, 0, 0, 0);
		if (umad_send(fd, agent, umad, MAD_SIZE, 0, 0) < 0)
			break;
		/* a short breath every 16: the simulator queues, not drops */
		if (sent % 16 == 15)
			nanosleep(&pause, NULL);
	}
	/* the simulator takes what was sent before the port closes */
	nanosleep(&(struct timespec){0, 200000000}, NULL);
	printf("sent %u\n", sent);
	free(umad);
	umad_close_port(fd);
	return 0;
}

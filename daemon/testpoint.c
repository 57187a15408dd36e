/* A test hook for the restart tests: IBSMD_TEST_SIGTERM_AT=NAME[:N] makes
 * the daemon send itself SIGTERM the Nth time (default the first) it
 * passes the point NAME ("sweep:DISCOVER", "sweep:CONFIGURE",
 * "sweep:ACTIVATE", "mft").  The signal takes the ordinary path (signalfd,
 * handled after the current callback), so the daemon stops with that
 * phase's SMPs in flight, exactly as an operator's SIGTERM would find it;
 * only the moment is chosen.  Without the variable this costs one getenv
 * at the first point. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/sm.h"
#include "lib/log.h"

static struct {
	bool read;
	char name[32];
	unsigned nth, seen;
} TP;

static void tp_read(void)
{
	const char *v = getenv("IBSMD_TEST_SIGTERM_AT");
	const char *colon;

	TP.read = true;
	TP.nth = 1;
	if (!v || !*v)
		return;
	colon = strrchr(v, ':');
	if (colon && colon[1] >= '0' && colon[1] <= '9') {
		snprintf(TP.name, sizeof(TP.name), "%.*s", (int)(colon - v), v);
		TP.nth = (unsigned)atoi(colon + 1);
	} else {
		snprintf(TP.name, sizeof(TP.name), "%s", v);
	}
}

void testpoint(const char *name)
{
	if (!TP.read)
		tp_read();
	if (!TP.name[0] || strcmp(name, TP.name) != 0 || ++TP.seen != TP.nth)
		return;
	log_notice("test point %s (IBSMD_TEST_SIGTERM_AT): sending SIGTERM "
		   "to myself",
		   name);
	kill(getpid(), SIGTERM);
}

/* Test hooks for the restart and SA tests, both off unless their
 * variable is set:
 * - IBSMD_TEST_SIGTERM_AT=NAME[:N] makes the daemon send itself SIGTERM
 *   the Nth time (default the first) it passes the point NAME
 *   ("sweep:DISCOVER", "sweep:CONFIGURE", "sweep:ACTIVATE", "mft").  The
 *   signal takes the ordinary path (signalfd, handled after the current
 *   callback), so the daemon stops with that phase's SMPs in flight,
 *   exactly as an operator's SIGTERM would find it; only the moment is
 *   chosen.
 * - IBSMD_TEST_HOLD_AT=NAME[:N] with IBSMD_TEST_HOLD_FILE=PATH holds the
 *   loop thread at that point (the Nth pass; without N every pass) while
 *   PATH exists, as a long computation would (checked every 10 ms), after
 *   creating PATH.held: a test then knows the loop is busy for as long as
 *   it wants, with no timing.
 * Without the variables this costs one getenv each at the first point. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/core/sm.h"
#include "lib/log.h"

struct tp {
	bool read;
	char name[32];
	unsigned nth, seen;
};

static struct tp TP, HOLD;

static void tp_read(struct tp *t, const char *var, unsigned nth)
{
	const char *v = getenv(var);
	const char *colon;

	t->read = true;
	t->nth = nth;
	if (!v || !*v)
		return;
	colon = strrchr(v, ':');
	if (colon && colon[1] >= '0' && colon[1] <= '9') {
		snprintf(t->name, sizeof(t->name), "%.*s", (int)(colon - v), v);
		t->nth = (unsigned)atoi(colon + 1);
	} else {
		snprintf(t->name, sizeof(t->name), "%s", v);
	}
}

/* True the Nth time point name is passed (every time for N = 0); N is
 * dflt when the variable gives none. */
static bool tp_hit(struct tp *t, const char *var, unsigned dflt,
		   const char *name)
{
	if (!t->read)
		tp_read(t, var, dflt);
	if (!t->name[0] || strcmp(name, t->name) != 0)
		return false;
	return ++t->seen == t->nth || !t->nth;
}

static void hold(const char *name)
{
	const char *path = getenv("IBSMD_TEST_HOLD_FILE");
	char held[512];
	int fd;

	if (!path || !*path || access(path, F_OK) != 0)
		return;
	snprintf(held, sizeof(held), "%s.held", path);
	log_notice("test point %s (IBSMD_TEST_HOLD_AT): holding the loop "
		   "while %s exists",
		   name, path);
	fd = open(held, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
	while (access(path, F_OK) == 0)
		usleep(10000);
	unlink(held);
	log_notice("test point %s: loop released", name);
}

void testpoint(const char *name)
{
	if (tp_hit(&HOLD, "IBSMD_TEST_HOLD_AT", 0, name))
		hold(name);
	if (!tp_hit(&TP, "IBSMD_TEST_SIGTERM_AT", 1, name))
		return;
	log_notice("test point %s (IBSMD_TEST_SIGTERM_AT): sending SIGTERM "
		   "to myself",
		   name);
	kill(getpid(), SIGTERM);
}

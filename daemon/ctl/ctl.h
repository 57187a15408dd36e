/* daemon/ctl, the control socket: a local unix stream socket on which
 * ibsmctl (or `socat`) sends one command per line and reads the answer.
 * Commands are registered by name, so other parts of the daemon
 * (multicast: `mcg list`, `mcg show`) add theirs without touching this
 * part.  Protocol: man/ibsmctl.8. */
#ifndef IBSMD_CTL_H
#define IBSMD_CTL_H

#include <stdio.h>

struct sd_event;
struct ctl;

/* What one client may cost (config keys control.*; man/ibsmd.8). */
struct ctl_limits {
	unsigned max_connections; /* a new one beyond closes the most idle */
	unsigned idle_timeout_ms; /* no byte either way this long: closed */
	unsigned max_output;	  /* bytes queued before reading stops */
};

/* A command handler writes its answer lines to out and returns 0, or a
 * negative errno with a message (err, errlen) for the "ERR" line. */
typedef int (*ctl_handler_fn)(void *arg, const char *args, FILE *out, char *err,
			      size_t errlen);

/* Listens on path (an existing stale socket is replaced).  NULL on error
 * (logged). */
struct ctl *ctl_open(struct sd_event *ev, const char *path);
void ctl_close(struct ctl *c);
/* Applies new limits (start and SIGHUP); open connections keep running. */
void ctl_set_limits(struct ctl *c, const struct ctl_limits *lim);

/* Registers `name` (one or two words, e.g. "status", "mcg list"); the
 * longest registered prefix of a request line wins.  0 or -ENOMEM/-EEXIST. */
int ctl_register(struct ctl *c, const char *name, ctl_handler_fn fn, void *arg,
		 const char *help);

/* Marks a registered command as an administrator's: only root or the
 * daemon's own user may run it (the socket's group may run the others).
 * 0 or -ENOENT. */
int ctl_restrict(struct ctl *c, const char *name);

/* Runs one request line through the registered handlers and writes the
 * whole answer (data lines, then "OK" or "ERR message") to out.  Exposed
 * for unit tests. */
void ctl_dispatch(struct ctl *c, const char *line, FILE *out);

#endif

/* Inside the control socket: the listener with its command table and
 * limits (ctl.c) and the connections it accepted (ctl_conn.c). */
#ifndef IBSMD_CTL_PRIV_H
#define IBSMD_CTL_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/ctl/ctl.h"

#define CTL_MAX_CMDS 32
#define CTL_LINE_MAX 1024

struct sd_event_source;

struct ctl_cmd {
	char *name;
	size_t len;
	ctl_handler_fn fn;
	void *arg;
	char *help;
	bool admin; /* root or the daemon's own user only */
};

/* What misbehaving clients cost, summed between two log lines. */
struct ctl_drops {
	unsigned evicted, idle, long_line, big_answer, not_allowed;
};

struct ctl {
	int fd;
	char *path;
	struct sd_event_source *src, *idle_timer;
	struct ctl_cmd cmds[CTL_MAX_CMDS];
	unsigned n_cmds;
	struct ctl_limits lim;
	struct ctl_conn *conns; /* newest first; freed with the ctl */
	unsigned n_conns;
	struct ctl_drops drops;
	uint64_t last_log_us; /* of the last drops line */
};

struct ctl_conn {
	struct ctl *ctl;
	struct ctl_conn *next, **pprev;
	int fd;
	uid_t uid; /* SO_PEERCRED */
	struct sd_event_source *src;
	uint64_t last_active_us; /* CLOCK_MONOTONIC of the last byte moved */
	bool eof;		 /* the client closed its sending side */
	bool closing;		 /* flush what is queued, then close */
	char in[CTL_LINE_MAX];
	size_t used;
	char *out; /* answers not yet sent: out[out_off..out_len) */
	size_t out_len, out_off;
};

/* ctl.c */
void ctl_dispatch_as(struct ctl *c, uid_t uid, const char *line, FILE *out);
/* Counts one dropped client event and logs the sums at most once per
 * interval. */
void ctl_note_drop(struct ctl *c, unsigned *counter);
/* Logs the summed drops once their interval is over (ctl_cmd.c). */
void ctl_log_drops_due(struct ctl *c);
uint64_t ctl_now_us(void);

/* ctl_conn.c */
int ctl_conn_add(struct ctl *c, struct sd_event *ev, int fd);
void ctl_conn_free(struct ctl_conn *cn);

#endif

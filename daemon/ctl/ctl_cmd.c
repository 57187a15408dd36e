/* The control socket's commands and its drop log: a request line is
 * matched against the command table and run for the peer's uid, and what
 * clients did wrong is summed into one log line per interval.  Below both
 * the listener (ctl.c) and the connections (ctl_conn.c), which call it;
 * it calls neither. */
#include "daemon/ctl/ctl_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"

#define CTL_LOG_INTERVAL_MS 10000

uint64_t ctl_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The longest registered name that is a whole-word prefix of line. */
static const struct ctl_cmd *find_cmd(const struct ctl *c, const char *line)
{
	const struct ctl_cmd *best = NULL;

	for (unsigned i = 0; i < c->n_cmds; i++) {
		const struct ctl_cmd *cmd = &c->cmds[i];
		char next;

		/* line[len] may be read only once the prefix matched. */
		if (strncmp(line, cmd->name, cmd->len) != 0)
			continue;
		next = line[cmd->len];
		if (next != '\0' && next != ' ' && next != '\t')
			continue;
		if (!best || cmd->len > best->len)
			best = cmd;
	}
	return best;
}

/* Requests are printable ASCII; anything else (binary noise, a wrong
 * protocol) is refused without being echoed back. */
static bool is_text(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 && *s != '\t')
			return false;
		else if ((unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* Whether uid may run cmd: the socket's mode lets the group connect, the
 * commands that change the fabric or write files need more. */
static bool allowed(const struct ctl_cmd *cmd, uid_t uid)
{
	return !cmd->admin || uid == 0 || uid == geteuid();
}

void ctl_dispatch(struct ctl *c, const char *line, FILE *out)
{
	ctl_dispatch_as(c, geteuid(), line, out);
}

void ctl_dispatch_as(struct ctl *c, uid_t uid, const char *line, FILE *out)
{
	const struct ctl_cmd *cmd;
	char err[256] = "";
	const char *args;
	int r;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!is_text(line)) {
		fputs("ERR request is not text\n", out);
		return;
	}
	cmd = find_cmd(c, line);
	if (!cmd) {
		fprintf(out, "ERR unknown command '%s' (try 'help')\n", line);
		return;
	}
	if (!allowed(cmd, uid)) {
		fprintf(out, "ERR '%s' is for root only\n", cmd->name);
		ctl_note_drop(c, &c->drops.not_allowed);
		return;
	}
	args = line + cmd->len;
	while (*args == ' ' || *args == '\t')
		args++;
	r = cmd->fn(cmd->arg, args, out, err, sizeof(err));
	if (r < 0)
		fprintf(out, "ERR %s\n", err[0] ? err : strerror(-r));
	else
		fputs("OK\n", out);
}

static void add_part(char *buf, size_t len, unsigned n, const char *what)
{
	size_t used = strlen(buf);

	if (n && used < len)
		snprintf(buf + used, len - used, "%s%u %s", used ? ", " : "", n,
			 what);
}

/* One line per interval for everything clients did wrong: a crowd of bad
 * clients costs the log no more than one. */
static void log_drops(struct ctl *c)
{
	struct ctl_drops *d = &c->drops;
	char buf[256] = "";

	add_part(buf, sizeof(buf), d->evicted,
		 "connections closed over control.max_connections");
	add_part(buf, sizeof(buf), d->idle,
		 "idle connections closed (control.idle_timeout_ms)");
	add_part(buf, sizeof(buf), d->long_line,
		 "request lines too long or not text");
	add_part(buf, sizeof(buf), d->big_answer,
		 "answers over control.max_output");
	add_part(buf, sizeof(buf), d->not_allowed,
		 "commands refused to non-root users");
	memset(d, 0, sizeof(*d));
	if (!buf[0]) {
		c->last_log_us = 0; /* the next drop is logged at once */
		return;
	}
	log_warn("control socket: %s (more are summed for %d s)", buf,
		 CTL_LOG_INTERVAL_MS / 1000);
}

void ctl_log_drops_due(struct ctl *c)
{
	uint64_t now = ctl_now_us();

	if (now - c->last_log_us < CTL_LOG_INTERVAL_MS * 1000ull)
		return;
	c->last_log_us = now;
	log_drops(c);
}

void ctl_note_drop(struct ctl *c, unsigned *counter)
{
	(*counter)++;
	ctl_log_drops_due(c);
}

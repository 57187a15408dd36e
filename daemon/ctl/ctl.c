/* The control socket: see ctl.h.  This file holds the command table,
 * registration, the listener and the limits that keep a crowd of clients from
 * costing the daemon more than memory for max_connections buffers;
 * ctl_conn.c moves each connection's bytes without ever blocking the
 * loop. */
#include "daemon/ctl/ctl_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"

#define CTL_IDLE_CHECK_MS   1000

static const struct ctl_limits ctl_default_limits = {
    .max_connections = 64,
    .idle_timeout_ms = 30000,
    .max_output = 4u << 20,
};

static int help_cmd(void *arg, const char *args, FILE *out, char *err,
		    size_t errlen)
{
	struct ctl *c = arg;

	for (unsigned i = 0; i < c->n_cmds; i++)
		fprintf(out, "%s\t%s\n", c->cmds[i].name, c->cmds[i].help);
	return 0;
}

int ctl_register(struct ctl *c, const char *name, ctl_handler_fn fn, void *arg,
		 const char *help)
{
	struct ctl_cmd *cmd;

	for (unsigned i = 0; i < c->n_cmds; i++)
		if (strcmp(c->cmds[i].name, name) == 0)
			return -EEXIST;
	if (c->n_cmds == CTL_MAX_CMDS)
		return -ENOMEM;
	cmd = &c->cmds[c->n_cmds];
	cmd->name = strdup(name);
	cmd->help = strdup(help ? help : "");
	if (!cmd->name || !cmd->help) {
		free(cmd->name);
		free(cmd->help);
		return -ENOMEM;
	}
	cmd->len = strlen(name);
	cmd->fn = fn;
	cmd->arg = arg;
	c->n_cmds++;
	return 0;
}

int ctl_restrict(struct ctl *c, const char *name)
{
	for (unsigned i = 0; i < c->n_cmds; i++)
		if (strcmp(c->cmds[i].name, name) == 0) {
			c->cmds[i].admin = true;
			return 0;
		}
	return -ENOENT;
}

/* The connection that moved no byte for the longest time. */
static struct ctl_conn *most_idle(struct ctl *c)
{
	struct ctl_conn *best = NULL;

	for (struct ctl_conn *cn = c->conns; cn; cn = cn->next)
		if (!best || cn->last_active_us <= best->last_active_us)
			best = cn;
	return best;
}

static int idle_check(sd_event_source *s, uint64_t usec, void *ud)
{
	struct ctl *c = ud;
	uint64_t now = ctl_now_us(), limit = c->lim.idle_timeout_ms * 1000ull;
	struct ctl_conn *cn = c->conns, *next;

	for (; cn; cn = next) {
		next = cn->next;
		if (now - cn->last_active_us >= limit) {
			ctl_conn_free(cn);
			c->drops.idle++;
		}
	}
	/* Sums left from a busy interval are logged once it is over. */
	ctl_log_drops_due(c);
	sd_event_source_set_time(s, usec + CTL_IDLE_CHECK_MS * 1000ull);
	return 0;
}

/* At the connection limit, the most idle client makes room: an operator's
 * ibsmctl gets in even while a crowd holds connections open. */
static int listen_io(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	struct ctl *c = ud;
	int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (cfd < 0)
		return 0;
	if (c->n_conns >= c->lim.max_connections && c->conns) {
		ctl_conn_free(most_idle(c));
		ctl_note_drop(c, &c->drops.evicted);
	}
	if (ctl_conn_add(c, sd_event_source_get_event(s), cfd) < 0)
		close(cfd);
	return 0;
}

void ctl_set_limits(struct ctl *c, const struct ctl_limits *lim)
{
	if (c)
		c->lim = *lim;
}

static int bind_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path); /* a stale socket from an earlier run */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0660) < 0 || listen(fd, 128) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

struct ctl *ctl_open(struct sd_event *ev, const char *path)
{
	struct ctl *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return NULL;
	c->fd = bind_socket(path);
	if (c->fd < 0) {
		log_err("control socket %s: %s; ibsmctl will not reach this "
			"daemon",
			path, strerror(-c->fd));
		free(c);
		return NULL;
	}
	c->lim = ctl_default_limits;
	c->path = strdup(path);
	r = sd_event_add_io(ev, &c->src, c->fd, EPOLLIN, listen_io, c);
	if (r >= 0)
		r = sd_event_add_time_relative(
		    ev, &c->idle_timer, CLOCK_MONOTONIC,
		    CTL_IDLE_CHECK_MS * 1000ull, 100000, idle_check, c);
	if (r >= 0)
		r = sd_event_source_set_enabled(c->idle_timer, SD_EVENT_ON);
	if (r < 0 || !c->path) {
		log_err("control socket %s: cannot watch it: %s", path,
			strerror(r < 0 ? -r : ENOMEM));
		ctl_close(c);
		return NULL;
	}
	ctl_register(c, "help", help_cmd, c, "list the commands");
	return c;
}

void ctl_close(struct ctl *c)
{
	if (!c)
		return;
	while (c->conns)
		ctl_conn_free(c->conns);
	sd_event_source_unref(c->src);
	sd_event_source_unref(c->idle_timer);
	if (c->fd >= 0)
		close(c->fd);
	if (c->path)
		unlink(c->path);
	for (unsigned i = 0; i < c->n_cmds; i++) {
		free(c->cmds[i].name);
		free(c->cmds[i].help);
	}
	free(c->path);
	free(c);
}

/* The control socket: see ctl.h.  Each connection is an sd-event I/O
 * source; a request is handled when its newline arrives, the answer is
 * built in memory and written out whole (answers are small, and a client
 * that stops reading is cut off by the send timeout rather than blocking
 * the loop for long). */
#include "daemon/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "lib/log.h"

#define CTL_MAX_CMDS 32
#define CTL_LINE_MAX 1024

struct ctl_cmd {
	char *name;
	size_t len;
	ctl_handler_fn fn;
	void *arg;
	char *help;
};

struct ctl {
	int fd;
	char *path;
	sd_event_source *src;
	struct ctl_cmd cmds[CTL_MAX_CMDS];
	unsigned n_cmds;
	struct ctl_conn *conns; /* open connections, freed with the ctl */
};

struct ctl_conn {
	struct ctl *ctl;
	struct ctl_conn *next, **pprev;
	int fd;
	sd_event_source *src;
	char buf[CTL_LINE_MAX];
	size_t used;
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

void ctl_dispatch(struct ctl *c, const char *line, FILE *out)
{
	const struct ctl_cmd *cmd;
	char err[256] = "";
	const char *args;
	int r;

	while (*line == ' ' || *line == '\t')
		line++;
	cmd = find_cmd(c, line);
	if (!cmd) {
		fprintf(out, "ERR unknown command '%s' (try 'help')\n", line);
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

static void conn_free(struct ctl_conn *cn)
{
	if (cn->next)
		cn->next->pprev = cn->pprev;
	*cn->pprev = cn->next;
	sd_event_source_unref(cn->src);
	close(cn->fd);
	free(cn);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int conn_answer(struct ctl_conn *cn, const char *line)
{
	char *ans = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&ans, &len);
	int r;

	if (!out)
		return -ENOMEM;
	ctl_dispatch(cn->ctl, line, out);
	fclose(out);
	r = write_all(cn->fd, ans, len);
	free(ans);
	return r;
}

/* Handles every complete line in the buffer; -1 when the connection must
 * be closed. */
static int conn_process(struct ctl_conn *cn)
{
	char *nl;

	while ((nl = memchr(cn->buf, '\n', cn->used))) {
		size_t n = (size_t)(nl - cn->buf) + 1;

		*nl = '\0';
		if (nl > cn->buf && nl[-1] == '\r')
			nl[-1] = '\0';
		if (cn->buf[0] && conn_answer(cn, cn->buf) < 0)
			return -1;
		memmove(cn->buf, cn->buf + n, cn->used - n);
		cn->used -= n;
	}
	if (cn->used == sizeof(cn->buf)) {
		log_warn("control socket: request line longer than %d bytes, "
			 "closing the connection",
			 CTL_LINE_MAX);
		return -1;
	}
	return 0;
}

static int conn_io(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	struct ctl_conn *cn = ud;
	ssize_t r = read(fd, cn->buf + cn->used, sizeof(cn->buf) - cn->used);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0) {
		/* EOF: answer a last line sent without a newline. */
		if (r == 0 && cn->used && cn->used < sizeof(cn->buf)) {
			cn->buf[cn->used] = '\0';
			conn_answer(cn, cn->buf);
		}
		conn_free(cn);
		return 0;
	}
	cn->used += (size_t)r;
	if (conn_process(cn) < 0)
		conn_free(cn);
	return 0;
}

static int listen_io(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	struct ctl *c = ud;
	struct timeval tv = {.tv_sec = 2};
	struct ctl_conn *cn;
	int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (cfd < 0)
		return 0;
	cn = calloc(1, sizeof(*cn));
	if (!cn) {
		close(cfd);
		return 0;
	}
	cn->ctl = c;
	cn->fd = cfd;
	setsockopt(cfd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	/* Reads stay non-blocking through the event loop; writes block up
	 * to the send timeout so long answers go out whole. */
	fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) & ~O_NONBLOCK);
	if (sd_event_add_io(sd_event_source_get_event(s), &cn->src, cfd,
			    EPOLLIN, conn_io, cn) < 0) {
		close(cfd);
		free(cn);
		return 0;
	}
	cn->next = c->conns;
	if (c->conns)
		c->conns->pprev = &cn->next;
	cn->pprev = &c->conns;
	c->conns = cn;
	return 0;
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
	    chmod(path, 0660) < 0 || listen(fd, 16) < 0) {
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
	c->path = strdup(path);
	r = sd_event_add_io(ev, &c->src, c->fd, EPOLLIN, listen_io, c);
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
		conn_free(c->conns);
	sd_event_source_unref(c->src);
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

/* One control-socket connection: requests are read while fewer than
 * max_output answer bytes wait to be sent, answers are queued and sent as
 * the client reads them, and nothing here ever blocks the loop.  A client
 * that closes early, resets, half-closes or sends noise ends only its own
 * connection (MSG_NOSIGNAL; SIGPIPE is ignored as well, see main.c). */
#include "daemon/ctl/ctl_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-event.h>
#include <unistd.h>

void ctl_conn_free(struct ctl_conn *cn)
{
	if (cn->next)
		cn->next->pprev = cn->pprev;
	*cn->pprev = cn->next;
	cn->ctl->n_conns--;
	sd_event_source_unref(cn->src);
	close(cn->fd);
	free(cn->out);
	free(cn);
}

static size_t pending(const struct ctl_conn *cn)
{
	return cn->out_len - cn->out_off;
}

/* Appends an answer to the queue; one longer than the limit is replaced
 * by an error line (the client asked for more than one connection may
 * hold). */
static int queue(struct ctl_conn *cn, const char *ans, size_t len)
{
	char msg[128];
	char *p;

	if (len > cn->ctl->lim.max_output) {
		len = (size_t)snprintf(msg, sizeof(msg),
				       "ERR answer of %zu bytes is over the "
				       "limit of %u (control.max_output)\n",
				       len, cn->ctl->lim.max_output);
		ans = msg;
		ctl_note_drop(cn->ctl, &cn->ctl->drops.big_answer);
	}
	/* What was sent is dropped, so a client that always reads a little
	 * late does not make the buffer grow. */
	if (cn->out_off) {
		memmove(cn->out, cn->out + cn->out_off, pending(cn));
		cn->out_len -= cn->out_off;
		cn->out_off = 0;
	}
	p = realloc(cn->out, cn->out_len + len);
	if (!p)
		return -ENOMEM;
	memcpy(p + cn->out_len, ans, len);
	cn->out = p;
	cn->out_len += len;
	return 0;
}

static int answer(struct ctl_conn *cn, const char *line)
{
	char *ans = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&ans, &len);
	int r;

	if (!out)
		return -ENOMEM;
	ctl_dispatch_as(cn->ctl, cn->uid, line, out);
	fclose(out);
	r = queue(cn, ans, len);
	free(ans);
	return r;
}

/* Answers complete lines while the queue has room; a line with a NUL
 * byte is answered like any other non-text request. */
static int process(struct ctl_conn *cn)
{
	char *nl;

	while (pending(cn) < cn->ctl->lim.max_output &&
	       (nl = memchr(cn->in, '\n', cn->used))) {
		size_t n = (size_t)(nl - cn->in) + 1;

		*nl = '\0';
		if (nl > cn->in && nl[-1] == '\r')
			nl[-1] = '\0';
		if (memchr(cn->in, '\0', n - 1))
			cn->in[0] = '\x01'; /* refused as not text */
		if (cn->in[0] && answer(cn, cn->in) < 0)
			return -ENOMEM;
		memmove(cn->in, cn->in + n, cn->used - n);
		cn->used -= n;
	}
	if (cn->used == sizeof(cn->in) - 1 && !memchr(cn->in, '\n', cn->used)) {
		/* No newline in a full buffer: the rest of the stream cannot
		 * be parsed; say why, then close. */
		cn->used = 0;
		cn->closing = true;
		ctl_note_drop(cn->ctl, &cn->ctl->drops.long_line);
		return queue(cn, "ERR request line too long\n", 26);
	}
	/* EOF: a last line sent without a newline is answered too. */
	if (cn->eof && cn->used && pending(cn) < cn->ctl->lim.max_output) {
		cn->in[cn->used] = '\0';
		if (memchr(cn->in, '\0', cn->used))
			cn->in[0] = '\x01'; /* refused as not text */
		cn->used = 0;
		return answer(cn, cn->in);
	}
	return 0;
}

static int do_read(struct ctl_conn *cn)
{
	ssize_t r = recv(cn->fd, cn->in + cn->used,
			 sizeof(cn->in) - 1 - cn->used, MSG_DONTWAIT);

	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (r == 0)
		cn->eof = true;
	cn->used += (size_t)r;
	cn->last_active_us = ctl_now_us();
	return 0;
}

static int do_write(struct ctl_conn *cn)
{
	while (pending(cn)) {
		ssize_t w = send(cn->fd, cn->out + cn->out_off, pending(cn),
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno == EAGAIN ? 0 : -errno;
		cn->out_off += (size_t)w;
		cn->last_active_us = ctl_now_us();
	}
	return 0;
}

/* Reads only while answers may still be queued; waits for writability
 * only while some are. */
static uint32_t wanted(const struct ctl_conn *cn)
{
	uint32_t ev = 0;

	if (!cn->eof && !cn->closing && pending(cn) < cn->ctl->lim.max_output)
		ev |= EPOLLIN;
	if (pending(cn))
		ev |= EPOLLOUT;
	return ev;
}

static bool has_request(const struct ctl_conn *cn)
{
	return (cn->eof && cn->used) || memchr(cn->in, '\n', cn->used);
}

static bool finished(const struct ctl_conn *cn)
{
	if (pending(cn))
		return false;
	return cn->closing || (cn->eof && cn->used == 0);
}

static int conn_io(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	struct ctl_conn *cn = ud;
	int r = 0;

	if ((revents & EPOLLIN) && cn->used < sizeof(cn->in) - 1)
		r = do_read(cn);
	/* Answers sent make room for more of the lines already read (at
	 * most a buffer's worth: this ends). */
	do {
		r = process(cn);
		if (r == 0)
			r = do_write(cn);
	} while (r == 0 && has_request(cn) &&
		 pending(cn) < cn->ctl->lim.max_output);
	/* A client gone mid-answer is ordinary: not worth a log.  After a
	 * hangup nobody reads what is left. */
	if (r < 0 || finished(cn) || (revents & (EPOLLHUP | EPOLLERR))) {
		ctl_conn_free(cn);
		return 0;
	}
	sd_event_source_set_io_events(s, wanted(cn));
	return 0;
}

int ctl_conn_add(struct ctl *c, struct sd_event *ev, int fd)
{
	struct ctl_conn *cn = calloc(1, sizeof(*cn));
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (!cn)
		return -ENOMEM;
	cn->ctl = c;
	cn->fd = fd;
	/* Unknown credentials get the group's rights only. */
	cn->uid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0
		      ? cred.uid
		      : (uid_t)-1;
	cn->last_active_us = ctl_now_us();
	if (sd_event_add_io(ev, &cn->src, fd, EPOLLIN, conn_io, cn) < 0) {
		free(cn);
		return -ENOMEM;
	}
	cn->next = c->conns;
	if (c->conns)
		c->conns->pprev = &cn->next;
	cn->pprev = &c->conns;
	c->conns = cn;
	c->n_conns++;
	return 0;
}

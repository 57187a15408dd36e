/* See syncer.h.  One request slot, not a queue: a sync covers every
 * write made before it started, so the thread always syncs the latest
 * request's file and reports that request's ticket. */
#include "lib/syncer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct syncer {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int efd;
	int fd;		 /* the file to sync next, -1: none asked */
	uint64_t want;	 /* its ticket */
	uint64_t synced; /* highest ticket synced */
	int err;	 /* first error not yet reported */
	uint64_t count;	 /* syncs done */
	bool stop;
};

static void *run(void *arg)
{
	struct syncer *s = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (s->fd < 0 && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->fd < 0)
			break; /* stopping, nothing asked */
		int fd = s->fd;
		uint64_t t = s->want;
		int rc;

		s->fd = -1;
		pthread_mutex_unlock(&s->mu);
		rc = fdatasync(fd) < 0 ? -errno : 0;
		close(fd);
		pthread_mutex_lock(&s->mu);
		if (rc && !s->err)
			s->err = rc;
		if (t > s->synced)
			s->synced = t;
		__atomic_add_fetch(&s->count, 1, __ATOMIC_RELAXED);
		if (write(s->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			break;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct syncer *syncer_new(void)
{
	struct syncer *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return NULL;
	s->fd = -1;
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->efd < 0) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	rc = pthread_create(&s->thread, NULL, run, s);
	if (rc) {
		close(s->efd);
		free(s);
		errno = rc;
		return NULL;
	}
	return s;
}

void syncer_free(struct syncer *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	if (s->fd >= 0)
		close(s->fd);
	close(s->efd);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

int syncer_fd(const struct syncer *s)
{
	return s->efd;
}

int syncer_request(struct syncer *s, int fd, uint64_t ticket)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (d < 0)
		return -errno;
	pthread_mutex_lock(&s->mu);
	if (s->fd >= 0)
		close(s->fd); /* a later request covers the earlier one */
	s->fd = d;
	s->want = ticket;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

uint64_t syncer_done(struct syncer *s, int *err)
{
	uint64_t v, t;

	if (read(s->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		v = 0;
	pthread_mutex_lock(&s->mu);
	t = s->synced;
	*err = s->err;
	s->err = 0;
	pthread_mutex_unlock(&s->mu);
	return t;
}

uint64_t syncer_count(const struct syncer *s)
{
	return __atomic_load_n(&s->count, __ATOMIC_RELAXED);
}

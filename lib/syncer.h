/* A thread that makes appended file data durable (fdatasync) off the
 * caller's thread, for group commit: the caller appends with write(),
 * asks for a sync up to a ticket (its own count of what it appended), and
 * learns through an eventfd when a sync covering that ticket is done.
 * While one sync runs, requests only raise the ticket wanted; the next
 * sync covers all of them at once. */
#ifndef IBSM_SYNCER_H
#define IBSM_SYNCER_H

#include <stdint.h>

struct syncer;

/* Starts the thread; NULL (errno set) on failure. */
struct syncer *syncer_new(void);
/* Stops the thread (after a sync that runs) and frees. */
void syncer_free(struct syncer *s);
/* Readable (an eventfd) when a sync finished: call syncer_done(). */
int syncer_fd(const struct syncer *s);
/* Everything written to fd so far is covered by ticket: sync it.  fd is
 * duplicated, so the caller may close or replace its own.  0 or -errno. */
int syncer_request(struct syncer *s, int fd, uint64_t ticket);
/* After syncer_fd() was readable: the highest ticket synced so far, and
 * in *err the first error since the last call (0 or -errno; the data of
 * a failed sync may not be on disk). */
uint64_t syncer_done(struct syncer *s, int *err);
/* Syncs finished (for the counters). */
uint64_t syncer_count(const struct syncer *s);

#endif

/* Persistence of the SA's ServiceRecords in the state directory
 * (services.state), so a registration the SA acknowledged survives a
 * SIGKILL and restart.  The file is a snapshot followed by a journal:
 * each Set or Delete that changed the records adds a line to a pending
 * buffer, durable_ack.c holds its answer and asks this store to write at
 * the end of the loop turn, and the store appends the pending lines and
 * syncs them (one small write for a burst, whatever the number of
 * records).  When the journal outgrows the records it describes, the
 * file is rewritten as a snapshot: to a temporary file, synced and
 * renamed over the old one (atomic); so also at start.
 *
 * Format, one line per record or change, replayed in order:
 *   ibsmd-services 1
 *   service EXPIRES HEX     a record registered (replaces its key's)
 *   delete HEX              the record with HEX's key removed
 * EXPIRES is when the lease ends, in ms since the Unix epoch (0: an
 * infinite lease), so a lease keeps counting while the daemon is away;
 * HEX is the 176-byte ServiceRecord as on the wire (lease as
 * registered).  At start a damaged line (a torn last append among them)
 * is reported with its number and skipped, and a record whose lease
 * ended meanwhile is dropped. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "daemon/core/sm.h"
#include "daemon/sa/sa_server.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "lib/hexline.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "mad/sa_service.h"

#define STORE_FILE "services.state"
#define HEADER	   "ibsmd-services 1\n"
/* Damaged lines named one by one, then only counted. */
#define DAMAGED_NAMED 10
/* A ServiceRecord on the wire (IBA 15.2.5.14). */
#define REC_BYTES 176

/* The journal may grow to this many lines past twice the records before
 * the file is rewritten as a snapshot. */
#define JOURNAL_SLACK 256

struct sa_svc_store {
	struct sm *sm;
	struct sa *sa;
	struct sa_durable_writer writer;
	int fd;		/* services.state open for appending, -1: none */
	uint32_t lines; /* record and change lines in the file */
	char *pend;	/* lines not written yet */
	size_t pend_len, pend_cap;
	bool pend_lost; /* out of memory for a line: write a snapshot */
};

static uint64_t real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void path_of(const struct sa_svc_store *st, char *buf, size_t n)
{
	snprintf(buf, n, "%s/" STORE_FILE, st->sm->cfg.state_dir);
}

/* ---- writing ---- */

/* "WORD [EXPIRES ]HEX\n" into out (LINE_MAX_LEN bytes). */
#define LINE_MAX_LEN 400
static int format_line(char *out, const char *word,
		       const struct sa_service_rec *r, bool with_exp,
		       uint64_t expires_real)
{
	uint8_t wire[REC_BYTES] = {0};
	int n;

	sa_rec_encode(&sa_service_rec_desc, r, wire);
	n = with_exp ? snprintf(out, LINE_MAX_LEN, "%s %" PRIu64 " ", word,
				expires_real)
		     : snprintf(out, LINE_MAX_LEN, "%s ", word);
	n += (int)hex_put(out + n, wire, sizeof(wire));
	out[n++] = '\n';
	return n;
}

/* Wall-clock expiry of an expiry on the SA's clock. */
static uint64_t to_real(const struct sa_svc_store *st, uint64_t exp)
{
	uint64_t now = st->sa->now_ms();

	return exp ? real_ms() + (exp > now ? exp - now : 0) : 0;
}

/* The snapshot: every record, atomically; then appends go after it. */
static int write_snapshot(struct sa_svc_store *st)
{
	char path[600], line[LINE_MAX_LEN];
	struct sa_service_rec r;
	struct outfile o;
	uint64_t exp;
	uint32_t i;
	int rc;

	path_of(st, path, sizeof(path));
	if ((rc = outfile_open(&o, path, 0)) < 0)
		return rc;
	o.sync = true;
	fputs(HEADER, o.fp);
	for (i = 0; sa_service_at(st->sa, i, &r, &exp); i++)
		fwrite(line, 1,
		       (size_t)format_line(line, "service", &r, true,
					   to_real(st, exp)),
		       o.fp);
	if ((rc = outfile_close(&o, 0)) < 0)
		return rc;
	if (st->fd >= 0)
		close(st->fd);
	st->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	st->lines = i;
	return st->fd < 0 ? -errno : 0;
}

/* The pending lines, appended and synced. */
static int append_pending(struct sa_svc_store *st)
{
	size_t off = 0;

	while (off < st->pend_len) {
		ssize_t w = write(st->fd, st->pend + off, st->pend_len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += (size_t)w;
	}
	return fdatasync(st->fd) < 0 ? -errno : 0;
}

static int write_changes(struct sa_svc_store *st, uint32_t n_lines)
{
	if (st->fd >= 0 && !st->pend_lost &&
	    st->lines + n_lines <= 2 * st->sa->services.n + JOURNAL_SLACK) {
		int rc = append_pending(st);

		if (rc == 0) {
			st->lines += n_lines;
			return 0;
		}
		/* a failed append may have left a torn line: start afresh */
	}
	return write_snapshot(st);
}

static void save(struct sa_svc_store *st)
{
	uint32_t n_lines = 0;
	int rc;

	if (!st->pend_len && !st->pend_lost)
		return;
	for (size_t i = 0; i < st->pend_len; i++)
		n_lines += st->pend[i] == '\n';
	rc = write_changes(st, n_lines);
	st->pend_len = 0;
	st->pend_lost = false;
	if (rc < 0)
		log_warn("SA: cannot write %s/" STORE_FILE ": %s; a restart "
			 "may lose the latest ServiceRecords",
			 st->sm->cfg.state_dir, strerror(-rc));
	/* Written or not, the answers go (the warning says which). */
	sa_durable_release(st->sm);
}

static void save_cb(void *ctx)
{
	save(ctx);
}

/* The SA changed a record (sa_services.changed): a line to write. */
static void on_changed(void *ctx, const struct sa_service_rec *rec,
		       uint64_t expires_ms, bool removed)
{
	struct sa_svc_store *st = ctx;

	if (st->pend_cap - st->pend_len < LINE_MAX_LEN) {
		size_t cap = st->pend_cap ? 2 * st->pend_cap : 4096;
		char *p = realloc(st->pend, cap);

		if (!p) { /* the snapshot will carry it */
			st->pend_lost = true;
			return;
		}
		st->pend = p;
		st->pend_cap = cap;
	}
	st->pend_len += (size_t)format_line(st->pend + st->pend_len,
					    removed ? "delete" : "service", rec,
					    !removed, to_real(st, expires_ms));
}

static bool store_unsaved(void *ctx)
{
	struct sa_svc_store *st = ctx;

	return st->pend_len || st->pend_lost;
}

/* At the end of this loop turn. */
static void store_flush_soon(void *ctx)
{
	struct sa_svc_store *st = ctx;

	sa_durable_write_soon(st->sm, &st->writer);
}

/* ---- loading ---- */

/* One "service" or "delete" line into r, its expiry on the wall clock
 * and whether it removes; 0 or -EINVAL. */
static int parse_line(const char *line, struct sa_service_rec *r,
		      uint64_t *expires_real, bool *removed)
{
	uint8_t wire[REC_BYTES];
	int off = 0;
	const char *h;

	*expires_real = 0;
	*removed = !strncmp(line, "delete ", 7);
	if (*removed)
		off = 7;
	else if (sscanf(line, "service %" SCNu64 " %n", expires_real, &off) !=
		     1 ||
		 !off)
		return -EINVAL;
	h = line + off;
	if (hex_get(h, wire, sizeof(wire)) < 0)
		return -EINVAL;
	h += 2 * sizeof(wire);
	if (*h != '\n' && *h != '\0')
		return -EINVAL;
	return sa_rec_decode(&sa_service_rec_desc, wire, sizeof(wire), r);
}

struct load_counts {
	unsigned lines, expired, damaged;
};

static void load_one(struct sa_svc_store *st, const char *path, unsigned lineno,
		     const char *line, struct load_counts *k)
{
	uint64_t now = st->sa->now_ms(), rnow = real_ms(), exp;
	struct sa_service_rec r;
	bool removed;
	int rc = parse_line(line, &r, &exp, &removed);

	if (rc == 0 && (removed || (exp && exp <= rnow))) {
		/* removed, or its lease ended while we were away */
		sa_service_remove(st->sa, &r);
		k->expired += !removed;
		k->lines++;
		return;
	}
	if (rc == 0 &&
	    sa_service_restore(st->sa, &r, exp ? now + (exp - rnow) : 0) == 0) {
		k->lines++;
		return;
	}
	if (k->damaged++ < DAMAGED_NAMED)
		log_warn("SA: %s:%u: damaged ServiceRecord line, skipped", path,
			 lineno);
}

static void load_file(struct sa_svc_store *st)
{
	char path[600], *line = NULL;
	struct load_counts k = {0};
	unsigned lineno = 0;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;

	path_of(st, path, sizeof(path));
	fp = fopen(path, "r");
	if (!fp) {
		if (errno != ENOENT)
			log_warn("SA: cannot read %s: %s; no ServiceRecords "
				 "restored",
				 path, strerror(errno));
		return;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (lineno == 1 && !strcmp(line, HEADER))
			continue;
		/* a NUL inside makes the line damaged, not shorter */
		if (memchr(line, '\0', (size_t)len))
			line[0] = '\0';
		load_one(st, path, lineno, line, &k);
	}
	free(line);
	fclose(fp);
	if (k.damaged > DAMAGED_NAMED)
		log_warn("SA: %s: %u damaged lines in all, skipped", path,
			 k.damaged);
	log_info("SA: %u ServiceRecords from %s (%u lines; %u leases ended "
		 "while away)",
		 st->sa->services.n, path, k.lines, k.expired);
}

struct sa_svc_store *sa_svc_store_open(struct sm *sm, struct sa *sa)
{
	struct sa_svc_store *st = calloc(1, sizeof(*st));
	struct sa_durable_store ds = {.unsaved = store_unsaved,
				      .flush_soon = store_flush_soon};
	int rc;

	if (!st)
		return NULL;
	st->sm = sm;
	st->sa = sa;
	st->fd = -1;
	st->writer.save = save_cb;
	st->writer.ctx = st;
	load_file(st);
	/* A clean snapshot to append to (no torn line, no old journal). */
	rc = write_snapshot(st);
	if (rc < 0)
		log_warn("SA: cannot write %s/" STORE_FILE ": %s",
			 sm->cfg.state_dir, strerror(-rc));
	ds.ctx = st;
	if (sa_durable_add_store(&ds) < 0) {
		log_err("SA: no room for the ServiceRecord store; "
			"ServiceRecords will not survive a restart");
		sa_svc_store_close(st);
		return NULL;
	}
	sa->services.changed = on_changed;
	sa->services.ctx = st;
	return st;
}

int sa_svc_store_reload(struct sa_svc_store *st)
{
	int rc;

	/* the records given way to are not news for the new file */
	st->pend_len = 0;
	st->pend_lost = false;
	sa_service_free(st->sa); /* clears the hook too */
	load_file(st);
	st->sa->services.changed = on_changed;
	st->sa->services.ctx = st;
	rc = write_snapshot(st);
	if (rc < 0)
		log_warn("SA: cannot write %s/" STORE_FILE ": %s",
			 st->sm->cfg.state_dir, strerror(-rc));
	return rc;
}

void sa_svc_store_close(struct sa_svc_store *st)
{
	if (!st)
		return;
	st->sa->services.changed = NULL;
	sa_durable_remove_store(st);
	sa_durable_write_fini(&st->writer);
	if (st->fd >= 0)
		close(st->fd);
	free(st->pend);
	free(st);
}

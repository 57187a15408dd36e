/* Persistence of the SA's event subscriptions (informs.state), so a
 * subscription the SA acknowledged survives a restart, and a standby can
 * copy it (daemon/role/sm_repl.c).  Subscriptions change seldom, so the file is
 * only ever a snapshot: rewritten whole (temporary file, fsync, rename)
 * at the end of the loop turn of a change, before the change's answer
 * goes (durable_ack.c holds it).
 *
 * Format:
 *   ibsmd-informs 1
 *   inform HEX        an InformInfoRecord (60 bytes as on the wire)
 * A damaged line is reported with its number and skipped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/core/sm.h"
#include "daemon/sa/sa_server.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "lib/hexline.h"
#include "lib/log.h"
#include "lib/outfile.h"

#define STORE_FILE "informs.state"
#define HEADER	   "ibsmd-informs 1\n"
#define REC_BYTES  60

struct sa_inform_store {
	struct sm *sm;
	struct sa *sa;
	struct sa_durable_writer writer;
	bool unsaved;
};

static void path_of(const struct sa_inform_store *st, char *buf, size_t n)
{
	snprintf(buf, n, "%s/" STORE_FILE, st->sm->cfg.state_dir);
}

static int write_file(struct sa_inform_store *st)
{
	char path[600], line[16 + 2 * REC_BYTES];
	const struct sa_informs *t = &st->sa->informs;
	struct outfile o;
	int rc;

	path_of(st, path, sizeof(path));
	if ((rc = outfile_open(&o, path, 0)) < 0)
		return rc;
	o.sync = true;
	fputs(HEADER, o.fp);
	for (uint32_t i = 0; i < t->n; i++) {
		uint8_t wire[REC_BYTES] = {0};
		size_t n = (size_t)snprintf(line, sizeof(line), "inform ");

		sa_rec_encode(&sa_inform_rec_desc, &t->v[i], wire);
		n += hex_put(line + n, wire, sizeof(wire));
		line[n++] = '\n';
		fwrite(line, 1, n, o.fp);
	}
	return outfile_close(&o, 0);
}

static void save(struct sa_inform_store *st)
{
	int rc;

	if (!st->unsaved)
		return;
	st->unsaved = false;
	rc = write_file(st);
	if (rc < 0)
		log_warn("SA: cannot write %s/" STORE_FILE ": %s; a restart "
			 "may lose the latest event subscriptions",
			 st->sm->cfg.state_dir, strerror(-rc));
	sa_durable_release(st->sm);
}

static void save_cb(void *ctx)
{
	save(ctx);
}

static void on_changed(void *ctx)
{
	((struct sa_inform_store *)ctx)->unsaved = true;
}

static bool store_unsaved(void *ctx)
{
	return ((struct sa_inform_store *)ctx)->unsaved;
}

/* At the end of this loop turn. */
static void store_flush_soon(void *ctx)
{
	struct sa_inform_store *st = ctx;

	sa_durable_write_soon(st->sm, &st->writer);
}

static int parse_line(const char *line, struct sa_inform_rec *r)
{
	uint8_t wire[REC_BYTES];
	const char *h = line + 7;

	if (strncmp(line, "inform ", 7) || hex_get(h, wire, sizeof(wire)) < 0)
		return -EINVAL;
	h += 2 * sizeof(wire);
	if (*h != '\n' && *h != '\0')
		return -EINVAL;
	return sa_rec_decode(&sa_inform_rec_desc, wire, sizeof(wire), r);
}

static void load_file(struct sa_inform_store *st)
{
	char path[600], *line = NULL;
	unsigned lineno = 0, damaged = 0;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;

	path_of(st, path, sizeof(path));
	if (!(fp = fopen(path, "r"))) {
		if (errno != ENOENT)
			log_warn("SA: cannot read %s: %s; no event "
				 "subscriptions restored",
				 path, strerror(errno));
		return;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		struct sa_inform_rec r = {0};

		lineno++;
		if (lineno == 1 && !strcmp(line, HEADER))
			continue;
		if (memchr(line, '\0', (size_t)len) || parse_line(line, &r) ||
		    sa_inform_add(st->sa, &r, true))
			if (damaged++ < 10)
				log_warn("SA: %s:%u: damaged event "
					 "subscription line, skipped",
					 path, lineno);
	}
	free(line);
	fclose(fp);
	log_info("SA: %u event subscriptions from %s", st->sa->informs.n, path);
}

struct sa_inform_store *sa_inform_store_open(struct sm *sm, struct sa *sa)
{
	struct sa_inform_store *st = calloc(1, sizeof(*st));
	struct sa_durable_store ds = {.unsaved = store_unsaved,
				      .flush_soon = store_flush_soon};

	if (!st)
		return NULL;
	st->sm = sm;
	st->sa = sa;
	st->writer.save = save_cb;
	st->writer.ctx = st;
	load_file(st);
	ds.ctx = st;
	if (sa_durable_add_store(&ds) < 0) {
		log_err("SA: no room for the event subscription store; "
			"subscriptions will not survive a restart");
		free(st);
		return NULL;
	}
	sa->informs.changed = on_changed;
	sa->informs.ctx = st;
	return st;
}

int sa_inform_store_reload(struct sa_inform_store *st)
{
	sa_inform_free(st->sa);
	load_file(st);
	st->unsaved = false;
	return 0;
}

void sa_inform_store_close(struct sa_inform_store *st)
{
	if (!st)
		return;
	st->sa->informs.changed = NULL;
	sa_durable_remove_store(st);
	sa_durable_write_fini(&st->writer);
	free(st);
}

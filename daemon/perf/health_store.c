/* state_dir/health.state: the unhealthy links, so that a restart or a
 * standby taking over (daemon/role/sm_repl.c copies the file) keeps
 * every episode and holds the same links out of routing.  One line per
 * link (docs/design.md §4.4):
 *   link GUID0 PORT0 GUID1 PORT1 ACTION HELD TRIPPED VALUE SINCE LAST_BAD
 *        "DESC0" "DESC1"
 * A damaged line is skipped with a warning. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/perf/perf_priv.h"
#include "daemon/sweep/sweep.h"
#include "lib/log.h"
#include "lib/outfile.h"

static void path_of(const struct perf *pf, char *path, size_t len)
{
	snprintf(path, len, "%s/health.state", pf->sm->cfg.state_dir);
}

/* Quotes cannot be escaped in the file: a description's become '. */
static void put_desc(FILE *fp, const char *d)
{
	fputc('"', fp);
	for (; *d; d++)
		fputc(*d == '"' || *d == '\n' ? '\'' : *d, fp);
	fputc('"', fp);
}

int health_store_save(struct perf *pf)
{
	const struct health *h = pf->health;
	struct outfile o;
	char path[600];
	int rc;

	path_of(pf, path, sizeof(path));
	rc = outfile_open(&o, path, 0);
	if (rc < 0) {
		log_warn("health: cannot write %s: %s; a restart forgets the "
			 "unhealthy links",
			 path, strerror(-rc));
		return rc;
	}
	fprintf(o.fp, "# ibsmd unhealthy links (docs/design.md 4.4)\n");
	for (uint32_t i = 0; i < h->n; i++) {
		const struct hlink *l = &h->links[i];

		fprintf(o.fp,
			"link 0x%016" PRIx64 " %u 0x%016" PRIx64 " %u %u %u %s "
			"%" PRIu64 " %" PRId64 " %" PRId64 " ",
			l->guid[0], l->port[0], l->guid[1], l->port[1],
			l->action, l->held, l->tripped, l->value, l->since,
			l->last_bad);
		put_desc(o.fp, l->desc[0]);
		fputc(' ', o.fp);
		put_desc(o.fp, l->desc[1]);
		fputc('\n', o.fp);
	}
	return outfile_close(&o, ferror(o.fp) ? -EIO : 0);
}

static bool parse_line(const char *s, struct hlink *l)
{
	unsigned p0, p1, action, held;
	int n = 0;

	memset(l, 0, sizeof(*l));
	if (sscanf(s,
		   "link %" SCNx64 " %u %" SCNx64 " %u %u %u %39s %" SCNu64
		   " %" SCNd64 " %" SCNd64 " \"%64[^\"]\" \"%64[^\"]\"%n",
		   &l->guid[0], &p0, &l->guid[1], &p1, &action, &held,
		   l->tripped, &l->value, &l->since, &l->last_bad, l->desc[0],
		   l->desc[1], &n) < 12 ||
	    p0 > 254 || p1 > 254 || action > HEALTH_KEPT || held > 1)
		return false;
	l->port[0] = (uint8_t)p0;
	l->port[1] = (uint8_t)p1;
	l->action = (uint8_t)action;
	l->held = held;
	return true;
}

static int add_link(struct health *h, const struct hlink *l)
{
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 16;
		struct hlink *nl = realloc(h->links, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		h->links = nl;
		h->cap = cap;
	}
	h->links[h->n++] = *l;
	return 0;
}

int health_store_load(struct perf *pf)
{
	struct health *h = pf->health;
	char path[600], line[512];
	unsigned bad = 0, no = 0;
	struct hlink l;
	FILE *fp;

	path_of(pf, path, sizeof(path));
	fp = fopen(path, "r");
	if (!fp)
		return errno == ENOENT ? 0 : -errno;
	h->n = 0;
	while (fgets(line, sizeof(line), fp)) {
		no++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!parse_line(line, &l)) {
			if (!bad++)
				log_warn("health: %s:%u: damaged line skipped",
					 path, no);
			continue;
		}
		if (add_link(h, &l) < 0)
			break;
	}
	fclose(fp);
	if (h->n)
		log_notice("health: %u unhealthy links read from %s", h->n,
			   path);
	return 0;
}

/* A standby's copy became this SM's state: the links it holds out are
 * cut at the sweep that follows the takeover. */
int health_reload(struct sm *sm)
{
	int rc;

	if (!sm->perf)
		return -ENODEV;
	rc = health_store_load(sm->perf);
	if (rc == 0)
		sweep_request(sm, true, "health state taken over");
	return rc;
}

/* services.state: the ServiceRecord database on disk, so that a restart
 * (SIGKILL included) keeps every registration the SA acknowledged.  The
 * daemon writes it after each change, before the answer goes out
 * (sa_daemon.c).  One line per record: the absolute expiry in wall-clock
 * milliseconds (0 = infinite lease; the monotonic clock does not survive a
 * restart) and the record as the SA encodes it on the wire, in hex:
 *
 *   ibsmd-services 1
 *   service <expiry_ms> <352 hex digits>
 *
 * Written under a temporary name, synced and renamed (docs/design.md
 * §4.4). */
#include "daemon/sa_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"

#define STATE_FILE "services.state"
#define MAGIC	   "ibsmd-services 1"

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void write_record(FILE *fp, const struct sa *sa,
			 const struct sa_service *s, uint64_t wall)
{
	uint8_t wire[256] = {0};
	uint64_t now = sa->now_ms(), expiry = 0;

	if (s->expires_ms)
		expiry = wall + (s->expires_ms > now ? s->expires_ms - now : 0);
	sa_rec_encode(&sa_service_rec_desc, &s->rec, wire);
	fprintf(fp, "service %" PRIu64 " ", expiry);
	for (unsigned i = 0; i < sa_service_rec_desc.size; i++)
		fprintf(fp, "%02x", wire[i]);
	fputc('\n', fp);
}

int sa_service_save(const struct sa *sa, const char *dir)
{
	char path[4096], tmp[4200];
	uint64_t wall = wall_ms();
	FILE *fp;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fp = fopen(tmp, "w");
	if (!fp)
		return -errno;
	fprintf(fp, MAGIC "\n");
	for (uint32_t i = 0; i < sa->services.n; i++)
		write_record(fp, sa, &sa->services.v[i], wall);
	if (fflush(fp) != 0 || fsync(fileno(fp)) < 0 || ferror(fp)) {
		fclose(fp);
		unlink(tmp);
		return -EIO;
	}
	if (fclose(fp) != 0) {
		unlink(tmp);
		return -EIO;
	}
	return rename(tmp, path) < 0 ? -errno : 0;
}

static int unhex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		out[i] = (uint8_t)v;
	}
	return s[2 * n] == '\0' || s[2 * n] == '\n' ? 0 : -EINVAL;
}

/* One "service" line into a record; -EINVAL when damaged. */
static int parse_line(const char *line, struct sa_service_rec *rec,
		      uint64_t *expiry)
{
	uint8_t wire[256] = {0};
	char hex[600];

	if (sscanf(line, "service %" SCNu64 " %599s", expiry, hex) != 2 ||
	    strlen(hex) != 2u * sa_service_rec_desc.size ||
	    unhex(hex, wire, sa_service_rec_desc.size) < 0)
		return -EINVAL;
	return sa_rec_decode(&sa_service_rec_desc, wire, sizeof(wire), rec);
}

static int add(struct sa *sa, const struct sa_service_rec *rec,
	       uint64_t expires_ms)
{
	struct sa_services *db = &sa->services;

	if (db->n == db->cap) {
		uint32_t cap = db->cap ? db->cap * 2 : 16;
		struct sa_service *nv = realloc(db->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		db->v = nv;
		db->cap = cap;
	}
	db->v[db->n].rec = *rec;
	db->v[db->n].expires_ms = expires_ms;
	db->n++;
	return 0;
}

/* Expiry on the wall clock to the SA's monotonic clock; false when past. */
static bool to_monotonic(const struct sa *sa, uint64_t expiry, uint64_t wall,
			 uint64_t *expires_ms)
{
	if (!expiry) {
		*expires_ms = 0;
		return true;
	}
	if (expiry <= wall)
		return false;
	*expires_ms = sa->now_ms() + (expiry - wall);
	return true;
}

int sa_service_load(struct sa *sa, const char *dir)
{
	char path[4096], line[1024];
	uint64_t wall = wall_ms();
	unsigned lineno = 0, bad = 0;
	int n = 0, rc = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, dir);
	fp = fopen(path, "r");
	if (!fp)
		return errno == ENOENT ? 0 : -errno;
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		struct sa_service_rec rec;
		uint64_t expiry, expires_ms;

		if (++lineno == 1 && !strncmp(line, MAGIC, strlen(MAGIC)))
			continue;
		if (parse_line(line, &rec, &expiry) < 0) {
			if (bad++ < 5)
				log_warn("%s:%u: damaged ServiceRecord line "
					 "skipped",
					 path, lineno);
			continue;
		}
		if (!to_monotonic(sa, expiry, wall, &expires_ms))
			continue; /* the lease ran out while we were down */
		if (sa->services.n >= SA_SERVICE_MAX)
			break;
		rc = add(sa, &rec, expires_ms);
		n += rc == 0;
	}
	fclose(fp);
	if (bad)
		log_warn("%s: %u damaged lines skipped, %d ServiceRecords read",
			 path, bad, n);
	return rc < 0 ? rc : n;
}

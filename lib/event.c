/* Structured event lines: see event.h. */
#include "lib/event.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "lib/log.h"

int event_begin(struct event_line *e, const char *name)
{
	struct timespec ts;
	struct tm tm;
	char t[80];

	if (log_get_level() < LOG_LVL_NOTICE)
		return -ECANCELED;
	e->buf = NULL;
	e->len = 0;
	e->f = open_memstream(&e->buf, &e->len);
	if (!e->f) {
		log_warn("event %s dropped: out of memory", name);
		return -ENOMEM;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(t, sizeof(t), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (long)(ts.tv_nsec / 1000000) % 1000);
	json_init(&e->j, e->f, false);
	json_begin_object(&e->j);
	json_kv_string(&e->j, "event", name);
	json_kv_string(&e->j, "time", t);
	return 0;
}

void event_end(struct event_line *e)
{
	int rc;

	json_end_object(&e->j);
	rc = json_finish(&e->j);
	if (fclose(e->f) != 0 || rc < 0) {
		log_warn("an event line could not be built; dropped");
	} else {
		/* json_finish ended the document with a newline */
		if (e->len && e->buf[e->len - 1] == '\n')
			e->buf[--e->len] = '\0';
		log_notice("event %s", e->buf);
	}
	free(e->buf);
	e->buf = NULL;
}

void event_kv_guid(struct event_line *e, const char *key, uint64_t guid)
{
	char g[24];

	snprintf(g, sizeof(g), "0x%016" PRIx64, guid);
	json_kv_string(&e->j, key, g);
}

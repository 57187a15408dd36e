/* Logging: see log.h. */
#include "lib/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static enum log_level cur_level = LOG_LVL_NOTICE;
static const char *cur_ident = "ibsmd";
static int on_journal = -1;

static const char *const level_names[] = {
    [LOG_LVL_ERR] = "error",	 [LOG_LVL_WARN] = "warn",
    [LOG_LVL_NOTICE] = "notice", [LOG_LVL_INFO] = "info",
    [LOG_LVL_DEBUG] = "debug",
};

void log_set_level(enum log_level lvl)
{
	cur_level = lvl;
}
enum log_level log_get_level(void)
{
	return cur_level;
}
void log_set_ident(const char *ident)
{
	cur_ident = ident;
}

const char *log_level_name(enum log_level lvl)
{
	if (lvl < LOG_LVL_ERR || lvl > LOG_LVL_DEBUG)
		return "?";
	return level_names[lvl];
}

/* systemd sets JOURNAL_STREAM to "dev:ino" of the stream it connected to
 * stderr; only when they match is stderr really the journal. */
static int detect_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(2, &st) < 0)
		return 0;
	return st.st_dev == dev && st.st_ino == ino;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl > cur_level)
		return;
	if (on_journal < 0)
		on_journal = detect_journal();
	if (on_journal)
		fprintf(stderr, "<%d>", (int)lvl);
	else
		fprintf(stderr, "%s: %s: ", cur_ident, log_level_name(lvl));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One lock for every limit: the SA's receiver-thread answers share
 * theirs with the loop (daemon/sa_daemon/sa_daemon.c). */
static pthread_mutex_t rl_lock = PTHREAD_MUTEX_INITIALIZER;

bool log_ratelimit_ok(struct log_ratelimit *rl)
{
	unsigned long long t = now_ms();
	bool ok = false;

	pthread_mutex_lock(&rl_lock);
	if (t - rl->window_start_ms >= rl->interval_ms) {
		rl->window_start_ms = t;
		rl->printed = 0;
	}
	if (rl->printed < rl->burst) {
		rl->printed++;
		ok = true;
	} else {
		rl->suppressed++;
	}
	pthread_mutex_unlock(&rl_lock);
	return ok;
}

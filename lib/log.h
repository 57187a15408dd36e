/* Logging for ibsmd and its tools: levels, printf-checked formats, and
 * syslog priority prefixes ("<3>") when stderr is the systemd journal so
 * journalctl shows the right priority. */
#ifndef IBSM_LOG_H
#define IBSM_LOG_H

#include <stdbool.h>

enum log_level { LOG_LVL_ERR = 3, LOG_LVL_WARN = 4, LOG_LVL_NOTICE = 5,
		 LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

/* Messages above this level are dropped. */
void log_set_level(enum log_level lvl);
enum log_level log_get_level(void);
const char *log_level_name(enum log_level lvl);
/* Program name printed before each message when not on the journal. */
void log_set_ident(const char *ident);

void log_msg(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)                                                     \
	do {                                                               \
		if (log_get_level() >= LOG_LVL_DEBUG)                      \
			log_msg(LOG_LVL_DEBUG, __VA_ARGS__);               \
	} while (0)

/* A rate limiter for drops and other floods: at most `burst` messages per
 * `interval_ms`; log_ratelimit_ok() says whether to print this one and
 * counts the suppressed ones so the next printed message can report them. */
struct log_ratelimit {
	unsigned interval_ms, burst;
	unsigned long long window_start_ms;
	unsigned printed, suppressed;
};
bool log_ratelimit_ok(struct log_ratelimit *rl);

#endif

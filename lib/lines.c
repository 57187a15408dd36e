/* Line-by-line state files: see lines.h. */
#include "lib/lines.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"

/* Warnings about damaged lines: this many, then one summary, so that a
 * file of garbage cannot flood the log. */
#define WARN_MAX 10

void lines_skip(struct lines_reader *r, unsigned ln, const char *why)
{
	if (!r->skipped && r->errlen)
		snprintf(r->err, r->errlen, "%s:%u: %s", r->path, ln, why);
	if (++r->skipped <= WARN_MAX)
		log_warn("%s:%u: %s; line skipped, the rest of the file is "
			 "used",
			 r->path, ln, why);
}

int lines_read(const char *path,
	       int (*line)(void *ctx, struct lines_reader *r, char *s,
			   unsigned ln),
	       void *ctx, char *err, size_t errlen)
{
	struct lines_reader r = {.path = path, .err = err, .errlen = errlen};
	FILE *fp = fopen(path, "r");
	char buf[256];
	unsigned ln = 0;
	int rc = 0;

	if (!fp) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	while (rc == 0 && fgets(buf, sizeof(buf), fp)) {
		char *s = buf;

		ln++;
		s[strcspn(s, "\r\n")] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s && *s != '#')
			rc = line(ctx, &r, s, ln);
	}
	fclose(fp);
	if (r.skipped > WARN_MAX)
		log_warn("%s: %u damaged lines skipped in all", path,
			 r.skipped);
	return rc < 0 ? rc : (int)r.skipped;
}

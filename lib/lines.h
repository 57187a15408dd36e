/* State files read a line at a time (guid2lid, guid2mkey, neighbors):
 * blank lines and '#' comments pass, a damaged line is skipped with a
 * warning naming it by path:line (the first also into err), so that one
 * bad line (a hand edit, a torn write) costs only itself. */
#ifndef IBSM_LINES_H
#define IBSM_LINES_H

#include <stddef.h>

struct lines_reader {
	const char *path;
	unsigned skipped;
	char *err;
	size_t errlen;
};

/* Marks line ln damaged (why); at most 10 are logged one by one, the rest
 * summed at the end. */
void lines_skip(struct lines_reader *r, unsigned ln, const char *why);

/* Calls line(ctx, r, text, ln) for each line with something on it
 * (leading blanks and the line end stripped).  line returns 0, or <0 to
 * stop (that value is returned).  Else the lines skipped; -errno when the
 * file cannot be opened ("path: reason" in err). */
int lines_read(const char *path,
	       int (*line)(void *ctx, struct lines_reader *r, char *s,
			   unsigned ln),
	       void *ctx, char *err, size_t errlen);

#endif

/* A file written whole or not at all: written to a temporary file beside
 * it (mode 0644), then, on success, flushed, fsync'd when asked and
 * renamed over the final name; on an error the temporary file goes. */
#ifndef IBSM_LIB_OUTFILE_H
#define IBSM_LIB_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outfile {
	FILE *fp;
	char tmp[PATH_MAX];
	char path[PATH_MAX];
	char *buf;
	bool sync; /* fsync before the rename */
};

/* 0 or -errno; bufsize > 0 gives fp a buffer of that size (large dumps). */
int outfile_open(struct outfile *o, const char *path, size_t bufsize);
/* rc < 0: an earlier error, the file is dropped.  Returns rc, or the
 * error of flushing, syncing or renaming. */
int outfile_close(struct outfile *o, int rc);

#endif

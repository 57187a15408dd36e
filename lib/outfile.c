/* Whole-file writes: see outfile.h. */
#include "lib/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outfile_open(struct outfile *o, const char *path, size_t bufsize)
{
	int fd, e;

	memset(o, 0, sizeof(*o));
	if (snprintf(o->path, sizeof(o->path), "%s", path) >=
		(int)sizeof(o->path) ||
	    snprintf(o->tmp, sizeof(o->tmp), "%s.tmpXXXXXX", path) >=
		(int)sizeof(o->tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return -errno;
	/* mkstemp makes 0600; state and dumps are for admin tools to read */
	if (fchmod(fd, 0644) < 0 || !(o->fp = fdopen(fd, "w"))) {
		e = -errno;
		close(fd);
		unlink(o->tmp);
		return e;
	}
	if (bufsize && (o->buf = malloc(bufsize)))
		setvbuf(o->fp, o->buf, _IOFBF, bufsize);
	return 0;
}

int outfile_close(struct outfile *o, int rc)
{
	if (rc == 0 && (ferror(o->fp) || fflush(o->fp) != 0))
		rc = -EIO;
	if (rc == 0 && o->sync && fsync(fileno(o->fp)) != 0)
		rc = -errno;
	if (fclose(o->fp) != 0 && rc == 0)
		rc = -EIO;
	free(o->buf);
	if (rc == 0 && rename(o->tmp, o->path) != 0)
		rc = -errno;
	if (rc < 0)
		unlink(o->tmp);
	return rc;
}

/* ibsmctl: the operator's client for a running ibsmd.  This file holds the
 * control-socket side (status, sweep, dump, and any command the daemon
 * registers, e.g. mcg list/show); the protocol is one request line, answered
 * by data lines and a final "OK" or "ERR message" line (man/ibsmctl.8). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_SOCKET "/run/ibsmd/ibsmd.sock"

int ibsmctl_sa_main(int argc, char **argv); /* sa_client.c: SA over MADs */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibsmctl [-s SOCKET] status | sweep | dump DIR | help | "
		"topology diff | COMMAND...\n"
		"  -s SOCKET  control socket of ibsmd (default $IBSMD_SOCKET "
		"or " DEFAULT_SOCKET ")\n");
}

static int connect_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "ibsmctl: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr,
			"ibsmctl: cannot connect to ibsmd at %s: %s (is ibsmd "
			"running? see -s)\n",
			path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Builds the request line; `dump DIR` gets DIR made absolute because the
 * daemon does not share our working directory. */
static int build_request(int argc, char **argv, char *req, size_t len)
{
	size_t n = 0;

	for (int i = 0; i < argc; i++) {
		char abs[PATH_MAX];
		const char *a = argv[i];
		int w;

		if (i == 1 && strcmp(argv[0], "dump") == 0 && a[0] != '/') {
			if (!getcwd(abs, sizeof(abs) - strlen(a) - 2))
				return -1;
			strcat(abs, "/");
			strcat(abs, a);
			a = abs;
		}
		w = snprintf(req + n, len - n, "%s%s", i ? " " : "", a);
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
	}
	if (n + 2 > len)
		return -1;
	strcpy(req + n, "\n");
	return 0;
}

/* Prints data lines to stdout; the final line decides the exit status. */
static int read_answer(int fd)
{
	FILE *in = fdopen(fd, "r");
	char *line = NULL;
	size_t cap = 0;
	int rc = 1;

	if (!in)
		return 1;
	while (getline(&line, &cap, in) > 0) {
		if (strcmp(line, "OK\n") == 0) {
			rc = 0;
			break;
		}
		if (strncmp(line, "ERR ", 4) == 0) {
			fprintf(stderr, "ibsmctl: %s", line + 4);
			rc = 1;
			break;
		}
		fputs(line, stdout);
	}
	if (rc && !line)
		fprintf(stderr, "ibsmctl: ibsmd closed the connection\n");
	free(line);
	fclose(in);
	return rc;
}

int main(int argc, char **argv)
{
	const char *path = getenv("IBSMD_SOCKET");
	char req[2048];
	int fd, i = 1;

	if (!path)
		path = DEFAULT_SOCKET;
	if (i + 1 < argc && strcmp(argv[i], "-s") == 0) {
		path = argv[i + 1];
		i += 2;
	}
	if (i >= argc || strcmp(argv[i], "-h") == 0 ||
	    strcmp(argv[i], "--help") == 0) {
		usage(i >= argc ? stderr : stdout);
		return i >= argc ? 2 : 0;
	}
	if (strcmp(argv[i], "sa") == 0)
		return ibsmctl_sa_main(argc - i, argv + i);
	if (strcmp(argv[i], "dump") == 0 && argc - i != 2) {
		usage(stderr);
		return 2;
	}
	if (build_request(argc - i, argv + i, req, sizeof(req)) < 0) {
		fprintf(stderr, "ibsmctl: request too long\n");
		return 2;
	}
	fd = connect_socket(path);
	if (fd < 0)
		return 1;
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		fprintf(stderr, "ibsmctl: write to %s: %s\n", path,
			strerror(errno));
		close(fd);
		return 1;
	}
	shutdown(fd, SHUT_WR);
	return read_answer(fd);
}

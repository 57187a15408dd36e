/* The control socket: command dispatch (longest registered prefix, OK/ERR
 * framing, help) and one request over a real unix socket driven by
 * sd-event, as ibsmctl sends it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-event.h>
#include <unistd.h>
#include <errno.h>

#include "daemon/ctl/ctl.h"

static int echo_cmd(void *arg, const char *args, FILE *out, char *err,
		    size_t errlen)
{
	fprintf(out, "%s [%s]\n", (const char *)arg, args);
	return 0;
}

static int fail_cmd(void *arg, const char *args, FILE *out, char *err,
		    size_t errlen)
{
	snprintf(err, errlen, "no such group %s", args);
	return -ENOENT;
}

static char *run(struct ctl *c, const char *line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ctl_dispatch(c, line, f);
	fclose(f);
	return buf;
}

static struct ctl *open_ctl(sd_event **ev, char *path, size_t len)
{
	struct ctl *c;

	snprintf(path, len, "/tmp/ibsmd-ctl-test.%d.sock", getpid());
	assert_int_equal(sd_event_new(ev), 0);
	c = ctl_open(*ev, path);
	assert_non_null(c);
	assert_int_equal(ctl_register(c, "mcg", echo_cmd, "mcg", "groups"), 0);
	assert_int_equal(ctl_register(c, "mcg list", echo_cmd, "list", "l"), 0);
	assert_int_equal(ctl_register(c, "mcg show", fail_cmd, NULL, "s"), 0);
	assert_int_equal(ctl_register(c, "mcg", echo_cmd, NULL, "dup"),
			 -EEXIST);
	return c;
}

static void test_dispatch(void **state)
{
	char path[108];
	sd_event *ev;
	struct ctl *c = open_ctl(&ev, path, sizeof(path));
	char *a;

	a = run(c, "mcg list  extra args");
	assert_string_equal(a, "list [extra args]\nOK\n");
	free(a);
	a = run(c, "mcg listing"); /* not a whole-word match of "mcg list" */
	assert_string_equal(a, "mcg [listing]\nOK\n");
	free(a);
	a = run(c, "  mcg");
	assert_string_equal(a, "mcg []\nOK\n");
	free(a);
	a = run(c, "mcg show ff12::1");
	assert_string_equal(a, "ERR no such group ff12::1\n");
	free(a);
	a = run(c, "bogus");
	assert_non_null(strstr(a, "ERR unknown command 'bogus'"));
	free(a);
	a = run(c, "help");
	assert_non_null(strstr(a, "mcg list\tl\n"));
	assert_non_null(strstr(a, "\nOK\n"));
	free(a);
	ctl_close(c);
	sd_event_unref(ev);
	assert_int_equal(access(path, F_OK), -1); /* socket removed */
}

static void test_socket(void **state)
{
	char path[108], buf[256] = "";
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	sd_event *ev;
	struct ctl *c = open_ctl(&ev, path, sizeof(path));
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	size_t got = 0;

	strcpy(sa.sun_path, path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, "mcg list a\n", 11), 11);
	shutdown(fd, SHUT_WR);
	for (int i = 0; i < 20 && !strstr(buf, "OK\n"); i++) {
		ssize_t r;
		sd_event_run(ev, 100 * 1000);
		r = recv(fd, buf + got, sizeof(buf) - 1 - got, MSG_DONTWAIT);
		if (r > 0)
			got += (size_t)r;
		buf[got] = '\0';
	}
	assert_string_equal(buf, "list [a]\nOK\n");
	close(fd);
	ctl_close(c);
	sd_event_unref(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dispatch),
	    cmocka_unit_test(test_socket),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

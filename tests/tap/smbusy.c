/* libsmbusy.so: what a kernel answers to a second subnet manager on one
 * port, for tests under ibsim, which answers nothing of the kind (two SMs
 * on one simulated port both run).  ib_mad refuses an agent whose request
 * methods another agent of the port already receives
 * (ib_register_mad_agent: "Method N already in use", EINVAL from the
 * REGISTER_AGENT ioctl, which libibumad turns into -EPERM), and ib_umad
 * gives a port's issm device to one process at a time (EAGAIN to an
 * O_NONBLOCK open, a blocking open waits).
 *
 * Preloaded before libumad2sim.so, it refuses so the classes listed in
 * $SMBUSY_CLASSES (hexadecimal, comma-separated: "1,81,3" is what OpenSM
 * registers with request methods) and, with SMBUSY_ISSM=1, the issm
 * device; everything else goes on to libumad2sim.so. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_user_ioctl.h>

int ioctl(int fd, unsigned long request, ...);
int open(const char *path, int flags, ...);

static int class_taken(unsigned cls)
{
	const char *s = getenv("SMBUSY_CLASSES");
	char *end;

	while (s && *s) {
		if (strtoul(s, &end, 16) == cls)
			return 1;
		if (end == s)
			break;
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static int wants_requests(const struct ib_user_mad_reg_req *r)
{
	for (unsigned i = 0; i < IB_USER_MAD_LONGS_PER_METHOD_MASK; i++)
		if (r->method_mask[i])
			return 1;
	return 0;
}

int ioctl(int fd, unsigned long request, ...)
{
	int (*next)(int, unsigned long, ...) =
	    (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == IB_USER_MAD_REGISTER_AGENT && arg) {
		const struct ib_user_mad_reg_req *r = arg;

		if (wants_requests(r) && class_taken(r->mgmt_class)) {
			errno = EINVAL;
			return -1;
		}
	}
	return next(fd, request, arg);
}

int open(const char *path, int flags, ...)
{
	int (*next)(const char *, int, ...) =
	    (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	const char *busy = getenv("SMBUSY_ISSM");
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (busy && !strcmp(busy, "1") && strstr(path, "/issm")) {
		if (flags & O_NONBLOCK) {
			errno = EAGAIN;
			return -1;
		}
		for (;;) /* held for ever: the holder never exits here */
			pause();
	}
	return next(path, flags, mode);
}

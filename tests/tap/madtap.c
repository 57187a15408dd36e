/* libmadtap.so: a capture of every MAD a process hands to libibumad, for
 * integration tests that must see what goes on the wire where ibsim does
 * not show it (ibsim 0.10 neither keeps nor checks M_Key, and ignores
 * PortInfo's attribute-modifier bit 31).  Preloaded beside
 * libumad2sim.so, it wraps umad_send(): each MAD is appended to the file
 * $MADTAP_FILE as one line of lowercase hex (the MAD, at most 256 bytes),
 * then sent by the real umad_send.  With $MADTAP_LID set, each line
 * starts with the destination LID in decimal and a space (the PerfMgt
 * tests must know which node a MAD went to).  Independent of ibsmd's
 * code: it sees the bytes libibumad gets. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/umad.h>

typedef int (*send_fn)(int, int, void *, int, int, int);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void record(const struct ib_user_mad *u, const unsigned char *mad,
		   int len)
{
	static const char hex[] = "0123456789abcdef";
	char line[8 + 2 * 256 + 2];
	const char *path = getenv("MADTAP_FILE");
	int n = len < 256 ? len : 256, fd, o = 0;

	if (!path || n <= 0)
		return;
	if (getenv("MADTAP_LID"))
		o = snprintf(line, 8, "%u ", ntohs(u->addr.lid));
	for (int i = 0; i < n; i++) {
		line[o + 2 * i] = hex[mad[i] >> 4];
		line[o + 2 * i + 1] = hex[mad[i] & 15];
	}
	line[o + 2 * n] = '\n';
	pthread_mutex_lock(&lock);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)(o + 2 * n + 1)) < 0)
			perror("madtap");
		close(fd);
	}
	pthread_mutex_unlock(&lock);
}

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms,
	      int retries)
{
	static send_fn real;

	if (!real)
		real = (send_fn)dlsym(RTLD_NEXT, "umad_send");
	record(umad, umad_get_mad(umad), length);
	return real ? real(portid, agentid, umad, length, timeout_ms, retries)
		    : -1;
}

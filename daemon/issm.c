/* The IsSM capability: an SM holds /dev/infiniband/issmN open while it
 * runs, which sets PortInfo:CapabilityMask.IsSM on its port.  Under ibsim
 * this is also what makes the simulator pass requests addressed to the SM
 * (SMInfo from `sminfo`, traps) to this client: ibsim gives unsolicited
 * requests only to clients that opened issm. */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <string.h>
#include <unistd.h>

#include "daemon/core/sm.h"
#include "daemon/main.h"
#include "lib/log.h"

int issm_open(struct sm *sm)
{
	const struct mad_port_info *pi = mad_port_info(sm->port);
	char path[256];
	int rc = umad_get_issm_path(pi->ca, pi->num, path, sizeof(path));

	if (rc < 0) {
		log_warn("no issm device for %s port %d: %s; SMInfo queries "
			 "and traps may not reach ibsmd",
			 pi->ca, pi->num, strerror(rc == -1 ? ENODEV : -rc));
		return 0;
	}
	/* The kernel gives the device to one process at a time; a blocking
	 * open would wait for another SM to exit. */
	sm->issm_fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (sm->issm_fd < 0 && errno == EAGAIN) {
		log_err("%s is held by another process: a subnet manager runs "
			"on %s port %d",
			path, pi->ca, pi->num);
		return -EADDRINUSE;
	}
	if (sm->issm_fd < 0) {
		log_warn("cannot open %s: %s; the port does not advertise an "
			 "SM (IsSM), SMInfo queries and traps may not reach "
			 "ibsmd",
			 path, strerror(errno));
		return 0;
	}
	log_info("holding %s (IsSM set on %s port %d)", path, pi->ca, pi->num);
	return 0;
}

void issm_close(struct sm *sm)
{
	if (sm->issm_fd > 0)
		close(sm->issm_fd);
	sm->issm_fd = -1;
}

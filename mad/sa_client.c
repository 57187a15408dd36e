/* The shared SA client: see sa_client.h. */
#include "mad/sa_client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SA_QP1_QKEY 0x80010000

int sa_client_open(struct sa_client *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = c->agent = -1;
	c->tid = (uint64_t)getpid() << 20; /* apart from other clients */
	if (umad_init() < 0 || umad_get_port(NULL, 0, &c->port) < 0)
		return -ENODEV;
	c->fd = umad_open_port(NULL, 0);
	if (c->fd < 0) {
		sa_client_close(c);
		return -ENODEV;
	}
	c->agent = umad_register(c->fd, SA_MGMT_CLASS, SA_CLASS_VERSION, 0,
				 NULL);
	c->umad = calloc(1, umad_size() + SA_MAD_SIZE);
	if (c->agent < 0 || !c->umad) {
		sa_client_close(c);
		return c->agent < 0 ? -EIO : -ENOMEM;
	}
	return 0;
}

void sa_client_close(struct sa_client *c)
{
	if (c->fd >= 0)
		umad_close_port(c->fd);
	umad_release_port(&c->port);
	free(c->umad);
	c->umad = NULL;
	c->fd = c->agent = -1;
}

int sa_client_listen(struct sa_client *c, uint8_t method, int *issm_fd)
{
	long mask[16 / sizeof(long)] = {0};
	char path[256];

	mask[method / (8 * sizeof(long))] |= 1L << (method % (8 * sizeof(long)));
	/* a second agent: libumad2sim's receiver thread crashes when an
	 * agent is unregistered while it runs */
	c->agent = umad_register(c->fd, SA_MGMT_CLASS, SA_CLASS_VERSION, 0,
				 mask);
	if (c->agent < 0)
		return -EIO;
	/* Holding issm makes the port an SM to the others, and the SM asks
	 * it for SMInfo: libumad2sim's receiver crashes on a MAD of a class
	 * no agent has, so these take them (and the caller ignores them). */
	if (umad_register(c->fd, 0x01, 1, 0, NULL) < 0 ||
	    umad_register(c->fd, 0x81, 1, 0, NULL) < 0)
		return -EIO;
	*issm_fd = -1;
	if (umad_get_issm_path(c->port.ca_name, c->port.portnum, path,
			       sizeof(path)) < 0 ||
	    (*issm_fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return -errno ? -errno : -ENODEV;
	return 0;
}

uint8_t *sa_client_mad(struct sa_client *c)
{
	return umad_get_mad(c->umad);
}

void sa_client_build(struct sa_client *c, uint8_t method, uint16_t attr,
		     uint64_t mask, const struct sa_rec_desc *d,
		     const void *rec)
{
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = SA_MGMT_CLASS,
			   .class_version = SA_CLASS_VERSION,
			   .method = method,
			   .attr_id = attr,
			   .tid = ++c->tid,
			   .comp_mask = mask};
	uint8_t *m = sa_client_mad(c);

	memset(m, 0, SA_MAD_SIZE);
	sa_hdr_encode(&h, m);
	if (d && rec)
		sa_rec_encode(d, rec, m + SA_HDR_SIZE);
}

int sa_client_send(struct sa_client *c, uint16_t lid, int timeout_ms)
{
	umad_set_addr(c->umad, lid ? lid : c->port.sm_lid, 1, 0, SA_QP1_QKEY);
	return umad_send(c->fd, c->agent, c->umad, SA_MAD_SIZE, timeout_ms,
			 0) < 0
		   ? -EIO
		   : 0;
}

int sa_client_recv(struct sa_client *c, int timeout_ms)
{
	int len = SA_MAD_SIZE;

	if (umad_recv(c->fd, c->umad, &len, timeout_ms) < 0)
		return -ETIMEDOUT;
	return umad_status(c->umad);
}

int sa_client_transact(struct sa_client *c, uint16_t lid)
{
	umad_set_addr(c->umad, lid ? lid : c->port.sm_lid, 1, 0, SA_QP1_QKEY);
	for (int tries = 0; tries < 2; tries++) {
		int len = SA_MAD_SIZE;

		if (umad_send(c->fd, c->agent, c->umad, SA_MAD_SIZE, 1000, 3) <
		    0)
			break;
		if (umad_recv(c->fd, c->umad, &len, 5000) >= 0 &&
		    !umad_status(c->umad))
			return sa_get16(sa_client_mad(c) + 4);
	}
	return -ETIMEDOUT;
}

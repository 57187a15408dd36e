/* Registers or deletes a ServiceRecord for this port (under ibsim: the
 * SIM_HOST node's) with the SM's SA, for the saquery comparison:
 *   sa_svc set|delete SERVICE_ID NAME [LEASE_SECONDS]
 * Prints the SA status; exits 0 when the SA answered success. */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "mad/sa_mad.h"
#include "mad/sa_service.h"
#include "mad/sa_wire.h"

int main(int argc, char **argv)
{
	struct sa_service_rec r = {.pkey = 0xFFFF,
				   .lease = SA_SR_LEASE_INFINITE};
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = SA_MGMT_CLASS,
			   .class_version = SA_CLASS_VERSION,
			   .attr_id = SA_ATTR_SERVICE_REC,
			   .tid = 0x5a5a0001};
	umad_port_t port;
	int fd, agent, len = SA_MAD_SIZE;
	void *umad;
	uint8_t *m;

	if (argc < 4 || (strcmp(argv[1], "set") && strcmp(argv[1], "delete"))) {
		fprintf(stderr,
			"usage: sa_svc set|delete SERVICE_ID NAME [LEASE]\n");
		return 2;
	}
	h.method = argv[1][0] == 's' ? SA_METHOD_SET : SA_METHOD_DELETE;
	r.id = strtoull(argv[2], NULL, 0);
	snprintf((char *)r.name, sizeof(r.name), "%s", argv[3]);
	if (argc > 4)
		r.lease = (uint32_t)strtoul(argv[4], NULL, 0);
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 ||
	    (fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, SA_MGMT_CLASS, SA_CLASS_VERSION, 0,
				   NULL)) < 0) {
		fprintf(stderr, "sa_svc: cannot open a umad port\n");
		return 1;
	}
	sa_put64(r.gid, be64toh(port.gid_prefix));
	sa_put64(r.gid + 8, be64toh(port.port_guid));
	h.comp_mask = 1ull << SA_SR_ID | 1ull << SA_SR_GID |
		      1ull << SA_SR_PKEY | 1ull << SA_SR_LEASE |
		      1ull << SA_SR_NAME;
	umad = calloc(1, umad_size() + SA_MAD_SIZE);
	m = umad_get_mad(umad);
	sa_hdr_encode(&h, m);
	sa_rec_encode(&sa_service_rec_desc, &r, m + SA_HDR_SIZE);
	umad_set_addr(umad, port.sm_lid, 1, 0, 0x80010000);
	if (umad_send(fd, agent, umad, SA_MAD_SIZE, 2000, 2) < 0 ||
	    umad_recv(fd, umad, &len, 5000) < 0 || umad_status(umad)) {
		fprintf(stderr, "sa_svc: no answer from the SA\n");
		return 1;
	}
	printf("sa_svc %s 0x%llx: status 0x%04x\n", argv[1],
	       (unsigned long long)r.id, sa_get16(m + 4));
	return sa_get16(m + 4) ? 1 : 0;
}

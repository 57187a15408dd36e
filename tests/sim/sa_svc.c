/* Registers, deletes or reads back a ServiceRecord for this port (under
 * ibsim: the SIM_HOST node's) with the SM's SA:
 *   sa_svc set|delete|get SERVICE_ID NAME [LEASE_SECONDS]
 * Prints the SA status (get: and the record's name and remaining lease,
 * one Get per record, since ibsim has no RMPP for tables); exits 0 when
 * the SA answered success. */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa_client.h"
#include "mad/sa_service.h"

int main(int argc, char **argv)
{
	struct sa_service_rec r = {.pkey = 0xFFFF,
				   .lease = SA_SR_LEASE_INFINITE};
	struct sa_client c;
	uint8_t method;
	int st;

	if (argc < 4 || (strcmp(argv[1], "set") && strcmp(argv[1], "delete") &&
			 strcmp(argv[1], "get"))) {
		fprintf(stderr,
			"usage: sa_svc set|delete|get SERVICE_ID NAME [LEASE]\n");
		return 2;
	}
	method = argv[1][0] == 's'   ? SA_METHOD_SET
		 : argv[1][0] == 'd' ? SA_METHOD_DELETE
				     : SA_METHOD_GET;
	r.id = strtoull(argv[2], NULL, 0);
	snprintf((char *)r.name, sizeof(r.name), "%s", argv[3]);
	if (argc > 4)
		r.lease = (uint32_t)strtoul(argv[4], NULL, 0);
	if (sa_client_open(&c) < 0) {
		fprintf(stderr, "sa_svc: cannot open a umad port\n");
		return 1;
	}
	sa_put64(r.gid, be64toh(c.port.gid_prefix));
	sa_put64(r.gid + 8, be64toh(c.port.port_guid));
	sa_client_build(&c, method, SA_ATTR_SERVICE_REC,
			method == SA_METHOD_GET
			    ? 1ull << SA_SR_ID | 1ull << SA_SR_GID |
				  1ull << SA_SR_PKEY
			    : 1ull << SA_SR_ID | 1ull << SA_SR_GID |
				  1ull << SA_SR_PKEY | 1ull << SA_SR_LEASE |
				  1ull << SA_SR_NAME,
			&sa_service_rec_desc, &r);
	st = sa_client_transact(&c, 0);
	if (st == 0 && method == SA_METHOD_GET) {
		struct sa_service_rec got;

		sa_rec_decode(&sa_service_rec_desc,
			      sa_client_mad(&c) + SA_HDR_SIZE, SA_DATA_SIZE,
			      &got);
		printf("name %.64s lease %u\n", (const char *)got.name,
		       got.lease);
	}
	sa_client_close(&c);
	if (st < 0) {
		fprintf(stderr, "sa_svc: no answer from the SA\n");
		return 1;
	}
	printf("sa_svc %s 0x%llx: status 0x%04x\n", argv[1],
	       (unsigned long long)r.id, st);
	return st ? 1 : 0;
}

/* Registers or deletes a ServiceRecord for this port (under ibsim: the
 * SIM_HOST node's) with the SM's SA, for the saquery comparison:
 *   sa_svc set|delete SERVICE_ID NAME [LEASE_SECONDS]
 * Prints the SA status; exits 0 when the SA answered success.
 *   sa_svc many FIRST_ID COUNT NAME LEASE ACKED
 * registers COUNT records (ServiceIDs FIRST_ID on) one after the other
 * and appends each ServiceID to the file ACKED as its success answer
 * arrives (the acknowledged ones, for a SIGKILL test).
 *   sa_svc check ACKED
 * asks the SA (Get by ServiceID, GID, P_Key) for each ServiceID listed in
 * ACKED and prints "lost ID" for each it does not have, else "have ID
 * LEASE NAME"; exits 1 if one is lost.
 * SA_SVC_PKEY in the environment sets the ServiceP_Key (default 0xFFFF). */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa_client.h"
#include "mad/sa_service.h"

static void fill_gid(const struct sa_client *c, struct sa_service_rec *r)
{
	sa_put64(r->gid, be64toh(c->port.gid_prefix));
	sa_put64(r->gid + 8, be64toh(c->port.port_guid));
}

#define MASK_KEY (1ull << SA_SR_ID | 1ull << SA_SR_GID | 1ull << SA_SR_PKEY)

static uint16_t service_pkey(void)
{
	const char *s = getenv("SA_SVC_PKEY");

	return s ? (uint16_t)strtoul(s, NULL, 0) : 0xFFFF;
}

static int one(struct sa_client *c, uint8_t method, struct sa_service_rec *r,
	       uint64_t mask)
{
	r->pkey = service_pkey();
	fill_gid(c, r);
	sa_client_build(c, method, SA_ATTR_SERVICE_REC, mask,
			&sa_service_rec_desc, r);
	return sa_client_transact(c, 0);
}

static int many(struct sa_client *c, char **argv)
{
	uint64_t first = strtoull(argv[0], NULL, 0);
	unsigned long n = strtoul(argv[1], NULL, 0);
	FILE *acked = fopen(argv[4], "a");

	if (!acked) {
		perror(argv[4]);
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		struct sa_service_rec r = {.id = first + i};
		int st;

		snprintf((char *)r.name, sizeof(r.name), "%s-%lu", argv[2], i);
		r.lease = (uint32_t)strtoul(argv[3], NULL, 0);
		st = one(c, SA_METHOD_SET, &r,
			 MASK_KEY | 1ull << SA_SR_LEASE | 1ull << SA_SR_NAME);
		if (st < 0) {
			fprintf(stderr, "sa_svc: no answer for 0x%llx\n",
				(unsigned long long)r.id);
			return 1;
		}
		if (st == 0) {
			fprintf(acked, "0x%llx\n", (unsigned long long)r.id);
			fflush(acked);
		}
	}
	fclose(acked);
	return 0;
}

static int check(struct sa_client *c, const char *file)
{
	FILE *fp = fopen(file, "r");
	unsigned long long id;
	int lost = 0;

	if (!fp) {
		perror(file);
		return 1;
	}
	while (fscanf(fp, "%llx", &id) == 1) {
		struct sa_service_rec r = {.id = id};
		int st = one(c, SA_METHOD_GET, &r, MASK_KEY);

		if (st == 0) {
			sa_rec_decode(&sa_service_rec_desc,
				      sa_client_mad(c) + SA_HDR_SIZE,
				      sa_service_rec_desc.size, &r);
			printf("have 0x%llx %u %.64s\n", id, r.lease,
			       (const char *)r.name);
		} else {
			printf("lost 0x%llx (status %d)\n", id, st);
			lost = 1;
		}
	}
	fclose(fp);
	return lost;
}

static int set_delete(int argc, char **argv);

int main(int argc, char **argv)
{
	struct sa_client c;
	int rc;

	if ((argc == 7 && !strcmp(argv[1], "many")) ||
	    (argc == 3 && !strcmp(argv[1], "check"))) {
		if (sa_client_open(&c) < 0) {
			fprintf(stderr, "sa_svc: cannot open a umad port\n");
			return 1;
		}
		rc = argc == 7 ? many(&c, argv + 2) : check(&c, argv[2]);
		sa_client_close(&c);
		return rc;
	}
	return set_delete(argc, argv);
}
static int set_delete(int argc, char **argv)
{
	struct sa_service_rec r = {.pkey = service_pkey(),
				   .lease = SA_SR_LEASE_INFINITE};
	struct sa_client c;
	uint8_t method;
	int st;

	if (argc < 4 || (strcmp(argv[1], "set") && strcmp(argv[1], "delete"))) {
		fprintf(stderr,
			"usage: sa_svc set|delete SERVICE_ID NAME [LEASE]\n"
			"       sa_svc many FIRST_ID COUNT NAME LEASE ACKED\n"
			"       sa_svc check ACKED\n");
		return 2;
	}
	method = argv[1][0] == 's' ? SA_METHOD_SET : SA_METHOD_DELETE;
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
			1ull << SA_SR_ID | 1ull << SA_SR_GID |
			    1ull << SA_SR_PKEY | 1ull << SA_SR_LEASE |
			    1ull << SA_SR_NAME,
			&sa_service_rec_desc, &r);
	st = sa_client_transact(&c, 0);
	sa_client_close(&c);
	if (st < 0) {
		fprintf(stderr, "sa_svc: no answer from the SA\n");
		return 1;
	}
	printf("sa_svc %s 0x%llx: status 0x%04x\n", argv[1],
	       (unsigned long long)r.id, st);
	return st ? 1 : 0;
}

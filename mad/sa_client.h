/* One SA client over libibumad, shared by `ibsmctl sa` and the helpers
 * the tests run under ibsim (as rdma-core's ibdiag_sa.c is shared by
 * infiniband-diags): opens the port, registers the SA class, builds a
 * request from a record descriptor and waits for its answer in the same
 * 256-byte MAD.  Works with any SA (ibsmd or OpenSM). */
#ifndef IBSM_SA_CLIENT_H
#define IBSM_SA_CLIENT_H

#include <stdint.h>

#include <infiniband/umad.h>

#include "mad/sa_mad.h"
#include "mad/sa_wire.h"

struct sa_client {
	umad_port_t port; /* gid_prefix, port_guid, base_lid, sm_lid */
	int fd, agent;
	void *umad; /* umad header + one MAD */
	uint64_t tid;
};

/* Opens the first umad port, registers an SA client agent and lays out
 * the MAD buffer (under libumad2sim the layout is right only once the
 * port is open).  0 or -errno; c is closed on failure. */
int sa_client_open(struct sa_client *c);
void sa_client_close(struct sa_client *c);
/* Another agent that also takes SA requests of this method (a
 * subscriber's SubnAdmReport, 0x06) becomes the client's.  Under ibsim requests reach only a client that
 * holds the port's issm device (issm_fd: kept open by the caller).  0 or
 * -errno. */
int sa_client_listen(struct sa_client *c, uint8_t method, int *issm_fd);
/* The request, then the answer: SA_MAD_SIZE bytes. */
uint8_t *sa_client_mad(struct sa_client *c);
/* The MAD becomes a request: method, attribute, component mask, the next
 * TID, and rec encoded by d (rec NULL: all zero). */
void sa_client_build(struct sa_client *c, uint8_t method, uint16_t attr,
		     uint64_t mask, const struct sa_rec_desc *d,
		     const void *rec);
/* Sends the MAD to lid (0: the port's SM LID) and waits up to 5 s for
 * the answer, twice at most.  The answer's MAD status (0: success), or
 * -ETIMEDOUT when none came. */
int sa_client_transact(struct sa_client *c, uint16_t lid);
/* For a window of requests: sends without waiting (umad timeout
 * timeout_ms, no resend); receives any answer.  recv: the umad status of
 * what came (0: an answer, else a request that timed out), or -ETIMEDOUT
 * when nothing came within timeout_ms. */
int sa_client_send(struct sa_client *c, uint16_t lid, int timeout_ms);
int sa_client_recv(struct sa_client *c, int timeout_ms);

#endif

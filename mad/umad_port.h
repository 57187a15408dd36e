/* The umad transport: choosing and opening the local port the SM runs on,
 * registering MAD agents, and sending/receiving raw 256-byte MADs with
 * their address.  The transaction engine (txn.h) sits on top of it. */
#ifndef IBSM_MAD_UMAD_PORT_H
#define IBSM_MAD_UMAD_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which port to open.  Precedence: guid (when non-zero), else ca (+ num;
 * num 0 = the first port of that CA that qualifies), else every CA in
 * umad's order.  Without a guid, the first ACTIVE port wins; when none is
 * ACTIVE the first port that exists is used (under ibsim and on a fabric
 * without an SM the SM's own port is usually INIT or DOWN, and the SM is
 * what makes it ACTIVE), and a notice says so. */
struct umad_port_sel {
	uint64_t guid;	 /* port GUID (host order), 0 = not chosen by GUID */
	const char *ca;	 /* CA name ("mlx5_0", "sim0"), NULL = any */
	int num;	 /* port number on ca, 0 = any */
};

/* What the opened port is. */
struct umad_port_info {
	char ca[20];
	int num;
	uint64_t port_guid;	/* host order */
	uint64_t gid_prefix;	/* host order */
	uint16_t lid;
	uint8_t lmc;
	uint16_t sm_lid;
	uint8_t state;		/* PortInfo PortState 1..4 */
	uint8_t phys_state;
};

struct umad_port;

/* Opens the chosen port.  Errors: -ENODEV when no InfiniBand device or no
 * such CA/port/GUID exists (the message names what is missing and, when
 * there is no device at all, suggests ib_umad / LD_PRELOAD=libumad2sim.so
 * with ibsim running), -EACCES without permission, other -errno.  Errors
 * are logged; *out is NULL on error. */
int umad_port_open(const struct umad_port_sel *sel, struct umad_port **out);
void umad_port_close(struct umad_port *p);

const struct umad_port_info *umad_port_info(const struct umad_port *p);
/* Re-reads LID/SM LID/state from umad (after the SM changed them). */
int umad_port_refresh(struct umad_port *p);
/* The file descriptor to poll for readability. */
int umad_port_fd(const struct umad_port *p);

/* Method mask bits the SM registers so that unsolicited requests reach
 * it: Get, Set, Trap, TrapRepress, Report (and GetResp for the responses
 * to what it sends). */
struct umad_agent_req {
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t rmpp_version;	 /* 0 none, 1 RMPP v1 */
	uint32_t method_mask[4]; /* bit m set = receive requests of method m;
				    all zero = only responses to own sends */
};

/* Registers an agent; returns its id (>= 0) or -errno. */
int umad_port_register(struct umad_port *p, const struct umad_agent_req *r);
/* Registers the two SMI agents (class 0x01 LID-routed and 0x81 DR) with
 * the SM's method mask (Get, Set, Trap, TrapRepress, Report, GetResp).
 * 0 or -errno. */
int umad_port_register_smi(struct umad_port *p, int *agent_lid, int *agent_dr);
/* The SA agent: class 0x03 version 2, RMPP v1 when rmpp is true, methods
 * Get, Set, GetTable, Delete, Report and their responses. */
int umad_port_register_sa(struct umad_port *p, bool rmpp, int *agent);

/* Address of a MAD, host order.  For DR SMPs dlid is the permissive LID
 * 0xFFFF and qpn 0. */
struct umad_addr {
	uint16_t lid;
	uint32_t qpn;
	uint32_t qkey;
	uint8_t sl;
	uint16_t pkey_index;
};

#define UMAD_QKEY_GSI 0x80010000u
#define UMAD_LID_PERMISSIVE 0xFFFF

/* Sends one MAD (len <= 256) on agent.  timeout_ms is handed to the kernel
 * so that it delivers the response (0 for responses and traps); retries
 * are always 0: the transaction engine retries itself.  0 or -errno
 * (-EAGAIN / -ENOBUFS when the send queue is full). */
int umad_port_send(struct umad_port *p, int agent, const uint8_t *mad,
		   size_t len, const struct umad_addr *addr, int timeout_ms);

/* One received MAD: the bytes, the agent it came to, its source address
 * and the umad status (0, or ETIMEDOUT=110 when the kernel/ibsim reports
 * that a sent MAD got no answer; the bytes are then the sent MAD). */
struct umad_rx {
	uint8_t mad[256];
	size_t len;
	int agent;
	int status;
	struct umad_addr from;
};

/* Non-blocking receive: 0 with *rx filled, -EAGAIN when nothing is
 * waiting, other -errno on failure. */
int umad_port_recv(struct umad_port *p, struct umad_rx *rx);

#endif

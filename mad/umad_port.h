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
 * umad's order.  Only InfiniBand ports that may carry the SM qualify:
 * Ethernet (RoCE) ports and SM-disabled plane ports are skipped, and
 * naming one is an error (mad/port_select.h).  Among those, the first
 * ACTIVE port wins, else the first LinkUp one, else the first (under
 * ibsim and on a fabric without an SM the SM's own port is usually INIT,
 * and the SM is what makes it ACTIVE), and a notice says so.  The port is
 * opened with umad_open_smi_port() when the library has it. */
struct mad_port_sel {
	uint64_t guid;	/* port GUID (host order), 0 = not chosen by GUID */
	const char *ca; /* CA name ("mlx5_0", "sim0"), NULL = any */
	int num;	/* port number on ca, 0 = any */
};

/* What the opened port is. */
struct mad_port_info {
	char ca[20];
	int num;
	uint64_t port_guid;  /* host order */
	uint64_t gid_prefix; /* host order */
	uint16_t lid;
	uint8_t lmc;
	uint16_t sm_lid;
	uint8_t state; /* PortInfo PortState 1..4 */
	uint8_t phys_state;
	bool smi; /* opened with umad_open_smi_port (rdma-core >= 53) */
	/* CapabilityMask.IsSM when last read; at open, before ibsmd claims
	 * it, another process holds the port's issm device (sm_probe.h). */
	bool is_sm;
};

struct mad_port;

/* Opens the chosen port.  Errors: -ENODEV when no InfiniBand device or no
 * such CA/port/GUID exists (the message names what is missing and, when
 * there is no device at all, suggests ib_umad / LD_PRELOAD=libumad2sim.so
 * with ibsim running), -EACCES without permission, other -errno.  Errors
 * are logged; *out is NULL on error. */
int mad_port_open(const struct mad_port_sel *sel, struct mad_port **out);
void mad_port_close(struct mad_port *p);
/* At daemon exit: IsSM is dropped and our memory freed, but the umad port
 * itself is left to the process exit (the kernel closes it and so
 * unregisters the agents).  Closing it while answers to SMPs cancelled at
 * shutdown are still on their way races with libumad2sim's receiver
 * thread: ibsim 0.10's close_fd() frees the descriptor's queue while that
 * thread may still look it up for a late MAD, and it crashes on NULL. */
void mad_port_exit(struct mad_port *p);

const struct mad_port_info *mad_port_info(const struct mad_port *p);
/* Claims (on = true) or gives up the IsSM capability of the port by
 * holding the issm device open, as every SM must: the port's
 * CapabilityMask then carries IsSM, and ibsim (umad2sim) delivers
 * requests without a handler of its own (SMInfo, traps) only to a client
 * that holds it.  0 or -errno (logged). */
int mad_port_set_sm(struct mad_port *p, bool on);

/* Re-reads LID/SM LID/state from umad (after the SM changed them). */
int mad_port_refresh(struct mad_port *p);

/* An agent: class, version, RMPP, and the request methods (bit m of the
 * 128-bit mask = method m) that reach it unsolicited.  Responses to what
 * the agent sends always reach it (by TID). */
struct mad_agent_req {
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t rmpp_version;	 /* 0 none, 1 RMPP v1 */
	uint32_t method_mask[4]; /* bit m set = receive requests of method m;
				    all zero = only responses to own sends */
};

/* Registers an agent; returns its id (>= 0) or -errno: -EADDRINUSE when
 * the kernel refuses an agent with request methods because another
 * process on this host already receives them on the port (another SM). */
int mad_port_register(struct mad_port *p, const struct mad_agent_req *r);
/* Registers the two SMI agents (class 0x01 LID-routed and 0x81 DR) with
 * the SM's method mask (Get, Set, Trap, TrapRepress) so that SMInfo
 * queries and traps arrive.  0 or -errno. */
int mad_port_register_smi(struct mad_port *p, int *agent_lid, int *agent_dr);
/* The SA server agent: class 0x03 version 2, RMPP v1 when rmpp is true,
 * requests Get, Set, GetTable, GetTraceTable, GetMulti, Delete.  An SA
 * client (ibsmctl) registers class 3 with an empty mask instead. */
int mad_port_register_sa(struct mad_port *p, bool rmpp, int *agent);

/* Address of a MAD, host order.  For DR SMPs dlid is the permissive LID
 * 0xFFFF and qpn 0. */
struct mad_addr {
	uint16_t lid;
	uint32_t qpn;
	uint32_t qkey;
	uint8_t sl;
	uint16_t pkey_index;
};

#define MAD_QKEY_GSI	   0x80010000u
#define MAD_LID_PERMISSIVE 0xFFFF

/* Largest RMPP message mad_port_send takes (SA tables). */
#define MAD_RMPP_MAX (1u << 22)

/* Sends one MAD (len <= 256; more, up to MAD_RMPP_MAX, on an agent
 * registered for RMPP) on agent.  timeout_ms is handed to the kernel
 * so that it delivers the response (0 for responses and traps); retries
 * are always 0: the transaction engine retries itself.  Safe to call
 * from several threads at once (the receiver thread answers SA Gets while
 * the loop sends SMPs).  0 or -errno (-EAGAIN / -ENOBUFS when the send
 * queue is full). */
int mad_port_send(struct mad_port *p, int agent, const uint8_t *mad, size_t len,
		  const struct mad_addr *addr, int timeout_ms);

/* One received MAD: the bytes, the agent it came to, its source address
 * and the umad status (0, or ETIMEDOUT=110 when the kernel/ibsim reports
 * that a sent MAD got no answer; the bytes are then the sent MAD). */
struct mad_rx {
	uint8_t mad[256];
	size_t len;
	int agent;
	int status;
	struct mad_addr from;
	int64_t rx_us; /* when the receiver thread got it (txn_now_us), 0:
			  injected without a port */
};

/* Receives one MAD, waiting up to timeout_ms (0 = do not wait, -1 =
 * forever): 0 with *rx filled, -ETIMEDOUT when nothing came, other -errno
 * on failure.  Safe to call from one thread while another sends (the
 * transaction engine's receiver thread does exactly that). */
int mad_port_recv(struct mad_port *p, struct mad_rx *rx, int timeout_ms);

#endif

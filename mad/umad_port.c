/* The umad transport: port selection (GUID, CA + port, or the first
 * ACTIVE port), agent registration with method masks so that unsolicited
 * requests reach the SM, and raw MAD send/receive with addresses. */
#include <dlfcn.h>
#include <endian.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/umad.h>

#include "lib/log.h"
#include "mad/port_select.h"
#include "mad/smp.h"
#include "mad/umad_port.h"

/* umad buffers: header + MAD.  Sized with room to spare because the
 * header size differs between libibumad versions (umad_size() 56 here,
 * sizeof(struct ib_user_mad) 64) and libumad2sim.so carries its own idea
 * of it. */
#define UMAD_BUF_SIZE 1024

struct mad_port {
	int portid;
	int issm_fd; /* -1 unless IsSM is claimed */
	struct mad_port_info info;
};

#define NO_DEVICE_HINT                                                         \
	"no InfiniBand device found (is ib_umad loaded? under ibsim, is "      \
	"LD_PRELOAD=libumad2sim.so set and ibsim running?)"

static void info_from_umad(struct mad_port_info *i, const umad_port_t *up)
{
	snprintf(i->ca, sizeof(i->ca), "%s", up->ca_name);
	i->num = up->portnum;
	i->port_guid = be64toh(up->port_guid);
	i->gid_prefix = be64toh(up->gid_prefix);
	i->lid = (uint16_t)up->base_lid;
	i->lmc = (uint8_t)up->lmc;
	i->sm_lid = (uint16_t)up->sm_lid;
	i->state = (uint8_t)up->state;
	i->phys_state = (uint8_t)up->phys_state;
	i->is_sm = (be32toh(up->capmask) & PORT_CAP_IS_SM) != 0;
}

/* Every port of every CA, in umad's order, as port_choose() takes them.
 * The strings point into ca_names[] and link_layers[]. */
struct cand_list {
	struct port_cand v[UMAD_MAX_DEVICES * UMAD_CA_MAX_PORTS];
	struct mad_port_info info[UMAD_MAX_DEVICES * UMAD_CA_MAX_PORTS];
	char ca_names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	char link_layers[UMAD_MAX_DEVICES * UMAD_CA_MAX_PORTS]
			[UMAD_CA_NAME_LEN];
	size_t n;
	int present; /* CAs umad_get_ca() could read */
};

static void add_ca(struct cand_list *l, const char *ca)
{
	umad_ca_t uca;

	if (umad_get_ca(ca, &uca) < 0)
		return;
	l->present++;
	for (int i = 0; i <= uca.numports && i < UMAD_CA_MAX_PORTS; i++) {
		umad_port_t *up = uca.ports[i];
		struct port_cand *c = &l->v[l->n];

		if (!up || l->n >= sizeof(l->v) / sizeof(l->v[0]))
			continue;
		info_from_umad(&l->info[l->n], up);
		snprintf(l->link_layers[l->n], UMAD_CA_NAME_LEN, "%s",
			 up->link_layer);
		*c = (struct port_cand){.ca = ca,
					.num = up->portnum,
					.guid = be64toh(up->port_guid),
					.state = (uint8_t)up->state,
					.phys_state = (uint8_t)up->phys_state,
					.link_layer = l->link_layers[l->n],
					.capmask = be32toh(up->capmask)};
		l->n++;
	}
	umad_release_ca(&uca);
}

static int pick_port(const struct mad_port_sel *sel, struct cand_list *l,
		     struct mad_port_info *out, bool *active)
{
	struct port_want w = {.guid = sel->guid,
			      .ca = sel->guid ? NULL : sel->ca,
			      .num = sel->guid ? 0 : sel->num};
	char why[256];
	int n, i;

	memset(l, 0, sizeof(*l));
	/* libibumad names a default "mthca0" when there is no device at all,
	 * so a device counts only when umad_get_ca() can read it. */
	n = umad_get_cas_names(l->ca_names, UMAD_MAX_DEVICES);
	for (int k = 0; k < n; k++)
		add_ca(l, l->ca_names[k]);
	if (!l->present) {
		log_err("umad: " NO_DEVICE_HINT);
		return -ENODEV;
	}
	i = port_choose(l->v, l->n, &w, why, sizeof(why));
	if (i < 0) {
		log_err("umad: %s (%d InfiniBand device(s) present, first %s)",
			why, l->present, l->ca_names[0]);
		return -ENODEV;
	}
	*out = l->info[i];
	*active = l->v[i].state == 4;
	return 0;
}

/* rdma-core 53 and later provide umad_open_smi_port(), which refuses a
 * GSI-only plane port; the SMI devices it knows came with kernel 6.11.
 * Older libraries (Debian 12 ships 44) lack the symbol: we then open the
 * port with umad_open_port(), which on an older kernel is the same
 * device.  Looked up at run time so one binary serves both stacks. */
typedef int (*open_smi_fn)(const char *ca, int port);

static int open_umad(const struct mad_port_info *i, bool *smi)
{
	open_smi_fn f = (open_smi_fn)dlsym(RTLD_DEFAULT, "umad_open_smi_port");
	int id = f ? f(i->ca, i->num) : -1;

	*smi = id >= 0;
	if (f && id < 0)
		log_notice("umad: umad_open_smi_port(%s, %d) failed (%s); "
			   "opening it with umad_open_port",
			   i->ca, i->num, strerror(-id));
	return id >= 0 ? id : umad_open_port(i->ca, i->num);
}

int mad_port_open(const struct mad_port_sel *sel, struct mad_port **out)
{
	static const struct mad_port_sel any = {0};
	struct mad_port_info info;
	struct cand_list *l;
	struct mad_port *p;
	bool active = false;
	int rc;

	*out = NULL;
	if (!sel)
		sel = &any;
	if (umad_init() < 0) {
		log_err("umad: " NO_DEVICE_HINT);
		return -ENODEV;
	}
	if (!(l = calloc(1, sizeof(*l))))
		return -ENOMEM;
	rc = pick_port(sel, l, &info, &active);
	free(l);
	if (rc)
		return rc;
	if (!active)
		log_notice("umad: no ACTIVE port matches; using %s port %d "
			   "(state %u), the SM will bring it up",
			   info.ca, info.num, info.state);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->info = info;
	p->issm_fd = -1;
	p->portid = open_umad(&info, &p->info.smi);
	if (p->portid < 0) {
		rc = p->portid;
		log_err("umad: cannot open %s port %d%s: %s%s", info.ca,
			info.num, p->info.smi ? " as an SMI port" : "",
			strerror(-rc),
			rc == -EACCES || rc == -EPERM
			    ? " (needs root or access to /dev/infiniband/umad*)"
			    : "");
		free(p);
		return rc;
	}
	log_info("umad: using %s port %d (%s), GUID 0x%016llx, LID %u, state "
		 "%u",
		 info.ca, info.num,
		 p->info.smi ? "umad_open_smi_port" : "umad_open_port",
		 (unsigned long long)info.port_guid, info.lid, info.state);
	*out = p;
	return 0;
}

void mad_port_close(struct mad_port *p)
{
	if (!p)
		return;
	mad_port_set_sm(p, false);
	umad_close_port(p->portid);
	free(p);
}

void mad_port_exit(struct mad_port *p)
{
	if (!p)
		return;
	mad_port_set_sm(p, false);
	free(p);
}

const struct mad_port_info *mad_port_info(const struct mad_port *p)
{
	return &p->info;
}

int mad_port_set_sm(struct mad_port *p, bool on)
{
	char path[256];
	int rc;

	if (!on) {
		if (p->issm_fd >= 0)
			close(p->issm_fd);
		p->issm_fd = -1;
		return 0;
	}
	if (p->issm_fd >= 0)
		return 0;
	rc = umad_get_issm_path(p->info.ca, p->info.num, path, sizeof(path));
	if (rc < 0) {
		log_err("umad: no issm device for %s port %d: %s", p->info.ca,
			p->info.num, strerror(-rc));
		return rc;
	}
	p->issm_fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->issm_fd < 0) {
		rc = -errno;
		log_err("umad: cannot open %s to claim IsSM on %s port %d: %s",
			path, p->info.ca, p->info.num, strerror(-rc));
		return rc;
	}
	return 0;
}

int mad_port_refresh(struct mad_port *p)
{
	umad_port_t up;
	int rc = umad_get_port(p->info.ca, p->info.num, &up);

	if (rc < 0)
		return rc;
	info_from_umad(&p->info, &up);
	umad_release_port(&up);
	return 0;
}

int mad_port_register(struct mad_port *p, const struct mad_agent_req *r)
{
	long mask[16 / sizeof(long)];
	int id;

	memset(mask, 0, sizeof(mask));
	for (unsigned m = 0; m < 128; m++)
		if (r->method_mask[m / 32] >> (m % 32) & 1)
			mask[m / (8 * sizeof(long))] |=
			    1L << (m % (8 * sizeof(long)));
	errno = 0;
	id = umad_register(p->portid, r->mgmt_class, r->class_version,
			   r->rmpp_version, mask);
	if (id >= 0)
		return id;
	/* libibumad answers -EPERM to every refusal and leaves the ioctl's
	 * errno; the kernel's EINVAL for an agent with request methods is
	 * "method already in use" (ib_register_mad_agent): one receiver per
	 * method and class on a port, and another process is it. */
	if (errno == EINVAL && (r->method_mask[0] | r->method_mask[1] |
				r->method_mask[2] | r->method_mask[3])) {
		log_err("umad: the kernel refused to register class 0x%02x "
			"version %u requests on %s port %d: another process "
			"already receives them there",
			r->mgmt_class, r->class_version, p->info.ca,
			p->info.num);
		return -EADDRINUSE;
	}
	log_err("umad: cannot register class 0x%02x version %u on %s "
		"port %d: %s",
		r->mgmt_class, r->class_version, p->info.ca, p->info.num,
		strerror(-id));
	return id;
}

/* Only request methods (< 0x80) go in a mask: responses reach the agent
 * that sent the request, by TID. */
static void mask_set(uint32_t mask[4], unsigned method)
{
	if (method < 128)
		mask[method / 32] |= 1u << (method % 32);
}

int mad_port_register_smi(struct mad_port *p, int *agent_lid, int *agent_dr)
{
	struct mad_agent_req r = {.mgmt_class = MAD_CLASS_SMI,
				  .class_version = 1};

	mask_set(r.method_mask, MAD_METHOD_GET);
	mask_set(r.method_mask, MAD_METHOD_SET);
	mask_set(r.method_mask, MAD_METHOD_TRAP);
	mask_set(r.method_mask, MAD_METHOD_TRAP_REPRESS);
	*agent_lid = mad_port_register(p, &r);
	if (*agent_lid < 0)
		return *agent_lid;
	r.mgmt_class = MAD_CLASS_SMI_DR;
	*agent_dr = mad_port_register(p, &r);
	if (*agent_dr < 0) {
		umad_unregister(p->portid, *agent_lid);
		return *agent_dr;
	}
	return 0;
}

int mad_port_register_sa(struct mad_port *p, bool rmpp, int *agent)
{
	struct mad_agent_req r = {.mgmt_class = MAD_CLASS_SA,
				  .class_version = 2,
				  .rmpp_version = rmpp ? 1 : 0};

	mask_set(r.method_mask, MAD_METHOD_GET);
	mask_set(r.method_mask, MAD_METHOD_SET);
	mask_set(r.method_mask, MAD_METHOD_GET_TABLE);
	mask_set(r.method_mask, 0x13); /* GetTraceTable */
	mask_set(r.method_mask, 0x14); /* GetMulti */
	mask_set(r.method_mask, MAD_METHOD_DELETE);
	*agent = mad_port_register(p, &r);
	return *agent < 0 ? *agent : 0;
}

int mad_port_send(struct mad_port *p, int agent, const uint8_t *mad, size_t len,
		  const struct mad_addr *addr, int timeout_ms)
{
	/* on the stack, not in p: the SA answers from the receiver thread
	 * while the loop sends SMPs (docs/design.md §3.1) */
	uint8_t sbuf[UMAD_BUF_SIZE] __attribute__((aligned(8)));
	void *buf = sbuf;
	int rc;

	/* Longer than a MAD: an RMPP answer (SA tables) that the kernel's
	 * RMPP agent segments; umad2sim passes only the first MAD on. */
	if (len > MAD_SIZE) {
		if (len > MAD_RMPP_MAX)
			return -EMSGSIZE;
		buf = calloc(1, UMAD_BUF_SIZE + len);
		if (!buf)
			return -ENOMEM;
	} else {
		memset(buf, 0, UMAD_BUF_SIZE);
	}
	memcpy(umad_get_mad(buf), mad, len);
	umad_set_addr(buf, addr->lid, (int)addr->qpn, addr->sl,
		      (int)addr->qkey);
	umad_set_pkey(buf, addr->pkey_index);
	rc = umad_send(p->portid, agent, buf, (int)len, timeout_ms, 0);
	if (buf != sbuf)
		free(buf);
	return rc < 0 ? (rc == -1 ? -EIO : rc) : 0;
}

int mad_port_recv(struct mad_port *p, struct mad_rx *rx, int timeout_ms)
{
	uint8_t buf[UMAD_BUF_SIZE] __attribute__((aligned(8)));
	struct ib_user_mad *u = (struct ib_user_mad *)buf;
	int len = MAD_SIZE;
	int rc;

	rc = umad_recv(p->portid, buf, &len, timeout_ms);
	if (rc < 0)
		return rc == -EWOULDBLOCK ? -ETIMEDOUT : rc;
	if (len < 0 || len > MAD_SIZE)
		len = MAD_SIZE;
	memset(rx, 0, sizeof(*rx));
	memcpy(rx->mad, umad_get_mad(buf), (size_t)len);
	rx->len = (size_t)len;
	rx->agent = rc;
	rx->status = u->status;
	rx->from.lid = be16toh(u->addr.lid);
	rx->from.qpn = be32toh(u->addr.qpn);
	rx->from.qkey = be32toh(u->addr.qkey);
	rx->from.sl = u->addr.sl;
	rx->from.pkey_index = u->addr.pkey_index;
	return 0;
}

/* M_Key management: see program.h, mkey.h and docs/design.md §3.10.
 *
 * The key an SMP carries is the one its destination port holds as far
 * as ibsmd knows: the key the port last showed in a PortInfo answer or
 * last acknowledged in a Set, or the one guid2mkey recorded before a
 * restart; a port ibsmd knows nothing of gets the key it would install
 * (a fresh port holds M_Key 0, which every key passes).  The destination
 * is found by walking the SMP's directed route through the model being
 * discovered, then the last complete one, then, for the last hop, the
 * neighbors file: so after a restart a port that refuses Gets without
 * its key (protect 2 and 3) is still reached. */
#include "daemon/program/mkey.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/sm.h"
#include "daemon/program/program.h"
#include "lib/log.h"
#include "lib/mkey.h"

struct mkey_state {
	struct mkey_map held; /* port GUID (switch: node GUID) -> its key */
	struct mkey_map nbrs; /* (node GUID, port) -> the peer's key GUID */
	uint8_t secret[16];
	bool have_secret;
	bool dirty; /* held changed since guid2mkey was written */
	uint64_t keys_set, learned, violations, refresh_failed;
	struct log_ratelimit rl;
	char g2m_path[PATH_MAX], nbr_path[PATH_MAX], secret_path[PATH_MAX];
};

/* ---- keys ---- */

/* The GUID a port's key is filed under: a switch's is its node's. */
static uint64_t key_guid(const struct ib_port *p)
{
	return node_is_switch(p->node) ? p->node->guid : p->guid;
}

/* The key the configuration wants port guid to hold (0: none). */
static uint64_t wanted(const struct sm *sm, uint64_t guid)
{
	const struct mkey_state *k = sm->mkey;

	switch (sm->cfg.m_key_mode) {
	case CFG_MKEY_FIXED:
		return sm->cfg.m_key_key;
	case CFG_MKEY_PER_PORT:
		return k->have_secret && guid ? mkey_derive(k->secret, guid)
					      : 0;
	}
	return 0;
}

/* The key that passes port guid's check, as far as ibsmd knows. */
static uint64_t qualifier(const struct sm *sm, uint64_t guid)
{
	uint64_t held = guid ? mkey_map_get(&sm->mkey->held, guid, 0) : 0;

	if (held)
		return held;
	if (guid)
		return wanted(sm, guid);
	/* unknown port: a fixed key is everywhere ibsmd keyed */
	return sm->cfg.m_key_mode == CFG_MKEY_FIXED ? sm->cfg.m_key_key : 0;
}

/* ---- which port an SMP reaches ---- */

/* The key GUID of the port a directed route reaches in f, or 0 when f
 * does not know it.  When f knows every hop but the last, *from and
 * *port name the node the last hop leaves and its port (the neighbors
 * file may know what is behind). */
static uint64_t walk(const struct fabric *f, const uint8_t *path, uint8_t hops,
		     uint64_t *from, uint8_t *port)
{
	const struct ib_node *n = f ? f->sm_node : NULL;
	const struct ib_port *in = NULL;

	for (uint8_t i = 1; n && i <= hops; i++) {
		if (path[i] == 0 || path[i] > n->nports)
			return 0;
		if (!(in = n->ports[path[i]].remote)) {
			if (i == hops) {
				*from = n->guid;
				*port = path[i];
			}
			return 0;
		}
		n = in->node;
	}
	return n && in ? key_guid(in) : 0;
}

static uint64_t dest_by_path(const struct sm *sm, const uint8_t *path,
			     uint8_t hops)
{
	const struct fabric *nf = sm->sweep_model;
	uint64_t g, from = 0;
	uint8_t port = 0;

	if (hops == 0)
		return sm->sm_guid; /* our own port (a switch: its GUID) */
	if ((g = walk(nf, path, hops, &from, &port)) ||
	    (g = walk(sm->fab, path, hops, &from, &port)))
		return g;
	return from ? mkey_map_get(&sm->mkey->nbrs, from, port) : 0;
}

static uint64_t dest_by_lid(const struct sm *sm, uint16_t lid)
{
	const struct fabric *nf = sm->sweep_model;
	const struct ib_port *p = nf ? fabric_port_by_lid(nf, lid) : NULL;

	if (!p && sm->fab)
		p = fabric_port_by_lid(sm->fab, lid);
	return p ? key_guid(p) : 0;
}

static uint64_t key_for_smp(void *ctx, const struct txn_smp_req *r)
{
	const struct sm *sm = ctx;

	return qualifier(sm, r->dr ? dest_by_path(sm, r->path, r->hops)
				   : dest_by_lid(sm, r->dlid));
}

/* ---- PortInfo Sets ---- */

static void learn(struct sm *sm, uint64_t guid, uint64_t key, bool set)
{
	struct mkey_state *k = sm->mkey;

	if (!guid || !key || mkey_map_get(&k->held, guid, 0) == key)
		return;
	if (mkey_map_set(&k->held, guid, 0, key) < 0)
		return; /* out of memory: the key is derived again next time */
	k->dirty = true;
	if (set)
		k->keys_set++;
	else
		k->learned++;
}

bool mkey_pi_fill(struct sm *sm, const struct ib_node *n, uint8_t pn,
		  struct smp_port_info *pi)
{
	uint64_t guid = key_guid(&n->ports[pn]), key;
	bool differs;

	if (!mkey_port_keyed(n, pn))
		return false;
	/* A key shown in PortInfo is the port's: it is shown at protect 0,
	 * or at 1 to the right key; a hidden one reads as 0. */
	learn(sm, guid, pi->m_key, false);
	if (sm->cfg.m_key_mode == CFG_MKEY_OFF || !(key = wanted(sm, guid)))
		return false;
	differs = pi->m_key != key ||
		  pi->m_key_protect_bits != sm->cfg.m_key_protect ||
		  pi->m_key_lease_period != sm->cfg.m_key_lease_s;
	pi->m_key = key;
	pi->m_key_protect_bits = (uint8_t)sm->cfg.m_key_protect;
	pi->m_key_lease_period = (uint16_t)sm->cfg.m_key_lease_s;
	return differs;
}

void mkey_pi_acked(struct sm *sm, const struct ib_node *n, uint8_t pn,
		   uint64_t key)
{
	if (mkey_port_keyed(n, pn))
		learn(sm, key_guid(&n->ports[pn]), key, true);
}

/* ---- trap 256 ---- */

struct refresh {
	struct sm *sm;
	uint16_t lid;
};

static void refresh_cb(void *ctx, int status, const struct txn_result *r)
{
	struct refresh *q = ctx;

	if (status < 0 && status != -ECANCELED) {
		q->sm->mkey->refresh_failed++;
		log_err(
		    "M_Key: the port at LID %u does not answer a PortInfo "
		    "Get with the key ibsmd holds for it (%s): its key is "
		    "not the one in guid2mkey; it is managed again when its "
		    "lease (M_KeyLeasePeriod) runs out",
		    q->lid, strerror(-status));
	}
	free(q);
}

/* Trap 256 DataDetails (IBA 14.2.5.1): LIDADDR at byte 2 (the requester
 * with the wrong key), DRSLID 4, Method 6, AttributeID 8,
 * AttributeModifier 10, M_Key 14. */
static uint64_t be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

void mkey_on_trap256(struct sm *sm, const struct smp_notice *n, uint16_t from)
{
	struct mkey_state *k = sm->mkey;
	uint16_t req_lid = (uint16_t)be(n->details + 2, 2);
	struct refresh *q;

	if (!k)
		return;
	k->violations++;
	if (log_ratelimit_ok(&k->rl))
		log_warn("M_Key: trap 256 from LID %u: an SMP from LID %u "
			 "(method 0x%02x, attribute 0x%04x, modifier 0x%08x) "
			 "carried a wrong M_Key%s",
			 n->issuer_lid ? n->issuer_lid : from, req_lid,
			 n->details[6], (unsigned)be(n->details + 8, 2),
			 (unsigned)be(n->details + 10, 4),
			 req_lid == sm->sm_lid
			     ? ": it was ibsmd's own, its key for that port "
			       "is wrong"
			     : "; the port dropped it");
	if (sm->sm_state != SM_STATE_MASTER ||
	    sm->cfg.m_key_mode == CFG_MKEY_OFF || !n->issuer_lid)
		return;
	if (!(q = calloc(1, sizeof(*q))))
		return;
	*q = (struct refresh){sm, n->issuer_lid};
	if (txn_submit_lid(sm->txn, q->lid, MAD_METHOD_GET, SMP_ATTR_PORT_INFO,
			   0, NULL, refresh_cb, q) < 0)
		free(q);
}

/* ---- persistence ---- */

/* Every link of the model, both ends, so a restart can name the port
 * behind a switch port before discovery reaches it.  True when an entry
 * is new or changed (the file is then written again). */
static bool nbrs_from(struct mkey_map *m, const struct fabric *f)
{
	bool changed = false;

	for (uint32_t i = 0; f && i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];

		for (unsigned p = 1; p <= n->nports; p++) {
			uint64_t g = n->ports[p].remote
					 ? key_guid(n->ports[p].remote)
					 : 0;
			if (!g || mkey_map_get(m, n->guid, (uint8_t)p) == g)
				continue;
			mkey_map_set(m, n->guid, (uint8_t)p, g);
			changed = true;
		}
	}
	return changed;
}

static void save(struct sm *sm)
{
	struct mkey_state *k = sm->mkey;
	int rc;

	if (k->dirty) {
		rc = mkey_db_write(k->g2m_path, &k->held);
		if (rc < 0)
			log_err("M_Key: cannot write %s: %s; the keys set "
				"since the last write are lost at a restart "
				"(ports keep them)",
				k->g2m_path, strerror(-rc));
		else
			k->dirty = false;
	}
	if ((sm->cfg.m_key_mode == CFG_MKEY_OFF && !k->held.n) ||
	    !nbrs_from(&k->nbrs, sm->fab))
		return;
	rc = mkey_nbrs_write(k->nbr_path, &k->nbrs);
	if (rc < 0)
		log_warn("M_Key: cannot write %s: %s", k->nbr_path,
			 strerror(-rc));
}

static void on_fabric(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	save(sm);
}

/* per-port mode needs the secret before any key is derived */
static int need_secret(struct sm *sm)
{
	struct mkey_state *k = sm->mkey;
	char err[PATH_MAX + 64];
	int rc;

	if (sm->cfg.m_key_mode != CFG_MKEY_PER_PORT || k->have_secret)
		return 0;
	rc =
	    mkey_secret_load(k->secret_path, true, k->secret, err, sizeof(err));
	if (rc < 0) {
		log_err("M_Key: %s; m_key.mode per-port cannot derive keys "
			"without it",
			err);
		return rc;
	}
	k->have_secret = true;
	return 0;
}

static void on_reload(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	/* a reload to per-port whose secret cannot be made sets no key */
	need_secret(sm);
}

static void load(struct mkey_state *k, bool nbrs)
{
	char err[PATH_MAX + 64] = "";
	const char *path = nbrs ? k->nbr_path : k->g2m_path;
	int rc = nbrs ? mkey_nbrs_read(path, &k->nbrs, err, sizeof(err))
		      : mkey_db_read(path, &k->held, err, sizeof(err));

	if (rc < 0 && rc != -ENOENT)
		log_err("M_Key: %s; starting without it", err);
	else if (rc >= 0 && !nbrs)
		log_notice("M_Key: %u port keys read from %s", k->held.n, path);
}

/* A standby took over with its master's copies of the files: the keys
 * and the secret become theirs before the first SMP as master. */
static int reload_files(struct sm *sm)
{
	struct mkey_state *k = sm->mkey;

	if (!k)
		return -ENODEV;
	mkey_map_free(&k->held);
	mkey_map_free(&k->nbrs);
	load(k, false);
	load(k, true);
	k->have_secret = false;
	return need_secret(sm);
}

int mkey_start(struct sm *sm)
{
	struct mkey_state *k = calloc(1, sizeof(*k));
	const char *d = sm->cfg.state_dir;
	int rc;

	if (!k)
		return -ENOMEM;
	sm->mkey = k;
	k->rl = (struct log_ratelimit){.interval_ms = 5000, .burst = 5};
	snprintf(k->g2m_path, sizeof(k->g2m_path), "%s/guid2mkey", d);
	snprintf(k->nbr_path, sizeof(k->nbr_path), "%s/neighbors", d);
	snprintf(k->secret_path, sizeof(k->secret_path), "%s/mkey.secret", d);
	load(k, false);
	load(k, true);
	if ((rc = need_secret(sm)) < 0)
		return rc;
	txn_set_mkey_hook(sm->txn, key_for_smp, sm);
	sm->mkey_reload = reload_files;
	rc = sm_subscribe(sm, SM_EV_FABRIC_REPLACED, on_fabric, NULL);
	if (rc == 0)
		rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_reload, NULL);
	return rc;
}

void mkey_stop(struct sm *sm)
{
	struct mkey_state *k = sm->mkey;

	if (!k)
		return;
	if (k->dirty) {
		int rc = mkey_db_write(k->g2m_path, &k->held);
		if (rc < 0)
			log_err("M_Key: cannot write %s: %s", k->g2m_path,
				strerror(-rc));
	}
	mkey_map_free(&k->held);
	mkey_map_free(&k->nbrs);
	free(k);
	sm->mkey = NULL;
	sm->mkey_reload = NULL;
}

void mkey_print_status(const struct sm *sm, FILE *out)
{
	const struct mkey_state *k = sm->mkey;

	fprintf(out, "mkey_mode %s\n",
		config_enum_name("m_key.mode", sm->cfg.m_key_mode));
	fprintf(out, "mkey_ports_known %u\n", k ? k->held.n : 0);
	fprintf(out, "mkey_keys_set %" PRIu64 "\n", k ? k->keys_set : 0);
	fprintf(out, "mkey_keys_learned %" PRIu64 "\n", k ? k->learned : 0);
	fprintf(out, "mkey_violations %" PRIu64 "\n", k ? k->violations : 0);
	fprintf(out, "mkey_refresh_failed %" PRIu64 "\n",
		k ? k->refresh_failed : 0);
}

/* The expected cabling: the plan read at start and on SIGHUP, compared
 * with each swept model (lib/topo_diff.c), and enforced by cutting the
 * links that differ from the model before it is routed: a port the model
 * does not link is neither armed nor activated (portsetup.c), so a
 * miswired cable stays in Initialize and carries nothing until it is
 * fixed.  See topology.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/sm.h"
#include "daemon/topology/topology_priv.h"
#include "lib/log.h"
#include "lib/topo.h"

/* Differences logged per sweep; `ibsmctl topology diff` lists them all. */
#define LOG_LINES 32

static void free_plan(struct topology *t)
{
	if (t->expected) {
		fabric_free(t->expected);
		free(t->expected);
	}
	t->expected = NULL;
	free(t->path);
	t->path = NULL;
}

/* Reads path into t (an empty path: no plan).  On error t keeps what it
 * had. */
static int load_plan(struct topology *t, const char *path)
{
	struct fabric *f;
	char err[512];
	int rc;

	if (!path[0]) {
		free_plan(t);
		return 0;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	fabric_init(f);
	rc = topo_load(f, path, err, sizeof(err));
	if (rc < 0) {
		log_err("topology.expected: %s", err);
		free(f);
		return rc;
	}
	free_plan(t);
	t->expected = f;
	t->path = strdup(path);
	log_notice("topology: expecting %u nodes, %u links from %s", f->n_nodes,
		   fabric_count_links(f), path);
	return 0;
}

/* SIGHUP: the file is read again (it may have changed under the same
 * name); a bad one is logged and the running plan kept.  The sweep the
 * reload starts compares. */
static void on_config(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	if (load_plan(sm->topo, sm->cfg.topology_expected) < 0)
		log_err("topology: keeping the plan read before%s%s",
			sm->topo->path ? " from " : "",
			sm->topo->path ? sm->topo->path : "");
}

int topology_init(struct sm *sm)
{
	struct topology *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return -ENOMEM;
	sm->topo = t;
	rc = load_plan(t, sm->cfg.topology_expected);
	if (rc < 0) {
		log_err("topology: cannot start without the plan; fix %s or "
			"empty topology.expected",
			sm->cfg.topology_expected);
		return rc;
	}
	rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_config, NULL);
	return rc ? rc : topology_show_register(sm);
}

void topology_fini(struct sm *sm)
{
	struct topology *t = sm->topo;

	if (!t)
		return;
	sm_unsubscribe(sm, on_config, NULL);
	topology_show_unregister(sm);
	free_plan(t);
	topo_diff_free(&t->diff);
	free(t);
	sm->topo = NULL;
}

static void log_diff(const struct topology *t)
{
	const struct topo_diff *d = &t->diff;
	char line[512];

	if (!d->n) {
		log_info("topology: the fabric matches %s (%u links)", t->path,
			 d->expected_links);
		return;
	}
	log_warn("topology: %u missing, %u extra, %u miswired links against "
		 "%s",
		 d->count[TOPO_MISSING], d->count[TOPO_EXTRA],
		 d->count[TOPO_MISWIRED], t->path);
	for (uint32_t i = 0; i < d->n && i < LOG_LINES; i++) {
		topo_diff_line(&d->v[i], line, sizeof(line));
		log_warn("topology: %s", line);
	}
	if (d->n > LOG_LINES)
		log_warn("topology: and %u more; ibsmctl topology diff lists "
			 "them all",
			 d->n - LOG_LINES);
}

/* The found end a of a miswired or extra link, cut from f unless it is
 * the SM's own link.  1 if cut. */
static unsigned cut(struct fabric *f, const struct topo_diff_item *it)
{
	struct ib_node *n = fabric_node_by_guid(f, it->a.guid);
	struct ib_port *p =
	    n && it->a.port <= n->nports ? &n->ports[it->a.port] : NULL;

	if (!p || !p->remote)
		return 0;
	if ((p->node == f->sm_node && p->num == f->sm_port) ||
	    (p->remote->node == f->sm_node && p->remote->num == f->sm_port)) {
		log_err("topology: the SM's own link is %s; it is kept "
			"active all the same",
			topo_diff_kind_name(it->kind));
		return 0;
	}
	fabric_unlink(p);
	return 1;
}

unsigned topology_check(struct sm *sm, struct fabric *f)
{
	struct topology *t = sm->topo;
	unsigned n = 0;

	if (!t || !t->expected)
		return 0;
	if (topo_diff(t->expected, f, &t->diff) < 0) {
		log_err("topology: out of memory comparing the fabric with "
			"%s; not compared this sweep",
			t->path);
		return 0;
	}
	t->compared = true;
	t->checks++;
	t->sweep = sm->sweeps + 1;
	clock_gettime(CLOCK_REALTIME, &t->when);
	log_diff(t);
	for (uint32_t i = 0; sm->cfg.topology_enforce && i < t->diff.n; i++)
		if (t->diff.v[i].kind != TOPO_MISSING)
			n += cut(f, &t->diff.v[i]);
	t->cut = n;
	if (n)
		log_warn("topology: %u links left out of the model "
			 "(topology.enforce): not armed, activated or routed",
			 n);
	return n;
}

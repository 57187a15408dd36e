/* What the comparison shows: `ibsmctl topology diff` (key lines, then one
 * line per difference, man/ibsmctl.8) and the ibsmd_topology_* families
 * of the metrics page (man/ibsmd.8, METRICS). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "daemon/core/sm.h"
#include "daemon/ctl/ctl.h"
#include "daemon/metrics/metrics.h"
#include "daemon/topology/topology_priv.h"

static void print_head(const struct sm *sm, const struct topology *t, FILE *out)
{
	const struct topo_diff *d = &t->diff;
	char ts[64] = "never";

	if (t->compared) {
		struct tm tm;
		gmtime_r(&t->when.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	fprintf(out, "expected %s\n", t->path ? t->path : "none");
	fprintf(out, "enforce %s\n",
		sm->cfg.topology_enforce ? "true" : "false");
	fprintf(out, "compared_at %s\n", ts);
	fprintf(out, "compared_sweep %" PRIu64 "\n", t->sweep);
	fprintf(out, "expected_links %u\n", d->expected_links);
	fprintf(out, "missing_links %u\n", d->count[TOPO_MISSING]);
	fprintf(out, "extra_links %u\n", d->count[TOPO_EXTRA]);
	fprintf(out, "miswired_links %u\n", d->count[TOPO_MISWIRED]);
	fprintf(out, "links_left_out %u\n", t->cut);
}

static int cmd_diff(void *arg, const char *args, FILE *out, char *err,
		    size_t errlen)
{
	struct sm *sm = arg;
	const struct topology *t = sm->topo;
	char line[512];

	if (args[0]) {
		snprintf(err, errlen, "usage: topology diff");
		return -EINVAL;
	}
	print_head(sm, t, out);
	for (uint32_t i = 0; i < t->diff.n; i++) {
		topo_diff_line(&t->diff.v[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	return 0;
}

static void family(struct sm *sm, struct prom_out *o, void *ctx)
{
	const struct topology *t = sm->topo;

	prom_family(o, "ibsmd_topology_expected_links", PROM_GAUGE,
		    "Links of topology.expected (0: no plan).");
	prom_sample(o, "ibsmd_topology_expected_links", NULL, 0,
		    t->diff.expected_links);
	prom_family(o, "ibsmd_topology_differences", PROM_GAUGE,
		    "Links the last heavy sweep found missing, extra or "
		    "miswired against topology.expected.");
	for (int k = 0; k < TOPO_KINDS; k++) {
		struct prom_label l = {"kind", topo_diff_kind_name(k)};
		prom_sample(o, "ibsmd_topology_differences", &l, 1,
			    t->diff.count[k]);
	}
	prom_family(o, "ibsmd_topology_links_left_out", PROM_GAUGE,
		    "Links the last heavy sweep left out of the model "
		    "(topology.enforce): not activated, not routed.");
	prom_sample(o, "ibsmd_topology_links_left_out", NULL, 0, t->cut);
}

int topology_show_register(struct sm *sm)
{
	int rc = metrics_add(sm, family, NULL);

	if (rc == 0 && sm->ctl)
		rc = ctl_register(sm->ctl, "topology diff", cmd_diff, sm,
				  "the fabric against topology.expected: "
				  "missing, extra, miswired links");
	return rc;
}

void topology_show_unregister(struct sm *sm)
{
	metrics_remove(sm, family, NULL);
}

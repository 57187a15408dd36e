/* The daemon's own control-socket commands: status, sweep, dump DIR.
 * Answers are "key value" lines (man/ibsmctl.8), one fact per line, so
 * scripts can grep them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/core/sm.h"
#include "daemon/ctl/ctl.h"
#include "daemon/main.h"
#include "daemon/mcast/mcg.h"
#include "daemon/perf/perf.h"
#include "daemon/program/program.h"
#include "daemon/role/role.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/sweep/sweep.h"
#include "routing/unicast/layers.h"

static void print_txn(FILE *out, const struct txn_stats *t)
{
	fprintf(out, "smps_sent %" PRIu64 "\n", t->sent);
	fprintf(out, "smps_received %" PRIu64 "\n", t->received);
	fprintf(out, "smps_retried %" PRIu64 "\n", t->retried);
	fprintf(out, "smps_lost %" PRIu64 "\n", t->lost);
	fprintf(out, "smps_timeouts %" PRIu64 "\n", t->timeouts);
	fprintf(out, "smps_remote_errors %" PRIu64 "\n", t->remote_errors);
	fprintf(out, "smps_unsupported %" PRIu64 "\n", t->unsupported);
	fprintf(out, "smps_unmatched %" PRIu64 "\n", t->unmatched);
	fprintf(out, "mads_dropped %" PRIu64 "\n", t->dropped);
	fprintf(out, "requests_received %" PRIu64 "\n", t->requests);
	fprintf(out, "smps_outstanding %u\n", t->outstanding);
	fprintf(out, "smps_max_outstanding %u\n", t->max_outstanding);
	/* the send window (docs/design.md §3.1) */
	fprintf(out, "mads_unconsumed %u\n", t->unconsumed);
	fprintf(out, "mads_max_unconsumed %u\n", t->max_unconsumed);
	fprintf(out, "answers_waiting %u\n", t->answers_waiting);
	fprintf(out, "answers_waited %" PRIu64 "\n", t->answers_waited);
	fprintf(out, "answers_dropped %" PRIu64 "\n", t->answers_dropped);
	fprintf(out, "answers_handed_to_loop %" PRIu64 "\n",
		__atomic_load_n(&t->rx_handed_back, __ATOMIC_RELAXED));
	fprintf(out, "send_fences %" PRIu64 "\n",
		__atomic_load_n(&t->fences, __ATOMIC_RELAXED));
}

/* "link_speeds 4xHDR=12,1xSDR=2": the links of the model by width and
 * lane speed (extended speeds decoded, lib/speed.h), widest and fastest
 * first. */
static void print_link_speeds(const struct fabric *f, FILE *out)
{
	static const uint8_t widths[] = {1, 16, 2, 4, 8};
	unsigned n[sizeof(widths)][IB_SPEED_XDR + 1] = {{0}};
	bool any = false;

	for (uint32_t i = 0; f && i < f->n_nodes; i++)
		for (unsigned p = 1; p <= f->nodes[i]->nports; p++) {
			const struct ib_port *a = &f->nodes[i]->ports[p];
			const struct ib_port *b = a->remote;
			if (!b || b->node->idx < a->node->idx ||
			    (b->node == a->node && b->num < p))
				continue;
			for (unsigned w = 0; w < sizeof(widths); w++)
				if (widths[w] == a->width_active)
					n[w][port_speed(a)]++;
		}
	fputs("link_speeds", out);
	for (unsigned w = sizeof(widths); w-- > 0;)
		for (int s = IB_SPEED_XDR; s >= 0; s--)
			if (n[w][s]) {
				fprintf(out, "%s%ux%s=%u", any ? "," : " ",
					ib_width_lanes(widths[w]),
					ib_speed_name((enum ib_speed)s),
					n[w][s]);
				any = true;
			}
	fputs(any ? "\n" : " none\n", out);
}

static int cmd_status(void *arg, const char *args, FILE *out, char *err,
		      size_t errlen)
{
	struct sm *sm = arg;
	const struct fabric *f = sm->fab;
	char ts[64] = "never";

	if (sm->sweeps) {
		struct tm tm;
		gmtime_r(&sm->last_sweep.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	fprintf(out, "sm_state %s\n", sm_state_name(sm->sm_state));
	fprintf(out, "sm_lid %u\n", sm->sm_lid);
	fprintf(out, "sm_guid 0x%016" PRIx64 "\n", sm->sm_guid);
	fprintf(out, "sm_priority %u\n", sm->cfg.sm_priority);
	if (sm->port)
		fprintf(out, "sm_port %s/%d %s\n", mad_port_info(sm->port)->ca,
			mad_port_info(sm->port)->num,
			mad_port_info(sm->port)->smi ? "smi" : "umad");
	fprintf(out, "sweep_state %s\n", sweep_state_name(sweep_state(sm)));
	fprintf(out, "sweeps %" PRIu64 "\n", sm->sweeps);
	fprintf(out, "heavy_sweeps %" PRIu64 "\n", sm->heavy_sweeps);
	fprintf(out, "incremental_sweeps %" PRIu64 "\n",
		sm->incremental_sweeps);
	fprintf(out, "last_sweep %s\n", ts);
	fprintf(out, "last_sweep_ms %.1f\n", sm->last_sweep_ms);
	fprintf(out, "last_error %s\n",
		sm->last_error[0] ? sm->last_error : "none");
	fprintf(out, "nodes %u\n", f ? f->n_nodes : 0);
	fprintf(out, "switches %u\n", f ? f->n_switches : 0);
	fprintf(out, "hosts %u\n", f ? fabric_count_hosts(f) : 0);
	fprintf(out, "links %u\n", f ? fabric_count_links(f) : 0);
	fprintf(out, "max_lid %u\n", f ? (unsigned)f->max_lid : 0u);
	fprintf(out, "lid_limit %s\n",
		sm->lid_limit[0] ? sm->lid_limit : "none");
	print_link_speeds(f, out);
	fprintf(out, "routing %s\n",
		config_enum_name("routing.unicast", sm->cfg.routing_unicast));
	/* the layered engine's layers of the model in force (0: none) */
	fprintf(out, "layers_made %u\n", sm->layers ? sm->layers->n_layers : 0);
	fprintf(out, "layers_used %u\n", sm->layers ? sm->layers->used : 0);
	fprintf(out, "traps %" PRIu64 "\n", sm->traps);
	fprintf(out, "smps_discovery %" PRIu64 "\n", sm->smps.disc_gets);
	fprintf(out, "smps_light %" PRIu64 "\n", sm->smps.light_gets);
	fprintf(out, "smps_portinfo_sets %" PRIu64 "\n",
		sm->smps.portinfo_sets);
	fprintf(out, "smps_switchinfo_sets %" PRIu64 "\n",
		sm->smps.switchinfo_sets);
	fprintf(out, "smps_lft_blocks %" PRIu64 "\n", sm->smps.lft_blocks);
	fprintf(out, "smps_pkey_gets %" PRIu64 "\n", sm->smps.pkey_gets);
	fprintf(out, "smps_pkey_sets %" PRIu64 "\n", sm->smps.pkey_sets);
	fprintf(out, "smps_sl2vl_sets %" PRIu64 "\n", sm->smps.sl2vl_sets);
	fprintf(out, "smps_vlarb_sets %" PRIu64 "\n", sm->smps.vlarb_sets);
	fprintf(out, "smps_min_last_heavy %" PRIu64 "\n", sm->smps.min_needed);
	elect_print_status(sm, out);
	mkey_print_status(sm, out);
	sa_daemon_print_status(sm, out);
	perf_print_status(sm, out);
	print_txn(out, txn_stats(sm->txn));
	return 0;
}

static int cmd_sweep(void *arg, const char *args, FILE *out, char *err,
		     size_t errlen)
{
	struct sm *sm = arg;
	bool light = strcmp(args, "light") == 0;

	if (args[0] && !light) {
		snprintf(err, errlen, "usage: sweep [light]");
		return -EINVAL;
	}
	sweep_request(sm, !light, "requested by ibsmctl");
	fprintf(out, "sweep requested (%s)\n", light ? "light" : "heavy");
	return 0;
}

static int cmd_dump(void *arg, const char *args, FILE *out, char *err,
		    size_t errlen)
{
	struct sm *sm = arg;
	int rc;

	if (args[0] != '/') {
		snprintf(err, errlen, "usage: dump /ABSOLUTE/DIR");
		return -EINVAL;
	}
	rc = sm_write_dumps(sm, args);
	/* the groups' MFTs over sm_write_dumps' empty mfts.dump, if any */
	if (rc == 0)
		rc = mcg_write_dumps_to(sm->mcg, args);
	if (rc < 0) {
		snprintf(err, errlen, "cannot write dumps to %s: %s", args,
			 rc == -ENOENT && !sm->fab ? "no sweep finished yet"
						   : strerror(-rc));
		return rc;
	}
	fprintf(out, "dumps written to %s\n", args);
	return 0;
}

int statectl_register(struct sm *sm)
{
	int rc = ctl_register(sm->ctl, "status", cmd_status, sm,
			      "SM state, sweep and SMP counters");
	if (rc == 0)
		rc = ctl_register(sm->ctl, "sweep", cmd_sweep, sm,
				  "start a heavy sweep ('sweep light': the "
				  "light check first)");
	if (rc == 0)
		rc = ctl_register(sm->ctl, "dump", cmd_dump, sm,
				  "write subnet.lst, lfts.dump, fdbs, guid2lid "
				  "to DIR");
	/* Both act as root: a sweep costs the whole fabric SMPs, a dump
	 * writes files where the client says. */
	if (rc == 0)
		rc = ctl_restrict(sm->ctl, "sweep");
	if (rc == 0)
		rc = ctl_restrict(sm->ctl, "dump");
	return rc;
}

/* The multicast manager's control-socket commands (`mcg list`, `mcg show
 * MGID [--dot]`, man/ibsmctl.8) and its dump files in the state
 * directory (mfts.dump, mcgroups.dump: docs/design.md §4.4), rewritten after
 * each change. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/ctl/ctl.h"
#include "daemon/mcast/mcg_priv.h"
#include "daemon/core/sm.h"
#include "lib/log.h"
#include "routing/mcast/mcast.h"

static void group_line(FILE *out, struct mcg *g)
{
	struct mcg_mgr *mgr = g->mgr;
	char s[64];

	if (g->eid != MC_NONE && mgr->mc) {
		mcast_dump_group_line(out, mgr->mc, mgr->sm->fab, g->eid,
				      mcg_state_name(g->sa->state));
		return;
	}
	mcast_mgid_str(g->sa->rec.mgid, s, sizeof(s));
	fprintf(out,
		"%s mlid=0x%04x state=%s tfi=0 height=0 "
		"root=0x0000000000000000 members=",
		s, g->sa->rec.mlid, mcg_state_name(g->sa->state));
	for (uint32_t i = 0; i < g->sa->n_members; i++)
		fprintf(out, "%s0x%016" PRIx64, i ? "," : "",
			sa_get64(g->sa->members[i].port_gid + 8));
	fputc('\n', out);
}

static int write_groups(struct mcg_mgr *mgr, const char *dir)
{
	char path[600], tmp[620];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/mcgroups.dump", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(fp = fopen(tmp, "w")))
		return -errno;
	for (uint32_t i = 0; i < mgr->n; i++)
		if (mgr->v[i]->sa->n_members || mgr->v[i]->eid != MC_NONE)
			group_line(fp, mgr->v[i]);
	if (ferror(fp) | (fclose(fp) != 0)) {
		unlink(tmp);
		return -EIO;
	}
	return rename(tmp, path) < 0 ? -errno : 0;
}

static int write_dumps(struct mcg_mgr *mgr, const char *dir, bool mfts,
		       bool groups)
{
	int rc = 0;

	if (!mgr || !mgr->mc || !mgr->sm->fab)
		return 0;
	if (mfts)
		rc = mcast_dump_mfts(dir, mgr->mc, mgr->sm->fab);
	return rc < 0 || !groups ? rc : write_groups(mgr, dir);
}

int mcg_write_dumps_to(struct mcg_mgr *mgr, const char *dir)
{
	return write_dumps(mgr, dir, true, true);
}

/* Changes only mark the files dirty (the manager's dirty hook); this runs
 * from mcg_persist.c at most once per its coalescing delay. */
void mcg_write_dumps_now(struct mcg_mgr *mgr)
{
	int rc;

	/* Only those the dumps key lists (mfts.dump grows with switches x
	 * colors in use). */
	rc = write_dumps(mgr, mgr->sm->cfg.state_dir,
			 config_dump_wanted(&mgr->sm->cfg, "mfts"),
			 config_dump_wanted(&mgr->sm->cfg, "mcgroups"));
	if (rc < 0)
		log_warn("multicast: cannot write mfts.dump/mcgroups.dump to "
			 "%s: %s; the tables in force are unchanged",
			 mgr->sm->cfg.state_dir, strerror(-rc));
}

static int cmd_list(void *arg, const char *args, FILE *out, char *err,
		    size_t errlen)
{
	struct mcg_mgr *mgr = arg;

	for (uint32_t i = 0; i < mgr->n; i++)
		group_line(out, mgr->v[i]);
	return 0;
}

static void show_tree(struct mcg_mgr *mgr, FILE *out, const struct mc_tree *t,
		      bool dot)
{
	const struct fabric *f = mgr->sm->fab;

	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct mc_tnode *n = &t->nodes[i];
		const struct ib_node *sw = f->switches[n->sw];

		if (dot && n->parent != MC_NONE)
			fprintf(out, "  \"%s\" -> \"%s\";\n",
				f->switches[t->nodes[n->parent].sw]->desc,
				sw->desc);
		else if (!dot)
			fprintf(out,
				"switch 0x%016" PRIx64 " depth %u "
				"up_port %u desc %s\n",
				sw->guid, n->depth, n->up_port, sw->desc);
		for (unsigned p = 1; dot && p <= sw->nports; p++)
			if (mc_mask_test(n->members, p) && sw->ports[p].remote)
				fprintf(
				    out, "  \"%s\" -> \"%s\" [style=dashed];\n",
				    sw->desc, sw->ports[p].remote->node->desc);
	}
}

static int cmd_show(void *arg, const char *args, FILE *out, char *err,
		    size_t errlen)
{
	struct mcg_mgr *mgr = arg;
	char mg[64] = "", opt[16] = "";
	uint8_t mgid[16];
	struct mcg *g;
	const struct mc_tree *t = NULL;
	bool dot;

	if (sscanf(args, "%63s %15s", mg, opt) < 1 ||
	    inet_pton(AF_INET6, mg, mgid) != 1) {
		snprintf(err, errlen, "usage: mcg show MGID [--dot]");
		return -EINVAL;
	}
	dot = strcmp(opt, "--dot") == 0;
	g = mcg_find(mgr, mgid);
	if (!g) {
		snprintf(err, errlen, "no multicast group %s", mg);
		return -ENOENT;
	}
	if (g->eid != MC_NONE && mgr->mc)
		t = mcast_group_tree(mgr->mc, g->eid);
	if (dot) {
		fprintf(out, "digraph \"%s\" {\n", mg);
		if (t)
			show_tree(mgr, out, t, true);
		fprintf(out, "}\n");
		return 0;
	}
	fprintf(out,
		"mgid %s\nmlid 0x%04x\nstate %s\nmember_count %u\n"
		"joined %u\nleft %u\ntfi %u\nheight %u\n",
		mg, g->sa->rec.mlid, mcg_state_name(g->sa->state),
		g->sa->rec.member_count, g->sa->joined, g->sa->left,
		g->sa->tree_groups, g->sa->tree_height);
	for (uint32_t i = 0; i < g->sa->n_members; i++)
		fprintf(out,
			"member 0x%016" PRIx64 " join_state 0x%x proxy %u\n",
			sa_get64(g->sa->members[i].port_gid + 8),
			g->sa->members[i].join_state, g->sa->members[i].proxy);
	if (t)
		show_tree(mgr, out, t, false);
	return 0;
}

static int cmd_stats(void *arg, const char *args, FILE *out, char *err,
		     size_t errlen)
{
	struct mcg_mgr *mgr = arg;
	struct mc_stats st = {0};
	uint32_t n_std = 0, n_coll = 0;

	for (uint32_t i = 0; i < mgr->n; i++)
		if (mgr->v[i]->sa->rec.member_count)
			n_coll++;
		else
			n_std++;
	if (mgr->mc)
		mcast_stats(mgr->mc, &st);
	fprintf(out,
		"groups %u\nstandard_groups %u\ncollective_groups %u\n"
		"engine_groups %u\ntrees %u\ncolors %u\ncolors_used %u\n"
		"merged_groups %u\nmax_tfi %u\njoins %" PRIu64
		"\nleaves %" PRIu64 "\nrefused %" PRIu64 "\nrouted %" PRIu64
		"\nmft_blocks_sent %" PRIu64 "\nrouting_queue %u\n",
		mgr->n, n_std, n_coll, mgr->mc ? mgr->mc->live_groups : 0,
		mgr->mc ? mgr->mc->live_trees : 0, mgr->colors, st.colors_used,
		st.merged_groups, st.max_tfi, mgr->joins, mgr->leaves,
		mgr->refused, mgr->routed, mgr->blocks_sent,
		mgr->qn - mgr->qhead);
	mcg_journal_print(mgr, out);
	return 0;
}

unsigned mcg_mlid_limit(const struct sm *sm)
{
	return sm->mcg ? sm->mcg->colors : 0;
}

int mcg_ctl_register(struct sm *sm)
{
	int rc = ctl_register(sm->ctl, "mcg list", cmd_list, sm->mcg,
			      "multicast groups, one mcgroups.dump line each");

	if (rc == 0)
		rc = ctl_register(sm->ctl, "mcg show", cmd_show, sm->mcg,
				  "one group: state, members, tree (--dot: "
				  "Graphviz)");
	if (rc == 0)
		rc = ctl_register(sm->ctl, "mcg stats", cmd_stats, sm->mcg,
				  "group manager and engine counters");
	return rc;
}

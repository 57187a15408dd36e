/* ibsmd's entry point: the command line (docs/design.md §1), the configuration,
 * opening the umad port and the MAD engine, then the event loop.  Exit
 * status: 0 ok; 1 runtime failure (no port, --once could not bring the
 * subnet up); 2 bad command line or configuration. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/core/sm.h"
#include "daemon/ctl/ctl.h"
#include "daemon/main.h"
#include "daemon/mcast/mcg.h"
#include "daemon/metrics/metrics.h"
#include "daemon/perf/perf.h"
#include "daemon/program/program.h"
#include "daemon/role/role.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/sweep/sweep.h"
#include "daemon/topology/topology.h"
#include "lib/log.h"
#include "lib/pool.h"
#include "lib/version.h"
#include "mad/sm_probe.h"

#define DEFAULT_CONFIG "/etc/ibsmd/ibsmd.yaml"
#define MAX_OVERRIDES  256

struct args {
	const char *config;
	const char *overrides[MAX_OVERRIDES + 1];
	size_t n_overrides;
	char state_dir_kv[600];
	bool once, check_config;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: ibsmd [-c FILE] [-o KEY=VALUE]... [--once] "
	    "[--foreground] [--state-dir DIR] [--check-config [FILE]] "
	    "[--version]\n"
	    "  -c FILE          configuration (default " DEFAULT_CONFIG
	    " if it exists)\n"
	    "  -o KEY=VALUE     override one configuration key\n"
	    "  --once           bring the subnet up, write the dumps, exit\n"
	    "  --foreground     accepted for compatibility: ibsmd never "
	    "forks\n"
	    "  --state-dir DIR  same as -o state_dir=DIR\n"
	    "  --check-config   print the effective configuration and exit; a\n"
	    "                   FILE after it is read as with -c FILE\n"
	    "  --version        print the version and exit\n");
}

enum { OPT_ONCE = 256, OPT_FG, OPT_STATE, OPT_CHECK, OPT_VERSION };

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"override", required_argument, NULL, 'o'},
	    {"once", no_argument, NULL, OPT_ONCE},
	    {"foreground", no_argument, NULL, OPT_FG},
	    {"state-dir", required_argument, NULL, OPT_STATE},
	    {"check-config", no_argument, NULL, OPT_CHECK},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->config = optarg;
			break;
		case 'o':
			if (a->n_overrides == MAX_OVERRIDES - 1)
				return -E2BIG;
			a->overrides[a->n_overrides++] = optarg;
			break;
		case OPT_ONCE:
			a->once = true;
			break;
		case OPT_FG:
			break;
		case OPT_STATE:
			snprintf(a->state_dir_kv, sizeof(a->state_dir_kv),
				 "state_dir=%s", optarg);
			break;
		case OPT_CHECK:
			a->check_config = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("ibsmd %s\n", ibsm_version);
			exit(0);
		default:
			return -EINVAL;
		}
	}
	/* "ibsmd --check-config FILE" checks FILE, as -c FILE would. */
	if (a->check_config && !a->config && optind == argc - 1)
		a->config = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	/* --state-dir wins over -o state_dir: it is applied last. */
	if (a->state_dir_kv[0])
		a->overrides[a->n_overrides++] = a->state_dir_kv;
	if (!a->config && access(DEFAULT_CONFIG, F_OK) == 0)
		a->config = DEFAULT_CONFIG;
	return 0;
}

/* Makes dir and its missing parents; dir itself gets leaf_mode (the
 * control socket's directory is 0750, like systemd's RuntimeDirectory). */
static int mkdir_p(const char *dir, mode_t leaf_mode)
{
	char tmp[512];

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, leaf_mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* Before any thread exists (the MAD engine starts a receiver), so that
 * SIGTERM/SIGINT/SIGHUP reach only the event loop's signalfd. */
static void block_signals(void)
{
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss, NULL);
}

/* libumad2sim (the ibsim shim) retries forever when no ibsim listens;
 * opening the port gets OPEN_TIMEOUT_S seconds, then ibsmd says why. */
#define OPEN_TIMEOUT_S 10
static void open_timeout(int sig)
{
	static const char msg[] =
	    "ibsmd: error: opening the umad port did not finish in 10 s: "
	    "the umad device does not answer (under ibsim: is ibsim "
	    "running, with the same IBSIM_SOCKNAME?)\n";

	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void no_port_error(const struct sm *sm, int rc)
{
	if (sm->cfg.port_guid)
		log_err("no InfiniBand port with GUID 0x%016" PRIx64
			" (port.guid):"
			" %s",
			sm->cfg.port_guid, strerror(-rc));
	else if (sm->cfg.port_ca && sm->cfg.port_ca[0])
		log_err(
		    "InfiniBand device %s port %u (port.ca, port.num) cannot "
		    "be opened: %s",
		    sm->cfg.port_ca, sm->cfg.port_num, strerror(-rc));
	else if (access("/sys/class/infiniband", F_OK) < 0 ||
		 access("/dev/infiniband/umad0", F_OK) < 0)
		log_err("no InfiniBand device: /sys/class/infiniband or "
			"/dev/infiniband/umad0 is missing (load ib_umad; under "
			"ibsim, run with LD_PRELOAD=libumad2sim.so)");
	else
		log_err("no usable InfiniBand port: %s", strerror(-rc));
}

/* IsSM was set before we claimed it: does an SM answer on our port? */
static int check_port_free(struct sm *sm)
{
	const struct mad_port_info *pi = mad_port_info(sm->port);
	struct smp_sm_info si;
	int rc;

	if (!pi->is_sm)
		return 0;
	rc = sm_probe_own_port(sm->txn, &si);
	if (rc == 1) {
		log_err("%s port %d: a subnet manager already answers there "
			"(GUID 0x%016" PRIx64 ", %s, priority %u)",
			pi->ca, pi->num, si.guid, sm_state_name(si.state),
			si.priority);
		return -EADDRINUSE;
	}
	log_notice("%s port %d: IsSM is set but no subnet manager answers "
		   "there (its holder was killed); going on",
		   pi->ca, pi->num);
	return 0;
}

/* Two SMs on one port would both program the fabric (under ibsim they
 * do; a kernel refuses the second one's agents or issm device). */
static void another_sm_error(const struct sm *sm)
{
	const struct mad_port_info *pi = mad_port_info(sm->port);

	log_err("another subnet manager runs on %s port %d; ibsmd does not "
		"start beside it: stop it (OpenSM: systemctl stop "
		"opensm.service), or run ibsmd on another port (port.guid, or "
		"port.ca and port.num) or on another node",
		pi->ca, pi->num);
}

static int open_mad(struct sm *sm)
{
	struct mad_port_sel sel = {
	    .guid = sm->cfg.port_guid,
	    .ca =
		sm->cfg.port_ca && sm->cfg.port_ca[0] ? sm->cfg.port_ca : NULL,
	    .num = (int)sm->cfg.port_num,
	};
	int rc;

	signal(SIGALRM, open_timeout);
	alarm(OPEN_TIMEOUT_S);
	rc = mad_port_open(&sel, &sm->port);
	alarm(0);
	if (rc < 0) {
		no_port_error(sm, rc);
		return rc;
	}
	sm->sm_guid = mad_port_info(sm->port)->port_guid;
	sm_txn_params_from_cfg(sm);
	block_signals(); /* before the engine starts its receiver thread */
	rc = txn_create(sm->port, &sm->txnp, &sm->txn);
	if (rc < 0 && rc != -EADDRINUSE) /* umad_port.c said why */
		log_err("cannot start the MAD engine on %s port %d: %s",
			mad_port_info(sm->port)->ca,
			mad_port_info(sm->port)->num, strerror(-rc));
	if (rc < 0)
		return rc;
	rc = check_port_free(sm); /* before anything answers requests */
	if (rc < 0)
		return rc;
	txn_set_request_handler(sm->txn, sm_on_request, sm);
	log_notice("running on %s port %d, port GUID 0x%016" PRIx64,
		   mad_port_info(sm->port)->ca, mad_port_info(sm->port)->num,
		   sm->sm_guid);
	return 0;
}

static int open_ctl(struct sm *sm)
{
	const char *path = sm->cfg.control_socket;
	char dir[512], *slash;

	if (sm->once || !path || !path[0])
		return 0; /* --once is not queried: leave a daemon's socket */
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir_p(dir, 0750);
	}
	sm->ctl = ctl_open(sm->ev, path);
	if (!sm->ctl)
		return -EIO;
	sm_ctl_limits_from_cfg(sm);
	return statectl_register(sm);
}

/* The SM role hears of each sweep's end through the loop's events. */
static void on_sweep_done(struct sm *sm, enum sm_event ev,
			  const struct sm_event_arg *a, void *ctx)
{
	sm_sweep_done(sm, a->heavy, a->rc);
}

static int setup(struct sm *sm)
{
	int rc = mkdir_p(sm->cfg.state_dir, 0755);

	if (rc < 0) {
		log_err("state directory %s: %s", sm->cfg.state_dir,
			strerror(-rc));
		return rc;
	}
	rc = open_mad(sm);
	if (rc == 0) /* before any SMP: a restart reaches the ports it keyed */
		rc = mkey_start(sm);
	if (rc == 0 && !sm->once)
		rc = sa_daemon_init(sm);
	if (rc == 0 && !sm->once) /* --once answers nobody, needs no IsSM */
		rc = issm_open(sm);
	if (rc < 0)
		return rc;
	sm->pool = pool_create(sm->cfg.routing_threads);
	rc = loop_init(sm);
	if (rc == 0)
		rc = open_ctl(sm);
	if (rc == 0)
		rc = metrics_start(sm);
	if (rc == 0)
		rc = topology_init(sm);
	if (rc == 0 && !sm->once)
		rc = mcg_init(sm);
	if (rc == 0)
		rc = route_load_guid2lid(sm);
	/* after sa_daemon_init: on a new model the SA's subscriber runs
	 * first and holds Gets back until pkeyprog.c publishes that model's
	 * partitions (sa_daemon.c, on_fabric) */
	if (rc == 0)
		rc = pkeyprog_init(sm);
	if (rc == 0)
		rc = sweep_create(sm);
	if (rc == 0) /* the election hears of a sweep's end first */
		rc = elect_init(sm);
	if (rc == 0)
		rc = sm_subscribe(sm, SM_EV_SWEEP_DONE, on_sweep_done, NULL);
	if (rc == 0 && !sm->once)
		rc = sm_repl_init(sm);
	if (rc == 0)
		rc = metrics_sm_register(sm);
	if (rc == 0) /* after the sweep: it holds links out of its models */
		rc = perf_init(sm);
	return rc;
}

static void teardown(struct sm *sm)
{
	/* The engine first: a SIGTERM mid-sweep or mid-MFT pass leaves SMPs
	 * outstanding, and their callbacks (run with -ECANCELED) need the
	 * discovery, sweep and transfers they belong to.  M_Keys after it:
	 * its last SMP (the receiver's wake-up) carries our port's key. */
	sm->stopping = true;
	metrics_stop(sm); /* no scrape reads the parts stopped below */
	if (sm->txn) {
		txn_destroy(sm->txn);
		sm->txn = NULL;
	}
	perf_fini(sm); /* its MADs were cancelled with the engine */
	sweep_destroy(sm);
	mkey_stop(sm);
	pkeyprog_fini(sm);
	dumps_free(sm); /* --once: the dumps are complete at exit */
	mcg_fini(sm);
	topology_fini(sm);
	sa_daemon_fini(sm);
	ctl_close(sm->ctl);
	issm_close(sm);
	elect_fini(sm); /* after the engine: its callbacks use it */
	sm_repl_fini(sm);
	loop_fini(sm);
	if (sm->port)
		mad_port_exit(sm->port); /* the umad port closes at exit */
	pool_destroy(sm->pool);
	if (sm->fab) {
		fabric_free(sm->fab);
		free(sm->fab);
	}
	hops_free(&sm->hops);
	hops_free(&sm->next_hops);
	route_fini(sm);
	guid2lid_free(&sm->g2l);
	config_free(&sm->cfg);
	qos_policy_free(&sm->qos);
}

int main(int argc, char **argv)
{
	static struct sm sm = {.issm_fd = -1};
	struct args a = {0};
	char err[512] = "";
	int rc;

	log_set_ident("ibsmd");
	/* No peer may kill the daemon: a control client or a simulator gone
	 * mid-write is an EPIPE where it is written to, never a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (parse_args(argc, argv, &a) < 0) {
		usage(stderr);
		return 2;
	}
	rc = config_build(&sm.cfg, a.config, a.overrides, a.n_overrides, err,
			  sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ibsmd: %s\n", err[0] ? err : strerror(-rc));
		return 2;
	}
	if (a.check_config) {
		config_print(&sm.cfg, stdout);
		config_free(&sm.cfg);
		return 0;
	}
	rc = qos_policy_from_config(&sm.qos, &sm.cfg, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ibsmd: %s\n", err[0] ? err : strerror(-rc));
		config_free(&sm.cfg);
		return rc == -ENOMEM ? 1 : 2;
	}
	log_set_level((enum log_level)sm.cfg.log_level);
	sm.once = a.once;
	sm.config_path = a.config;
	sm.overrides = a.overrides;
	sm.n_overrides = a.n_overrides;
	rc = setup(&sm);
	if (rc == -EADDRINUSE)
		another_sm_error(&sm);
	if (rc == 0) {
		sm_change_state(&sm, SM_STATE_DISCOVERING, "starting");
		sweep_request(&sm, true, "start");
		rc = sd_event_loop(sm.ev);
		rc = rc < 0 ? 1 : sm.exit_code;
	} else {
		rc = 1;
	}
	teardown(&sm);
	return rc;
}

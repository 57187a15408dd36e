/* The event loop wiring (sd-event): the MAD engine's descriptor, timer
 * and parameters, signals (SIGTERM/SIGINT stop, SIGHUP reloads and
 * re-sweeps), the service watchdog and the periodic sweep timer.  Signals
 * only queue work; everything runs on this one thread.  The loop calls
 * nothing above it: a due sweep is published as SM_EV_SWEEP_DUE. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "daemon/core/sm.h"
#include "lib/log.h"

static void rearm_txn_timer(struct sm *sm)
{
	int64_t t = txn_next_deadline_us(sm->txn);

	if (t < 0) {
		sd_event_source_set_enabled(sm->txn_timer, SD_EVENT_OFF);
		return;
	}
	sd_event_source_set_time(sm->txn_timer, (uint64_t)t);
	sd_event_source_set_enabled(sm->txn_timer, SD_EVENT_ONESHOT);
}

void loop_txn_kick(struct sm *sm)
{
	if (sm->txn_timer)
		rearm_txn_timer(sm);
}

static int on_txn_io(sd_event_source *s, int fd, uint32_t rev, void *ud)
{
	struct sm *sm = ud;

	txn_on_readable(sm->txn);
	rearm_txn_timer(sm);
	return 0;
}

static int on_txn_timer(sd_event_source *s, uint64_t usec, void *ud)
{
	struct sm *sm = ud;

	txn_on_timer(sm->txn, txn_now_us());
	rearm_txn_timer(sm);
	return 0;
}

/* After any dispatch: submits made in other callbacks (control socket,
 * sweep timer) may have moved the engine's next deadline. */
static int on_post(sd_event_source *s, void *ud)
{
	rearm_txn_timer(ud);
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si,
		     void *ud)
{
	struct sm *sm = ud;

	if (si->ssi_signo == SIGHUP) {
		sm_reload_request(sm);
		return 0;
	}
	log_notice("signal %u: stopping", si->ssi_signo);
	sm->stopping = true;
	sd_notify(0, "STOPPING=1");
	sm->exit_code = sm->once ? 1 : 0;
	sd_event_exit(sm->ev, sm->exit_code);
	return 0;
}

static int on_sweep_timer(sd_event_source *s, uint64_t usec, void *ud)
{
	struct sm *sm = ud;

	bool heavy = !sm->subnet_up || sm->heavy_pending;

	if (sm->sm_state == SM_STATE_STANDBY ||
	    sm->sm_state == SM_STATE_NOT_ACTIVE)
		return 0; /* the master sweeps; a standby polls it */
	sm->heavy_pending = false;
	sm_publish(sm, SM_EV_SWEEP_DUE,
		   &(struct sm_event_arg){.heavy = heavy,
					  .why = "periodic sweep"});
	return 0;
}

void loop_schedule_sweep(struct sm *sm, unsigned delay_ms)
{
	uint64_t now;

	if (!delay_ms || !sm->sweep_timer)
		return;
	sd_event_now(sm->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(sm->sweep_timer,
				 now + (uint64_t)delay_ms * 1000);
	sd_event_source_set_enabled(sm->sweep_timer, SD_EVENT_ONESHOT);
}

void sm_txn_params_from_cfg(struct sm *sm)
{
	txn_params_default(&sm->txnp);
	sm->txnp.window = sm->cfg.mad_window;
	sm->txnp.node_window = sm->cfg.mad_window_per_node;
	sm->txnp.timeout_ms = sm->cfg.mad_timeout_ms;
	sm->txnp.retries = sm->cfg.mad_retries;
	sm->txnp.send_window =
	    sm->cfg.mad_window + sm->cfg.mad_answer_window;
	/* Every attribute the daemon itself sends is implemented by every
	 * node, so an immediate umad 110 is a drop (ibsim's Error command
	 * answers drops that way), not an unsupported attribute: retry it.
	 * Callers probing optional attributes pass retries = 0. */
	sm->txnp.retry_fast_timeouts = true;
}

/* SIGHUP: MAD windows, timeouts and retries apply from the next SMP. */
static void on_config(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	sm_txn_params_from_cfg(sm);
	txn_set_params(sm->txn, &sm->txnp);
}

static pthread_t loop_thread;

/* Threads we did not create (libumad2sim starts its receiver before
 * main) may have the signals unblocked; one delivered there is sent on to
 * the loop thread, where it is blocked and read by the signalfd. */
static void forward_signal(int signo)
{
	if (!pthread_equal(pthread_self(), loop_thread))
		pthread_kill(loop_thread, signo);
}

static int add_signals(struct sm *sm)
{
	struct sigaction sa = {.sa_handler = forward_signal};
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	sigset_t ss;
	int rc = 0;

	sigemptyset(&ss);
	for (unsigned i = 0; i < 3; i++)
		sigaddset(&ss, sigs[i]);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	loop_thread = pthread_self();
	sigfillset(&sa.sa_mask);
	for (unsigned i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, NULL);
	for (unsigned i = 0; i < 3 && rc >= 0; i++)
		rc = sd_event_add_signal(sm->ev, NULL, sigs[i], on_signal, sm);
	return rc;
}

int loop_init(struct sm *sm)
{
	int rc = sd_event_default(&sm->ev);

	if (rc < 0)
		return rc;
	rc = sd_event_add_io(sm->ev, &sm->txn_io, txn_fd(sm->txn), EPOLLIN,
			     on_txn_io, sm);
	if (rc >= 0)
		rc = sd_event_add_time(sm->ev, &sm->txn_timer, CLOCK_MONOTONIC,
				       UINT64_MAX, 1, on_txn_timer, sm);
	if (rc >= 0)
		rc = sd_event_add_post(sm->ev, &sm->txn_post, on_post, sm);
	if (rc >= 0)
		rc =
		    sd_event_add_time(sm->ev, &sm->sweep_timer, CLOCK_MONOTONIC,
				      UINT64_MAX, 1000, on_sweep_timer, sm);
	if (rc >= 0)
		rc = add_signals(sm);
	if (rc >= 0)
		rc = sd_event_set_watchdog(sm->ev, true);
	if (rc >= 0)
		rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_config, NULL);
	if (rc < 0)
		log_err("event loop setup failed: %s", strerror(-rc));
	return rc < 0 ? rc : 0;
}

void loop_fini(struct sm *sm)
{
	sm_unsubscribe(sm, on_config, NULL);
	sm->txn_io = sd_event_source_unref(sm->txn_io);
	sm->txn_timer = sd_event_source_unref(sm->txn_timer);
	sm->txn_post = sd_event_source_unref(sm->txn_post);
	sm->sweep_timer = sd_event_source_unref(sm->sweep_timer);
	sm->ev = sd_event_unref(sm->ev);
}

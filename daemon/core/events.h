/* The few events through which the loop and the sweep reach the parts
 * that hang off struct sm (the SA, the multicast manager, the SM role),
 * as BIRD's core reaches its protocols only through hooks: a part
 * subscribes once at its start, the publisher calls every subscriber in
 * subscription order, on the loop thread, and knows none of them.
 * docs/design.md §8 lists who publishes and who subscribes. */
#ifndef IBSMD_EVENTS_H
#define IBSMD_EVENTS_H

#include <stdbool.h>

struct sm;
struct fabric;

enum sm_event {
	SM_EV_SWEEP_DUE,       /* loop: periodic timer or SIGHUP */
	SM_EV_SWEEP_DONE,      /* sweep: a sweep ended (heavy, rc) */
	SM_EV_FABRIC_REPLACED, /* sweep: sm->fab and sm->hops are a new model */
	SM_EV_CONFIG_RELOADED, /* reload: sm->cfg was replaced whole */
	SM_EVENTS
};

struct sm_event_arg {
	bool heavy;	 /* SWEEP_DUE, SWEEP_DONE; CONFIG_RELOADED: a heavy
			    sweep follows */
	int rc;		 /* SWEEP_DONE: 0 or -errno */
	const char *why; /* SWEEP_DUE */
	/* FABRIC_REPLACED: the model sm->fab replaced (NULL at the first),
	 * freed when the event returns: what was routed on it can still be
	 * read by switch GUID */
	const struct fabric *old;
};

typedef void (*sm_event_fn)(struct sm *sm, enum sm_event ev,
			    const struct sm_event_arg *a, void *ctx);

#define SM_MAX_SUBS 32

struct sm_sub {
	enum sm_event ev;
	sm_event_fn fn;
	void *ctx;
};

struct sm_subs {
	struct sm_sub v[SM_MAX_SUBS];
	unsigned n;
};

/* 0, or -ENOSPC when the table is full (a programming error, logged). */
int sm_subscribe(struct sm *sm, enum sm_event ev, sm_event_fn fn, void *ctx);
/* Removes every subscription of (fn, ctx). */
void sm_unsubscribe(struct sm *sm, sm_event_fn fn, void *ctx);
void sm_publish(struct sm *sm, enum sm_event ev, const struct sm_event_arg *a);

#endif

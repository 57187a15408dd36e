/* The event table of struct sm (see events.h): a fixed array, so that
 * subscribing never fails at run time and the order is the order of
 * subscription (the SA before the multicast manager, which reads the
 * SA's fabric). */
#include "daemon/core/events.h"

#include <errno.h>

#include "daemon/core/sm.h"
#include "lib/log.h"

static const char *const ev_names[SM_EVENTS] = {
    [SM_EV_SWEEP_DUE] = "sweep due",
    [SM_EV_SWEEP_DONE] = "sweep done",
    [SM_EV_FABRIC_REPLACED] = "fabric replaced",
    [SM_EV_CONFIG_RELOADED] = "config reloaded",
};

static const char *sm_event_name(enum sm_event ev)
{
	return ev < SM_EVENTS ? ev_names[ev] : "?";
}

int sm_subscribe(struct sm *sm, enum sm_event ev, sm_event_fn fn, void *ctx)
{
	struct sm_subs *s = &sm->subs;

	if (s->n == SM_MAX_SUBS) {
		log_err("events: no room to subscribe to \"%s\" (%u "
			"subscriptions); raise SM_MAX_SUBS",
			sm_event_name(ev), s->n);
		return -ENOSPC;
	}
	s->v[s->n++] = (struct sm_sub){.ev = ev, .fn = fn, .ctx = ctx};
	return 0;
}

void sm_unsubscribe(struct sm *sm, sm_event_fn fn, void *ctx)
{
	struct sm_subs *s = &sm->subs;
	unsigned j = 0;

	for (unsigned i = 0; i < s->n; i++)
		if (s->v[i].fn != fn || s->v[i].ctx != ctx)
			s->v[j++] = s->v[i];
	s->n = j;
}

void sm_publish(struct sm *sm, enum sm_event ev, const struct sm_event_arg *a)
{
	static const struct sm_event_arg none;
	struct sm_subs *s = &sm->subs;

	log_debug("event: %s", sm_event_name(ev));
	/* subscribers never change the table while it is published */
	for (unsigned i = 0; i < s->n; i++)
		if (s->v[i].ev == ev)
			s->v[i].fn(sm, ev, a ? a : &none, s->v[i].ctx);
}

/* The light sweep: one SwitchInfo Get per known switch.  A switch sets
 * PortStateChange when any of its ports changes state (a link went down
 * or came up), so this is enough to notice every link change between
 * switches and at the hosts' switch ports; a switch that does not answer
 * is a change too.  Either verdict makes the sweep heavy. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sweep/sweep_priv.h"
#include "lib/log.h"
#include "mad/smp_switch.h"

struct light_req {
	struct sweep *s;
	uint64_t guid;
	char desc[IB_DESC_LEN + 1];
};

static void light_cb(void *ctx, int status, const struct txn_result *r)
{
	struct light_req *q = ctx;
	struct sweep *s = q->s;
	struct smp_switch_info si;

	if (status < 0 || !r->data) {
		incr_note_silent(s, q->guid);
		if (!s->changed)
			log_notice("light sweep: switch %s (0x%016" PRIx64 ") "
				   "does not answer (%s); rediscovering",
				   q->desc, q->guid, strerror(-status));
		s->changed = true;
	} else if (smp_switch_info_decode(&si, r->data, SMP_DATA_SIZE) == 0 &&
		   si.port_state_change) {
		if (!s->changed)
			log_notice("light sweep: switch %s (0x%016" PRIx64 ") "
				   "reports a port state change",
				   q->desc, q->guid);
		s->changed = true;
		incr_note_psc(s, q->guid, r->data);
	}
	free(q);
	sweep_release(s);
}

int light_start(struct sweep *s)
{
	struct fabric *f = s->sm->fab;

	if (!f)
		return -ENOENT;
	for (uint32_t i = 0; i < f->n_switches; i++) {
		struct ib_node *sw = f->switches[i];
		struct light_req *q = calloc(1, sizeof(*q));
		/* One retry, not the engine's three: a switch silent twice is
		 * a change either way (its route or itself), and after a
		 * link failure every switch routed through it is silent, each
		 * try costing a full timeout on real hardware. */
		struct txn_smp_req req = {.dr = true,
					  .path = sw->dr_path,
					  .hops = sw->dr_hops,
					  .method = MAD_METHOD_GET,
					  .attr_id = SMP_ATTR_SWITCH_INFO,
					  .retries = 1};
		int rc;

		if (!q)
			return -ENOMEM;
		q->s = s;
		q->guid = sw->guid;
		snprintf(q->desc, sizeof(q->desc), "%s", sw->desc);
		rc = txn_submit(s->sm->txn, &req, light_cb, q);
		if (rc < 0) {
			free(q);
			return rc;
		}
		sweep_hold(s);
		s->sm->smps.light_gets++;
	}
	return 0;
}

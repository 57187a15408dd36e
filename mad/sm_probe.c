/* sm_probe.h says why and when. */
#include <errno.h>
#include <string.h>

#include "mad/sm_probe.h"

/* About a second in all when nobody answers. */
#define PROBE_TIMEOUT_MS 300
#define PROBE_RETRIES	 2

struct probe {
	int status;
	struct smp_sm_info si;
};

static void on_answer(void *ctx, int status, const struct txn_result *r)
{
	struct probe *p = ctx;

	p->status = status;
	if (status == 0 &&
	    (!r->data || smp_sm_info_decode(&p->si, r->data, SMP_DATA_SIZE)))
		p->status = -EBADMSG;
}

int sm_probe_own_port(struct txn_engine *eng, struct smp_sm_info *si)
{
	struct probe p = {.status = -EINPROGRESS};
	struct txn_smp_req req = {.dr = true,
				  .hops = 0,
				  .method = MAD_METHOD_GET,
				  .attr_id = SMP_ATTR_SM_INFO,
				  .retries = PROBE_RETRIES,
				  .timeout_ms = PROBE_TIMEOUT_MS};
	int rc = txn_submit(eng, &req, on_answer, &p);

	if (rc < 0)
		return rc;
	/* No time limit: every transaction completes after its last try,
	 * and p must outlive its callback. */
	rc = txn_run(eng, -1);
	if (rc < 0)
		return rc;
	/* No answer, or an error status instead of SMInfo: no SM there. */
	if (p.status == -ETIMEDOUT || p.status == -EREMOTEIO)
		return 0;
	if (p.status != 0)
		return p.status;
	memcpy(si, &p.si, sizeof(*si));
	return 1;
}

/* The control socket's `health`, `health clear` and `counters` commands
 * (man/ibsmctl.8): one line per link or port, "key=value" words, the
 * descriptions quoted. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/ctl/ctl.h"
#include "daemon/perf/perf_priv.h"

static void put_time(FILE *out, const char *key, time_t t)
{
	struct tm tm;
	char buf[32];

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(out, " %s=%s", key, buf);
}

static int print_link(void *ctx, const struct health_link_view *v)
{
	FILE *out = ctx;

	fprintf(out,
		"link node_guid=0x%016" PRIx64 " port=%u node_desc=\"%s\" "
		"remote_guid=0x%016" PRIx64 " remote_port=%u "
		"remote_desc=\"%s\" tripped=%s value=%" PRIu64,
		v->guid[0], v->port[0], v->desc[0], v->guid[1], v->port[1],
		v->desc[1], v->tripped, v->value);
	put_time(out, "since", v->since);
	put_time(out, "last_bad", v->last_bad);
	fprintf(out, " action=%s\n", health_action_name(v->action));
	return 0;
}

static int cmd_health(void *arg, const char *args, FILE *out, char *err,
		      size_t errlen)
{
	struct perf *pf = arg;

	if (args && *args) {
		snprintf(err, errlen,
			 "usage: health | health clear [GUID PORT]");
		return -EINVAL;
	}
	fprintf(out, "unhealthy %u\n", health_count(pf));
	return health_foreach_link(pf->sm, print_link, out);
}

static int cmd_clear(void *arg, const char *args, FILE *out, char *err,
		     size_t errlen)
{
	struct perf *pf = arg;
	unsigned long long guid;
	unsigned port;
	char extra;
	int rc;

	if (!args || !*args)
		return health_clear(pf, 0, 0, true);
	if (sscanf(args, "%llx %u %c", &guid, &port, &extra) != 2 ||
	    port > 254) {
		snprintf(err, errlen, "usage: health clear [GUID PORT]");
		return -EINVAL;
	}
	rc = health_clear(pf, guid, (uint8_t)port, false);
	if (rc == -ENOENT)
		snprintf(err, errlen, "no unhealthy link at 0x%016llx port %u",
			 guid, port);
	return rc;
}

struct counters_ctx {
	FILE *out;
	uint64_t guid; /* 0: every node */
	int port;      /* < 0: every port */
};

static int print_port(void *ctx, const struct perf_port_view *v)
{
	struct counters_ctx *c = ctx;

	if ((c->guid && v->node_guid != c->guid) ||
	    (c->port >= 0 && v->port != c->port))
		return 0;
	fprintf(c->out,
		"port node_guid=0x%016" PRIx64 " port=%u node_desc=\"%s\" "
		"remote_guid=0x%016" PRIx64 " remote_port=%u "
		"remote_desc=\"%s\" held=%d interval_s=%.1f",
		v->node_guid, v->port, v->node_desc, v->remote_guid,
		v->remote_port, v->remote_desc, v->held, v->interval_s);
	for (unsigned i = 0; i < PERF_COUNTERS; i++)
		if (v->valid & (1u << i))
			fprintf(c->out, " %s=%" PRIu64, perf_counters[i].name,
				v->total[i]);
	fputc('\n', c->out);
	return 0;
}

static int cmd_counters(void *arg, const char *args, FILE *out, char *err,
			size_t errlen)
{
	struct perf *pf = arg;
	struct counters_ctx c = {out, 0, -1};
	unsigned long long guid;
	unsigned port;
	int n = args && *args ? sscanf(args, "%llx %u", &guid, &port) : 0;

	if (n < 0 || (args && *args && n == 0) || (n == 2 && port > 254)) {
		snprintf(err, errlen, "usage: counters [GUID [PORT]]");
		return -EINVAL;
	}
	if (n >= 1)
		c.guid = guid;
	if (n == 2)
		c.port = (int)port;
	return perf_foreach_port(pf->sm, print_port, &c);
}

int perf_ctl_register(struct perf *pf)
{
	struct ctl *c = pf->sm->ctl;
	int rc = ctl_register(c, "health", cmd_health, pf,
			      "unhealthy links: both ends, what tripped, "
			      "since when, the action");
	if (rc == 0)
		rc = ctl_register(c, "health clear", cmd_clear, pf,
				  "[GUID PORT]: end the episode of one link "
				  "(or all): routed or enabled again");
	if (rc == 0)
		rc = ctl_register(c, "counters", cmd_counters, pf,
				  "[GUID [PORT]]: the ports' 64-bit counter "
				  "totals (perfmgr)");
	if (rc == 0)
		rc = ctl_restrict(c, "health clear");
	return rc;
}

/* libFuzzer target for the configuration parser: every input is a YAML
 * document loaded over the defaults (config_load_string) and, when it
 * loads, checked whole (config_validate, the qos.* cross-checks among
 * them), printed canonically and parsed again, which must give an equal
 * configuration.  An error must name its place ("t.yaml:N: " or
 * "configuration: "). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config.h"
#include "lib/log.h"
#include "lib/qos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void reparse(const struct config *c)
{
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct config d;
	struct qos_policy p;

	if (!m)
		return;
	config_print(c, m);
	fclose(m);
	if (config_defaults(&d) < 0) {
		free(text);
		return;
	}
	if (config_load_string(&d, text, "printed", err, sizeof(err)) ||
	    !config_equal(c, &d))
		__builtin_trap(); /* the canonical form must read back */
	if (qos_policy_from_config(&p, c, err, sizeof(err)) == -EINVAL)
		__builtin_trap(); /* a checked config always has a policy */
	qos_policy_free(&p);
	config_free(&d);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *yaml = malloc(size + 1), err[512];
	struct config c;
	int r;

	log_set_level(LOG_LVL_ERR);
	if (!yaml || config_defaults(&c) < 0) {
		free(yaml);
		return 0;
	}
	memcpy(yaml, data, size);
	yaml[size] = '\0';
	r = config_load_string(&c, yaml, "t.yaml", err, sizeof(err));
	if (r == -EINVAL && strncmp(err, "t.yaml:", 7))
		__builtin_trap();
	if (r == 0) {
		r = config_validate(&c, err, sizeof(err));
		if (r == -EINVAL && strncmp(err, "configuration: ", 15))
			__builtin_trap();
		if (r == 0)
			reparse(&c);
	}
	config_free(&c);
	free(yaml);
	return 0;
}

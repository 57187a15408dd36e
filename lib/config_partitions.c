/* The partitions key's item schema: one partition's keys (name, pkey,
 * ipoib, mtu, rate, sl, members, limited) and the checks between
 * partitions (a P_Key or a name given twice, a member listed twice, a GUID
 * that is not one).  Member names are NodeDescriptions, port GUIDs or the
 * words all, hosts and switches; which ports they are is decided on the
 * fabric (lib/pkeys.c), where a name may be absent today and present
 * tomorrow, so an unknown NodeDescription is not a configuration error. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/config_priv.h"

/* IBA MTU codes (PortInfo MTUCap, MCMemberRecord MTU), named in bytes. */
static const struct cfg_enum mtu_names[] = {
    {"auto", CFG_AUTO}, {"256", 1},  {"512", 2}, {"1024", 3},
    {"2048", 4},	{"4096", 5}, {0}};

/* Service levels; auto leaves the SL to qos.default_sl. */
static const struct cfg_enum sl_names[] = {{"auto", CFG_SL_AUTO},
					   {"0", 0},
					   {"1", 1},
					   {"2", 2},
					   {"3", 3},
					   {"4", 4},
					   {"5", 5},
					   {"6", 6},
					   {"7", 7},
					   {"8", 8},
					   {"9", 9},
					   {"10", 10},
					   {"11", 11},
					   {"12", 12},
					   {"13", 13},
					   {"14", 14},
					   {"15", 15},
					   {0}};

/* IBA rate codes (PathRecord/MCMemberRecord Rate), named in Gb/s. */
static const struct cfg_enum rate_names[] = {
    {"auto", CFG_AUTO}, {"2.5g", 2},  {"5g", 5},    {"10g", 3},	  {"14g", 11},
    {"20g", 6},		{"25g", 15},  {"28g", 19},  {"30g", 4},	  {"40g", 7},
    {"50g", 20},	{"56g", 12},  {"60g", 8},   {"80g", 9},	  {"100g", 16},
    {"112g", 13},	{"120g", 10}, {"168g", 14}, {"200g", 17}, {"300g", 18},
    {"400g", 21},	{"600g", 22}, {0}};

#define OFF(f) offsetof(struct cfg_partition, f)

/* def NULL: the key must be given. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct cfg_key part_keys[] = {
    {"name", CFG_STRING, OFF(name), NULL, 0, 64, NULL,
     "The partition's name, for logs and ibsmctl."},
    {"pkey", CFG_U32, OFF(pkey), NULL, 1, 0x7fff, NULL,
     "Its P_Key, 0x0001..0x7fff, without the membership bit (ibsmd sets "
     "bit 15 for full members). 0x7fff is the default partition.",
     NULL, CFG_F_HEX},
    {"ipoib", CFG_ENUM, OFF(ipoib), "false", 0, 0, cfg_bool_names,
     "Create the partition's IPoIB broadcast group "
     "(ff12:401b:PPPP::ffff:ffff, P the P_Key with bit 15 set) so that "
     "IPoIB interfaces on it come up."},
    {"mtu", CFG_ENUM, OFF(mtu), "auto", 0, 0, mtu_names,
     "MTU of the IPoIB group in bytes: 256, 512, 1024, 2048 or 4096; "
     "auto: the smallest MTU of the fabric's linked CA ports."},
    {"rate", CFG_ENUM, OFF(rate), "auto", 0, 0, rate_names,
     "Rate of the IPoIB group, e.g. 10g, 40g, 100g; auto: the smallest "
     "rate of the fabric's linked CA ports."},
    {"sl", CFG_ENUM, OFF(sl), "auto", 0, 0, sl_names,
     "Service level, 0..15, of the partition's paths (PathRecord and "
     "MultiPathRecord answers with its P_Key) and of its IPoIB group, "
     "unless a qos.classes rule matching the request gives another (as "
     "OpenSM's partition sl); auto: qos.default_sl. Used only with "
     "qos.enable: true, as OpenSM uses it only with QoS on (without "
     "SL2VL tables an SL may map to a VL the ports do not run); "
     "otherwise as auto."},
    {"members", CFG_LIST, OFF(members), "", 0, 64, NULL,
     "Full members: all (every end port: CA ports and switch port 0), "
     "hosts (CA and router ports), switches (switch port 0), "
     "NodeDescriptions (every port of that node), port GUIDs or node "
     "GUIDs (every port of that node). One value or a list.",
     NULL, CFG_F_ONE},
    {"limited", CFG_LIST, OFF(limited), "", 0, 64, NULL,
     "Limited members, written as members are. A limited member talks "
     "to the partition's full members only.",
     NULL, CFG_F_ONE},
};
#pragma GCC diagnostic pop

#define N_PART_KEYS (sizeof(part_keys) / sizeof(*part_keys))

static const struct cfg_partition *part(const void *items, uint32_t i)
{
	return (const struct cfg_partition *)items + i;
}

/* A member written 0x... must be a whole port GUID. */
static int check_member(const char *list, const char *m, char *msg, size_t len)
{
	size_t n;

	if (m[0] != '0' || (m[1] != 'x' && m[1] != 'X'))
		return 0;
	n = strspn(m + 2, "0123456789abcdefABCDEF");
	if (n && n <= 16 && !m[2 + n])
		return 0;
	snprintf(msg, len,
		 "%s: \"%s\" is not a port GUID (0x and up to 16 "
		 "hexadecimal digits)",
		 list, m);
	return -EINVAL;
}

/* Each member once in a partition, across both lists. */
static int check_lists(const struct cfg_partition *p, char *msg, size_t len)
{
	const struct cfg_strlist *l[2] = {&p->members, &p->limited};
	const char *name[2] = {"members", "limited"};

	for (int a = 0; a < 2; a++)
		for (uint32_t i = 0; i < l[a]->n; i++) {
			if (check_member(name[a], l[a]->v[i], msg, len))
				return -EINVAL;
			for (int b = 0; b <= a; b++)
				for (uint32_t j = 0; j < (b == a ? i : l[b]->n);
				     j++)
					if (!strcmp(l[a]->v[i], l[b]->v[j])) {
						snprintf(
						    msg, len,
						    "%s: \"%s\" is already "
						    "listed in %s",
						    name[a], l[a]->v[i],
						    name[b]);
						return -EINVAL;
					}
		}
	return 0;
}

static int check_partitions(const void *items, uint32_t n, uint32_t *bad,
			    char *msg, size_t len)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct cfg_partition *p = part(items, i);

		*bad = i;
		for (uint32_t j = 0; j < i; j++) {
			const struct cfg_partition *q = part(items, j);
			if (q->pkey == p->pkey) {
				snprintf(msg, len,
					 "pkey 0x%04x is also "
					 "partitions[%u]'s (%s)",
					 p->pkey, j, q->name);
				return -EINVAL;
			}
			if (!strcmp(q->name, p->name)) {
				snprintf(msg, len,
					 "name \"%s\" is also "
					 "partitions[%u]'s",
					 p->name, j);
				return -EINVAL;
			}
		}
		if (!p->name[0]) {
			snprintf(msg, len, "name: empty");
			return -EINVAL;
		}
		if (check_lists(p, msg, len))
			return -EINVAL;
	}
	return 0;
}

const struct cfg_item cfg_partition_item = {
    .size = sizeof(struct cfg_partition),
    .keys = part_keys,
    .n_keys = N_PART_KEYS,
    .check = check_partitions,
};

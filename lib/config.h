/* ibsmd configuration: one schema table (config.c) gives every key its
 * type, default, validation, documentation and place in struct config.
 * The YAML file (nested mappings give dotted keys) and -o KEY=VALUE
 * overrides share that key space and its validation.  A configuration is
 * built whole into a fresh struct (config_build) and the caller commits it
 * by swapping, in the manner of bgpd's reload. */
#ifndef IBSM_CONFIG_H
#define IBSM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cfg_unicast { CFG_UCAST_MINHOP, CFG_UCAST_UPDOWN, CFG_UCAST_FTREE,
		  CFG_UCAST_LAYERED };
enum cfg_updown_dir { CFG_UPDN_BFS, CFG_UPDN_DFS };
enum cfg_mcast_engine { CFG_MC_MR4LMS, CFG_MC_FULB, CFG_MC_MINHOP,
			CFG_MC_SSSP };
enum cfg_mcast_merge { CFG_MERGE_EXTEND, CFG_MERGE_REBUILD };
/* PortGroupInfo Algorithm values (docs/design.md §4.3) */
enum cfg_pg_algorithm { CFG_PG_RANDOM, CFG_PG_LEAST_LOADED,
			CFG_PG_RANDOM_LEAST_LOADED };
/* m_key.mode (docs/design.md §3.10) */
enum cfg_mkey_mode { CFG_MKEY_OFF, CFG_MKEY_FIXED, CFG_MKEY_PER_PORT };
/* sa.proxy_join: who may join or leave for another port */
enum cfg_proxy_join { CFG_PROXY_PARTITION, CFG_PROXY_TRUSTED };

/* health.policy (docs/design.md §3.12) */
enum cfg_health_policy { CFG_HEALTH_REPORT, CFG_HEALTH_ISOLATE,
			 CFG_HEALTH_DISABLE };

struct cfg_strlist {
	char **v;
	uint32_t n;
};

/* A CFG_TABLE value: a list of mappings, each item a struct laid out by
 * the key's item schema (struct cfg_item). */
struct cfg_table {
	void *v; /* n items of cfg_item.size bytes */
	uint32_t n;
};

/* PathRecord/MCMemberRecord MTU and rate codes a partition may give; 0 is
 * "auto": the smallest of the fabric's linked CA ports. */
#define CFG_AUTO 0
#define CFG_SL_AUTO 16 /* partitions[].sl: auto */

/* One item of the partitions key (docs/design.md §1.2). */
struct cfg_partition {
	char *name;
	uint32_t pkey;	/* 0x0001..0x7fff, without the membership bit */
	int ipoib;	/* 0 or 1: the partition's IPoIB broadcast group */
	int mtu;	/* CFG_AUTO or IBA MTU code 1..5 */
	int rate;	/* CFG_AUTO or IBA rate code */
	int sl;		/* 0..15, or CFG_SL_AUTO: qos.default_sl */
	struct cfg_strlist members; /* full members */
	struct cfg_strlist limited; /* limited members */
};

/* Field names follow the keys (dots become underscores). */
struct config {
	uint64_t port_guid;	/* 0 = unset */
	char *port_ca;		/* "" = any CA */
	uint32_t port_num;	/* 0 = first active port */

	int routing_unicast;	/* enum cfg_unicast */
	struct cfg_strlist routing_updown_roots; /* GUIDs or node names */
	int routing_updown_direction; /* enum cfg_updown_dir */
	uint32_t routing_layered_max_vls; /* 0 = every port's VLCap */
	uint32_t routing_threads; /* 0 = one per CPU */
	int routing_port_groups_enable;	     /* 0 or 1 */
	uint32_t routing_port_groups_cap;    /* 0 = the switch's cap */
	int routing_port_groups_algorithm;   /* enum cfg_pg_algorithm */
	uint32_t routing_port_groups_threshold;

	int multicast_engine;	/* enum cfg_mcast_engine */
	uint32_t multicast_mft_size; /* 0 = smallest MulticastFDBCap */
	int multicast_merge;	/* enum cfg_mcast_merge */
	uint32_t multicast_switch_threshold;
	uint32_t multicast_join_timeout_ms;
	uint32_t multicast_leave_timeout_ms;
	uint32_t multicast_join_rate;
	uint32_t multicast_join_burst;

	uint32_t sm_priority;
	uint32_t sm_sweep_interval_ms; /* 0 = no periodic sweep */
	uint32_t sm_lmc;
	uint32_t sm_poll_interval_ms;
	uint32_t sm_poll_retries;
	uint64_t sm_sm_key;		  /* 0 = none */
	uint32_t sm_elevated_priority; /* 0 = off */
	uint32_t sm_trap_interval_ms;
	uint32_t sm_trap_limit;
	int sm_incremental; /* 0 or 1 */

	int m_key_mode;		/* enum cfg_mkey_mode */
	uint64_t m_key_key;	/* fixed mode's key, 0 = unset */
	uint32_t m_key_protect; /* M_KeyProtectBits 0..3 */
	uint32_t m_key_lease_s; /* M_KeyLeasePeriod, 0 = never expires */

	uint32_t mad_window;
	uint32_t mad_window_per_node;
	uint32_t mad_timeout_ms;
	uint32_t mad_retries;
	uint32_t mad_answer_window;

	uint32_t sa_service_lease_max_s; /* 0 = no limit */
	int sa_proxy_join;		 /* enum cfg_proxy_join */

	int qos_enable;			   /* 0 or 1 */
	int qos_max_vls;		   /* 1, 2, 4, 8 or 15 */
	uint32_t qos_high_limit;	   /* PortInfo VLHighLimit */
	struct cfg_strlist qos_sl2vl;	   /* 16 VLs, SL0 first */
	struct cfg_strlist qos_vlarb_high; /* "VL:WEIGHT" */
	struct cfg_strlist qos_vlarb_low;
	uint32_t qos_default_sl;
	struct cfg_strlist qos_classes; /* lib/qos.h struct qos_class */

	int perfmgr_enable;	     /* 0 or 1 */
	uint32_t perfmgr_interval_ms;
	/* errors per perfmgr interval that make a link unhealthy, 0: none */
	uint32_t health_thresholds_symbol_errors;
	uint32_t health_thresholds_link_error_recovery;
	uint32_t health_thresholds_link_downed;
	uint32_t health_thresholds_rcv_errors;
	uint32_t health_thresholds_local_link_integrity;
	uint32_t health_thresholds_excessive_buffer_overrun;
	uint32_t health_thresholds_xmit_discards;
	uint32_t health_flap_limit; /* 0 = flaps not counted */
	uint32_t health_flap_window_s;
	int health_policy; /* enum cfg_health_policy */
	uint32_t health_recover_s; /* 0 = only ibsmctl health clear */

	char *state_dir;
	struct cfg_strlist dumps; /* names from config_dump_names */
	char *control_socket;
	uint32_t control_max_connections;
	uint32_t control_idle_timeout_ms;
	uint32_t control_max_output;
	char *metrics_listen;	 /* "" = no Prometheus endpoint */
	char *topology_expected; /* "" = no comparison */
	int topology_enforce;	 /* 0 or 1 */
	int log_level;		/* enum log_level (LOG_LVL_*) */

	struct cfg_table partitions; /* of struct cfg_partition */
};

enum cfg_type { CFG_U32, CFG_GUID, CFG_STRING, CFG_PATH, CFG_ENUM,
		CFG_LIST, CFG_TABLE };

/* cfg_key.flags */
#define CFG_F_HEX 1u /* CFG_U32: printed in hexadecimal */
#define CFG_F_ONE 2u /* CFG_LIST: a single value is a one-item list */

struct cfg_enum {
	const char *name;
	int value;
};

struct cfg_key {
	const char *key;	/* dotted path */
	enum cfg_type type;
	size_t off;		/* offsetof(struct config, field) */
	const char *def;	/* default, as text through the same parser */
	uint32_t min, max;	/* CFG_U32 range; CFG_STRING/PATH max length */
	const struct cfg_enum *enums; /* CFG_ENUM, ended by a NULL name */
	const char *doc;	/* one or two sentences for the example
				   config and the man page */
	const struct cfg_item *item; /* CFG_TABLE: the schema of its items */
	unsigned flags;		     /* CFG_F_* */
};

/* The schema of a CFG_TABLE's items: keys whose off is into the item
 * struct, a def of NULL making the key required.  check (may be NULL)
 * judges the items together after each was read (duplicates, say): 0,
 * or -EINVAL with the index of the item at fault in *bad and the reason
 * in msg. */
struct cfg_item {
	size_t size;
	const struct cfg_key *keys;
	size_t n_keys;
	int (*check)(const void *items, uint32_t n, uint32_t *bad, char *msg,
		     size_t len);
};

/* The schema, in printing order (keys of one section are adjacent). */
const struct cfg_key *config_schema(size_t *n);

/* Every key at its default.  0 or -ENOMEM. */
int config_defaults(struct config *c);
void config_free(struct config *c);
/* Deep copy; 0 or -ENOMEM. */
int config_copy(struct config *dst, const struct config *src);
bool config_equal(const struct config *a, const struct config *b);
/* Equal but for the keys listed (NULL-terminated; NULL: none; "sec."
 * lists every key of section sec). */
bool config_equal_except(const struct config *a, const struct config *b,
			 const char *const *keys);

/* Applies a YAML document on top of c.  Errors as "name:line: message";
 * c may be partly changed on error (use config_build for all-or-nothing).
 * 0, -EINVAL (bad config) or -ENOMEM; config_load_file also -errno when
 * the file cannot be read ("path: reason"). */
int config_load_string(struct config *c, const char *yaml, const char *name,
		       char *err, size_t errlen);
int config_load_file(struct config *c, const char *path, char *err,
		     size_t errlen);
/* One key from text, as -o gives it (lists: comma-separated, "" empty;
 * tables: a YAML flow list, e.g. [{name: a, pkey: 0x2, members: all}]).
 * where prefixes error messages. */
int config_set(struct config *c, const char *key, const char *value,
	       const char *where, char *err, size_t errlen);
/* "KEY=VALUE" as given to -o; errors as "-o KEY=VALUE: message". */
int config_override(struct config *c, const char *kv, char *err,
		    size_t errlen);
/* Checks between keys (after everything is applied). */
int config_validate(const struct config *c, char *err, size_t errlen);
/* What ibsmd refuses that the offline tools accept (the layered engine
 * with qos.enable: both would choose the SLs): 0 or -EINVAL. */
int config_check_daemon(const struct config *c, char *err, size_t errlen);

/* Defaults, then the file (path may be NULL), then the overrides in
 * order, then config_validate; *out is written only on success. */
int config_build(struct config *out, const char *path,
		 const char *const *overrides, size_t n_overrides, char *err,
		 size_t errlen);

/* The canonical effective configuration as YAML (--check-config); parsing
 * it again gives an equal config. */
void config_print(const struct config *c, FILE *out);
/* The documented example (conf/ibsmd.yaml): every key with its doc as a
 * comment and its default value. */
void config_write_example(FILE *out);
/* The key reference of man/ibsmd.yaml.5 as roff (.TP entries). */
void config_write_man_keys(FILE *out);

/* Whether the dumps key asks for the dump called name ("subnet",
 * "lfts", "fdbs", "mfts", "mcgroups"). */
bool config_dump_wanted(const struct config *c, const char *name);

/* Name of an enum value of key (for logs and ibsmctl status). */
const char *config_enum_name(const char *key, int value);

#endif

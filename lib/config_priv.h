/* Internal interface between config.c (schema and values), config_yaml.c
 * (the YAML walk) and config_doc.c (printers).  Not for other modules. */
#ifndef IBSM_CONFIG_PRIV_H
#define IBSM_CONFIG_PRIV_H

#include "lib/config.h"

const struct cfg_key *cfg_find(const char *key);
/* True if path is a proper prefix ("routing", "routing.updown") of keys. */
bool cfg_is_section(const char *path);
size_t cfg_index(const struct cfg_key *k);
/* Formats "where: message" into err (where may be NULL); returns -EINVAL. */
int cfg_err(char *err, size_t errlen, const char *where, const char *fmt,
	    ...) __attribute__((format(printf, 4, 5)));
/* Parses and stores one value into base + k->off (base: a struct config,
 * or a table item for the item's keys); lists take comma-separated text,
 * tables a YAML flow list. */
int cfg_set_value(void *base, const struct cfg_key *k, const char *s,
		  const char *where, char *err, size_t errlen);
int cfg_check_item(const struct cfg_key *k, const char *s, const char *where,
		   char *err, size_t errlen);
/* The key's whole-list check (cfg_key.check), if any: 0, or -EINVAL with
 * why ("key: message") and *bad the item at fault (l->n: the list). */
int cfg_check_list(const struct cfg_key *k, const struct cfg_strlist *l,
		   uint32_t *bad, char *why, size_t len);
int cfg_list_push(struct cfg_strlist *l, const char *s);
void cfg_list_free(struct cfg_strlist *l);

/* The same over any key table (the config's, or a table item's). */
int cfg_keys_defaults(void *base, const struct cfg_key *keys, size_t n,
		      char *err, size_t errlen);
void cfg_keys_free(void *base, const struct cfg_key *keys, size_t n);
/* dst gets deep copies of src's values (dst's own are not freed). */
int cfg_keys_copy(void *dst, const void *src, const struct cfg_key *keys,
		  size_t n);
bool cfg_keys_equal(const void *a, const void *b, const struct cfg_key *keys,
		    size_t n);

/* Tables: a new item at the end, zeroed; NULL on ENOMEM. */
void *cfg_table_push(struct cfg_table *t, const struct cfg_item *it);
void *cfg_table_at(const struct cfg_table *t, const struct cfg_item *it,
		   uint32_t i);
void cfg_table_free(struct cfg_table *t, const struct cfg_item *it);
/* config_yaml.c: a table key from YAML text (-o, the default). */
int cfg_table_from_text(void *base, const struct cfg_key *k, const char *s,
			const char *where, char *err, size_t errlen);
/* Runs the item schema's check; errors name the item ("partitions[1]
 * (storage): ...") after where. */
int cfg_table_check(const struct cfg_key *k, const struct cfg_table *t,
		    uint32_t *bad, char *msg, size_t len);
/* "partitions[1] (storage)": the item as messages name it. */
void cfg_item_name(const struct cfg_key *k, const void *item, uint32_t i,
		   char *out, size_t len);

/* true/false, on/off, yes/no */
extern const struct cfg_enum cfg_bool_names[];
/* config_partitions.c: the item schema of the partitions key. */
extern const struct cfg_item cfg_partition_item;

#endif

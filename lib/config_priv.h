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
/* Parses and stores one value (lists: comma-separated text). */
int cfg_set_value(struct config *c, const struct cfg_key *k, const char *s,
		  const char *where, char *err, size_t errlen);
int cfg_check_item(const struct cfg_key *k, const char *s, const char *where,
		   char *err, size_t errlen);
/* The key's whole-list check (cfg_key.check), if any: 0, or -EINVAL with
 * why ("key: message") and *bad the item at fault (l->n: the list). */
int cfg_check_list(const struct cfg_key *k, const struct cfg_strlist *l,
		   uint32_t *bad, char *why, size_t len);
int cfg_list_push(struct cfg_strlist *l, const char *s);
void cfg_list_free(struct cfg_strlist *l);

#endif

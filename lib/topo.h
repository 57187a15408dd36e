/* Topology files: ibnetdiscover output and ibsim's short net-file form
 * (`Switch 8 "S1"`, `[1] "H1"[1]`) into the fabric model, and a canonical
 * listing of a fabric for comparing two sources (ibsmgen dump). */
#ifndef IBSM_TOPO_H
#define IBSM_TOPO_H

#include <stddef.h>
#include <stdio.h>

#include "lib/fabric.h"

/* Loads a topology into f, which must be freshly fabric_init()ed.
 * GUIDs not given by the file are synthesised exactly as ibsim does
 * (switches from 0x200000 up by one, CAs from 0x100000 up by NumPorts + 1,
 * CA port GUID = node GUID + port number), NodeDescription is the text after
 * '#' or else the quoted node id, and f->sm_node is the first node of the
 * file (where ibsim attaches the SM).  Returns 0, or a negative errno with
 * "file:line: message" in err (f is then emptied). */
int topo_load(struct fabric *f, const char *path, char *err, size_t errlen);
/* The same from an open stream; name is used in error messages. */
int topo_load_file(struct fabric *f, FILE *fp, const char *name, char *err,
		   size_t errlen);
/* The same from a string (tests). */
int topo_load_string(struct fabric *f, const char *text, const char *name,
		     char *err, size_t errlen);

/* The node a NodeDescription or a node or port GUID names, or NULL. */
struct ib_node *topo_find_node(struct fabric *f, const char *name_or_guid);

/* Chooses the SM's node by NodeDescription, node or port GUID (hex, with
 * or without 0x) or ibnetdiscover id ("S-0002c9..."/"H-..."); the SM port
 * is 0 on a switch, else the CA port named by a port GUID or port 1.
 * 0 or -ENOENT. */
int topo_set_sm_node(struct fabric *f, const char *name_or_guid);

/* Writes a canonical, sorted listing of nodes, CA port GUIDs and links
 * (see topo.c) so two descriptions of one fabric compare with diff. */
void topo_dump(const struct fabric *f, FILE *out);

#endif

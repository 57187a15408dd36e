/* SMStateChunk layout table (no components: it is only ever read). */
#include "mad/sa_mad.h"
#include "mad/sa_smstate.h"

#define C struct sa_smstate_chunk
static const struct wire_field fields[] = {
    SA_F(C, generation, 0, 32, SA_NO_COMP),
    SA_F(C, length, 32, 32, SA_NO_COMP),
    SA_F(C, data, 64, SA_SMSTATE_CHUNK_BYTES * 8, SA_NO_COMP),
};
#undef C
const struct sa_rec_desc sa_smstate_chunk_desc = {
    .name = "SMStateChunk",
    .attr_id = SA_ATTR_SMSTATE_CHUNK,
    .size = 8 + SA_SMSTATE_CHUNK_BYTES,
    .n_comps = 0,
    .n_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
};

/* The SA's answer cache (sa_answers.c): Get answers by request, emptied
 * whenever what they are built from changes.  Not locked itself: the
 * receiver thread uses it under the SA's read lock, the loop clears it
 * under the write lock (daemon/sa_daemon/sa_daemon.c). */
#ifndef IBSM_SA_ANSWERS_H
#define IBSM_SA_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sa_answers;

/* NULL on ENOMEM (the SA then answers every Get afresh). */
struct sa_answers *sa_answers_new(void);
void sa_answers_free(struct sa_answers *c);
/* Forgets every answer. */
void sa_answers_clear(struct sa_answers *c);
/* The answer to the Get req from LID lid, if cached, into ans with req's
 * TID.  klen: the request's bytes that make the answer (header and record,
 * sa_request_size()); 0 is never cached. */
bool sa_answers_get(struct sa_answers *c, const uint8_t *req, size_t klen,
		    uint16_t lid, uint8_t ans[256]);
/* Keeps ans (a one-MAD answer, 256 bytes) as the answer to req from lid;
 * klen as for sa_answers_get(). */
void sa_answers_put(struct sa_answers *c, const uint8_t *req, size_t klen,
		    uint16_t lid, const uint8_t *ans, size_t alen);

#endif

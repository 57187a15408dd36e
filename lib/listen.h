/* A listening address as configuration keys give it (metrics.listen):
 * "ADDRESS:PORT" with a numeric IPv4 address, or "[ADDRESS]:PORT" with an
 * IPv6 one.  No name is resolved: a daemon's listener must not depend on
 * DNS at start. */
#ifndef IBSM_LISTEN_H
#define IBSM_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

/* 0 with *ss and *len filled, or -EINVAL with the reason in why. */
int listen_addr_parse(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len, char *why, size_t whylen);

#endif

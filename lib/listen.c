/* "ADDRESS:PORT" and "[ADDRESS]:PORT" into a socket address: see
 * listen.h. */
#include "lib/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(char *why, size_t len, const char *msg)
{
	snprintf(why, len, "%s", msg);
	return -EINVAL;
}

/* The port after the last ':' of s; 0 on error. */
static unsigned parse_port(const char *p)
{
	char *end;
	unsigned long v;

	if (!*p || *p < '0' || *p > '9')
		return 0;
	v = strtoul(p, &end, 10);
	return *end || v > 65535 ? 0 : (unsigned)v;
}

int listen_addr_parse(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len, char *why, size_t whylen)
{
	const char *colon = strrchr(s, ':');
	char host[64];
	size_t hl;
	unsigned port;

	memset(ss, 0, sizeof(*ss));
	if (!colon)
		return bad(why, whylen, "not ADDRESS:PORT");
	port = parse_port(colon + 1);
	if (!port)
		return bad(why, whylen, "the port is not a number 1-65535");
	hl = (size_t)(colon - s);
	if (s[0] == '[') {
		if (hl < 3 || s[hl - 1] != ']' || hl - 2 >= sizeof(host))
			return bad(why, whylen,
				   "an IPv6 address is written [ADDRESS]:PORT");
		memcpy(host, s + 1, hl - 2);
		host[hl - 2] = '\0';
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			return bad(why, whylen, "not an IPv6 address");
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return 0;
	}
	if (hl == 0 || hl >= sizeof(host))
		return bad(why, whylen, "the address is missing or too long");
	memcpy(host, s, hl);
	host[hl] = '\0';
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
		return bad(why, whylen,
			   "not a numeric IPv4 address (IPv6: [ADDRESS]:PORT)");
	a4->sin_family = AF_INET;
	a4->sin_port = htons((uint16_t)port);
	*len = sizeof(*a4);
	return 0;
}

/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the peer cache parser: whatever it accepts, formatting gives
 * text that parses to the same peers.
 */
#include "fuzz.h"
#include "peer/peer.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_peer *p, *q;
	struct ft_wbuf b;
	char why[FT_WIRE_TEXT_MAX];
	size_t n, m, i;

	if (ft_peer_cache_parse((const char *)data, size, &p, &n, why,
	    sizeof(why)) != 0) {
		if (errno != EINVAL && errno != ENOMEM)
			abort();
		if (why[0] == '\0')
			abort();
		return 0;
	}
	ft_wbuf_init(&b);
	if (ft_peer_cache_format(&b, p, n) != 0 ||
	    ft_peer_cache_parse((const char *)b.p, b.len, &q, &m, why,
	    sizeof(why)) != 0 || m != n)
		abort();
	for (i = 0; i < n; i++)
		if (strcmp(p[i].addr, q[i].addr) != 0 ||
		    strcmp(p[i].host, q[i].host) != 0 ||
		    p[i].slots != q[i].slots || p[i].jobs != q[i].jobs ||
		    p[i].rtt_us != q[i].rtt_us || p[i].seen != q[i].seen)
			abort();
	free(p);
	free(q);
	ft_wbuf_release(&b);
	return 0;
}

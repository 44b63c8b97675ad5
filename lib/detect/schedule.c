/* SPDX-License-Identifier: ISC */
/*
 * Gossip schedules: who a member sends its heartbeat table to in each
 * round, and how long a heartbeat takes to reach everyone.
 */
#include <string.h>

#include "detect.h"

static const char *const proto_names[] = {
	[FT_GOSSIP_RANDOM] = "random",
	[FT_GOSSIP_RR] = "rr",
	[FT_GOSSIP_BRR] = "brr",
	[FT_GOSSIP_DBRR] = "dbrr",
};

int
ft_gossip_proto_parse(const char *s, enum ft_gossip_proto *p)
{
	size_t i;

	for (i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
		if (strcmp(s, proto_names[i]) == 0) {
			*p = (enum ft_gossip_proto)i;
			return 0;
		}
	errno = EINVAL;
	return -1;
}

const char *
ft_gossip_proto_name(enum ft_gossip_proto p)
{
	return (unsigned)p < sizeof(proto_names) / sizeof(proto_names[0]) ?
	    proto_names[p] : "unknown";
}

uint32_t
ft_gossip_log2(uint32_t n)
{
	uint32_t l = 0;

	while (l < 32 && (1ull << l) < n)
		l++;
	return l;
}

uint32_t
ft_gossip_cycle(enum ft_gossip_proto p, uint32_t n)
{
	if (n < 2)
		return 0;
	switch (p) {
	case FT_GOSSIP_RR:
		return n - 1;
	case FT_GOSSIP_BRR:
		return ft_gossip_log2(n);
	case FT_GOSSIP_DBRR:
		return 2 * ft_gossip_log2(n);
	default:
		return 1;
	}
}

uint64_t
ft_gossip_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint32_t
ft_gossip_dest(enum ft_gossip_proto p, uint32_t n, uint32_t s, uint64_t r,
    uint64_t *rng)
{
	uint32_t l = ft_gossip_log2(n), k, d;

	switch (p) {
	case FT_GOSSIP_RR:
		k = (uint32_t)((r - 1) % (n - 1)) + 1;
		return (s + k) % n;
	case FT_GOSSIP_BRR:
		k = (uint32_t)((r - 1) % l);
		return (uint32_t)((s + (1ull << k)) % n);
	case FT_GOSSIP_DBRR:
		k = (uint32_t)((r - 1) % (2 * l));
		if (k < l)
			return (uint32_t)((s + (1ull << k)) % n);
		d = (uint32_t)((1ull << (k - l)) % n);
		return (s + n - d) % n;
	default:
		/* Uniform over the n - 1 others; the bias of % is < 2^-32. */
		d = (uint32_t)(ft_gossip_rand(rng) % (n - 1));
		return d >= s ? d + 1 : d;
	}
}

uint32_t
ft_gossip_min_rounds(enum ft_gossip_proto p, uint32_t n)
{
	uint64_t k;
	double e;

	if (n < 2)
		return 0;
	switch (p) {
	case FT_GOSSIP_RR:
		/* The least k with k(k+1)/2 >= n: ceil((sqrt(1+8n)-1)/2). */
		for (k = 1; k * (k + 1) / 2 < n; k++)
			continue;
		return (uint32_t)k;
	case FT_GOSSIP_BRR:
		return ft_gossip_log2(n);
	case FT_GOSSIP_DBRR:
		return 2 * ft_gossip_log2(n);
	default:
		/* ceil(ln n), without libm: the least k with e^k >= n. */
		for (k = 0, e = 1; e < n; k++)
			e *= 2.718281828459045;
		return ft_gossip_log2(n) + (uint32_t)k;
	}
}

uint32_t
ft_gossip_cleanup_rounds(enum ft_gossip_proto p, uint32_t n)
{
	uint32_t r = (ft_gossip_min_rounds(p, n) * FT_GOSSIP_SAFETY + 1) / 2;

	return r < 3 ? 3 : r;
}

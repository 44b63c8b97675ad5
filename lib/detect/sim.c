/* SPDX-License-Identifier: ISC */
/*
 * How likely failures are to cut the detector's gossip paths (detect.h
 * defines the criterion).  Deterministic schedules give a circulant graph:
 * member i sends to i + o mod n for each offset o of the cycle.  Trials run
 * 64 at a time, one bit each: alive[i] has bit t set when member i is alive
 * in trial t, and reachability is computed on whole words.
 */
#include <stdlib.h>
#include <string.h>

#include "detect.h"

#define MAXOFFS	64

/* The distinct offsets of one cycle, in (0, n); returns how many. */
static int
cycle_offsets(enum ft_gossip_proto p, uint32_t n, uint32_t *offs)
{
	uint32_t r, cyc = ft_gossip_cycle(p, n), d;
	uint64_t rng = 1;
	int k, m = 0;

	for (r = 1; r <= cyc; r++) {
		d = (ft_gossip_dest(p, n, 0, r, &rng)) % n;
		for (k = 0; k < m && offs[k] != d; k++)
			continue;
		if (k == m && d != 0)
			offs[m++] = d;
	}
	return m;
}

/*
 * Reach from the root of each trial along offs (dir +1) or against them
 * (dir -1), through live members only; returns the trials in which some
 * live member was not reached.
 */
static uint64_t
unreached(const uint64_t *alive, const uint64_t *root, uint64_t *reach,
    uint32_t n, const uint32_t *offs, int noffs, int dir)
{
	uint64_t miss = 0, nv;
	uint32_t i, j;
	int k, changed;

	memcpy(reach, root, n * sizeof(*reach));
	do {
		changed = 0;
		for (i = 0; i < n; i++) {
			if (reach[i] == 0)
				continue;
			for (k = 0; k < noffs; k++) {
				j = dir > 0 ? (i + offs[k]) % n :
				    (i + n - offs[k]) % n;
				nv = reach[j] | (reach[i] & alive[j]);
				if (nv != reach[j]) {
					reach[j] = nv;
					changed = 1;
				}
			}
		}
	} while (changed);
	for (i = 0; i < n; i++)
		miss |= alive[i] & ~reach[i];
	return miss;
}

/* The trials of this block of 64 in which the detector fails. */
static uint64_t
cut64(const uint64_t *alive, uint64_t *root, uint64_t *reach, uint32_t n,
    const uint32_t *offs, int noffs)
{
	uint64_t seen = 0, one = 0, two = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		root[i] = alive[i] & ~seen;
		seen |= alive[i];
		two |= one & alive[i];
		one |= alive[i];
	}
	if (two == 0)
		return 0;
	return two & (unreached(alive, root, reach, n, offs, noffs, 1) |
	    unreached(alive, root, reach, n, offs, noffs, -1));
}

/* A word whose bits are each 1 with probability q / 2^32. */
static uint64_t
bernoulli64(uint64_t q, uint64_t *rng)
{
	uint64_t w = 0;
	int b, lo;

	if (q == 0)
		return 0;
	if (q >= 1ull << 32)
		return ~0ull;
	/* Binary expansion of q, low bit first: OR for a 1, AND for a 0. */
	for (lo = 0; !(q >> lo & 1); lo++)
		continue;
	for (b = lo; b < 32; b++)
		w = (q >> b & 1) ? w | ft_gossip_rand(rng) :
		    w & ft_gossip_rand(rng);
	return w;
}

/* random: one trial, scalar; 1 if the detector fails. */
static int
random_trial(uint32_t n, uint64_t q, uint32_t window, uint64_t *rng,
    uint8_t *alive, uint32_t *adj, uint32_t *stack, uint8_t *mark)
{
	uint32_t i, j, r, sp, root = n, live = 0, reached;
	int dir;

	for (i = 0; i < n; i++) {
		alive[i] = (ft_gossip_rand(rng) >> 32) >= q;
		if (alive[i]) {
			live++;
			if (root == n)
				root = i;
		}
		for (r = 0; r < window; r++)
			adj[(size_t)i * window + r] = ft_gossip_dest(
			    FT_GOSSIP_RANDOM, n, i, r + 1, rng);
	}
	if (live < 2)
		return 0;
	for (dir = 0; dir < 2; dir++) {
		memset(mark, 0, n);
		mark[root] = 1;
		stack[0] = root;
		sp = 1;
		reached = 1;
		while (sp > 0) {
			i = stack[--sp];
			if (dir == 0) {
				for (r = 0; r < window; r++) {
					j = adj[(size_t)i * window + r];
					if (alive[j] && !mark[j]) {
						mark[j] = 1;
						stack[sp++] = j;
						reached++;
					}
				}
				continue;
			}
			/* Against the edges: who sends to i. */
			for (j = 0; j < n; j++) {
				if (!alive[j] || mark[j])
					continue;
				for (r = 0; r < window; r++)
					if (adj[(size_t)j * window + r] == i)
						break;
				if (r < window) {
					mark[j] = 1;
					stack[sp++] = j;
					reached++;
				}
			}
		}
		if (reached < live)
			return 1;
	}
	return 0;
}

static int
sim_random(uint32_t n, uint64_t q, uint64_t trials, uint64_t *rng,
    struct ft_gossip_simres *res)
{
	uint32_t window = ft_gossip_log2(n), *adj, *stack;
	uint8_t *alive, *mark;
	uint64_t t;

	/* One block: adj (n * window), stack (n), then alive and mark. */
	if ((adj = calloc((size_t)n * (window + 1) + (size_t)n / 2 + 1,
	    sizeof(*adj))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	stack = adj + (size_t)n * window;
	alive = (uint8_t *)(stack + n);
	mark = alive + n;
	for (t = 0; t < trials; t++)
		res->failures += (uint64_t)random_trial(n, q, window, rng,
		    alive, adj, stack, mark);
	res->trials += trials;
	free(adj);
	return 0;
}

int
ft_gossip_sim_mc(enum ft_gossip_proto p, uint32_t n, double pfail,
    uint64_t trials, uint64_t *rng, struct ft_gossip_simres *res)
{
	uint32_t offs[MAXOFFS], i;
	uint64_t *alive, *root, *reach, q, b, blocks;
	int noffs;

	if (n < 1 || n > FT_GOSSIP_NMAX || !(pfail >= 0 && pfail <= 1) ||
	    *rng == 0) {
		errno = EINVAL;
		return -1;
	}
	q = (uint64_t)(pfail * 4294967296.0 + 0.5);
	if (n < 2) {
		res->trials += trials;
		return 0;
	}
	if (p == FT_GOSSIP_RANDOM)
		return sim_random(n, q, trials, rng, res);
	if (p == FT_GOSSIP_RR) {
		/* Every member sends to every other once a cycle. */
		res->trials += trials;
		return 0;
	}
	noffs = cycle_offsets(p, n, offs);
	if ((alive = calloc(3 * (size_t)n, sizeof(*alive))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	root = alive + n;
	reach = root + n;
	blocks = (trials + 63) / 64;
	for (b = 0; b < blocks; b++) {
		for (i = 0; i < n; i++)
			alive[i] = ~bernoulli64(q, rng);
		res->failures += (uint64_t)__builtin_popcountll(cut64(alive,
		    root, reach, n, offs, noffs));
	}
	res->trials += blocks * 64;
	free(alive);
	return 0;
}

int
ft_gossip_sim_exact(enum ft_gossip_proto p, uint32_t n, uint64_t first,
    uint64_t last, struct ft_gossip_simres *res)
{
	static const uint64_t low[6] = {
		0xaaaaaaaaaaaaaaaaull, 0xccccccccccccccccull,
		0xf0f0f0f0f0f0f0f0ull, 0xff00ff00ff00ff00ull,
		0xffff0000ffff0000ull, 0xffffffff00000000ull,
	};
	uint32_t offs[MAXOFFS], i;
	uint64_t alive[FT_GOSSIP_EXACT_MAX], root[FT_GOSSIP_EXACT_MAX];
	uint64_t reach[FT_GOSSIP_EXACT_MAX], base, valid, fail, k;
	int noffs, t, f;

	if (n < 1 || n > FT_GOSSIP_EXACT_MAX || p == FT_GOSSIP_RANDOM ||
	    last > 1ull << n || first > last || res->fail_by_f == NULL ||
	    res->sets_by_f == NULL) {
		errno = EINVAL;
		return -1;
	}
	noffs = n < 2 ? 0 : cycle_offsets(p, n, offs);
	for (base = first & ~63ull; base < last; base += 64) {
		/* Trial t is failure set base + t: bit i set, i failed. */
		for (i = 0; i < n; i++)
			alive[i] = ~(i < 6 ? low[i] :
			    ((base >> i) & 1) ? ~0ull : 0);
		valid = ~0ull;
		for (t = 0; t < 64; t++)
			if (base + (uint64_t)t < first ||
			    base + (uint64_t)t >= last)
				valid &= ~(1ull << t);
		fail = n < 2 ? 0 : cut64(alive, root, reach, n, offs, noffs);
		for (t = 0; t < 64; t++) {
			if (!(valid >> t & 1))
				continue;
			k = base + (uint64_t)t;
			f = __builtin_popcountll(k);
			res->sets_by_f[f]++;
			if (fail >> t & 1)
				res->fail_by_f[f]++;
		}
		res->trials += (uint64_t)__builtin_popcountll(valid);
		res->failures += (uint64_t)__builtin_popcountll(fail & valid);
	}
	return 0;
}

double
ft_gossip_exact_prob(const struct ft_gossip_simres *res, uint32_t n,
    double p)
{
	double sum = 0, w;
	uint32_t f, i;

	for (f = 0; f <= n; f++) {
		if (res->fail_by_f[f] == 0)
			continue;
		/* p^f (1-p)^(n-f), by multiplication: no libm. */
		for (w = 1, i = 0; i < n; i++)
			w *= i < f ? p : 1 - p;
		sum += (double)res->fail_by_f[f] * w;
	}
	return sum;
}

/* SPDX-License-Identifier: ISC */
/*
 * Placement of a job's processes on its grants, a pure function.
 * Grants with the same host name are one host.  Each rank's nrep
 * replicas go to distinct hosts when it can be done:
 *   spread	 round-robin over the hosts, nearest first;
 *   concentrate the fewest nearest hosts that hold the job, filled
 *		 nearest first.
 * When that order would put two replicas on one host although another
 * assignment would not, the balanced order (each rank's replicas on the
 * hosts with the most room left, which keeps replicas apart whenever
 * it is possible: the Havel-Hakimi argument) is used instead.
 */
#include <stdio.h>
#include <stdlib.h>

#include "peer.h"

struct host {
	const char	*name;
	uint64_t	 cap;		/* slots of its grants */
	uint64_t	 left;
};

enum style { RR, FILL, BALANCED };

struct plan {
	const struct ft_grant	*g;
	size_t			 ng;
	size_t			*order;		/* grants, nearest first */
	struct host		*h;
	size_t			 nh;
	size_t			*host_of;	/* grant -> host */
	uint32_t		 nranks, nrep;
	uint32_t		*hp;		/* process -> host */
	uint32_t		*pick;		/* nrep hosts of one rank */
};

/* Is grant x nearer than y?  Unknown RTTs (0) come last. */
static int
nearer(const struct ft_grant *x, const struct ft_grant *y)
{
	if ((x->rtt_us == 0) != (y->rtt_us == 0))
		return y->rtt_us == 0;
	return x->rtt_us < y->rtt_us;
}

/* Sort grant indices nearest first, keeping array order on ties. */
static void
sort_order(const struct ft_grant *g, size_t *order, size_t n)
{
	size_t i, j, v;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = 1; i < n; i++) {
		v = order[i];
		for (j = i; j > 0 && nearer(&g[v], &g[order[j - 1]]); j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
}

static int
picked(const struct plan *pl, uint32_t n, uint32_t h)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (pl->pick[i] == h)
			return 1;
	return 0;
}

/*
 * Assign every process to one of the first k hosts in the given style;
 * returns the number of ranks with replicas sharing a host.
 */
static uint32_t
attempt(struct plan *pl, size_t k, enum style st)
{
	uint32_t r, i, j, shared = 0, best;
	size_t cursor = 0, s, h;
	int share;

	for (h = 0; h < pl->nh; h++)
		pl->h[h].left = h < k ? pl->h[h].cap : 0;
	for (r = 0; r < pl->nranks; r++) {
		share = 0;
		for (i = 0; i < pl->nrep; i++) {
			best = UINT32_MAX;
			for (s = 0; s < k; s++) {
				h = st == RR ? (cursor + s) % k : s;
				if (pl->h[h].left == 0 || picked(pl, i,
				    (uint32_t)h))
					continue;
				if (st != BALANCED) {
					best = (uint32_t)h;
					break;
				}
				if (best == UINT32_MAX ||
				    pl->h[h].left > pl->h[best].left)
					best = (uint32_t)h;
			}
			if (best == UINT32_MAX) {
				/* No host without a replica: share one. */
				share = 1;
				for (j = 0; j < k; j++)
					if (pl->h[j].left > 0) {
						best = j;
						break;
					}
			}
			if (st == RR)
				cursor = (best + 1) % k;
			pl->pick[i] = best;
			pl->h[best].left--;
			pl->hp[r * pl->nrep + i] = best;
		}
		shared += share;
	}
	return shared;
}

int
ft_alloc_parse(const char *s, enum ft_alloc *a)
{
	if (strcmp(s, "spread") == 0)
		*a = FT_ALLOC_SPREAD;
	else if (strcmp(s, "concentrate") == 0)
		*a = FT_ALLOC_CONCENTRATE;
	else {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

const char *
ft_alloc_name(enum ft_alloc a)
{
	return a == FT_ALLOC_CONCENTRATE ? "concentrate" : "spread";
}

int
ft_alloc_place(const struct ft_grant *g, size_t ng, uint32_t nranks,
    uint32_t nrep, enum ft_alloc mode, uint32_t *grant_of_proc, char *warn,
    size_t warnsize)
{
	struct plan pl;
	uint64_t total = 0, need, sum;
	uint32_t shared, best_shared = UINT32_MAX, *best_hp = NULL, *used = NULL;
	size_t i, j, k, kmin, nproc, with_room;
	int rc = -1, saved;

	if (warnsize > 0)
		warn[0] = '\0';
	if (ng == 0 || nranks == 0 || nrep == 0 ||
	    (uint64_t)nranks * nrep > FT_WIRE_MAX_RANKS ||
	    (mode != FT_ALLOC_SPREAD && mode != FT_ALLOC_CONCENTRATE)) {
		errno = EINVAL;
		return -1;
	}
	need = (uint64_t)nranks * nrep;
	nproc = (size_t)need;
	for (i = 0; i < ng; i++)
		total += g[i].slots;
	if (total < need) {
		snprintf(warn, warnsize, "%llu processes, only %llu slots "
		    "granted", (unsigned long long)need,
		    (unsigned long long)total);
		errno = ENOSPC;
		return -1;
	}
	memset(&pl, 0, sizeof(pl));
	pl.g = g;
	pl.ng = ng;
	pl.nranks = nranks;
	pl.nrep = nrep;
	pl.order = calloc(ng, sizeof(*pl.order));
	pl.h = calloc(ng, sizeof(*pl.h));
	pl.host_of = calloc(ng, sizeof(*pl.host_of));
	pl.hp = calloc(nproc, sizeof(*pl.hp));
	pl.pick = calloc(nrep, sizeof(*pl.pick));
	best_hp = calloc(nproc, sizeof(*best_hp));
	used = calloc(ng, sizeof(*used));
	if (pl.order == NULL || pl.h == NULL || pl.host_of == NULL ||
	    pl.hp == NULL || pl.pick == NULL || best_hp == NULL ||
	    used == NULL)
		goto out;
	sort_order(g, pl.order, ng);
	/* Hosts in the order of their nearest grant. */
	for (i = 0; i < ng; i++) {
		const struct ft_grant *x = &g[pl.order[i]];
		const char *name = x->host[0] != '\0' ? x->host : x->addr;

		for (j = 0; j < pl.nh; j++)
			if (strcmp(pl.h[j].name, name) == 0)
				break;
		if (j == pl.nh)
			pl.h[pl.nh++].name = name;
		pl.h[j].cap += x->slots;
		pl.host_of[pl.order[i]] = j;
	}
	for (i = 0, with_room = 0; i < pl.nh; i++)
		with_room += pl.h[i].cap > 0;
	/* Concentrate starts with the fewest nearest hosts that hold it. */
	kmin = pl.nh;
	if (mode == FT_ALLOC_CONCENTRATE) {
		for (k = 0, sum = 0; k < pl.nh && sum < need; k++)
			sum += pl.h[k].cap;
		kmin = k;
		while (kmin < pl.nh && kmin < nrep)
			kmin++;
	}
	for (k = kmin; k <= pl.nh && best_shared != 0; k++) {
		enum style st[2] = { mode == FT_ALLOC_SPREAD ? RR : FILL,
		    BALANCED };

		for (sum = 0, i = 0; i < k; i++)
			sum += pl.h[i].cap;
		if (sum < need)
			continue;
		for (i = 0; i < 2 && best_shared != 0; i++) {
			shared = attempt(&pl, k, st[i]);
			if (shared < best_shared) {
				best_shared = shared;
				memcpy(best_hp, pl.hp, nproc * sizeof(*pl.hp));
			}
		}
	}
	/* Hosts to grants: the nearest grant of the host with room. */
	for (i = 0; i < nproc; i++) {
		for (j = 0; j < ng; j++) {
			size_t x = pl.order[j];

			if (pl.host_of[x] == best_hp[i] && used[x] < g[x].slots)
				break;
		}
		if (j == ng)
			FT_BUG();
		used[pl.order[j]]++;
		grant_of_proc[i] = (uint32_t)pl.order[j];
	}
	rc = 0;
	if (best_shared > 0) {
		if (with_room < nrep)
			snprintf(warn, warnsize, "replicas of %u of %u ranks "
			    "share a host: %u replicas of a rank need %u "
			    "hosts, and only %zu %s granted", best_shared,
			    nranks, nrep, nrep, with_room,
			    with_room == 1 ? "was" : "were");
		else
			snprintf(warn, warnsize, "replicas of %u of %u ranks "
			    "share a host: the %zu hosts granted have too few "
			    "slots to keep %u replicas of every rank apart",
			    best_shared, nranks, with_room, nrep);
		rc = 1;
	}
out:
	saved = errno;
	free(pl.order);
	free(pl.h);
	free(pl.host_of);
	free(pl.hp);
	free(pl.pick);
	free(best_hp);
	free(used);
	errno = saved;
	return rc;
}

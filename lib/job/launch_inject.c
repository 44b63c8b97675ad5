/* SPDX-License-Identifier: ISC */
/*
 * Timed fault injection (--inject at=/every=): which process, and
 * when.  The specs themselves are inject.c's.
 */
#include "launch_impl.h"

/* A small generator for random kills: splitmix64. */
static uint64_t
inj_random(struct launcher *l)
{
	uint64_t z = (l->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The process an --inject spec names now, or -1 when there is none. */
static int64_t
inj_target(struct launcher *l, const struct ft_inject *in)
{
	uint32_t k, m, cand[FT_REPLICAS_MAX], nc, rank, tries;

	if (in->target == FT_INJECT_RANDOM) {
		/* A random rank that keeps a replica after the kill. */
		for (tries = 0; tries < 4 * l->nranks + 16; tries++) {
			rank = (uint32_t)(inj_random(l) % l->nranks);
			for (nc = 0, k = 0; k < l->nrep; k++) {
				struct lrank *r = &l->ranks[rank * l->nrep + k];

				if (!r->dead && !r->doomed &&
				    r->state == R_RUNNING)
					cand[nc++] = rank * l->nrep + k;
			}
			if (nc >= 2)
				return cand[inj_random(l) % nc];
		}
		return -1;
	}
	if (in->rank >= l->nranks)
		return -1;
	if (in->target == FT_INJECT_REPLICA)
		return in->replica < l->nrep ?
		    (int64_t)(in->rank * l->nrep + in->replica) : -1;
	if ((m = ft__l_master_of(l, in->rank)) == UINT32_MAX)
		return -1;
	if (in->target == FT_INJECT_MASTER)
		return in->rank * l->nrep + m;
	for (k = 0; k < l->nrep; k++)
		if (k != m && !l->ranks[in->rank * l->nrep + k].dead)
			return in->rank * l->nrep + k;
	return -1;
}

/* Fire the timed --inject specs that are due. */
void
ft__l_inject_due(struct launcher *l, uint64_t now)
{
	const struct ft_inject *in;
	char spec[FT_INJECT_SPEC_MAX + 1];
	struct lrank *r;
	int64_t t;
	size_t i;

	if (!l->table_sent || l->aborting)
		return;
	for (i = 0; i < l->cf->ninject; i++) {
		in = &l->cf->inject[i];
		if (l->inj_next[i] == 0 || now < l->inj_next[i])
			continue;
		l->inj_next[i] = in->trigger == FT_INJECT_EVERY &&
		    (in->count == 0 || l->inj_kills[i] + 1 < in->count) ?
		    now + in->every_ns : 0;
		if ((t = inj_target(l, in)) < 0)
			continue;
		r = &l->ranks[t];
		if (r->state != R_RUNNING || r->pid <= 0)
			continue;
		l->inj_kills[i]++;
		r->doomed = 1;
		(void)ft_inject_format(in, spec, sizeof(spec));
		ft__l_event(l, "\"event\":\"inject\",\"spec\":\"%s\","
		    "\"rank\":%u,\"replica\":%u,\"pid\":%d,\"signal\":%d",
		    spec, r->rank,
		    r->replica, (int)r->pid, in->signo);
		ft__l_proc_signal(l, (uint32_t)t, in->signo);
	}
}

/* The soonest timed injection, or 0. */
uint64_t
ft__l_inject_next(const struct launcher *l)
{
	uint64_t w = 0;
	size_t i;

	for (i = 0; i < l->cf->ninject; i++)
		if (l->inj_next[i] != 0 && (w == 0 || l->inj_next[i] < w))
			w = l->inj_next[i];
	return w;
}

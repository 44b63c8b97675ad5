/* SPDX-License-Identifier: ISC */
/*
 * The heartbeat table of one detector module: a counter per member, the
 * local time each last grew, and what the module thinks of each member.
 * A state machine: the caller supplies the time and does all I/O.
 */
#include <stdlib.h>
#include <string.h>

#include "detect.h"

int
ft_hbtable_init(struct ft_hbtable *t, uint32_t n, uint32_t self,
    uint64_t now)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	if (n == 0 || n > FT_GOSSIP_NMAX || self >= n) {
		errno = EINVAL;
		return -1;
	}
	t->hb = calloc(n, sizeof(*t->hb));
	t->grew_at = calloc(n, sizeof(*t->grew_at));
	t->state = calloc(n, sizeof(*t->state));
	if (t->hb == NULL || t->grew_at == NULL || t->state == NULL) {
		ft_hbtable_release(t);
		errno = ENOMEM;
		return -1;
	}
	t->n = n;
	t->self = self;
	/* Everyone starts alive, as if just heard from. */
	for (i = 0; i < n; i++)
		t->grew_at[i] = now;
	return 0;
}

void
ft_hbtable_release(struct ft_hbtable *t)
{
	free(t->hb);
	free(t->grew_at);
	free(t->state);
	memset(t, 0, sizeof(*t));
}

void
ft_hbtable_tick(struct ft_hbtable *t, uint64_t now, uint64_t clock_us)
{
	/* The clock, so that a counter taken too high is overtaken; one
	 * more when the clock stood still or went back. */
	if (clock_us > t->hb[t->self])
		t->hb[t->self] = clock_us;
	else
		t->hb[t->self]++;
	t->grew_at[t->self] = now;
}

int
ft_hbtable_merge(struct ft_hbtable *t, const uint64_t *hb, uint32_t n,
    uint64_t now, uint64_t limit, uint32_t *revived, uint32_t *nrevived)
{
	uint32_t i, k = 0;
	int refused = 0;

	if (n != t->n) {
		errno = EPROTO;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (i == t->self)
			continue;
		/* No member counts above its clock: a counter so far ahead
		 * of ours is corrupt, and taken it would stop the member's
		 * real counter from ever growing again. */
		if (hb[i] > limit) {
			refused++;
			continue;
		}
		/* One we hold that is as far ahead (taken when our clock
		 * was later) gives way to any possible one.  That is no news
		 * of the member: its silence still counts. */
		if (t->hb[i] > limit) {
			t->hb[i] = hb[i];
			continue;
		}
		if (hb[i] <= t->hb[i])
			continue;
		t->hb[i] = hb[i];
		t->grew_at[i] = now;
		/* A failed member stays failed: its heartbeat may only be
		 * an old one passed around late.  A suspect is cleared. */
		if (t->state[i] == FT_HB_SUSPECT) {
			t->state[i] = FT_HB_ALIVE;
			if (revived != NULL)
				revived[k++] = i;
		}
	}
	if (nrevived != NULL)
		*nrevived = k;
	return refused;
}

uint32_t
ft_hbtable_check(struct ft_hbtable *t, uint64_t now, uint64_t cleanup_ns,
    uint32_t *suspects)
{
	uint32_t i, k = 0;

	for (i = 0; i < t->n; i++) {
		/* grew_at may lie ahead: a grace period. */
		if (i == t->self || t->state[i] != FT_HB_ALIVE ||
		    (int64_t)(now - t->grew_at[i]) < (int64_t)cleanup_ns)
			continue;
		t->state[i] = FT_HB_SUSPECT;
		suspects[k++] = i;
	}
	return k;
}

int
ft_hbtable_fail(struct ft_hbtable *t, uint32_t id)
{
	if (id >= t->n || id == t->self) {
		errno = EINVAL;
		return -1;
	}
	if (t->state[id] == FT_HB_FAILED)
		return 0;
	t->state[id] = FT_HB_FAILED;
	return 1;
}

void
ft_hbtable_alive(struct ft_hbtable *t, uint32_t id, uint64_t since)
{
	if (id >= t->n || id == t->self)
		return;
	t->state[id] = FT_HB_ALIVE;
	t->grew_at[id] = since;
}

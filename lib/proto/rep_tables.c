/* SPDX-License-Identifier: ISC */
/*
 * The "replicate" protocol's tables: the backup table where a replica
 * that is not its rank's master keeps a copy of every message it would
 * have sent until the master commits it, the log of the master's
 * decisions on nondeterministic events, and the election of a rank's
 * master.  Pure data structures; the protocol is in replicate.c.
 */
#include <stdlib.h>

#include "proto.h"

uint32_t
ft_rep_master(const uint8_t *gone, uint32_t rank, uint32_t nrep)
{
	uint32_t k;

	for (k = 0; k < nrep; k++)
		if (!gone[rank * nrep + k])
			return k;
	return UINT32_MAX;
}

int
ft_rep_backup_add(struct ft_rep_backup *b, const struct ft_msg *m, int mode,
    uint32_t crc)
{
	struct ft_rep_entry *e;

	if (m->seq < b->committed)
		return 0;
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return -1;
	if (m->len > 0 && (e->data = malloc(m->len)) == NULL) {
		free(e);
		return -1;
	}
	if (m->len > 0)
		memcpy(e->data, m->buf, m->len);
	e->seq = m->seq;
	e->ctx = m->ctx;
	e->src = m->csrc;
	e->tag = m->tag;
	e->mode = mode;
	e->crc = crc;
	e->len = m->len;
	if (b->tail != NULL)
		b->tail->next = e;
	else
		b->head = e;
	b->tail = e;
	b->count++;
	b->bytes += m->len;
	return 1;
}

static void
entry_free(struct ft_rep_entry *e)
{
	free(e->data);
	free(e);
}

/*
 * Keep a digest for a message we have yet to make.  Best effort: out of
 * memory, that message goes unchecked.
 */
static void
digest_push(struct ft_rep_backup *b, uint64_t seq, uint32_t crc)
{
	struct ft_rep_digest *nd;
	size_t ncap;

	if (b->first > 0 && b->first + b->nahead == b->capahead) {
		memmove(b->ahead, b->ahead + b->first,
		    b->nahead * sizeof(*b->ahead));
		b->first = 0;
	}
	if (b->first + b->nahead == b->capahead) {
		ncap = b->capahead == 0 ? 16 : b->capahead * 2;
		if ((nd = reallocarray(b->ahead, ncap, sizeof(*nd))) == NULL)
			return;
		b->ahead = nd;
		b->capahead = ncap;
	}
	b->ahead[b->first + b->nahead++] = (struct ft_rep_digest){ seq, crc };
}

int
ft_rep_backup_commit(struct ft_rep_backup *b, uint64_t seq, uint32_t crc,
    uint64_t *bad)
{
	struct ft_rep_entry *e;
	int diverged = 0;

	while ((e = b->head) != NULL && e->seq <= seq) {
		if (e->seq == seq && crc != 0 && e->crc != 0 && e->crc != crc &&
		    !diverged) {
			diverged = 1;
			*bad = seq;
		}
		b->head = e->next;
		if (b->head == NULL)
			b->tail = NULL;
		b->count--;
		b->bytes -= e->len;
		entry_free(e);
	}
	/* Not made here yet: keep the digest for when it is. */
	if (crc != 0 && seq >= b->committed)
		digest_push(b, seq, crc);
	if (seq + 1 > b->committed)
		b->committed = seq + 1;
	return diverged;
}

int
ft_rep_backup_late(struct ft_rep_backup *b, uint64_t seq, uint32_t crc)
{
	struct ft_rep_digest *d;

	while (b->nahead > 0) {
		d = &b->ahead[b->first];
		if (d->seq > seq)
			break;
		b->first++;
		b->nahead--;
		if (d->seq == seq)
			return crc != 0 && d->crc != crc;
	}
	return 0;
}

void
ft_rep_backup_free(struct ft_rep_backup *b)
{
	struct ft_rep_entry *e, *next;

	for (e = b->head; e != NULL; e = next) {
		next = e->next;
		entry_free(e);
	}
	free(b->ahead);
	memset(b, 0, sizeof(*b));
}

int
ft_nd_log_init(struct ft_nd_log *l, uint32_t cap)
{
	memset(l, 0, sizeof(*l));
	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((l->ring = calloc(cap, sizeof(*l->ring))) == NULL)
		return -1;
	l->cap = cap;
	return 0;
}

void
ft_nd_log_free(struct ft_nd_log *l)
{
	free(l->ring);
	memset(l, 0, sizeof(*l));
}

int
ft_nd_log_add(struct ft_nd_log *l, const struct ft_decision *d)
{
	if (d->index < l->count)
		return 1;
	if (d->index > l->count) {
		errno = EPROTO;
		return -1;
	}
	l->ring[l->count % l->cap] = *d;
	l->count++;
	return 0;
}

const struct ft_decision *
ft_nd_log_get(const struct ft_nd_log *l, uint64_t index)
{
	if (index >= l->count || l->count - index > l->cap)
		return NULL;
	return &l->ring[index % l->cap];
}

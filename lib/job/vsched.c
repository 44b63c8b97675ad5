/* SPDX-License-Identifier: ISC */
/* ftrun's checkpoint scheduler for --ft vlog (vsched.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vsched.h"

int
ft__vsched_policy(const char *s)
{
	if (strcmp(s, "all") == 0)
		return FT__VSCHED_ALL;
	if (strcmp(s, "rr") == 0)
		return FT__VSCHED_RR;
	if (strcmp(s, "adaptive") == 0)
		return FT__VSCHED_ADAPTIVE;
	return -1;
}

int
ft__vsched_init(struct ft__vsched *v, uint32_t n, int policy,
    uint64_t interval_ns)
{
	uint32_t k;

	memset(v, 0, sizeof(*v));
	v->policy = policy;
	v->n = n;
	v->interval_ns = interval_ns;
	if (n == 0 || policy == FT__VSCHED_ALL || interval_ns == 0)
		return 0;
	if ((v->order = calloc(n, sizeof(*v->order))) == NULL ||
	    (v->recv = calloc(n, sizeof(*v->recv))) == NULL ||
	    (v->sent = calloc(n, sizeof(*v->sent))) == NULL) {
		ft__vsched_free(v);
		errno = ENOMEM;
		return -1;
	}
	for (k = 0; k < n; k++)
		v->order[k] = k;
	return 0;
}

void
ft__vsched_free(struct ft__vsched *v)
{
	free(v->order);
	free(v->recv);
	free(v->sent);
	v->order = NULL;
	v->recv = v->sent = NULL;
}

void
ft__vsched_traffic(struct ft__vsched *v, uint32_t rank, uint64_t recv,
    uint64_t sent)
{
	if (v->order == NULL || rank >= v->n)
		return;
	v->recv[rank] = recv;
	v->sent[rank] = sent;
}

/*
 * Does rank a go before rank b?  recv/sent compared without division:
 * a rank that received and sent nothing counts as 0, one that only
 * received as above every other (by what it received).
 */
static int
before(const uint64_t *recv, const uint64_t *sent, uint32_t a, uint32_t b)
{
	unsigned __int128 x, y;
	int ia = sent[a] == 0 && recv[a] > 0, ib = sent[b] == 0 && recv[b] > 0;

	if (ia != ib)
		return ia;
	if (ia) {
		x = recv[a];
		y = recv[b];
	} else {
		x = (unsigned __int128)recv[a] * (sent[b] > 0 ? sent[b] : 1);
		y = (unsigned __int128)recv[b] * (sent[a] > 0 ? sent[a] : 1);
	}
	return x != y ? x > y : a < b;
}

void
ft__vsched_order(uint32_t n, const uint64_t *recv, const uint64_t *sent,
    uint32_t *order)
{
	uint32_t i, j, t;

	for (i = 0; i < n; i++)
		order[i] = i;
	/* Insertion sort: n is the job's ranks, once a round. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && before(recv, sent, order[j],
		    order[j - 1]); j--) {
			t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

int
ft__vsched_tick(struct ft__vsched *v, uint64_t now, uint32_t *rank)
{
	uint64_t step;

	if (v->order == NULL)
		return 0;
	step = v->interval_ns / v->n > 0 ? v->interval_ns / v->n : 1;
	if (v->next_ns == 0)
		v->next_ns = now + step;
	if (now < v->next_ns)
		return 0;
	if (v->pos == 0 && v->policy == FT__VSCHED_ADAPTIVE)
		ft__vsched_order(v->n, v->recv, v->sent, v->order);
	*rank = v->order[v->pos];
	v->pos = (v->pos + 1) % v->n;
	v->turns++;
	/* From now: a late tick does not bring the next turn closer. */
	v->next_ns = now + step;
	return 1;
}

uint64_t
ft__vsched_next(const struct ft__vsched *v)
{
	return v->order != NULL ? v->next_ns : 0;
}

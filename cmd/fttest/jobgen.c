/* SPDX-License-Identifier: ISC */
/*
 * fttest log gen, and fttest log load --pattern job: the determinants
 * of a job that could have run, for ftreplay's tests until the vlog
 * protocol writes logs of real jobs.  Every rank runs rounds k = 0, 1,
 * ...: it sends to the rank d ahead (d = 1 + k mod (R - 1)) and then
 * receives from the rank d behind, so each tick of the clock is one
 * send (odd clocks 2k + 1) or one delivery (even clocks 2k + 2), as in
 * ft-log(5).  Around the delivery come nondeterministic events at
 * fixed rounds: an unsuccessful probe (counted in the next records'
 * probes), a successful one, the ANY_SOURCE match of the message, a
 * test's flag, a clock read, a wait-any index, a wait-some count.  The
 * log is consistent: ftreplay --verify holds on it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/proto/proto.h"
#include "../../lib/store/store.h"
#include "fttest.h"

static void
nd(struct ft_det *d, uint32_t kind, uint64_t clock, uint32_t probes,
    uint64_t a, uint64_t b, uint64_t c)
{
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->clock = clock;
	d->sender = FT_DET_NOSENDER;
	d->probes = probes;
	d->v[0] = a;
	d->v[1] = b;
	d->v[2] = c;
}

/* The records of round k of rank (of ranks), seq not set: how many. */
static size_t
round_dets(uint32_t rank, uint32_t ranks, uint64_t k,
    struct ft_det out[FTTEST_ROUND_MAX])
{
	uint64_t d = ranks > 1 ? 1 + k % (ranks - 1) : 0;
	uint32_t src = (uint32_t)((rank + ranks - d) % ranks);
	uint64_t sent = 2 * k + 1, clock = 2 * k + 2;
	uint32_t probes = 0;
	double when;
	size_t n = 0;

	if (k % 7 == 3)
		nd(&out[n++], FT_ND_PROBE, sent, probes++, 0, src, 0);
	if (k % 11 == 5)
		nd(&out[n++], FT_ND_PROBE, sent, probes, 1, src, 0);
	if (k % 5 == 2) {
		nd(&out[n], FT_ND_ANYSRC, sent, probes, src, k, src);
		out[n].sender = src;
		out[n++].sclock = sent;
	}
	memset(&out[n], 0, sizeof(out[n]));
	out[n].clock = clock;
	out[n].sender = src;
	out[n].sclock = sent;
	out[n++].probes = probes;
	if (k % 13 == 6)
		nd(&out[n++], FT_ND_FLAG, clock, 0, (k + rank) % 2, 0, 0);
	if (k % 17 == 8) {
		when = (double)k * 1e-3 + rank;
		nd(&out[n], FT_ND_CLOCK, clock, 0, 0, 0, 0);
		memcpy(&out[n++].v[0], &when, sizeof(when));
	}
	if (k % 19 == 9)
		nd(&out[n++], FT_ND_INDEX, clock, 0, k % 4, 0, 0);
	if (k % 23 == 11)
		nd(&out[n++], FT_ND_COUNT, clock, 0, 1 + k % 3, 0, 0);
	return n;
}

void
fttest_jobgen_init(struct fttest_jobgen *g, uint32_t rank, uint32_t ranks)
{
	memset(g, 0, sizeof(*g));
	g->rank = rank;
	g->ranks = ranks;
	g->next_seq = 1;
}

void
fttest_jobgen_det(struct fttest_jobgen *g, uint64_t seq, struct ft_det *d)
{
	if (seq < g->next_seq)
		fttest_jobgen_init(g, g->rank, g->ranks);
	for (;;) {
		if (g->i == g->n) {
			g->n = round_dets(g->rank, g->ranks, g->round++, g->buf);
			g->i = 0;
		}
		*d = g->buf[g->i++];
		d->seq = g->next_seq++;
		if (d->seq == seq)
			return;
	}
}

/* fttest log gen: N determinants a rank, as ftlog dump prints them. */
int
fttest_jobgen_print(uint64_t job, uint32_t ranks, uint64_t count, int json)
{
	struct fttest_jobgen g;
	struct ft_det d;
	char line[FT_DET_TEXT_MAX];
	uint64_t seq;
	uint32_t r;

	for (r = 0; r < ranks; r++) {
		fttest_jobgen_init(&g, r, ranks);
		for (seq = 1; seq <= count; seq++) {
			fttest_jobgen_det(&g, seq, &d);
			if (ft_det_format(line, sizeof(line), job, r, &d,
			    json) < 0 || fputs(line, stdout) == EOF)
				return FT_EXIT_TEMP;
		}
	}
	return FT_EXIT_OK;
}

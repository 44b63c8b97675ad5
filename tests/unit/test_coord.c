/* SPDX-License-Identifier: ISC */
/*
 * Protocol "coord" on a simulated engine (sim.h): in-memory FIFO
 * channels, one step at a time chosen at random among the enabled ones
 * (a process runs its next operation, or a channel hands its next frame
 * or message to its receiver), and a kill before any step.
 *
 * The program of every rank sends one message to every other rank each
 * iteration and receives the messages of the iteration before, so at
 * every checkpoint (after every EVERY iterations) one message is in
 * flight on every channel: the markers must catch them, the images
 * hold them, and a rollback must deliver them again.  Each payload
 * depends on everything its sender received before, so a message lost,
 * duplicated or taken from after a cut changes every hash after it.
 *
 * A kill rolls every rank back as ftrun does: every process goes, the
 * channels are emptied (what the dead generation sent is discarded),
 * and every rank starts again from the newest epoch all ranks saved,
 * restoring its regions and the protocol's state.  Checked: the final
 * hash of every rank equals the fault-free run's, for a kill of every
 * rank before every step, for pairs of random kills, and under random
 * interleavings; an inconsistent cut is refused; a damaged state
 * section is refused with EPROTO.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/coord.h"
#include "proto/proto.h"
#include "tap.h"

#define MAXN		4
#define ITERS		9
#define EVERY		3
#define MAXE		(ITERS / EVERY + 1)

struct item {
	struct item	*next;
	uint8_t		*frame;		/* a frame (or NULL: a message) */
	size_t		 flen;
	uint32_t	 src;
	uint64_t	 seq, payload;
	int32_t		 tag;
};

#include "sim.h"

enum phase { P_SEND, P_RECV, P_CUT, P_WAITM, P_DONE };

struct proc {
	struct ft_proto	 p;
	int		 up;
	int		 iter;		/* iterations done */
	enum phase	 phase;
	uint64_t	 hash;
	int		 got[MAXN];	/* of this iteration's receptions */
	struct fifo	 ux[MAXN];	/* arrived, per source */
	struct fifo	 inj[MAXN];	/* injected, per source */
	uint64_t	 nsent[MAXN];
	uint64_t	 cut;
	uint64_t	 pend;		/* epoch waiting for its channel state */
	int		 pend_iter;
	uint64_t	 pend_hash;
};

struct image {
	int		 have, iter;
	uint64_t	 hash;
	uint8_t		*ps;
	size_t		 pslen;
};

struct sim {
	int		 n;
	struct proc	 P[MAXN];
	struct fifo	 ch[MAXN][MAXN];
	struct image	 img[MAXE + 1][MAXN];
	uint64_t	 rng;
	int		 rollbacks, inflight_saved;
	char		 err[256];
};

static struct sim *cur;

static int
sim_send_frame(void *core, uint32_t proc, const struct ft_wbuf *wb)
{
	struct proc *me = core;
	int i = (int)(me - cur->P);
	struct item *it;

	if (proc >= (uint32_t)cur->n || (it = calloc(1, sizeof(*it))) ==
	    NULL || (it->frame = malloc(wb->len)) == NULL) {
		errno = EINVAL;
		return -1;
	}
	memcpy(it->frame, wb->p, wb->len);
	it->flen = wb->len;
	it->src = (uint32_t)i;
	fifo_push(&cur->ch[i][proc], it);
	return 0;
}

static int
sim_inject(void *core, const struct ft_msg *m)
{
	struct proc *me = core;
	struct item *it;

	if (!(m->seq & FT_SEQ_INJECTED) || m->src >= (uint32_t)cur->n ||
	    m->len != sizeof(uint64_t) || (it = calloc(1, sizeof(*it))) ==
	    NULL) {
		fail(cur, "inject: bad message");
		errno = EINVAL;
		return -1;
	}
	it->src = m->src;
	it->seq = m->seq;
	it->tag = m->tag;
	memcpy(&it->payload, m->buf, sizeof(it->payload));
	fifo_push(&me->inj[m->src], it);
	return 0;
}

static const struct ft_core_ops sim_core = {
	.send_frame = sim_send_frame,
	.inject = sim_inject,
};

static void
fifo_clear(struct fifo *f)
{
	struct item *it;

	while ((it = fifo_pop(f)) != NULL)
		item_free(it);
}

static void
proc_down(struct sim *S, int i)
{
	struct proc *P = &S->P[i];
	int q;

	if (!P->up)
		return;
	ft_proto_release(&P->p);
	for (q = 0; q < S->n; q++) {
		fifo_clear(&P->ux[q]);
		fifo_clear(&P->inj[q]);
	}
	P->up = 0;
}

static void
proc_start(struct sim *S, int i)
{
	struct proc *P = &S->P[i];
	struct ft_conf cf;

	memset(P, 0, sizeof(*P));
	memset(&cf, 0, sizeof(cf));
	cf.rank = cf.proc = (uint32_t)i;
	cf.size = (uint32_t)S->n;
	cf.ppr = 1;
	if (ft_proto_init(&P->p, &ft__proto_coord, &cf, &sim_core, P) != 0)
		fail(S, "init of %d: %s", i, strerror(errno));
	P->up = 1;
}

/* Save the image of epoch from (iter, hash) and the protocol's state. */
static void
save(struct sim *S, int i, uint64_t epoch, int iter, uint64_t hash)
{
	struct proc *P = &S->P[i];
	struct image *im = &S->img[epoch][i];
	struct ft_wbuf wb;

	ft_wbuf_init(&wb);
	if (P->p.ops->save(&P->p, &wb) != 0) {
		fail(S, "save of %d epoch %" PRIu64 ": %s", i, epoch,
		    strerror(errno));
		ft_wbuf_release(&wb);
		return;
	}
	free(im->ps);
	im->ps = malloc(wb.len + 1);
	memcpy(im->ps, wb.p, wb.len);
	im->pslen = wb.len;
	im->iter = iter;
	im->hash = hash;
	im->have = 1;
	/* Header (16) and one message (40) per other rank. */
	if (wb.len > 16)
		S->inflight_saved++;
	ft_wbuf_release(&wb);
}

static int
ready(struct sim *S, int i, uint64_t epoch)
{
	struct ft_ext x = { .op = FT_EXT_CKPT_READY };

	x.epoch = epoch;
	if (S->P[i].p.ops->ext(&S->P[i].p, &x) != 0) {
		fail(S, "READY of %d: %s", i, strerror(errno));
		return -1;
	}
	if (x.err) {
		fail(S, "rank %d: epoch %" PRIu64 " inconsistent", i, epoch);
		return -1;
	}
	return x.result;
}

static void
check_pending(struct sim *S, int i)
{
	struct proc *P = &S->P[i];

	if (P->pend != 0 && ready(S, i, P->pend) == 1) {
		save(S, i, P->pend, P->pend_iter, P->pend_hash);
		P->pend = 0;
	}
}

/* Can process i take the message of this iteration from q? */
static struct fifo *
source(struct proc *P, int q)
{
	if (P->inj[q].head != NULL)
		return &P->inj[q];
	if (P->ux[q].head != NULL)
		return &P->ux[q];
	return NULL;
}

static int
runnable(struct sim *S, int i)
{
	struct proc *P = &S->P[i];
	struct ft_ext x = { .op = FT_EXT_CKPT_MARKERS };
	int q;

	switch (P->phase) {
	case P_SEND:
	case P_CUT:
		return 1;
	case P_RECV:
		/* In source order: the hash depends on it. */
		for (q = 0; q < S->n; q++)
			if (q != i && !P->got[q])
				return source(P, q) != NULL;
		return 0;
	case P_WAITM:
		x.epoch = P->cut;
		(void)P->p.ops->ext(&P->p, &x);
		return x.result;
	case P_DONE:
		break;
	}
	return 0;
}

static void
run(struct sim *S, int i)
{
	struct proc *P = &S->P[i];
	struct ft_ext x;
	struct ft_msg m;
	struct item *it;
	int q, all, k = P->iter + 1, r;

	switch (P->phase) {
	case P_SEND:
		for (q = 0; q < S->n; q++) {
			if (q == i)
				continue;
			memset(&m, 0, sizeof(m));
			m.src = (uint32_t)i;
			m.dst = (uint32_t)q;
			m.tag = k;
			m.seq = P->nsent[q]++;
			if (P->p.ops->send(&P->p, &m) != 0)
				fail(S, "send hook");
			it = calloc(1, sizeof(*it));
			it->src = (uint32_t)i;
			it->seq = m.seq;
			it->tag = k;
			it->payload = mix(mix(P->hash, (uint64_t)k),
			    (uint64_t)q);
			fifo_push(&S->ch[i][q], it);
		}
		P->phase = k > 1 ? P_RECV : P_CUT;
		if (k == 1)
			P->iter = k;
		break;
	case P_RECV:
		for (q = 0; q < S->n; q++) {
			struct fifo *f;

			if (q == i || P->got[q])
				continue;
			if ((f = source(P, q)) == NULL)
				break;
			it = fifo_pop(f);
			if (it->tag != k - 1)
				fail(S, "rank %d iteration %d: message of "
				    "iteration %d from %d", i, k, it->tag, q);
			memset(&m, 0, sizeof(m));
			m.src = (uint32_t)q;
			m.dst = (uint32_t)i;
			m.tag = it->tag;
			m.seq = it->seq;
			m.buf = &it->payload;
			m.len = sizeof(it->payload);
			m.csrc = (uint32_t)q;
			(void)P->p.ops->deliver(&P->p, &m);
			P->hash = mix(P->hash, it->payload);
			P->got[q] = 1;
			item_free(it);
			break;
		}
		check_pending(S, i);
		for (all = 1, q = 0; q < S->n; q++)
			if (q != i && !P->got[q])
				all = 0;
		if (all) {
			memset(P->got, 0, sizeof(P->got));
			P->iter = k;
			P->phase = k > ITERS ? P_DONE : P_CUT;
		}
		break;
	case P_CUT:
		if (P->iter % EVERY != 0 || P->iter == ITERS) {
			P->phase = P_SEND;
			break;
		}
		memset(&x, 0, sizeof(x));
		x.op = FT_EXT_CKPT_CUT;
		x.epoch = ++P->cut;
		if (P->p.ops->ext(&P->p, &x) != 0)
			fail(S, "CUT of %d: %s", i, strerror(errno));
		P->phase = P_WAITM;
		break;
	case P_WAITM:
		if (P->pend != 0)
			fail(S, "rank %d: epoch %" PRIu64 " still pending", i,
			    P->pend);
		if ((r = ready(S, i, P->cut)) == 1)
			save(S, i, P->cut, P->iter, P->hash);
		else if (r == 0) {
			P->pend = P->cut;
			P->pend_iter = P->iter;
			P->pend_hash = P->hash;
		}
		P->phase = P_SEND;
		break;
	case P_DONE:
		break;
	}
}

/* A channel hands its next item to its receiver. */
static void
arrive(struct sim *S, int s, int d)
{
	struct item *it = fifo_pop(&S->ch[s][d]);
	struct proc *P = &S->P[d];
	struct ft_hdr h;

	if (it->frame == NULL) {
		fifo_push(&P->ux[s], it);
		return;
	}
	if (ft_hdr_decode(it->frame, &h) != 0 || P->p.ops->frame(&P->p,
	    (uint32_t)s, &h, it->frame + FT_WIRE_HDRLEN) != 0)
		fail(S, "frame from %d to %d refused: %s", s, d,
		    strerror(errno));
	item_free(it);
}

/* Every rank goes back to the newest epoch all of them saved. */
static void
rollback(struct sim *S)
{
	struct ft_rbuf rb;
	int i, q, e, all;
	uint64_t E = 0;

	S->rollbacks++;
	for (i = 0; i < S->n; i++)
		proc_down(S, i);
	for (i = 0; i < S->n; i++)
		for (q = 0; q < S->n; q++)
			fifo_clear(&S->ch[i][q]);
	for (e = MAXE; e >= 1 && E == 0; e--) {
		for (all = 1, i = 0; i < S->n; i++)
			all &= S->img[e][i].have;
		if (all)
			E = (uint64_t)e;
	}
	/* Images of incomplete epochs are never used: removed. */
	for (e = (int)E + 1; e <= MAXE; e++)
		for (i = 0; i < S->n; i++)
			S->img[e][i].have = 0;
	for (i = 0; i < S->n; i++) {
		proc_start(S, i);
		if (E == 0)
			continue;
		S->P[i].iter = S->img[E][i].iter;
		S->P[i].hash = S->img[E][i].hash;
		S->P[i].cut = E;
		/* Past the cut: the next operation is the next send. */
		S->P[i].phase = P_SEND;
		ft_rbuf_init(&rb, S->img[E][i].ps, S->img[E][i].pslen);
		if (S->P[i].p.ops->restore(&S->P[i].p, &rb) != 0)
			fail(S, "restore of %d epoch %" PRIu64 ": %s", i, E,
			    strerror(errno));
	}
}

static void
sim_free(struct sim *S)
{
	int i, q, e;

	for (i = 0; i < S->n; i++)
		proc_down(S, i);
	for (i = 0; i < MAXN; i++)
		for (q = 0; q < MAXN; q++)
			fifo_clear(&S->ch[i][q]);
	for (e = 0; e <= MAXE; e++)
		for (i = 0; i < MAXN; i++) {
			free(S->img[e][i].ps);
			S->img[e][i].ps = NULL;
			S->img[e][i].have = 0;
		}
}

/*
 * One run of n ranks from seed; kill[k] >= 0 kills that rank before
 * step at[k].  Returns the number of steps; hashes in out.
 */
static int
simulate(struct sim *S, int n, uint64_t seed, const int *kill,
    const int *at, int nkill, uint64_t *out)
{
	int steps = 0, i, s, d, k, nen, pick;
	int en[MAXN + MAXN * MAXN][2];

	memset(S, 0, sizeof(*S));
	cur = S;
	S->n = n;
	S->rng = seed | 1;
	for (i = 0; i < n; i++)
		proc_start(S, i);
	for (;;) {
		for (k = 0; k < nkill; k++)
			if (at[k] == steps && kill[k] >= 0)
				rollback(S);
		nen = 0;
		for (i = 0; i < n; i++)
			if (runnable(S, i)) {
				en[nen][0] = -1;
				en[nen++][1] = i;
			}
		for (s = 0; s < n; s++)
			for (d = 0; d < n; d++)
				if (S->ch[s][d].head != NULL) {
					en[nen][0] = s;
					en[nen++][1] = d;
				}
		if (nen == 0 || S->err[0] != '\0' || steps > 100000)
			break;
		pick = (int)(rnd(&S->rng) % (uint64_t)nen);
		if (en[pick][0] < 0)
			run(S, en[pick][1]);
		else
			arrive(S, en[pick][0], en[pick][1]);
		steps++;
	}
	for (i = 0; i < n; i++) {
		if (S->P[i].phase != P_DONE)
			fail(S, "rank %d stuck at iteration %d phase %d", i,
			    S->P[i].iter, (int)S->P[i].phase);
		out[i] = S->P[i].hash;
	}
	sim_free(S);
	return steps;
}

static int
same(const uint64_t *a, const uint64_t *b, int n)
{
	return memcmp(a, b, (size_t)n * sizeof(*a)) == 0;
}

static void
test_fault_free(struct sim *S)
{
	uint64_t ref[MAXN], h[MAXN];
	int seed, ok = 1;

	simulate(S, 3, 1, NULL, NULL, 0, ref);
	T_OK(S->err[0] == '\0', "3 ranks, fault-free: %s", S->err);
	T_OK(S->inflight_saved > 0, "images hold messages in flight (%d)",
	    S->inflight_saved);
	for (seed = 2; seed < 200 && ok; seed++) {
		simulate(S, 3, (uint64_t)seed, NULL, NULL, 0, h);
		ok = S->err[0] == '\0' && same(ref, h, 3);
	}
	T_OK(ok, "200 interleavings give the same hashes: %s", S->err);
}

/* A kill of every rank before every step, on n ranks. */
static void
test_every_kill(struct sim *S, int n, uint64_t seed)
{
	uint64_t ref[MAXN], h[MAXN];
	int steps, at, v, runs = 0, bad = 0, rb = 0;
	char first[300] = "";

	steps = simulate(S, n, seed, NULL, NULL, 0, ref);
	for (at = 0; at <= steps; at++)
		for (v = 0; v < n; v++) {
			simulate(S, n, seed, &v, &at, 1, h);
			runs++;
			rb += S->rollbacks;
			if (S->err[0] != '\0' || !same(ref, h, n)) {
				if (bad++ == 0)
					snprintf(first, sizeof(first), "kill "
					    "%d before step %d: %s", v, at,
					    S->err[0] != '\0' ? S->err :
					    "other hashes");
			}
		}
	T_OK(bad == 0 && rb == runs, "%d ranks: a kill of every rank before "
	    "every step (%d runs) ends as fault-free%s%s", n, runs,
	    bad ? "; first: " : "", first);
}

static void
test_two_kills(struct sim *S, int n, int runs)
{
	uint64_t ref[MAXN], h[MAXN], rng = 77;
	int kill[2], at[2], r, steps, bad = 0;
	char first[300] = "";

	for (r = 0; r < runs; r++) {
		uint64_t seed = rnd(&rng);

		steps = simulate(S, n, seed, NULL, NULL, 0, ref);
		kill[0] = (int)(rnd(&rng) % (uint64_t)n);
		kill[1] = (int)(rnd(&rng) % (uint64_t)n);
		at[0] = (int)(rnd(&rng) % (uint64_t)steps);
		at[1] = at[0] + (int)(rnd(&rng) % (uint64_t)steps);
		simulate(S, n, seed, kill, at, 2, h);
		if ((S->err[0] != '\0' || !same(ref, h, n)) && bad++ == 0)
			snprintf(first, sizeof(first), "seed %" PRIu64 ": %s",
			    seed, S->err);
	}
	T_OK(bad == 0, "%d ranks: %d runs with two kills at random steps "
	    "end as fault-free%s%s", n, runs, bad ? "; first: " : "", first);
}

/* Sent after the sender's cut, received before the receiver's. */
static void
test_orphan(struct sim *S)
{
	struct ft_ext x;
	struct ft_msg m;
	struct ft_hdr h;
	struct item *it;
	uint64_t v = 42;

	memset(S, 0, sizeof(*S));
	cur = S;
	S->n = 2;
	proc_start(S, 0);
	proc_start(S, 1);
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_CKPT_CUT;
	x.epoch = 1;
	T_OK(S->P[0].p.ops->ext(&S->P[0].p, &x) == 0, "rank 0 cuts epoch 1");
	memset(&m, 0, sizeof(m));
	m.src = 0;
	m.dst = 1;
	m.seq = 0;
	(void)S->P[0].p.ops->send(&S->P[0].p, &m);
	m.buf = &v;
	m.len = sizeof(v);
	(void)S->P[1].p.ops->deliver(&S->P[1].p, &m);
	T_OK(S->P[1].p.ops->ext(&S->P[1].p, &x) == 0, "rank 1 cuts epoch 1");
	it = fifo_pop(&S->ch[0][1]);
	T_OK(it != NULL && it->frame != NULL && ft_hdr_decode(it->frame,
	    &h) == 0 && S->P[1].p.ops->frame(&S->P[1].p, 0, &h, it->frame +
	    FT_WIRE_HDRLEN) == 0, "rank 0's marker (count 0) arrives");
	if (it != NULL)
		item_free(it);
	x.op = FT_EXT_CKPT_READY;
	T_OK(S->P[1].p.ops->ext(&S->P[1].p, &x) == 0 && x.err == 1,
	    "the cut is refused as inconsistent");
	sim_free(S);
}

/* Damaged state sections are refused, never half restored. */
static void
test_bad_state(struct sim *S)
{
	struct ft_wbuf wb;
	struct ft_rbuf rb;
	uint8_t *good = NULL;
	size_t len = 0, cut;
	int refused = 0, tries = 0, i;

	memset(S, 0, sizeof(*S));
	cur = S;
	S->n = 2;
	proc_start(S, 0);
	ft_wbuf_init(&wb);
	ft_put32(&wb, 0x434f5231u);
	ft_put64(&wb, 1);
	ft_put32(&wb, 2);
	for (i = 0; i < 2; i++) {
		ft_put32(&wb, 1);
		ft_put32(&wb, 1);
		ft_put32(&wb, 0);
		ft_put32(&wb, 7);
		ft_put64(&wb, (uint64_t)i);
		ft_put32(&wb, 8);
		ft_put64(&wb, 99);
	}
	good = wb.p;
	len = wb.len;
	ft_rbuf_init(&rb, good, len);
	T_OK(S->P[0].p.ops->restore(&S->P[0].p, &rb) == 0 &&
	    S->P[0].inj[1].head != NULL, "a good section: two messages "
	    "injected");
	proc_down(S, 0);
	for (cut = 0; cut < len; cut++) {
		proc_start(S, 0);
		ft_rbuf_init(&rb, good, cut);
		tries++;
		errno = 0;
		if (S->P[0].p.ops->restore(&S->P[0].p, &rb) != 0 &&
		    errno == EPROTO)
			refused++;
		proc_down(S, 0);
	}
	T_OK(refused == tries, "every truncation refused with EPROTO "
	    "(%d of %d)", refused, tries);
	good[0] ^= 1;
	proc_start(S, 0);
	ft_rbuf_init(&rb, good, len);
	T_OK(S->P[0].p.ops->restore(&S->P[0].p, &rb) != 0 && errno == EPROTO,
	    "a wrong magic is refused");
	proc_down(S, 0);
	good[0] ^= 1;
	good[19] = 0;	/* source 1 -> a source of 0: itself */
	proc_start(S, 0);
	ft_rbuf_init(&rb, good, len);
	T_OK(S->P[0].p.ops->restore(&S->P[0].p, &rb) != 0 && errno == EPROTO,
	    "a message from itself is refused");
	proc_down(S, 0);
	ft_wbuf_release(&wb);
	sim_free(S);
}

/* What ranks tell ftrun (FT_NOTE_CKPT), and where output stood. */
static void
test_launcher_side(void)
{
	struct ft__coord_cuts cuts = { NULL, 0, 0 };
	const char *bad[] = { "", "epoch=0 cut=1", "epoch=3 cut=0",
	    "epoch=3 durable=2", "epoch=3 durable=1 x", "epoch=3 foo=1",
	    "epoch=-1 cut=1", "epoch=3", "epoch=3 call=0", "epoch=3 call=-4",
	    "epoch=3 cut=1 ", "epoch=3 =1", "epoch= 3 cut=1",
	    "epoch=99999999999999999999 cut=1" };
	uint64_t e, o, er, val;
	int kind, refused = 0;
	size_t i;

	T_OK(ft__coord_note_parse("epoch=12 cut=1", &e, &kind, &val) == 0 &&
	    e == 12 && kind == FT__COORD_CUT, "note: a cut");
	T_OK(ft__coord_note_parse("epoch=5 durable=1", &e, &kind, &val) ==
	    0 && e == 5 && kind == FT__COORD_DURABLE && val == 1,
	    "note: durable");
	T_OK(ft__coord_note_parse("epoch=6 durable=0", &e, &kind, &val) ==
	    0 && e == 6 && val == 0, "note: committed locally only");
	T_OK(ft__coord_note_parse("epoch=7 call=123456789012", &e, &kind,
	    &val) == 0 && e == 7 && kind == FT__COORD_CALL &&
	    val == 123456789012u, "note: the call a rank is at");
	T_OK(ft__coord_note_parse("epoch=9 restored=2500", &e, &kind,
	    &val) == 0 && e == 9 && kind == FT__COORD_RESTORED &&
	    val == 2500, "note: an image read back after a rollback");
	T_OK(ft__coord_note_parse("epoch=9 restored=0", &e, &kind, &val) ==
	    -1, "note: a restore takes at least 1 us");
	T_OK(ft__coord_note_parse("epoch=4 server=0", &e, &kind, &val) ==
	    0 && e == 4 && kind == FT__COORD_SERVER && val == 0,
	    "note: a push failed: the server cannot be reached");
	T_OK(ft__coord_note_parse("epoch=4 server=1", &e, &kind, &val) ==
	    0 && kind == FT__COORD_SERVER && val == 1,
	    "note: the server is reached again");
	T_OK(ft__coord_note_parse("epoch=4 server=2", &e, &kind, &val) ==
	    -1, "note: server is 0 or 1");
	for (i = 0; i < FT_NELEM(bad); i++)
		refused += ft__coord_note_parse(bad[i], &e, &kind, &val) == -1;
	T_EQ_INT(refused, (int)FT_NELEM(bad), "note: malformed texts refused");
	T_OK(ft__coord_cut_get(&cuts, 0, &o, &er) == 0 && o == 0 && er == 0,
	    "cuts: epoch 0 is the start");
	T_OK(ft__coord_cut_get(&cuts, 3, &o, &er) == -1, "cuts: unknown");
	for (e = 1; e <= 40; e++)
		(void)ft__coord_cut_put(&cuts, e, e * 10, e);
	T_OK(ft__coord_cut_get(&cuts, 40, &o, &er) == 0 && o == 400 &&
	    er == 40 && ft__coord_cut_get(&cuts, 2, &o, &er) == 0 && o == 20,
	    "cuts: every one since the complete epoch is kept");
	ft__coord_cut_forget(&cuts, 30);
	T_OK(ft__coord_cut_get(&cuts, 29, &o, &er) == -1 &&
	    ft__coord_cut_get(&cuts, 30, &o, &er) == 0 && o == 300,
	    "cuts: those before the complete epoch are forgotten");
	(void)ft__coord_cut_put(&cuts, 32, 1, 1);
	T_OK(ft__coord_cut_get(&cuts, 32, &o, &er) == 0 && o == 1 &&
	    ft__coord_cut_get(&cuts, 33, &o, &er) == -1,
	    "cuts: after a rollback, the new generation's replace the old");
	{
		struct ft__coord_cuts a = { NULL, 0, 0 }, b = { NULL, 0, 0 };
		struct ft__coord_cuts *ab[2] = { &a, &b };

		for (e = 1; e <= 5; e++) {
			(void)ft__coord_cut_put(&a, e, 0, 0);
			(void)ft__coord_cut_put(&b, e, 0, 0);
		}
		(void)ft__coord_cut_durable(&a, 2);
		(void)ft__coord_cut_durable(&a, 5);
		(void)ft__coord_cut_durable(&b, 3);
		(void)ft__coord_cut_durable(&b, 5);
		T_EQ_UINT(ft__coord_complete(ab, 2, 0), 5,
		    "complete: the newest epoch both made durable");
		ft__coord_cut_truncate(&b, 4);
		T_EQ_UINT(ft__coord_complete(ab, 2, 0), 0,
		    "complete: a rank's newest durable image alone is not "
		    "enough (one pushed 2 and 5, the other 3)");
		(void)ft__coord_cut_durable(&b, 2);
		T_EQ_UINT(ft__coord_complete(ab, 2, 0), 2,
		    "complete: an older epoch both hold");
		T_EQ_UINT(ft__coord_complete(ab, 2, 2), 2,
		    "complete: never below what ftrun knew");
		T_OK(ft__coord_cut_durable(&b, 9) == -1,
		    "durable: an unknown cut is refused");
		ft__coord_cuts_free(&a);
		ft__coord_cuts_free(&b);
	}
	ft__coord_cuts_free(&cuts);
}

/*
 * coordsrv: with a server, ftrun names the epoch every rank pushes: the
 * newest all wrote locally, the next only once that one is complete;
 * once ftrun's server died, the local copies complete epochs.
 */
static void
test_push_schedule(void)
{
	struct ft__coord_cuts a = { NULL, 0, 0 }, b = { NULL, 0, 0 };
	struct ft__coord_cuts *ab[2] = { &a, &b };
	struct ft__coord_news nw;
	struct ft__coord c;
	uint64_t e;

	memset(&c, 0, sizeof(c));
	c.push = 1;
	for (e = 1; e <= 6; e++) {
		(void)ft__coord_cut_put(&a, e, e * 10, 0);
		(void)ft__coord_cut_put(&b, e, e * 20, 0);
	}
	T_OK(ft__coord_image(&c, ab, 2, 0, 1, 0, 100, &nw) == 0 &&
	    nw.local == 0 && nw.complete == 0 && nw.push == 0,
	    "push: one rank's local image of 1: nothing to ask yet");
	T_OK(ft__coord_image(&c, ab, 2, 1, 1, 0, 150, &nw) == 0 &&
	    nw.local == 1 && nw.push == 1 && nw.complete == 0,
	    "push: 1 written locally by both: every rank pushes 1");
	(void)ft__coord_image(&c, ab, 2, 0, 2, 0, 200, &nw);
	(void)ft__coord_image(&c, ab, 2, 0, 3, 0, 210, &nw);
	T_OK(ft__coord_image(&c, ab, 2, 1, 3, 0, 220, &nw) == 0 &&
	    nw.local == 3 && nw.push == 0,
	    "push: 3 local everywhere (2 not on b): no push while 1's is "
	    "under way");
	T_OK(ft__coord_image(&c, ab, 2, 0, 1, 1, 300, &nw) == 0 &&
	    nw.complete == 0 && nw.push == 0,
	    "push: one rank's push of 1 done: not complete yet");
	T_OK(ft__coord_image(&c, ab, 2, 1, 1, 1, 400, &nw) == 0 &&
	    nw.complete == 1 && nw.push == 3 && c.complete == 1,
	    "push: 1 on the server from both: complete, and every rank "
	    "pushes 3, the newest local everywhere (2 is skipped by all)");
	T_OK(nw.lag_ms > 249e-6 && nw.lag_ms < 251e-6 && nw.behind == 2,
	    "push: the lag from local (150 ns) to complete (400 ns), and "
	    "the epochs local was ahead");
	T_OK(ft__coord_cut_get(&a, 1, &e, &e) == 0 &&
	    ft__coord_cut_get(&a, 0, &e, &e) == 0,
	    "push: the complete epoch's cut is kept");
	T_OK(ft__coord_image(&c, ab, 2, 0, 9, 1, 500, &nw) == -1,
	    "push: an image of an unknown cut is refused");
	(void)ft__coord_image(&c, ab, 2, 0, 3, 1, 600, &nw);
	(void)ft__coord_image(&c, ab, 2, 0, 4, 0, 610, &nw);
	(void)ft__coord_image(&c, ab, 2, 1, 4, 0, 620, &nw);
	T_OK(nw.local == 4 && nw.push == 0,
	    "push: 4 local everywhere while 3's push is under way");
	/* ftrun's server dies before b pushed 3: the local copies count. */
	ft__coord_srv_down(&c, ab, 2, 700, &nw, 1);
	T_OK(nw.complete == 4 && nw.push == 0 && c.pushing == 0,
	    "server down: the newest local epoch is complete, no push");
	(void)ft__coord_image(&c, ab, 2, 0, 5, 0, 800, &nw);
	T_OK(ft__coord_image(&c, ab, 2, 1, 5, 0, 810, &nw) == 0 &&
	    nw.complete == 5 && nw.push == 0,
	    "server down: a local image from every rank completes 5");
	/* ckptsrv2: the server is reached again: 6 complete once held
	 * there by both, pushed once local everywhere; 5 stays. */
	ft__coord_srv_down(&c, ab, 2, 820, &nw, 0);
	T_OK(nw.complete == 0 && nw.push == 0 && c.complete == 5 &&
	    !c.srvdown, "server back: nothing new, complete stays 5");
	(void)ft__coord_image(&c, ab, 2, 0, 6, 0, 830, &nw);
	T_OK(ft__coord_image(&c, ab, 2, 1, 6, 0, 840, &nw) == 0 &&
	    nw.local == 6 && nw.complete == 0 && nw.push == 6,
	    "server back: 6 local everywhere is not complete: pushed");
	(void)ft__coord_image(&c, ab, 2, 0, 6, 1, 850, &nw);
	T_OK(ft__coord_image(&c, ab, 2, 1, 6, 1, 860, &nw) == 0 &&
	    nw.complete == 6, "server back: 6 on the server: complete");
	/* A rollback to 6: pushes start over from there. */
	ft__coord_sched_reset(&c, 6);
	ft__coord_cut_truncate(&a, 6);
	ft__coord_cut_truncate(&b, 6);
	T_OK(c.pushing == 0 && c.local == 6, "rollback: no push under way");
	ft__coord_lc_free(&c);
	ft__coord_cuts_free(&a);
	ft__coord_cuts_free(&b);
	/* Without a server (push 0): durable at once, nothing pushed. */
	memset(&c, 0, sizeof(c));
	(void)ft__coord_cut_put(&a, 1, 0, 0);
	(void)ft__coord_cut_put(&b, 1, 0, 0);
	(void)ft__coord_image(&c, ab, 2, 0, 1, 1, 10, &nw);
	T_OK(ft__coord_image(&c, ab, 2, 1, 1, 1, 20, &nw) == 0 &&
	    nw.local == 1 && nw.complete == 1 && nw.push == 0,
	    "no server: the local directory is the store");
	ft__coord_lc_free(&c);
	ft__coord_cuts_free(&a);
	ft__coord_cuts_free(&b);
}

/* ftrun's scheduler, as state (coord.h). */
static void
test_scheduler(void)
{
	struct ft__coord c;
	uint64_t e = 0, at = 0;
	int ok;

	memset(&c, 0, sizeof(c));
	c.interval_ns = 100;
	T_OK(ft__coord_sched_init(&c, 3) == 0 && c.margin == 2,
	    "sched: set up for 3 ranks");
	T_OK(!ft__coord_sched_tick(&c, 1000, 1, &e) &&
	    ft__coord_sched_next(&c) == 1100, "sched: the first round one "
	    "interval after the start");
	T_OK(!ft__coord_sched_tick(&c, 1099, 1, &e), "sched: not before");
	T_OK(!ft__coord_sched_tick(&c, 1100, 0, &e), "sched: not while a "
	    "rank has finalized");
	T_OK(ft__coord_sched_tick(&c, 1100, 1, &e) && e == 1 && c.asking,
	    "sched: epoch 1 is asked for");
	T_OK(ft__coord_sched_next(&c) == 0 &&
	    !ft__coord_sched_tick(&c, 5000, 1, &e), "sched: one round at a "
	    "time");
	ok = !ft__coord_sched_called(&c, 0, 1, 40, 1200, &at) &&
	    !ft__coord_sched_called(&c, 1, 2, 99, 1200, &at) &&
	    !ft__coord_sched_called(&c, 0, 1, 90, 1200, &at) &&
	    !ft__coord_sched_called(&c, 1, 1, 42, 1200, &at);
	T_OK(ok, "sched: answers counted once, another epoch's ignored");
	T_OK(ft__coord_sched_called(&c, 2, 1, 41, 1300, &at) && at == 44 &&
	    !c.asking && ft__coord_sched_next(&c) == 1400,
	    "sched: once all answered, the highest call plus 2 (no pace "
	    "known yet)");
	T_OK(ft__coord_sched_missed(&c, 1, 1350) && c.margin == 4 &&
	    ft__coord_sched_next(&c) == 1350, "sched: a miss calls it off, "
	    "doubles the margin, and the next round comes at once");
	T_OK(ft__coord_sched_missed(&c, 1, 1360) && c.margin == 8,
	    "sched: a second miss of it widens again");
	T_OK(ft__coord_sched_tick(&c, 1400, 1, &e) && e == 2 &&
	    c.margin == 8, "sched: epoch 2 is asked for, the margin kept "
	    "after a miss");
	/* Paces since the last round: 0 at 1 call per 1000 ns, 1 and 2
	 * at none.  Rank 0 answered 1 ms before the end. */
	(void)ft__coord_sched_called(&c, 0, 2, 1040, 1000000 + 1200, &at);
	(void)ft__coord_sched_called(&c, 1, 2, 50, 2000000 + 1200, &at);
	T_OK(ft__coord_sched_called(&c, 2, 2, 60, 2000000 + 1300, &at) &&
	    at == 1040 + (uint64_t)(2.0 * (1000000 + 100 + 1000000) /
	    1000.0) + 1 + 8, "sched: the call is projected at each rank's "
	    "pace");
	T_OK(ft__coord_sched_tick(&c, 9000000, 1, &e) && e == 3 &&
	    c.margin == 4, "sched: a round that went well halves the "
	    "margin");
	T_OK(ft__coord_sched_off(&c) && !c.asking && !ft__coord_sched_off(&c),
	    "sched: a rank finalizing calls the round off, once");
	ft__coord_sched_reset(&c, 1);
	T_OK(c.epoch == 1 && ft__coord_sched_next(&c) == 0 &&
	    !ft__coord_sched_tick(&c, 20000000, 1, &e) &&
	    ft__coord_sched_tick(&c, 20000100, 1, &e) && e == 2 &&
	    c.ans[0].pt == 0, "sched: after a rollback to 1, epochs go on "
	    "from 2, an interval later, paces forgotten");
	c.interval_ns = 0;
	c.asking = 0;
	T_OK(!ft__coord_sched_tick(&c, 99999999, 1, &e) &&
	    ft__coord_sched_next(&c) == 0, "sched: interval 0 is the ranks' "
	    "own scheduler");
	c.err_at = 123;
	T_OK(ft__coord_sched_next(&c) == 123, "sched: a rank's error to "
	    "decide wakes ftrun, even with no scheduler");
	c.interval_ns = 100;
	c.next_ns = 500;
	T_OK(ft__coord_sched_next(&c) == 123, "sched: the earlier of a "
	    "round and an error to decide");
	c.err_at = 0;
	T_OK(ft__coord_sched_next(&c) == 500, "sched: the round once no "
	    "error waits");
	ft__coord_sched_free(&c);
}

/* --ckpt-interval auto: Young's interval from the measured cost and
 * the failures seen. */
static void
test_auto_interval(void)
{
	struct ft__coord c;
	const uint64_t s = 1000000000u;

	T_EQ_UINT(ft__coord_young(s / 20, 10 * s), s, "young: sqrt(2 x 0.05 s "
	    "x 10 s) is 1 s");
	T_EQ_UINT(ft__coord_young(1, 1), FT__COORD_AUTO_MIN_NS, "young: never "
	    "below 0.1 s");
	T_EQ_UINT(ft__coord_young(3600 * s, 3600 * s), FT__COORD_AUTO_MAX_NS,
	    "young: never above 1 h");
	memset(&c, 0, sizeof(c));
	ft__coord_auto_cut(&c, 1, 5);
	ft__coord_auto_complete(&c, 1, 10);
	T_OK(c.interval_ns == 0 && c.cost_ns == 5, "auto: off unless asked");
	memset(&c, 0, sizeof(c));
	ft__coord_auto_init(&c, 0);
	T_EQ_UINT(c.interval_ns, FT__COORD_AUTO_FIRST_NS, "auto: 1 s until a "
	    "cost is known");
	ft__coord_auto_failed(&c, s);
	T_EQ_UINT(c.interval_ns, s / 2, "auto: failures before any epoch "
	    "completes: twice as often as they come");
	ft__coord_auto_failed(&c, 3 * s);
	T_EQ_UINT(c.interval_ns, s / 2, "auto: ... never longer for it");
	c.failures = 0;
	ft__coord_auto_cut(&c, 1, 8 * s);
	ft__coord_auto_cut(&c, 1, 8 * s + s / 10);
	ft__coord_auto_complete(&c, 2, 8 * s + s / 5);
	T_EQ_UINT(c.cost_ns, 0, "auto: a completion of another epoch than "
	    "the newest cut is no sample");
	ft__coord_auto_complete(&c, 1, 8 * s + s / 10 + s / 20);
	T_OK(c.cost_ns == s / 20 && c.interval_ns ==
	    ft__coord_young(s / 20, 8 * s + s / 10 + s / 20), "auto: the cost "
	    "runs from the last rank's cut; with no failure, M is the run "
	    "so far");
	ft__coord_auto_failed(&c, 20 * s);
	ft__coord_auto_failed(&c, 40 * s);
	T_OK(c.failures == 2 && c.interval_ns == ft__coord_young(s / 20,
	    20 * s), "auto: M is the run's time over its failures");
	ft__coord_auto_cut(&c, 2, 41 * s);
	ft__coord_auto_complete(&c, 2, 41 * s + s / 4);
	T_EQ_UINT(c.cost_ns, (3 * (s / 20) + s / 4) / 4, "auto: the cost is a "
	    "running mean, the newest a quarter");
}

int
main(void)
{
	static struct sim S;

	test_fault_free(&S);
	test_every_kill(&S, 2, 5);
	test_every_kill(&S, 3, 9);
	test_two_kills(&S, 3, 300);
	test_two_kills(&S, 4, 100);
	test_orphan(&S);
	test_bad_state(&S);
	test_launcher_side();
	test_push_schedule();
	test_scheduler();
	test_auto_interval();
	return t_done();
}

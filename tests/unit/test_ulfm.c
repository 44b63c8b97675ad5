/* SPDX-License-Identifier: ISC */
/*
 * The "ulfm" protocol without sockets: a simulated engine implements
 * the effects it uses (send_frame, fail_ctx) over in-memory channels,
 * and drives each process's copy through its hooks.  Each ordered pair
 * of processes has a channel of two FIFOs: frames the sender still
 * holds (they die with it) and frames the kernel has (delivered even
 * after the sender died).  Every step picks one enabled event at
 * random: a process runs its program (join an agreement, test it,
 * free it), a channel moves a frame into the kernel, a process reads
 * the next frame of a channel, or a process takes the view that says
 * who died (views come late, and one process at a time, as in a job).
 * Kills happen before chosen steps.
 *
 * The program: NAGREE agreements in a row on one context, member i
 * giving flag ~(1 << i), so that the AND says exactly who contributed;
 * process 0 also revokes the context first.  Variants: every process
 * abandons agreement 0 (frees it at once, as MPI_Request_free of an
 * iagree), or joins agreements on two contexts at once, in an order of
 * its own.  Checked, on 1 to 32 processes, under random interleavings,
 * a kill of every process at every step (up to 8 processes), and
 * random sets of kills (up to 32): nothing waits forever; every
 * survivor decides each agreement; every process that decided
 * (survivor, or dead since) decided the same flag and failed set;
 * every survivor contributed; whoever did not contribute is in the
 * failed set, and only dead processes are; a survivor keeps one
 * instance a context at the end; and a revoke that reached one
 * survivor, or whose initiator survived, reached every survivor once.
 * Without failures an agreement takes 4 (n - 1) frames, and decides
 * within 4 ceil(log4 n) frames of one another (causal depth).
 */
#include <stdlib.h>

#include "proto/proto.h"
#include "tap.h"

#define MAXP	32
#define NAGREE	2
#define CTX	40
#define NB	(MAXP / 8)

struct ft_req {
	int	 unused;
};

struct item {
	struct item	*next;
	uint8_t		*frame;
	size_t		 len;
	int		 depth;		/* the sender's depth + 1 */
};

struct fifo {
	struct item	*head, *tail;
};

struct sproc {
	struct ft_proto	 p;
	int		 dead;
	int		 view_due;	/* a newer view waits for it */
	int		 round;		/* agreements done */
	void		*handle;	/* the one joined, or NULL */
	uint32_t	 flag[NAGREE];
	uint32_t	 failed[NAGREE];
	int		 decided[NAGREE];
	int		 revoked;	/* fail_ctx calls */
	void		*h[NAGREE];	/* twoctx: agreement r's handle */
	int		 joined;	/* twoctx: agreements joined */
	int		 depth;		/* longest chain of agreement 0's
					 * frames read */
	int		 ddepth;	/* depth at agreement 0's decision */
};

struct sim {
	uint32_t	 n;
	struct sproc	 P[MAXP];
	struct fifo	 held[MAXP][MAXP], kern[MAXP][MAXP];
	uint64_t	 rng;
	int		 abandon;	/* programs free agreement 0 at once */
	int		 twoctx;	/* agreement r on context CTX + 2 r, all
					 * joined at once, in an order that
					 * depends on the process */
	int		 agree0;	/* AGREE frames of agreement 0 sent */
	/*
	 * An intercommunicator's agreement (IAGREE): processes below
	 * inter are the first group, the others the second; each
	 * contributes its flag to its own group's word.  0: not one.
	 */
	uint32_t	 inter;
	/*
	 * Kills tied to progress: process kx[k] dies as it sends its
	 * kn[k]-th frame of kind kkind[k] (0: none) in agreement 0, that
	 * frame reaching the kernel first when kdeliver[k] (else dying
	 * with it).
	 */
	uint32_t	 kx[2], kkind[2];
	int		 kn[2], kdeliver[2], kseen[2], kdone[2];
	int		 kafter;	/* process + 1 that dies as soon as
					 * its program has agreement 0's
					 * decision, or 0 */
	int		 kafterdone;
	int		 failed;
	char		 why[200];
};

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
fifo_push(struct fifo *f, struct item *it)
{
	it->next = NULL;
	if (f->tail != NULL)
		f->tail->next = it;
	else
		f->head = it;
	f->tail = it;
}

static struct item *
fifo_pop(struct fifo *f)
{
	struct item *it = f->head;

	if (it != NULL && (f->head = it->next) == NULL)
		f->tail = NULL;
	return it;
}

static void
fifo_clear(struct fifo *f)
{
	struct item *it;

	while ((it = fifo_pop(f)) != NULL) {
		free(it->frame);
		free(it);
	}
}

static void	kill_proc(struct sim *, uint32_t);

/* The core argument names a process: its index in the simulation. */
struct cookie {
	struct sim	*S;
	uint32_t	 self;
};

static struct cookie cookies[MAXP];

/* Is frame f an AGREE or an IAGREE (kind and seq at the same place)? */
static int
is_agree(const uint8_t *f)
{
	return f[3] == FT_MSG_ULFM_AGREE || f[3] == FT_MSG_ULFM_IAGREE;
}

/* Is sending wb the step at which kill k of self is due? */
static int
kill_due(struct sim *S, int k, uint32_t self, const struct ft_wbuf *wb)
{
	if (S->kkind[k] == 0 || self != S->kx[k] || S->kdone[k] ||
	    !is_agree(wb->p) || wb->len < FT_WIRE_HDRLEN + 12 ||
	    ft_rd32(wb->p + FT_WIRE_HDRLEN) != S->kkind[k] ||
	    ft_rd32(wb->p + FT_WIRE_HDRLEN + 8) != 0 ||
	    ++S->kseen[k] != S->kn[k])
		return 0;
	S->kdone[k] = 1;
	return 1;
}

static int
c_send_frame(void *core, uint32_t proc, const struct ft_wbuf *wb)
{
	struct cookie *c = core;
	struct item *it;
	int k;

	if (proc >= c->S->n || proc == c->self) {
		c->S->failed = 1;
		snprintf(c->S->why, sizeof(c->S->why), "process %u sent a "
		    "frame to %u", c->self, proc);
		errno = EINVAL;
		return -1;
	}
	if (c->S->P[proc].dead) {
		errno = ECONNRESET;
		return -1;
	}
	/* What a process sends as it dies goes nowhere. */
	if (c->S->P[c->self].dead)
		return 0;
	if ((it = calloc(1, sizeof(*it))) == NULL ||
	    (it->frame = malloc(wb->len)) == NULL)
		abort();
	memcpy(it->frame, wb->p, wb->len);
	it->len = wb->len;
	it->depth = c->S->P[c->self].depth + 1;
	if (is_agree(wb->p) && wb->len >= FT_WIRE_HDRLEN + 12 &&
	    ft_rd32(wb->p + FT_WIRE_HDRLEN + 8) == 0)
		c->S->agree0++;
	for (k = 0; k < 2; k++)
		if (kill_due(c->S, k, c->self, wb)) {
			if (c->S->kdeliver[k])
				fifo_push(&c->S->kern[c->self][proc], it);
			else {
				free(it->frame);
				free(it);
			}
			kill_proc(c->S, c->self);
			return 0;
		}
	fifo_push(&c->S->held[c->self][proc], it);
	return 0;
}

static void
c_fail_ctx(void *core, uint32_t ctx, uint32_t n, int err)
{
	struct cookie *c = core;

	if (ctx == CTX && n == 2 && err == ECANCELED)
		c->S->P[c->self].revoked++;
}

static const struct ft_core_ops sim_core = {
	.send_frame = c_send_frame,
	.fail_ctx = c_fail_ctx,
};

static void
sim_free(struct sim *S)
{
	uint32_t i, j;

	for (i = 0; i < S->n; i++) {
		ft_proto_release(&S->P[i].p);
		for (j = 0; j < S->n; j++) {
			fifo_clear(&S->held[i][j]);
			fifo_clear(&S->kern[i][j]);
		}
	}
}

static void
sim_init(struct sim *S, uint32_t n, uint64_t seed)
{
	struct ft_conf conf;
	uint32_t i;

	struct sim keep = *S;

	memset(S, 0, sizeof(*S));
	S->abandon = keep.abandon;
	S->twoctx = keep.twoctx;
	S->inter = keep.inter;
	memcpy(S->kx, keep.kx, sizeof(S->kx));
	memcpy(S->kkind, keep.kkind, sizeof(S->kkind));
	memcpy(S->kn, keep.kn, sizeof(S->kn));
	memcpy(S->kdeliver, keep.kdeliver, sizeof(S->kdeliver));
	S->kafter = keep.kafter;
	S->n = n;
	S->rng = seed * 2654435761u + 1;
	for (i = 0; i < n; i++) {
		memset(&conf, 0, sizeof(conf));
		conf.rank = conf.proc = i;
		conf.size = n;
		conf.ppr = 1;
		cookies[i] = (struct cookie){ S, i };
		if (ft_proto_init(&S->P[i].p, &ft__proto_ulfm, &conf,
		    &sim_core, &cookies[i]) != 0)
			abort();
	}
}

/* Join agreement seq on context ctx as process i: its handle. */
static void *
join(struct sim *S, uint32_t i, uint32_t ctx, uint32_t seq)
{
	struct ft_ext x;
	uint32_t members[MAXP], k;
	uint8_t failed[NB] = { 0 }, acked[NB] = { 0 };

	for (k = 0; k < S->n; k++)
		members[k] = k;
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_AGREE;
	x.ctx = ctx;
	x.seq = seq;
	x.members = members;
	x.n = S->n;
	x.me = i;
	x.flag = ~(1u << i);
	if (S->inter != 0) {
		x.inter = 1;
		x.flag2 = ~0u;
		if (i >= S->inter) {
			x.flag2 = x.flag;
			x.flag = ~0u;
		}
	}
	x.failed = failed;
	x.acked = acked;
	if (S->P[i].p.ops->ext(&S->P[i].p, &x) != 0) {
		S->failed = 1;
		snprintf(S->why, sizeof(S->why), "process %u could not join "
		    "agreement %u on %u", i, seq, ctx);
		return NULL;
	}
	return x.handle;
}

/* Is handle h decided at process i?  Then its flag and failed set. */
static int
decided(struct sim *S, uint32_t i, void *h, uint32_t *flag, uint32_t *failed)
{
	struct ft_ext x;
	uint8_t got[NB] = { 0 };
	uint32_t k;

	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_AGREE_TEST;
	x.handle = h;
	x.failed = got;
	if (S->P[i].p.ops->ext(&S->P[i].p, &x) != 0 || !x.result)
		return 0;
	*flag = x.flag;
	if (S->inter != 0) {
		/* Each group's word holds its own members' flags only. */
		uint64_t first = (1ull << S->inter) - 1;

		if ((~(uint64_t)x.flag & 0xffffffffu & ~first) != 0 ||
		    (~(uint64_t)x.flag2 & first) != 0) {
			S->failed = 1;
			snprintf(S->why, sizeof(S->why), "process %u decided "
			    "%#x and %#x: a flag in the other group's word",
			    i, x.flag, x.flag2);
		}
		*flag = x.flag & x.flag2;
	}
	*failed = 0;
	for (k = 0; k < NB; k++)
		*failed |= (uint32_t)got[k] << (8 * k);
	return 1;
}

/* twoctx: join the next agreement, or take one decision. */
static void
app_step_two(struct sim *S, uint32_t i)
{
	struct sproc *P = &S->P[i];
	struct ft_ext x;
	int r;

	if (P->joined < NAGREE) {
		r = i % 2 ? NAGREE - 1 - P->joined : P->joined;
		P->h[r] = join(S, i, CTX + 2 * (uint32_t)r, 0);
		P->joined++;
		return;
	}
	for (r = 0; r < NAGREE; r++)
		if (P->h[r] != NULL && decided(S, i, P->h[r], &P->flag[r],
		    &P->failed[r])) {
			P->decided[r] = 1;
			memset(&x, 0, sizeof(x));
			x.op = FT_EXT_AGREE_FREE;
			x.handle = P->h[r];
			(void)P->p.ops->ext(&P->p, &x);
			P->h[r] = NULL;
			P->round++;
			return;
		}
}

/* Process i's program: one step. */
static void
app_step(struct sim *S, uint32_t i)
{
	struct sproc *P = &S->P[i];
	struct ft_ext x;
	uint32_t members[MAXP], k;

	if (i == 0 && P->round == 0 && P->handle == NULL && !P->revoked) {
		for (k = 0; k < S->n; k++)
			members[k] = k;
		memset(&x, 0, sizeof(x));
		x.op = FT_EXT_REVOKE;
		x.ctx = CTX;
		x.nctx = 2;
		x.members = members;
		x.n = S->n;
		if (P->p.ops->ext(&P->p, &x) != 0)
			abort();
		return;
	}
	if (S->twoctx) {
		app_step_two(S, i);
		return;
	}
	memset(&x, 0, sizeof(x));
	if (P->handle == NULL) {
		if ((P->handle = join(S, i, CTX, (uint32_t)P->round)) == NULL)
			return;
		if (S->abandon && P->round == 0) {
			/* MPI_Request_free of an iagree not complete. */
			x.op = FT_EXT_AGREE_FREE;
			x.handle = P->handle;
			(void)P->p.ops->ext(&P->p, &x);
			P->handle = NULL;
			P->round++;
		}
		return;
	}
	if (!decided(S, i, P->handle, &P->flag[P->round],
	    &P->failed[P->round]))
		return;
	P->decided[P->round] = 1;
	if (P->round == 0)
		P->ddepth = P->depth;
	if (P->round == 0 && S->kafter == (int)i + 1) {
		/* It returned the decision: now it dies. */
		S->kafterdone = 1;
		kill_proc(S, i);
		return;
	}
	x.op = FT_EXT_AGREE_FREE;
	x.handle = P->handle;
	(void)P->p.ops->ext(&P->p, &x);
	P->handle = NULL;
	P->round++;
}

/* Can process i's program move on? */
static int
app_ready(struct sim *S, uint32_t i)
{
	struct sproc *P = &S->P[i];
	uint32_t f, fl;
	int r;

	if (P->dead || P->round >= NAGREE)
		return 0;
	if (!S->twoctx)
		return P->handle == NULL || decided(S, i, P->handle, &f, &fl);
	if (P->joined < NAGREE)
		return 1;
	for (r = 0; r < NAGREE; r++)
		if (P->h[r] != NULL && decided(S, i, P->h[r], &f, &fl))
			return 1;
	return 0;
}

/* Process i reads the next frame the kernel has from j. */
static void
read_one(struct sim *S, uint32_t j, uint32_t i)
{
	struct item *it = fifo_pop(&S->kern[j][i]);
	struct ft_hdr h;

	if (is_agree(it->frame) && it->len >= FT_WIRE_HDRLEN +
	    12 && ft_rd32(it->frame + FT_WIRE_HDRLEN + 8) == 0 &&
	    it->depth > S->P[i].depth)
		S->P[i].depth = it->depth;

	if (ft_hdr_decode(it->frame, &h) != 0 || h.len != it->len ||
	    S->P[i].p.ops->frame(&S->P[i].p, j, &h,
	    it->frame + FT_WIRE_HDRLEN) != 0) {
		S->failed = 1;
		snprintf(S->why, sizeof(S->why), "process %u refused a "
		    "frame from %u", i, j);
	}
	free(it->frame);
	free(it);
}

static void
take_view(struct sim *S, uint32_t i)
{
	uint32_t dead[MAXP], nd = 0, k;

	for (k = 0; k < S->n; k++)
		if (S->P[k].dead)
			dead[nd++] = k;
	S->P[i].view_due = 0;
	if (S->P[i].p.ops->view(&S->P[i].p, dead, nd) != 0) {
		S->failed = 1;
		snprintf(S->why, sizeof(S->why), "process %u refused a view",
		    i);
	}
}

static void
kill_proc(struct sim *S, uint32_t x)
{
	uint32_t k;

	if (S->P[x].dead)
		return;
	S->P[x].dead = 1;
	for (k = 0; k < S->n; k++) {
		fifo_clear(&S->held[x][k]);
		if (!S->P[k].dead)
			S->P[k].view_due = 1;
	}
}

enum ev { EV_APP, EV_FLUSH, EV_READ, EV_VIEW };

/* The pick-th enabled event (or the number of them, pick < 0). */
static int
events(struct sim *S, int pick, enum ev *kind, uint32_t *a, uint32_t *b)
{
	uint32_t i, j;
	int n = 0;

#define EVENT(k, x, y) do {						\
		if (n++ == pick) {					\
			*kind = (k);					\
			*a = (x);					\
			*b = (y);					\
			return n;					\
		}							\
	} while (0)
	for (i = 0; i < S->n; i++) {
		if (S->P[i].dead)
			continue;
		if (app_ready(S, i))
			EVENT(EV_APP, i, 0);
		if (S->P[i].view_due)
			EVENT(EV_VIEW, i, 0);
		for (j = 0; j < S->n; j++) {
			if (S->held[i][j].head != NULL)
				EVENT(EV_FLUSH, i, j);
			if (S->kern[j][i].head != NULL)
				EVENT(EV_READ, j, i);
		}
	}
#undef EVENT
	return n;
}

/*
 * Run with kills[k] (process) before step at[k]; returns the steps
 * taken.  S->failed says whether a check failed.
 */
static int
run(struct sim *S, uint32_t n, uint64_t seed, const uint32_t *kills,
    const int *at, int nkills)
{
	enum ev kind;
	uint32_t a, b;
	int step, total, k;
	struct item *it;

	sim_init(S, n, seed);
	for (step = 0; step < 100000 && !S->failed; step++) {
		for (k = 0; k < nkills; k++)
			if (at[k] == step)
				kill_proc(S, kills[k]);
		if ((total = events(S, -1, &kind, &a, &b)) == 0)
			break;
		(void)events(S, (int)(rnd(&S->rng) % (uint64_t)total), &kind,
		    &a, &b);
		switch (kind) {
		case EV_APP:
			app_step(S, a);
			break;
		case EV_VIEW:
			take_view(S, a);
			break;
		case EV_FLUSH:
			it = fifo_pop(&S->held[a][b]);
			fifo_push(&S->kern[a][b], it);
			break;
		case EV_READ:
			read_one(S, a, b);
			break;
		}
	}
	/* Kills scheduled after the end still count as failures. */
	return step;
}

static void
check(struct sim *S)
{
	const struct sproc *ref = NULL, *P;
	uint32_t i, r;
	int any = 0, initiator_lives = !S->P[0].dead;

	if (S->failed)
		return;
	for (i = 0; i < S->n; i++)
		if (!S->P[i].dead && S->P[i].round < NAGREE) {
			S->failed = 1;
			snprintf(S->why, sizeof(S->why), "survivor %u is stuck "
			    "in agreement %d", i, S->P[i].round);
			return;
		}
	for (r = 0; r < NAGREE; r++) {
		ref = NULL;
		for (i = 0; i < S->n; i++) {
			P = &S->P[i];
			if (!P->decided[r])
				continue;
			if (ref == NULL)
				ref = P;
			else if (P->flag[r] != ref->flag[r] ||
			    P->failed[r] != ref->failed[r]) {
				S->failed = 1;
				snprintf(S->why, sizeof(S->why), "agreement "
				    "%u: %u decided %#x/%#x, %u %#x/%#x", r, i,
				    P->flag[r], P->failed[r],
				    (unsigned)(ref - S->P), ref->flag[r],
				    ref->failed[r]);
				return;
			}
		}
		if (ref == NULL)
			continue;
		for (i = 0; i < S->n; i++) {
			int contributed = !((ref->flag[r] >> i) & 1);
			int failed = (int)((ref->failed[r] >> i) & 1);

			if ((!S->P[i].dead && !contributed) ||
			    (!contributed && !failed) ||
			    (failed && !S->P[i].dead)) {
				S->failed = 1;
				snprintf(S->why, sizeof(S->why), "agreement "
				    "%u: process %u (%s) contributed %d, "
				    "failed %d", r, i, S->P[i].dead ? "dead" :
				    "alive", contributed, failed);
				return;
			}
		}
	}
	for (i = 0; i < S->n; i++) {
		struct ft_ext x = { .op = FT_EXT_AGREE_KEPT };

		/* The last agreement of a context is kept, to answer the
		 * others; the one before is forgotten, freed or
		 * abandoned. */
		if (S->P[i].dead)
			continue;
		if (S->P[i].p.ops->ext(&S->P[i].p, &x) != 0 ||
		    x.result != (S->twoctx ? NAGREE : 1)) {
			S->failed = 1;
			snprintf(S->why, sizeof(S->why), "survivor %u keeps "
			    "%d agreements", i, x.result);
			return;
		}
	}
	for (i = 0; i < S->n; i++)
		if (!S->P[i].dead && S->P[i].revoked > 0)
			any = 1;
	for (i = 0; i < S->n; i++)
		if (!S->P[i].dead && S->P[i].revoked !=
		    (any || initiator_lives ? 1 : 0)) {
			S->failed = 1;
			snprintf(S->why, sizeof(S->why), "survivor %u saw the "
			    "revoke %d times", i, S->P[i].revoked);
			return;
		}
}

static int
run_check(struct sim *S, uint32_t n, uint64_t seed, const uint32_t *kills,
    const int *at, int nkills)
{
	int steps = run(S, n, seed, kills, at, nkills);

	check(S);
	sim_free(S);
	return steps;
}

/* 50 fault-free runs of n processes: 1 when a check failed. */
static int
fault_free_runs(struct sim *S, uint32_t n)
{
	uint64_t seed;

	for (seed = 1; seed <= 50; seed++) {
		(void)run_check(S, n, seed, NULL, NULL, 0);
		if (S->failed) {
			t_diag("n=%u seed=%llu: %s", n,
			    (unsigned long long)seed, S->why);
			return 1;
		}
	}
	return 0;
}

static void
test_fault_free(struct sim *S)
{
	uint32_t n;
	int bad = 0;

	for (n = 1; n <= MAXP && !bad; n++)
		bad = fault_free_runs(S, n);
	T_OK(!bad, "fault-free: every process decides the same, the AND of "
	    "all, on 1 to %d processes", MAXP);
}

/* The same, on an intercommunicator of n: each group's AND apart. */
static void
test_fault_free_inter(struct sim *S, uint32_t n)
{
	T_OK(!fault_free_runs(S, n), "fault-free IAGREE on %u + %u processes: each group's "
	    "flags in its own word, the same everywhere", S->inter,
	    n - S->inter);
}

/* Kill each process before each step of a fault-free run. */
static void
test_every_kill(struct sim *S, uint32_t n, int seeds)
{
	uint32_t x;
	uint64_t seed;
	int steps, at, bad = 0, runs = 0;

	for (seed = 1; seed <= (uint64_t)seeds && !bad; seed++) {
		steps = run_check(S, n, seed, NULL, NULL, 0);
		for (x = 0; x < n && !bad; x++)
			for (at = 0; at <= steps && !bad; at++) {
				runs++;
				(void)run_check(S, n, seed, &x, &at, 1);
				if (S->failed) {
					bad = 1;
					t_diag("n=%u seed=%llu kill %u at %d: "
					    "%s", n, (unsigned long long)seed,
					    x, at, S->why);
				}
			}
	}
	T_OK(!bad, "%d runs of %u processes, one killed at every step: "
	    "uniform agreement, no survivor left waiting", runs, n);
}

/* Several kills at random steps of a run as long as a fault-free one. */
static void
test_many_kills(struct sim *S, uint32_t n, int nk, int runs)
{
	uint32_t kills[MAXP];
	int at[MAXP], i, k, steps, bad = 0;
	uint64_t r = 88172645463325252ull + n * 7919u + (uint64_t)nk;

	for (i = 0; i < runs && !bad; i++) {
		steps = run_check(S, n, (uint64_t)i + 1, NULL, NULL, 0);
		for (k = 0; k < nk; k++) {
			kills[k] = (uint32_t)(rnd(&r) % n);
			at[k] = (int)(rnd(&r) % (uint64_t)(steps + 1));
		}
		(void)run_check(S, n, (uint64_t)i + 1, kills, at, nk);
		if (S->failed) {
			bad = 1;
			t_diag("n=%u run %d: %s", n, i, S->why);
		}
	}
	T_OK(!bad, "%d runs of %u processes%s with %d kills at random steps",
	    runs, n, S->abandon ? " abandoning agreement 0" : S->twoctx ?
	    " in agreements on two contexts at once" : S->inter ?
	    " on an intercommunicator (IAGREE)" : "", nk);
}

/*
 * Tree repair, at chosen points of agreement 0 on 16 processes (radix
 * 4: 0 is the root, with children 1, 2, 3, 4, 8 and 12; 4 the parent of
 * 5, 6 and 7): a parent dies with its subtree's contributions before
 * sending them on; a parent dies having passed the proposal to one
 * child only; the root dies having proposed to one child only; the
 * root dies having sent its decision to one child only, the next root
 * (1) or another (2); and, for uniformity, that child (2, a leaf) dies
 * too as soon as its program has the decision, so that no survivor has
 * seen it: they must still decide the same.  Each under 100 interleavings, the kills
 * counted as happening.
 */
static void
test_tree_repair(struct sim *S)
{
	static const struct {
		uint32_t	 x[2], kind[2];
		int		 n[2], deliver[2];
		const char	*what;
	} c[] = {
		{ { 4 }, { FT_AGREE_UP }, { 1 }, { 0 }, "a parent dies with "
		    "its subtree's contributions" },
		{ { 4 }, { FT_AGREE_PROPOSE }, { 1 }, { 1 }, "a parent dies "
		    "having passed the proposal to one child" },
		{ { 0 }, { FT_AGREE_PROPOSE }, { 1 }, { 1 }, "the root dies "
		    "having proposed to one child" },
		{ { 0 }, { FT_AGREE_COMMIT }, { 1 }, { 1 }, "the root dies "
		    "having sent the decision to the next root" },
		{ { 0 }, { FT_AGREE_COMMIT }, { 2 }, { 1 }, "the root dies "
		    "having sent the decision to another child" },
		{ { 0 }, { FT_AGREE_COMMIT }, { 2 }, { 1 }, "the root and the "
		    "one child it told of the decision die, the child once it "
		    "returned it" },
	};
	size_t k;
	uint64_t seed;
	int bad, missed;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		bad = missed = 0;
		memcpy(S->kx, c[k].x, sizeof(S->kx));
		memcpy(S->kkind, c[k].kind, sizeof(S->kkind));
		memcpy(S->kn, c[k].n, sizeof(S->kn));
		memcpy(S->kdeliver, c[k].deliver, sizeof(S->kdeliver));
		/* The last case: child 2 returns the decision, and dies. */
		S->kafter = k == sizeof(c) / sizeof(c[0]) - 1 ? 3 : 0;
		for (seed = 1; seed <= 100 && !bad; seed++) {
			(void)run(S, 16, seed, NULL, NULL, 0);
			if (!S->kdone[0] || (S->kkind[1] != 0 &&
			    !S->kdone[1]) || (S->kafter != 0 &&
			    !S->kafterdone))
				missed++;
			check(S);
			if (S->failed) {
				bad = 1;
				t_diag("seed %llu: %s", (unsigned long long)seed,
				    S->why);
			}
			sim_free(S);
		}
		T_OK(!bad && missed == 0, "16 processes, 100 runs: %s "
		    "(%d runs without the kills)", c[k].what, missed);
	}
	memset(S->kkind, 0, sizeof(S->kkind));
	S->kafter = 0;
}

/* The checks catch a wrong answer: a survivor that decides alone. */
static void
test_checks_bite(struct sim *S)
{
	(void)run(S, 3, 7, NULL, NULL, 0);
	S->P[1].flag[0] ^= 4;
	check(S);
	T_OK(S->failed, "the checks see two survivors that disagree");
	sim_free(S);
	(void)run(S, 3, 7, NULL, NULL, 0);
	S->P[2].round = 1;
	check(S);
	T_OK(S->failed, "the checks see a survivor left waiting");
	sim_free(S);
}

/* Send process 0 an UP from process 1 that says what m says. */
static int
bad_frame(struct sim *S, struct ft_msg_agree *m)
{
	struct ft_wbuf wb;
	struct ft_hdr h;
	int rc;

	ft_wbuf_init(&wb);
	if (ft_msg_agree_encode(&wb, 1, m) != 0)
		abort();
	(void)ft_hdr_decode(wb.p, &h);
	errno = 0;
	rc = S->P[0].p.ops->frame(&S->P[0].p, 1, &h, wb.p + FT_WIRE_HDRLEN);
	ft_wbuf_release(&wb);
	return rc == -1 && errno == EPROTO;
}

/* Frames that lie about their sender, the members or the dead. */
static void
test_bad_frames(struct sim *S)
{
	struct ft_msg_agree m;
	uint8_t bm[1] = { 0 };
	struct ft_ext x;
	uint32_t members[3] = { 0, 1, 2 };
	uint8_t failed[1] = { 0 }, acked[1] = { 0 };

	sim_init(S, 3, 1);
	memset(&x, 0, sizeof(x));
	x.op = FT_EXT_AGREE;
	x.ctx = CTX;
	x.members = members;
	x.n = 3;
	x.me = 0;
	x.flag = 1;
	x.failed = failed;
	x.acked = acked;
	T_OK(S->P[0].p.ops->ext(&S->P[0].p, &x) == 0, "join an agreement");
	memset(&m, 0, sizeof(m));
	m.kind = FT_AGREE_UP;
	m.ctx = CTX;
	m.n = 3;
	m.from = 2;		/* but process 1 sends it */
	m.v = (struct ft_agree_val){ 1, 0, bm, bm, UINT32_MAX };
	m.covered = m.acks = bm;
	T_OK(bad_frame(S, &m), "an UP whose member is not its sender: EPROTO");
	m.n = 4;
	m.from = 1;
	T_OK(bad_frame(S, &m), "an UP for another number of members: EPROTO");
	m.n = 3;
	m.round = 1;		/* says member 0, who reads it, is dead */
	T_OK(bad_frame(S, &m), "an UP whose round says its reader is dead: "
	    "EPROTO");
	sim_free(S);
}

/*
 * Without failures, agreement 0 takes 4 (n - 1) frames and its
 * decision is at most 4 ceil(log4 n) frames deep at every process
 * (lib/proto/ulfm.c's tree has radix 4): logarithmic.
 */
static void
test_log_depth(struct sim *S)
{
	uint32_t n, i, lg;
	uint64_t seed;
	int bad = 0, deepest = 0;

	for (n = 2; n <= MAXP && !bad; n++) {
		for (lg = 0; (1u << 2 * lg) < n; lg++)
			continue;
		for (seed = 1; seed <= 3 && !bad; seed++) {
			(void)run(S, n, seed, NULL, NULL, 0);
			check(S);
			if (S->failed)
				bad = 1;
			else if (S->agree0 != 4 * ((int)n - 1)) {
				bad = 1;
				snprintf(S->why, sizeof(S->why), "%d frames",
				    S->agree0);
			}
			for (i = 0; i < n && !bad; i++) {
				if (S->P[i].ddepth > deepest)
					deepest = S->P[i].ddepth;
				if (S->P[i].ddepth > 4 * (int)lg) {
					bad = 1;
					snprintf(S->why, sizeof(S->why),
					    "process %u decided %d frames deep",
					    i, S->P[i].ddepth);
				}
			}
			if (bad)
				t_diag("n=%u seed=%llu: %s", n,
				    (unsigned long long)seed, S->why);
			sim_free(S);
		}
	}
	T_OK(!bad, "no failure, 2 to %d processes: 4 (n - 1) frames, decided "
	    "within 4 ceil(log4 n) message delays (deepest %d)", MAXP,
	    deepest);
}

int
main(void)
{
	static struct sim S;

	test_fault_free(&S);
	test_checks_bite(&S);
	test_bad_frames(&S);
	test_log_depth(&S);
	test_tree_repair(&S);
	test_every_kill(&S, 3, 4);
	test_every_kill(&S, 4, 2);
	test_every_kill(&S, 5, 1);
	test_every_kill(&S, 8, 1);
	test_many_kills(&S, 4, 2, 400);
	test_many_kills(&S, 5, 3, 400);
	test_many_kills(&S, 6, 4, 200);
	test_many_kills(&S, 8, 1, 200);
	test_many_kills(&S, 8, 3, 200);
	test_many_kills(&S, 13, 2, 100);
	test_many_kills(&S, 16, 4, 60);
	test_many_kills(&S, 24, 3, 30);
	test_many_kills(&S, 32, 6, 20);
	S.abandon = 1;
	test_many_kills(&S, 5, 2, 200);
	test_many_kills(&S, 12, 3, 50);
	S.abandon = 0;
	S.twoctx = 1;
	test_many_kills(&S, 4, 1, 200);
	test_many_kills(&S, 7, 2, 100);
	test_many_kills(&S, 16, 3, 30);
	S.twoctx = 0;
	/* An intercommunicator's groups: 2 + 3, 1 + 6, 5 + 8. */
	S.inter = 2;
	test_fault_free_inter(&S, 5);
	test_many_kills(&S, 5, 2, 200);
	S.inter = 1;
	test_many_kills(&S, 7, 3, 100);
	S.inter = 5;
	test_fault_free_inter(&S, 13);
	test_many_kills(&S, 13, 3, 50);
	S.inter = 0;
	return t_done();
}

/* SPDX-License-Identifier: ISC */
/*
 * The protocol seam without sockets: a simulated engine implements
 * struct ft_core_ops over in-memory channels and drives a protocol
 * through its hooks, as lib/pt2pt does.  Each ordered pair of processes
 * has a channel made of two FIFOs: bytes the sender still holds (they die
 * with it) and bytes the kernel has (delivered even after the sender
 * died).  Every step picks one enabled event at random: a process runs
 * the next operation of its program, a channel moves a frame into the
 * kernel, a process reads the next frame of a channel, or a process
 * takes a new view.  A kill removes a process before a chosen step.
 *
 * The program of every rank sends to two ranks a round, settles a
 * nondeterministic flag, and receives with MPI_ANY_SOURCE; the payload of
 * each message depends on every outcome seen before it, so a replica
 * that followed another outcome, or a message that outlived the decision
 * it depended on, shows up as a payload that differs.
 *
 * Checked for "replicate" at R = 2 and R = 3 over 3 and 4 ranks, under
 * random interleavings, a kill of every process at every step, and
 * pairs of kills: every surviving process delivers every message exactly
 * once and in its sender's order, every surviving replica of a rank made
 * the same choices and received the same bytes as every other, and
 * nothing is reported as a divergence.  The "none" protocol runs the same
 * program fault-free as the reference.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto/proto.h"
#include "tap.h"

#define MAXR		4		/* ranks */
#define MAXK		3		/* processes per rank */
#define MAXP		(MAXR * MAXK)
#define ROUNDS		3
#define FANOUT		2		/* messages a rank sends a round */
#define MAXOPS		(ROUNDS * (2 * FANOUT + 1))
#define MAXRECV		(ROUNDS * FANOUT)
#define PAYLOAD		24

/* The simulated engine's request: the protocol only passes it back. */
struct ft_req {
	int	 done;
	int	 held;		/* an ANY_SOURCE receive waiting to resolve */
	int	 src;		/* -1: any */
	uint64_t rtag;
};

struct item {
	struct item	*next;
	int		 is_msg;
	struct ft_msg	 m;		/* is_msg: buf points at data */
	uint8_t		 data[PAYLOAD];
	uint8_t		*frame;		/* !is_msg: header and body */
	size_t		 flen;
	struct sent	*sent;		/* is_msg with a cookie */
};

#include "sim.h"

/* A message out to several processes: the cookie when all have it. */
struct sent {
	void		*cookie;
	uint32_t	 owner;
	int		 left;
};

enum op_kind { OP_SEND = 1, OP_FLAG, OP_RECV };

struct op {
	enum op_kind	 kind;
	uint32_t	 dst;		/* OP_SEND */
	uint32_t	 round;
};

/* A message taken by the protocol, waiting for its receive. */
struct ux {
	struct ux	*next;
	struct ft_msg	 m;
	uint8_t		 data[PAYLOAD];
	uint32_t	 proc;
};

struct sproc {
	int		 alive;
	uint32_t	 id, rank;
	struct ft_proto	 proto;
	int		 pc;		/* next operation */
	int		 phase;		/* OP_FLAG: 0 ask, 1 settle */
	struct ft_nd	 ev;
	struct ft_req	 rreq;		/* the receive under way */
	int		 posted;
	struct ux	*ux_head, *ux_tail;
	uint64_t	 state;		/* a hash of every outcome seen */
	uint64_t	 nextk[MAXR];	/* next message number from each */
	/* What this process saw, to compare replicas. */
	uint64_t	 outcomes[ROUNDS * 2 + MAXRECV];
	int		 noutcomes;
	uint8_t		 got[MAXRECV][PAYLOAD];
	uint32_t	 gotsrc[MAXRECV];
	int		 ngot;
	uint8_t		 sent[MAXR][ROUNDS][PAYLOAD];	/* by dst, round */
	uint8_t		 gone[MAXP];	/* views taken */
	int		 view_due;
	uint64_t	 rng;
};

struct sim {
	const struct ft_proto_ops *ops;
	uint32_t	 nranks, nrep, nproc;
	struct sproc	 p[MAXP];
	struct fifo	 user[MAXP][MAXP], kern[MAXP][MAXP];
	struct op	 prog[MAXR][MAXOPS];
	int		 nops;
	uint64_t	 rng, step;
	int		 in_hook;
	uint32_t	 dead[MAXP];
	uint32_t	 ndead;
	char		 err[256];
	int		 diverged;
};


/* The core's side of a process: which one the protocol is. */
struct score {
	struct sim	*S;
	uint32_t	 me;
};

static struct score	 cores[MAXP];

#define ME(c)	(((struct score *)(c))->me)
#define SIM(c)	(((struct score *)(c))->S)

static void
sent_done(struct sim *S, struct sent *s)
{
	if (--s->left > 0)
		return;
	if (S->p[s->owner].alive && S->ops->sent != NULL) {
		S->in_hook++;
		S->ops->sent(&S->p[s->owner].proto, s->cookie);
		S->in_hook--;
	}
	free(s);
}

/* The bytes may hold several frames: one item each, as a stream. */
static int
c_send_frame(void *core, uint32_t proc, const struct ft_wbuf *wb)
{
	struct sim *S = SIM(core);
	struct item *it;
	struct ft_hdr h;
	size_t off;

	if (proc >= S->nproc || S->p[ME(core)].gone[proc]) {
		errno = ECONNRESET;
		return -1;
	}
	for (off = 0; off < wb->len; off += h.len) {
		if (wb->len - off < FT_WIRE_HDRLEN ||
		    ft_hdr_decode(wb->p + off, &h) != 0 ||
		    h.len < FT_WIRE_HDRLEN || h.len > wb->len - off) {
			fail(S, "process %u sent bytes that are not frames",
			    ME(core));
			errno = EPROTO;
			return -1;
		}
		if ((it = calloc(1, sizeof(*it))) == NULL ||
		    (it->frame = malloc(h.len)) == NULL)
			abort();
		memcpy(it->frame, wb->p + off, h.len);
		it->flen = h.len;
		fifo_push(&S->user[ME(core)][proc], it);
	}
	return 0;
}

static int
c_send_msg(void *core, const uint32_t *procs, uint32_t n,
    const struct ft_msg *m, void *cookie)
{
	struct sim *S = SIM(core);
	struct sent *s = NULL;
	struct item *it;
	uint32_t i;

	if (n == 0 || m->len != PAYLOAD) {
		fail(S, "send_msg: %u processes, %zu bytes", n, m->len);
		errno = EINVAL;
		return -1;
	}
	if (cookie != NULL) {
		if ((s = calloc(1, sizeof(*s))) == NULL)
			abort();
		*s = (struct sent){ cookie, ME(core), (int)n + 1 };
	}
	for (i = 0; i < n; i++) {
		if (procs[i] / S->nrep != m->dst) {
			fail(S, "send_msg: process %u is not of rank %u",
			    procs[i], m->dst);
			continue;
		}
		if ((it = calloc(1, sizeof(*it))) == NULL)
			abort();
		it->is_msg = 1;
		it->m = *m;
		it->m.req = NULL;
		it->m.proc = ME(core);
		memcpy(it->data, m->buf, PAYLOAD);
		it->m.buf = it->data;
		it->sent = s;
		fifo_push(&S->user[ME(core)][procs[i]], it);
	}
	if (m->req != NULL)
		m->req->done = 1;
	if (s != NULL)
		sent_done(S, s);	/* the creator's share */
	return 0;
}

static void
c_complete(void *core, struct ft_req *r, int err)
{
	(void)core;
	(void)err;
	r->done = 1;
}

static uint64_t
c_now_ns(void *core)
{
	return SIM(core)->step;
}

static void
c_notify(void *core, uint32_t kind, const char *text)
{
	struct sim *S = SIM(core);

	if (kind == FT_NOTE_DIVERGE) {
		S->diverged = 1;
		fail(S, "process %u notified: %s", ME(core), text);
	}
}

static void	try_recv(struct sim *, struct sproc *);

static int
c_release(void *core, void *handle)
{
	struct sim *S = SIM(core);
	struct sproc *P = &S->p[ME(core)];
	struct item *it = handle;
	struct ux *u;

	if ((u = calloc(1, sizeof(*u))) == NULL)
		abort();
	u->m = it->m;
	memcpy(u->data, it->data, PAYLOAD);
	u->m.buf = u->data;
	u->proc = it->m.proc;
	item_free(it);
	if (P->ux_tail != NULL)
		P->ux_tail->next = u;
	else
		P->ux_head = u;
	P->ux_tail = u;
	try_recv(S, P);
	return 0;
}

static void
c_drop(void *core, void *handle)
{
	(void)core;
	item_free(handle);
}

static int
c_resolve(void *core, struct ft_req *r, int src)
{
	struct sim *S = SIM(core);

	r->src = src;
	r->held = 0;
	try_recv(S, &S->p[ME(core)]);
	return 0;
}

static int
c_proc_state(void *core, uint32_t q)
{
	struct sim *S = SIM(core);
	uint32_t me = ME(core);
	int st = 0;

	if (q >= S->nproc)
		return FT_PROC_GONE;
	if (S->p[me].gone[q])
		st |= FT_PROC_GONE;
	if (S->user[me][q].head != NULL)
		st |= FT_PROC_UNSENT;
	if (S->p[q].alive || S->kern[q][me].head != NULL)
		st |= FT_PROC_READING;
	return st;
}

/* Move what a process holds for q into the kernel. */
static void
to_kernel(struct sim *S, uint32_t from, uint32_t to)
{
	struct item *it;

	while ((it = fifo_pop(&S->user[from][to])) != NULL) {
		struct sent *s = it->is_msg ? it->sent : NULL;

		if (S->p[to].alive)
			fifo_push(&S->kern[from][to], it);
		else
			item_free(it);
		if (s != NULL)
			sent_done(S, s);
		break;
	}
}

/* Outside a hook, progress writes what the process holds. */
static int
c_progress(void *core, int timeout_ms)
{
	struct sim *S = SIM(core);
	uint32_t q;

	(void)timeout_ms;
	if (S->in_hook > 0) {
		errno = EDEADLK;
		return -1;
	}
	for (q = 0; q < S->nproc; q++)
		while (S->user[ME(core)][q].head != NULL)
			to_kernel(S, ME(core), q);
	return 0;
}

static const struct ft_core_ops sim_core = {
	.send_frame = c_send_frame,
	.send_msg = c_send_msg,
	.complete = c_complete,
	.now_ns = c_now_ns,
	.notify = c_notify,
	.release = c_release,
	.drop = c_drop,
	.resolve = c_resolve,
	.proc_state = c_proc_state,
	.progress = c_progress,
};

/* The payload of rank src's round-th message to dst, given its state. */
static void
payload(uint8_t *b, uint32_t src, uint32_t dst, uint32_t round,
    uint64_t state)
{
	memset(b, 0, PAYLOAD);
	memcpy(b, &src, 4);
	memcpy(b + 4, &dst, 4);
	memcpy(b + 8, &round, 4);
	memcpy(b + 16, &state, 8);
}

/* The first message the receive under way matches, or NULL. */
static struct ux *
recv_match(struct sproc *P, struct ux **prevp)
{
	struct ux *u, *prev = NULL;

	if (!P->posted || P->rreq.held)
		return NULL;
	for (u = P->ux_head; u != NULL; prev = u, u = u->next)
		if (P->rreq.src < 0 || (uint32_t)P->rreq.src == u->m.src)
			break;
	*prevp = prev;
	return u;
}

/* The receive under way takes the first message it matches, if any. */
static void
try_recv(struct sim *S, struct sproc *P)
{
	struct ux *u, *prev;
	uint32_t src, round;

	if ((u = recv_match(P, &prev)) == NULL)
		return;
	if (prev != NULL)
		prev->next = u->next;
	else
		P->ux_head = u->next;
	if (P->ux_tail == u)
		P->ux_tail = prev;
	P->posted = 0;
	S->in_hook++;
	if (S->ops->match != NULL)
		S->ops->match(&P->proto, &u->m, P->rreq.rtag);
	if (S->ops->deliver != NULL)
		(void)S->ops->deliver(&P->proto, &u->m);
	S->in_hook--;
	src = u->m.src;
	memcpy(&round, u->data + 8, 4);
	if (u->m.seq != P->nextk[src])
		fail(S, "process %u took message %" PRIu64 " of rank %u, "
		    "expected %" PRIu64, P->id, u->m.seq, src, P->nextk[src]);
	P->nextk[src]++;
	if (P->ngot < MAXRECV) {
		memcpy(P->got[P->ngot], u->data, PAYLOAD);
		P->gotsrc[P->ngot++] = src;
	} else
		fail(S, "process %u received too many messages", P->id);
	P->state = mix(P->state, src);
	P->outcomes[P->noutcomes++] = src;
	free(u);
	P->pc++;
}

/* Run the next operation of P's program, or go on waiting in it. */
static int
app_step(struct sim *S, struct sproc *P)
{
	const struct op *o = &S->prog[P->rank][P->pc];
	struct ft_msg m;
	struct ft_req sreq;
	uint8_t b[PAYLOAD];
	int rc;

	if (P->pc == S->nops)
		return 0;	/* finishing: the tick does the work */
	switch (o->kind) {
	case OP_SEND:
		payload(b, P->rank, o->dst, o->round, P->state);
		memcpy(P->sent[o->dst][o->round], b, PAYLOAD);
		memset(&sreq, 0, sizeof(sreq));
		memset(&m, 0, sizeof(m));
		m.ctx = 1;
		m.src = P->rank;
		m.dst = o->dst;
		m.seq = o->round;	/* one message a round to each */
		m.buf = b;
		m.len = PAYLOAD;
		m.csrc = P->rank;
		m.proc = P->id;
		m.req = &sreq;
		rc = S->ops->send != NULL ? S->ops->send(&P->proto, &m) : 0;
		if (rc < 0) {
			fail(S, "process %u: send: %s", P->id, strerror(errno));
			return -1;
		}
		if (rc == 0)	/* the engine's route: the rank's first */
			(void)c_send_msg(&cores[P->id],
			    (uint32_t[]){ o->dst * S->nrep }, 1, &m, NULL);
		if (!sreq.done)
			fail(S, "process %u: send not complete", P->id);
		P->pc++;
		return 0;
	case OP_FLAG:
		if (S->ops->nondet == NULL) {
			P->outcomes[P->noutcomes++] = rnd(&P->rng) & 1;
			P->pc++;
			return 0;
		}
		if (P->phase == 0) {
			memset(&P->ev, 0, sizeof(P->ev));
			P->ev.op = FT_ND_ASK;
			if (S->ops->nondet(&P->proto, &P->ev) != 0)
				return errno == EAGAIN ? 0 : -1;
			P->phase = 1;
			memset(&P->ev, 0, sizeof(P->ev));
			P->ev.op = FT_ND_SETTLE;
			P->ev.kind = FT_ND_FLAG;
			/* What this process would see on its own. */
			P->ev.v[0] = rnd(&P->rng) & 1;
		}
		if (S->ops->nondet(&P->proto, &P->ev) != 0) {
			if (errno == EAGAIN)
				return 0;
			fail(S, "process %u: nondet: %s", P->id,
			    strerror(errno));
			return -1;
		}
		P->phase = 0;
		P->state = mix(P->state, P->ev.v[0] + 2);
		P->outcomes[P->noutcomes++] = P->ev.v[0] + 2;
		P->pc++;
		return 0;
	case OP_RECV:
		if (!P->posted) {
			memset(&P->rreq, 0, sizeof(P->rreq));
			P->rreq.src = -1;
			P->posted = 1;
			if (S->ops->recv_any != NULL) {
				rc = S->ops->recv_any(&P->proto, &P->rreq,
				    &P->rreq.rtag);
				if (rc == FT_RECV_WAIT)
					P->rreq.held = 1;
				else
					P->rreq.src = rc;
			}
		}
		try_recv(S, P);
		return 0;
	}
	return -1;
}

static void
proc_tick(struct sim *S, struct sproc *P)
{
	if (S->ops->tick != NULL) {
		S->in_hook++;
		S->ops->tick(&P->proto);
		S->in_hook--;
	}
}

/* P reads the next frame the kernel has from q. */
static int
read_one(struct sim *S, struct sproc *P, uint32_t q)
{
	struct item *it = fifo_pop(&S->kern[q][P->id]);
	struct ft_hdr h;
	int rc;

	S->in_hook++;
	if (it->is_msg) {
		rc = S->ops->arrive != NULL ?
		    S->ops->arrive(&P->proto, &it->m, it) : FT_ARRIVE_MATCH;
		if (rc == FT_ARRIVE_MATCH)
			rc = c_release(&cores[P->id], it);
		else if (rc == FT_ARRIVE_DUP) {
			item_free(it);
			rc = 0;
		} else if (rc == FT_ARRIVE_HELD)
			rc = 0;
	} else {
		if (ft_hdr_decode(it->frame, &h) != 0 || h.sender != q ||
		    h.len != it->flen)
			rc = -1;
		else
			rc = S->ops->frame(&P->proto, q, &h,
			    it->frame + FT_WIRE_HDRLEN);
		item_free(it);
	}
	S->in_hook--;
	if (rc != 0)
		fail(S, "process %u: a frame from %u: %s", P->id, q,
		    strerror(errno));
	return rc;
}

static void
take_view(struct sim *S, struct sproc *P)
{
	uint32_t i;

	P->view_due = 0;
	for (i = 0; i < S->ndead; i++)
		P->gone[S->dead[i]] = 1;
	if (S->ops->view != NULL) {
		S->in_hook++;
		(void)S->ops->view(&P->proto, S->dead, S->ndead);
		S->in_hook--;
	}
}

static void
kill_proc(struct sim *S, uint32_t x)
{
	uint32_t q;
	struct item *it;

	if (!S->p[x].alive)
		return;
	S->p[x].alive = 0;
	S->dead[S->ndead++] = x;
	/* What it held dies with it; the kernel's bytes are delivered. */
	for (q = 0; q < S->nproc; q++)
		while ((it = fifo_pop(&S->user[x][q])) != NULL) {
			struct sent *s = it->is_msg ? it->sent : NULL;

			item_free(it);
			if (s != NULL)
				sent_done(S, s);
		}
	for (q = 0; q < S->nproc; q++)
		if (S->p[q].alive)
			S->p[q].view_due = 1;
}

/* Events enabled now, by number: returns how many; picks the k-th. */
enum ev_kind { EV_APP, EV_KERNEL, EV_READ, EV_VIEW };

static int
events(struct sim *S, int pick, enum ev_kind *kind, uint32_t *a, uint32_t *b)
{
	struct ux *u;
	uint32_t i, j;
	int n = 0;

#define EV(k, x, y) do {						\
	if (n++ == pick) {						\
		*kind = (k);						\
		*a = (x);						\
		*b = (y);						\
	}								\
} while (0)
	for (i = 0; i < S->nproc; i++) {
		struct sproc *P = &S->p[i];

		if (!P->alive)
			continue;
		if (P->pc < S->nops && (!P->posted || recv_match(P, &u)))
			EV(EV_APP, i, 0);
		/* Done: it asks busy until not, as MPI_Finalize does. */
		else if (P->pc == S->nops && S->ops->busy != NULL &&
		    S->ops->busy(&P->proto))
			EV(EV_APP, i, 0);
		if (P->view_due)
			EV(EV_VIEW, i, 0);
		for (j = 0; j < S->nproc; j++) {
			if (S->user[i][j].head != NULL)
				EV(EV_KERNEL, i, j);
			if (S->kern[j][i].head != NULL)
				EV(EV_READ, i, j);
		}
	}
#undef EV
	return n;
}

static void
build_program(struct sim *S)
{
	uint32_t r, k;
	int n;

	for (r = 0; r < S->nranks; r++) {
		n = 0;
		for (uint32_t round = 0; round < ROUNDS; round++) {
			for (k = 1; k <= FANOUT; k++)
				S->prog[r][n++] = (struct op){ OP_SEND,
				    (r + k) % S->nranks, round };
			S->prog[r][n++] = (struct op){ OP_FLAG, 0, round };
			for (k = 1; k <= FANOUT; k++)
				S->prog[r][n++] = (struct op){ OP_RECV, 0,
				    round };
		}
		S->nops = n;
	}
}

static void
sim_free(struct sim *S)
{
	struct item *it;
	struct ux *u;
	uint32_t i, j;

	S->in_hook++;
	for (i = 0; i < S->nproc; i++)
		if (S->p[i].proto.ops != NULL)
			ft_proto_release(&S->p[i].proto);
	for (i = 0; i < S->nproc; i++) {
		for (j = 0; j < S->nproc; j++) {
			while ((it = fifo_pop(&S->user[i][j])) != NULL) {
				if (it->is_msg && it->sent != NULL &&
				    --it->sent->left == 0)
					free(it->sent);
				item_free(it);
			}
			while ((it = fifo_pop(&S->kern[i][j])) != NULL)
				item_free(it);
		}
		while ((u = S->p[i].ux_head) != NULL) {
			S->p[i].ux_head = u->next;
			free(u);
		}
	}
}

/*
 * One run: nranks ranks of nrep processes, interleaving from seed,
 * kills[i] killed before step at[i].  Returns the number of steps, or
 * -1 with S->err set.
 */
static long
run(struct sim *S, const struct ft_proto_ops *ops, uint32_t nranks,
    uint32_t nrep, uint64_t seed, const uint32_t *kills, const uint64_t *at,
    int nkills)
{
	struct ft_conf cf;
	enum ev_kind kind = EV_APP;
	uint32_t i, a = 0, b = 0;
	int n, k, busy;

	memset(S, 0, sizeof(*S));
	S->ops = ops;
	S->nranks = nranks;
	S->nrep = nrep;
	S->nproc = nranks * nrep;
	S->rng = seed * 2654435761u + 1;
	build_program(S);
	for (i = 0; i < S->nproc; i++) {
		struct sproc *P = &S->p[i];

		P->alive = 1;
		P->id = i;
		P->rank = i / nrep;
		P->rng = (seed + 1) * 7919 + i * 104729 + 1;
		cores[i] = (struct score){ S, i };
		memset(&cf, 0, sizeof(cf));
		cf.rank = P->rank;
		cf.size = nranks;
		cf.ppr = nrep;
		cf.proc = i;
		cf.check_divergence = 1;
		if (ft_proto_init(&P->proto, ops, &cf, &sim_core,
		    &cores[i]) != 0) {
			fail(S, "init: %s", strerror(errno));
			return -1;
		}
	}
	for (S->step = 0; S->err[0] == '\0'; S->step++) {
		for (k = 0; k < nkills; k++)
			if (at[k] == S->step)
				kill_proc(S, kills[k]);
		n = events(S, -1, &kind, &a, &b);
		if (n == 0)
			break;
		(void)events(S, (int)(rnd(&S->rng) % (uint64_t)n), &kind, &a,
		    &b);
		switch (kind) {
		case EV_APP:
			(void)app_step(S, &S->p[a]);
			break;
		case EV_KERNEL:
			to_kernel(S, a, b);
			break;
		case EV_READ:
			(void)read_one(S, &S->p[a], b);
			break;
		case EV_VIEW:
			take_view(S, &S->p[a]);
			break;
		}
		if (S->p[a].alive)
			proc_tick(S, &S->p[a]);
		if (S->step > 200000)
			fail(S, "no end after %" PRIu64 " steps", S->step);
	}
	if (S->err[0] != '\0')
		return -1;
	/* Quiet: every live process ran its program and has nothing due. */
	for (i = 0; i < S->nproc; i++) {
		struct sproc *P = &S->p[i];

		if (!P->alive)
			continue;
		busy = ops->busy != NULL && ops->busy(&P->proto);
		if (P->pc != S->nops || busy) {
			fail(S, "stuck: process %u at operation %d of %d%s%s",
			    i, P->pc, S->nops, P->posted ? ", receiving" : "",
			    busy ? ", busy" : "");
			return -1;
		}
	}
	return (long)S->step;
}

/*
 * The outcome of a run holds: every live process received every message
 * once (run checks the order), and the replicas of each rank saw the
 * same outcomes and bytes, which their senders' replicas made.
 */
static int
check(struct sim *S)
{
	uint32_t i, j, r, src, dst, round;
	struct sproc *P, *Q;

	for (i = 0; i < S->nproc; i++) {
		P = &S->p[i];
		if (!P->alive)
			continue;
		if (P->ngot != MAXRECV) {
			fail(S, "process %u received %d messages, not %d",
			    i, P->ngot, MAXRECV);
			return 0;
		}
		for (j = 0; j < (uint32_t)P->ngot; j++) {
			memcpy(&src, P->got[j], 4);
			memcpy(&dst, P->got[j] + 4, 4);
			memcpy(&round, P->got[j] + 8, 4);
			if (src != P->gotsrc[j] || dst != P->rank ||
			    round >= ROUNDS) {
				fail(S, "process %u: message %u is not the "
				    "program's", i, j);
				return 0;
			}
			/* Every live replica of the sender made these
			 * bytes. */
			for (r = 0; r < S->nrep; r++) {
				Q = &S->p[src * S->nrep + r];
				if (Q->alive && memcmp(Q->sent[dst][round],
				    P->got[j], PAYLOAD) != 0) {
					fail(S, "process %u got rank %u's "
					    "message %u with bytes process %u "
					    "did not make", i, src, round,
					    Q->id);
					return 0;
				}
			}
		}
		for (r = 0; r < S->nrep; r++) {
			Q = &S->p[P->rank * S->nrep + r];
			if (Q == P || !Q->alive)
				continue;
			if (Q->noutcomes != P->noutcomes ||
			    memcmp(Q->outcomes, P->outcomes,
			    sizeof(P->outcomes[0]) * (size_t)P->noutcomes) !=
			    0 || memcmp(Q->got, P->got, sizeof(P->got)) != 0) {
				fail(S, "processes %u and %u of rank %u saw "
				    "other outcomes", P->id, Q->id, P->rank);
				return 0;
			}
		}
	}
	return 1;
}

static int
run_check(struct sim *S, const struct ft_proto_ops *ops, uint32_t nranks,
    uint32_t nrep, uint64_t seed, const uint32_t *kills, const uint64_t *at,
    int nkills, long *steps)
{
	long n = run(S, ops, nranks, nrep, seed, kills, at, nkills);
	int ok = n >= 0 && check(S);

	if (steps != NULL)
		*steps = n;
	sim_free(S);
	return ok;
}

static void
test_fault_free(struct sim *S)
{
	int seed, ok;

	ok = 1;
	for (seed = 1; seed <= 50 && ok; seed++)
		ok = run_check(S, &ft__proto_none, 3, 1, (uint64_t)seed, NULL,
		    NULL, 0, NULL);
	if (!ok)
		t_diag("seed %d: %s", seed - 1, S->err);
	T_OK(ok, "sim: none, 3 ranks, 50 interleavings: every message once, "
	    "in order");
	for (uint32_t nrep = 1; nrep <= 3; nrep++) {
		ok = 1;
		for (seed = 1; seed <= 200 && ok; seed++)
			ok = run_check(S, &ft__proto_replicate, 4, nrep,
			    (uint64_t)seed, NULL, NULL, 0, NULL);
		if (!ok)
			t_diag("seed %d: %s", seed - 1, S->err);
		T_OK(ok, "sim: replicate, 4 ranks, R = %u, 200 interleavings "
		    "without faults: replicas agree", nrep);
	}
}

/*
 * Kill every process at every step of a run (as long as its rank keeps
 * another replica), for a few interleavings.
 */
static void
test_every_kill(struct sim *S, uint32_t nranks, uint32_t nrep, int seeds)
{
	long steps, s, runs = 0;
	uint64_t at;
	uint32_t x;
	int seed, ok = 1;

	for (seed = 1; seed <= seeds && ok; seed++) {
		if (!run_check(S, &ft__proto_replicate, nranks, nrep,
		    (uint64_t)seed, NULL, NULL, 0, &steps)) {
			ok = 0;
			break;
		}
		for (x = 0; x < nranks * nrep && ok; x++)
			for (s = 0; s <= steps && ok; s++) {
				at = (uint64_t)s;
				ok = run_check(S, &ft__proto_replicate, nranks,
				    nrep, (uint64_t)seed, &x, &at, 1, NULL);
				runs++;
				if (!ok)
					t_diag("seed %d, process %u killed "
					    "before step %ld: %s", seed, x, s,
					    S->err);
			}
	}
	T_OK(ok, "sim: replicate, %u ranks, R = %u: a kill of each of the %u "
	    "processes before each step (%ld runs)", nranks, nrep,
	    nranks * nrep, runs);
}

/* Two kills at random steps, of any two processes whose ranks survive. */
static void
test_two_kills(struct sim *S, uint32_t nranks, uint32_t nrep, int runs)
{
	uint64_t rng = 12345, at[2];
	uint32_t kills[2];
	long steps;
	int i, ok = 1, done = 0;

	for (i = 0; i < runs && ok; i++) {
		uint64_t seed = 1 + rnd(&rng) % 1000;

		if (!run_check(S, &ft__proto_replicate, nranks, nrep, seed,
		    NULL, NULL, 0, &steps) || steps <= 0) {
			ok = 0;
			break;
		}
		kills[0] = (uint32_t)(rnd(&rng) % (nranks * nrep));
		do
			kills[1] = (uint32_t)(rnd(&rng) % (nranks * nrep));
		while (kills[1] == kills[0] || (nrep == 2 &&
		    kills[1] / nrep == kills[0] / nrep));
		at[0] = rnd(&rng) % (uint64_t)steps;
		at[1] = at[0] + rnd(&rng) % ((uint64_t)steps - at[0] + 1);
		ok = run_check(S, &ft__proto_replicate, nranks, nrep, seed,
		    kills, at, 2, NULL);
		done++;
		if (!ok)
			t_diag("seed %" PRIu64 ", kills %u at %" PRIu64 " and "
			    "%u at %" PRIu64 ": %s", seed, kills[0], at[0],
			    kills[1], at[1], S->err);
	}
	T_OK(ok, "sim: replicate, %u ranks, R = %u: two kills at random steps "
	    "(%d runs)", nranks, nrep, done);
}

/* The checks catch what they are for: a replica that does not follow. */
static void
test_checks_bite(struct sim *S)
{
	static struct ft_proto_ops broken;
	int seed, caught = 0;

	/* A protocol that forgets the master's decisions: each replica
	 * takes its own outcome. */
	broken = ft__proto_replicate;
	broken.nondet = NULL;
	for (seed = 1; seed <= 20; seed++)
		if (!run_check(S, &broken, 3, 2, (uint64_t)seed, NULL, NULL, 0,
		    NULL))
			caught++;
	T_OK(caught > 0, "sim: replicas that decide for themselves are "
	    "caught (%d of 20 runs)", caught);
}

int
main(void)
{
	static struct sim S;

	test_fault_free(&S);
	test_checks_bite(&S);
	test_every_kill(&S, 3, 2, 2);
	test_every_kill(&S, 3, 3, 1);
	test_two_kills(&S, 4, 2, 300);
	test_two_kills(&S, 3, 3, 300);
	return t_done();
}

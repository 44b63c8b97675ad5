/* SPDX-License-Identifier: ISC */
/*
 * The "vlog" protocol without sockets between ranks: a simulated engine
 * (as in test_seam.c) implements struct ft_core_ops over in-memory
 * channels, and drives one process a rank through the protocol's hooks.
 * Each ordered pair of processes has a channel of two FIFOs: bytes the
 * sender still holds (they die with it) and bytes the kernel has.
 * Every step picks one enabled event at random: a process runs the next
 * operation of its program, a channel moves a frame into the kernel, a
 * process reads the next frame of a channel, or takes a view.  The event
 * logger is real: `ftlog serve`'s library (ft_logd_serve) in a child
 * process, which the protocol's client reaches through the fd it asks
 * the engine to watch.
 *
 * A kill removes a process before a chosen step; once every live
 * process has taken the view, the launcher's part is played: the
 * process starts again from its first operation as the next
 * incarnation, and every other process forgets the connections with
 * the one before (REVIVE).
 *
 * The program of every rank sends to two ranks a round, settles a
 * nondeterministic flag, and receives with MPI_ANY_SOURCE; the payload
 * of each message depends on every outcome seen before it.  So a
 * restarted process that replays an outcome otherwise makes a message
 * with other bytes than the one its receiver holds, and a message that
 * left before the determinant it depended on was logged can be made
 * again otherwise after a kill.  Checked: every live process ends its
 * program having received every message once, in its sender's order,
 * with the bytes the sender's last incarnation made; nothing is
 * reported as a divergence; and the checks catch a protocol that does
 * not replay.
 *
 * The simulated engine cannot wait inside a hook for another process
 * (the others run between steps): its progress effect reports EDEADLK
 * when a pass moved nothing, and the protocol then leaves the message
 * in its log, to go out from a later tick.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "job/logger.h"
#include "net/net.h"
#include "proto/proto.h"
#include "store/store.h"
#include "tap.h"

#define MAXR		4		/* ranks, one process each */
#define MAXP		MAXR
#define ROUNDS		3
#define FANOUT		2		/* messages a rank sends a round */
#define MAXOPS		(ROUNDS * (2 * FANOUT + 1))
#define MAXRECV		(ROUNDS * FANOUT)
#define PAYLOAD		24
#define MAXKILLS	4

struct ft_req {
	int	 done;
	int	 held;
	int	 src;
	uint64_t rtag;
};

struct item {
	struct item	*next;
	int		 is_msg;
	struct ft_msg	 m;
	uint8_t		 data[PAYLOAD];
	uint8_t		*frame;
	size_t		 flen;
};

#include "sim.h"

enum op_kind { OP_SEND = 1, OP_FLAG, OP_RECV };

struct op {
	enum op_kind	 kind;
	uint32_t	 dst;
	uint32_t	 round;
};

struct ux {
	struct ux	*next;
	struct ft_msg	 m;
	uint8_t		 data[PAYLOAD];
};

/* An image of a process (vlog images): its program's state and the
 * protocol's (VLG1). */
struct simg {
	int		 valid;
	uint64_t	 epoch;
	int		 pc;
	uint64_t	 state;
	uint64_t	 nextk[MAXR];
	uint8_t		 got[MAXRECV][PAYLOAD];
	uint32_t	 gotsrc[MAXRECV];
	int		 ngot;
	uint8_t		 sent[MAXR][ROUNDS][PAYLOAD];
	struct ft_wbuf	 ps;
};

struct sproc {
	int		 alive;
	uint32_t	 id, inc;
	struct ft_proto	 proto;
	int		 pc;
	int		 phase;
	struct ft_nd	 ev;
	struct ft_req	 rreq;
	int		 posted;
	struct ux	*ux_head, *ux_tail;
	uint64_t	 state;
	uint64_t	 nextk[MAXR];
	uint8_t		 got[MAXRECV][PAYLOAD];
	uint32_t	 gotsrc[MAXRECV];
	int		 ngot;
	uint8_t		 sent[MAXR][ROUNDS][PAYLOAD];
	uint8_t		 gone[MAXP];
	int		 view_due;
	int		 waits;		/* for its logger (nondet EAGAIN) */
	uint64_t	 rng;
	/* The fd the protocol asked the engine to watch. */
	int		 wfd;
	short		 wev;
	uint64_t	 wdl;
	/* Images: the newest two; the pc of the last one taken. */
	struct simg	 img[2];
	int		 ckpc;
	uint64_t	 epoch;
};

struct sim {
	const struct ft_proto_ops *ops;
	uint32_t	 nranks;
	struct sproc	 p[MAXP];
	struct fifo	 user[MAXP][MAXP], kern[MAXP][MAXP];
	struct op	 prog[MAXR][MAXOPS];
	int		 nops;
	uint64_t	 rng, step, job;
	int		 in_hook;
	uint32_t	 dead[MAXP];
	uint32_t	 ndead;
	int		 restart_due[MAXP];
	int		 restarts;
	int		 idle;		/* silent logger waits in a row */
	/* Images at the start of every round after the first; restarts
	 * from the newest (or, with fallback, the one before). */
	int		 images, fallback;
	/* vlogbw: every payload in a sender-log file of each rank (one
	 * file a rank and run, kept across its restarts); what the last
	 * processes wrote there, and the files' sizes at the end. */
	int		 logfile;
	uint64_t	 logbytes, logsize;
	int		 from_image;	/* restarts that took one */
	uint64_t	 dropped;	/* payloads the GC dropped */
	char		 err[256];
};

/* The logger, shared by every run (each run is a job of its own). */
static char	 log_addr[FT_WIRE_ADDR_MAX];
static uint8_t	 log_key[FT_WIRE_KEYLEN];
static pid_t	 log_pid = -1;
static char	 log_dir[] = "/tmp/ft-test-vlog.XXXXXX";
static uint64_t	 next_job = 1;
static int	 sim_strict;	/* --log-wait all for the runs that follow */
static int	 sim_lfd[MAXP];	/* S->logfile: each rank's file, or 0 */


static void
fifo_clear(struct fifo *f)
{
	struct item *it;

	while ((it = fifo_pop(f)) != NULL)
		item_free(it);
}

struct score {
	struct sim	*S;
	uint32_t	 me;
};

static struct score	 cores[MAXP];

#define ME(c)	(((struct score *)(c))->me)
#define SIM(c)	(((struct score *)(c))->S)

static int
c_send_frame(void *core, uint32_t proc, const struct ft_wbuf *wb)
{
	struct sim *S = SIM(core);
	struct item *it;
	struct ft_hdr h;
	size_t off;

	if (proc >= S->nranks || S->p[ME(core)].gone[proc]) {
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
	struct item *it;

	(void)cookie;
	if (n != 1 || m->len != PAYLOAD || procs[0] != m->dst) {
		fail(S, "send_msg: %u processes, %zu bytes", n, m->len);
		errno = EINVAL;
		return -1;
	}
	/* A process that is gone reads nothing: the engine drops it. */
	if (!S->p[ME(core)].gone[procs[0]]) {
		if ((it = calloc(1, sizeof(*it))) == NULL)
			abort();
		it->is_msg = 1;
		it->m = *m;
		it->m.req = NULL;
		it->m.proc = ME(core);
		memcpy(it->data, m->buf, PAYLOAD);
		it->m.buf = it->data;
		fifo_push(&S->user[ME(core)][procs[0]], it);
	}
	if (m->req != NULL)
		m->req->done = 1;
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
	(void)core;
	return ft_now_ns();
}

static void
c_notify(void *core, uint32_t kind, const char *text)
{
	struct sim *S = SIM(core);

	if (kind == FT_NOTE_DIVERGE)
		fail(S, "process %u notified: %s", ME(core), text);
}

static void	try_recv(struct sim *, struct sproc *);
static int	read_one(struct sim *, struct sproc *, uint32_t);

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

	if (q >= S->nranks)
		return FT_PROC_GONE;
	if (S->p[me].gone[q])
		st |= FT_PROC_GONE;
	if (S->user[me][q].head != NULL)
		st |= FT_PROC_UNSENT;
	return st;
}

static void
c_watch(void *core, int fd, short events, uint64_t deadline)
{
	struct sproc *P = &SIM(core)->p[ME(core)];

	P->wfd = fd;
	P->wev = events;
	P->wdl = deadline;
}

/* Let the protocol's logger client do its I/O, waiting up to ms. */
static int
log_io(struct sim *S, struct sproc *P, int ms)
{
	struct pollfd pf = { P->wfd, P->wev, 0 };
	int ready;

	ready = P->wfd != -1 && poll(&pf, 1, ms) > 0;
	if (!ready && !(P->wdl != 0 && ft_now_ns() >= P->wdl))
		return 0;
	S->in_hook++;
	S->ops->io(&P->proto, ready ? pf.revents : 0);
	S->in_hook--;
	return 1;
}

static void
move_kernel(struct sim *S, uint32_t from, uint32_t to)
{
	struct item *it = fifo_pop(&S->user[from][to]);

	if (it == NULL)
		return;
	if (S->p[to].alive)
		fifo_push(&S->kern[from][to], it);
	else
		item_free(it);
}

/*
 * Outside a hook, a pass: write what the process holds, read what it
 * has, let the logger client work, then tick.  EDEADLK when nothing
 * moved: waiting longer needs the other processes, which run only
 * between steps.
 */
static int
c_progress(void *core, int timeout_ms)
{
	struct sim *S = SIM(core);
	struct sproc *P = &S->p[ME(core)];
	uint32_t q;
	int moved = 0;

	(void)timeout_ms;
	if (S->in_hook > 0) {
		errno = EDEADLK;
		return -1;
	}
	for (q = 0; q < S->nranks; q++)
		while (S->user[P->id][q].head != NULL) {
			move_kernel(S, P->id, q);
			moved = 1;
		}
	for (q = 0; q < S->nranks; q++)
		while (S->kern[q][P->id].head != NULL && S->err[0] == '\0') {
			(void)read_one(S, P, q);
			moved = 1;
		}
	moved |= log_io(S, P, 2);
	S->in_hook++;
	S->ops->tick(&P->proto);
	S->in_hook--;
	if (!moved) {
		errno = EDEADLK;
		return -1;
	}
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
	.watch = c_watch,
};

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

static void
try_recv(struct sim *S, struct sproc *P)
{
	struct ux *u, *prev;
	uint32_t src;

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
	S->ops->match(&P->proto, &u->m, P->rreq.rtag);
	(void)S->ops->deliver(&P->proto, &u->m);
	S->in_hook--;
	src = u->m.src;
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
	free(u);
	P->pc++;
}

/*
 * An image of P (ft_checkpoint under --ft vlog): 1 once taken (or
 * skipped: P replays), 0 to try again after the logger.  It is durable
 * at once: the peers are told what to drop.
 */
static int
sim_checkpoint(struct sim *S, struct sproc *P)
{
	struct ft_ext x = { .op = FT_EXT_VLOG_PREPARE };
	struct simg *g;
	int k;

	x.epoch = P->epoch + 1;
	S->in_hook++;
	if (S->ops->ext(&P->proto, &x) != 0) {
		S->in_hook--;
		fail(S, "process %u: prepare: %s", P->id, strerror(errno));
		return -1;
	}
	S->in_hook--;
	if (x.err) {
		P->ckpc = P->pc;
		return 1;
	}
	/* As ft_checkpoint() does: wait for the logger, driving it (up
	 * to 10 s: then after the other processes ran). */
	for (k = 0; !x.result && !x.err && k < 10000; k++) {
		(void)log_io(S, P, 1);
		S->in_hook++;
		(void)S->ops->ext(&P->proto, &x);
		S->in_hook--;
	}
	if (!x.result) {
		P->waits = 1;
		return x.err ? 1 : 0;
	}
	ft_wbuf_release(&P->img[0].ps);
	P->img[0] = P->img[1];
	g = &P->img[1];
	memset(g, 0, sizeof(*g));
	ft_wbuf_init(&g->ps);
	S->in_hook++;
	if (S->ops->save(&P->proto, &g->ps) != 0) {
		S->in_hook--;
		fail(S, "process %u: save: %s", P->id, strerror(errno));
		return -1;
	}
	g->valid = 1;
	g->epoch = ++P->epoch;
	g->pc = P->pc;
	g->state = P->state;
	memcpy(g->nextk, P->nextk, sizeof(g->nextk));
	memcpy(g->got, P->got, sizeof(g->got));
	memcpy(g->gotsrc, P->gotsrc, sizeof(g->gotsrc));
	g->ngot = P->ngot;
	memcpy(g->sent, P->sent, sizeof(g->sent));
	x.op = FT_EXT_VLOG_DURABLE;
	x.epoch = g->epoch;
	(void)S->ops->ext(&P->proto, &x);
	S->in_hook--;
	P->ckpc = P->pc;
	return 1;
}

/* x starts again from its newest image (the one before, with
 * fallback): 0, or -1 (none: from its beginning). */
static int
sim_restore(struct sim *S, struct sproc *P)
{
	struct simg *g = &P->img[S->fallback && P->img[0].valid ? 0 : 1];
	struct ft_rbuf rb;

	if (!g->valid)
		return -1;
	ft_rbuf_init(&rb, g->ps.p, g->ps.len);
	if (S->ops->restore(&P->proto, &rb) != 0) {
		fail(S, "process %u: restore of its image %" PRIu64 ": %s",
		    P->id, g->epoch, strerror(errno));
		return -1;
	}
	P->pc = P->ckpc = g->pc;
	P->state = g->state;
	memcpy(P->nextk, g->nextk, sizeof(g->nextk));
	memcpy(P->got, g->got, sizeof(g->got));
	memcpy(P->gotsrc, g->gotsrc, sizeof(g->gotsrc));
	P->ngot = g->ngot;
	memcpy(P->sent, g->sent, sizeof(g->sent));
	P->epoch = g->epoch;
	/* What it took is its image: the one after is gone with it. */
	if (g == &P->img[0]) {
		ft_wbuf_release(&P->img[1].ps);
		P->img[1] = P->img[0];
		memset(&P->img[0], 0, sizeof(P->img[0]));
	}
	S->from_image++;
	return 0;
}

static int
app_step(struct sim *S, struct sproc *P)
{
	const struct op *o = &S->prog[P->id][P->pc];
	struct ft_msg m;
	struct ft_req sreq;
	uint8_t b[PAYLOAD];
	int rc;

	if (P->pc == S->nops)
		return 0;
	if (S->images && P->pc > 0 && P->pc % (2 * FANOUT + 1) == 0 &&
	    P->ckpc != P->pc && !P->posted && P->phase == 0) {
		rc = sim_checkpoint(S, P);
		if (rc <= 0)
			return rc;
	}
	switch (o->kind) {
	case OP_SEND:
		payload(b, P->id, o->dst, o->round, P->state);
		memcpy(P->sent[o->dst][o->round], b, PAYLOAD);
		memset(&sreq, 0, sizeof(sreq));
		memset(&m, 0, sizeof(m));
		m.ctx = 1;
		m.src = P->id;
		m.dst = o->dst;
		m.seq = o->round;
		m.buf = b;
		m.len = PAYLOAD;
		m.csrc = P->id;
		m.proc = P->id;
		m.req = &sreq;
		rc = S->ops->send(&P->proto, &m);
		if (rc < 0) {
			fail(S, "process %u: send: %s", P->id, strerror(errno));
			return -1;
		}
		if (rc == 0)
			(void)c_send_msg(&cores[P->id], &o->dst, 1, &m, NULL);
		if (!sreq.done)
			fail(S, "process %u: send not complete", P->id);
		P->pc++;
		return 0;
	case OP_FLAG:
		if (P->phase == 0) {
			memset(&P->ev, 0, sizeof(P->ev));
			P->ev.op = FT_ND_ASK;
			if (S->ops->nondet(&P->proto, &P->ev) != 0) {
				if (errno != EAGAIN)
					return -1;
				P->waits = 1;
				return 0;
			}
			P->phase = 1;
			memset(&P->ev, 0, sizeof(P->ev));
			P->ev.op = FT_ND_SETTLE;
			P->ev.kind = FT_ND_FLAG;
			P->ev.v[0] = rnd(&P->rng) & 1;
		}
		if (S->ops->nondet(&P->proto, &P->ev) != 0) {
			if (errno == EAGAIN) {
				P->waits = 1;
				return 0;
			}
			fail(S, "process %u: nondet: %s", P->id,
			    strerror(errno));
			return -1;
		}
		P->phase = 0;
		P->state = mix(P->state, P->ev.v[0] + 2);
		P->pc++;
		return 0;
	case OP_RECV:
		if (!P->posted) {
			memset(&P->rreq, 0, sizeof(P->rreq));
			P->rreq.src = -1;
			P->posted = 1;
			rc = S->ops->recv_any == NULL ? -1 :
			    S->ops->recv_any(&P->proto, &P->rreq,
			    &P->rreq.rtag);
			if (rc == FT_RECV_WAIT)
				P->rreq.held = 1;
			else
				P->rreq.src = rc;
		}
		try_recv(S, P);
		return 0;
	}
	return -1;
}

static void
proc_tick(struct sim *S, struct sproc *P)
{
	S->in_hook++;
	S->ops->tick(&P->proto);
	S->in_hook--;
}

static int
read_one(struct sim *S, struct sproc *P, uint32_t q)
{
	struct item *it = fifo_pop(&S->kern[q][P->id]);
	struct ft_hdr h;
	int rc;

	S->in_hook++;
	if (it->is_msg) {
		rc = S->ops->arrive(&P->proto, &it->m, it);
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
	S->in_hook++;
	(void)S->ops->view(&P->proto, S->dead, S->ndead);
	S->in_hook--;
}

/*
 * vlogbw: P's payloads go to its rank's sender-log file (a new one for
 * a first process, the same one, kept, for a restarted one).
 */
static int
sim_logfile(struct sim *S, struct sproc *P)
{
	struct ft_ext x = { .op = FT_EXT_VLOG_LOGFILE };
	char path[] = "/tmp/ft-test-vlog-log.XXXXXX";
	int rc;

	if (P->inc == 0) {
		if (sim_lfd[P->id] > 0)
			close(sim_lfd[P->id]);
		if ((sim_lfd[P->id] = mkstemp(path)) < 0) {
			fail(S, "sender-log file: %s", strerror(errno));
			return -1;
		}
		(void)unlink(path);
	}
	x.vlog_logfd = sim_lfd[P->id];
	x.vlog_logfresh = P->inc == 0;
	x.vlog_logmin = 1;
	S->in_hook++;
	rc = S->ops->ext(&P->proto, &x);
	S->in_hook--;
	if (rc != 0)
		fail(S, "process %u: sender-log file: %s", P->id,
		    strerror(errno));
	return rc;
}

static int
proc_init(struct sim *S, uint32_t i, uint64_t seed)
{
	struct sproc *P = &S->p[i];
	struct ft_conf cf;

	P->alive = 1;
	P->id = i;
	P->wfd = -1;
	P->rng = (seed + 1) * 7919 + i * 104729 + 1 + P->inc * 31;
	cores[i] = (struct score){ S, i };
	memset(&cf, 0, sizeof(cf));
	cf.rank = i;
	cf.size = S->nranks;
	cf.ppr = 1;
	cf.proc = i;
	cf.check_divergence = 1;
	cf.log_addr = log_addr;
	cf.key = log_key;
	cf.job = S->job;
	cf.incarnation = P->inc;
	cf.spill_dir = "/tmp";
	/* Small: a run spills every message past the first few. */
	cf.log_mem = 2 * PAYLOAD;
	cf.strict = sim_strict;
	if (ft_proto_init(&P->proto, S->ops, &cf, &sim_core, &cores[i]) !=
	    0) {
		fail(S, "init: %s", strerror(errno));
		return -1;
	}
	return S->logfile ? sim_logfile(S, P) : 0;
}

static void
proc_forget(struct sproc *P)
{
	struct ux *u;

	while ((u = P->ux_head) != NULL) {
		P->ux_head = u->next;
		free(u);
	}
	P->ux_tail = NULL;
}

/* Count what P's GC dropped (before its protocol goes). */
static void
sim_dropped(struct sim *S, struct sproc *P)
{
	struct ft_ext x = { .op = FT_EXT_VLOG_STATS };

	struct stat st;

	if (S->images && S->ops->ext != NULL &&
	    S->ops->ext(&P->proto, &x) == 0) {
		S->dropped += x.vlog_dropped;
		S->logbytes += x.vlog_logbytes;
	}
	if (S->logfile && sim_lfd[P->id] > 0 &&
	    fstat(sim_lfd[P->id], &st) == 0)
		S->logsize += (uint64_t)st.st_size;
}

static void
kill_proc(struct sim *S, uint32_t x)
{
	uint32_t q;

	if (!S->p[x].alive)
		return;
	S->p[x].alive = 0;
	S->dead[S->ndead++] = x;
	S->in_hook++;
	sim_dropped(S, &S->p[x]);
	ft_proto_release(&S->p[x].proto);
	S->in_hook--;
	proc_forget(&S->p[x]);
	for (q = 0; q < S->nranks; q++) {
		fifo_clear(&S->user[x][q]);
		fifo_clear(&S->kern[q][x]);
		if (S->p[q].alive)
			S->p[q].view_due = 1;
	}
	S->restart_due[x] = 1;
}

/*
 * The launcher restarts x once every live process knows it is dead:
 * the others forget their connections with the incarnation before
 * (REVIVE), and x starts again with the view of who is dead now.
 */
static void
restart_proc(struct sim *S, uint32_t x, uint64_t seed)
{
	struct sproc *P = &S->p[x];
	uint32_t q, i, k;

	S->restart_due[x] = 0;
	for (i = k = 0; i < S->ndead; i++)
		if (S->dead[i] != x)
			S->dead[k++] = S->dead[i];
	S->ndead = k;
	for (q = 0; q < S->nranks; q++) {
		fifo_clear(&S->kern[x][q]);
		fifo_clear(&S->user[q][x]);
		fifo_clear(&S->kern[q][x]);
		S->p[q].gone[x] = 0;
	}
	P->inc++;
	P->pc = P->phase = P->posted = P->ngot = 0;
	P->state = 0;
	memset(P->nextk, 0, sizeof(P->nextk));
	memset(P->gone, 0, sizeof(P->gone));
	if (proc_init(S, x, seed) != 0)
		return;
	if (S->images && sim_restore(S, P) != 0 && S->err[0] == '\0') {
		/* No image: from its beginning. */
		P->ckpc = 0;
		P->epoch = 0;
	}
	P->view_due = S->ndead > 0;
	P->waits = 0;
	S->restarts++;
}

enum ev_kind { EV_APP, EV_KERNEL, EV_READ, EV_VIEW, EV_RESTART };

static int
events(struct sim *S, int pick, enum ev_kind *kind, uint32_t *a, uint32_t *b)
{
	struct ux *u;
	uint32_t i, j;
	int n = 0, views = 0;

#define EV(k, x, y) do {						\
	if (n++ == pick) {						\
		*kind = (k);						\
		*a = (x);						\
		*b = (y);						\
	}								\
} while (0)
	for (i = 0; i < S->nranks; i++)
		views += S->p[i].alive && S->p[i].view_due;
	for (i = 0; i < S->nranks; i++) {
		struct sproc *P = &S->p[i];

		if (!P->alive) {
			if (S->restart_due[i] && views == 0)
				EV(EV_RESTART, i, 0);
			continue;
		}
		if (P->pc < S->nops && !P->waits &&
		    (!P->posted || recv_match(P, &u)))
			EV(EV_APP, i, 0);
		if (P->view_due)
			EV(EV_VIEW, i, 0);
		for (j = 0; j < S->nranks; j++) {
			if (S->user[i][j].head != NULL)
				EV(EV_KERNEL, i, j);
			if (S->kern[j][i].head != NULL)
				EV(EV_READ, i, j);
		}
	}
#undef EV
	return n;
}

/*
 * Nothing else can happen: what waits, waits for the logger (a
 * restarted process's log, acknowledgements that let messages go, a
 * process that may leave once its log is durable).  Wait for it in
 * real time, not in steps, so that a slow machine takes longer but
 * runs the same.  Returns 1 when something came, 0 when nothing did
 * for 10 s.
 */
static int
logger_wait(struct sim *S)
{
	struct pollfd pf[MAXP];
	uint32_t i, n = 0;
	uint64_t now, dl = 0;
	int ms, got = 0, waited = 0, unfinished = 0;

	for (i = 0; i < S->nranks; i++)
		if (S->p[i].alive)
			proc_tick(S, &S->p[i]);
	if (events(S, -1, &(enum ev_kind){ EV_APP }, &i, &i) > 0)
		return 1;
	for (i = 0; i < S->nranks; i++) {
		struct sproc *P = &S->p[i];

		if (!P->alive)
			continue;
		waited |= P->waits;
		unfinished |= P->pc < S->nops || S->ops->busy(&P->proto);
		if (P->wdl != 0 && (dl == 0 || P->wdl < dl))
			dl = P->wdl;
		if (P->wfd != -1)
			pf[n++] = (struct pollfd){ P->wfd, P->wev, 0 };
	}
	if (!unfinished)
		return 0;	/* the run is over */
	now = ft_now_ns();
	ms = dl == 0 ? 10000 : dl <= now ? 0 : (int)((dl - now) / 1000000 + 1);
	if (ms > 10000)
		ms = 10000;
	got = poll(pf, n, ms) > 0 || (dl != 0 && ms < 10000);
	for (i = 0; i < S->nranks; i++)
		if (S->p[i].alive) {
			(void)log_io(S, &S->p[i], 0);
			S->p[i].waits = 0;
			proc_tick(S, &S->p[i]);
		}
	if (!got)
		S->idle++;
	else
		S->idle = 0;
	/* A process that waited retries; ten silent seconds end it. */
	return (got || waited) && S->idle < 2;
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
	uint32_t i, j;

	S->in_hook++;
	for (i = 0; i < S->nranks; i++)
		if (S->p[i].alive && S->p[i].proto.ops != NULL) {
			sim_dropped(S, &S->p[i]);
			ft_proto_release(&S->p[i].proto);
		}
	for (i = 0; i < S->nranks; i++)
		for (j = 0; j < 2; j++)
			ft_wbuf_release(&S->p[i].img[j].ps);
	for (i = 0; i < S->nranks; i++) {
		for (j = 0; j < S->nranks; j++) {
			fifo_clear(&S->user[i][j]);
			fifo_clear(&S->kern[i][j]);
		}
		proc_forget(&S->p[i]);
	}
}

/*
 * One run of nranks ranks, interleaving from seed, kills[i] killed
 * before step at[i] (a process already dead then is left alone).
 */
static long
run(struct sim *S, const struct ft_proto_ops *ops, uint32_t nranks,
    uint64_t seed, const uint32_t *kills, const uint64_t *at, int nkills)
{
	enum ev_kind kind = EV_APP;
	uint32_t i, a = 0, b = 0;
	int n, k, images, fallback, logfile;

	images = S->images;
	fallback = S->fallback;
	logfile = S->logfile;
	memset(S, 0, sizeof(*S));
	S->images = images;
	S->fallback = fallback;
	S->logfile = logfile;
	S->ops = ops;
	S->nranks = nranks;
	S->rng = seed * 2654435761u + 1;
	S->job = next_job++;
	build_program(S);
	for (i = 0; i < nranks; i++)
		if (proc_init(S, i, seed) != 0)
			return -1;
	for (S->step = 0; S->err[0] == '\0'; S->step++) {
		for (k = 0; k < nkills; k++)
			if (at[k] == S->step)
				kill_proc(S, kills[k]);
		while ((n = events(S, -1, &kind, &a, &b)) == 0 &&
		    logger_wait(S))
			;
		if (n == 0)
			break;
		(void)events(S, (int)(rnd(&S->rng) % (uint64_t)n), &kind, &a,
		    &b);
		switch (kind) {
		case EV_APP:
			(void)app_step(S, &S->p[a]);
			break;
		case EV_KERNEL:
			move_kernel(S, a, b);
			break;
		case EV_READ:
			(void)read_one(S, &S->p[a], b);
			break;
		case EV_VIEW:
			take_view(S, &S->p[a]);
			break;
		case EV_RESTART:
			restart_proc(S, a, seed);
			break;
		}
		if (S->p[a].alive) {
			(void)log_io(S, &S->p[a], 0);
			proc_tick(S, &S->p[a]);
		}
		if (S->step > 400000)
			fail(S, "no end after %" PRIu64 " steps", S->step);
	}
	if (S->err[0] != '\0')
		return -1;
	for (i = 0; i < nranks; i++) {
		struct sproc *P = &S->p[i];

		if (!P->alive || P->pc != S->nops || ops->busy(&P->proto)) {
			fail(S, "stuck: process %u at operation %d of %d%s%s",
			    i, P->pc, S->nops, P->posted ? ", receiving" : "",
			    P->alive ? "" : ", dead");
			return -1;
		}
	}
	return (long)S->step;
}

/*
 * Every process received every message once (run checks the order),
 * with the bytes the last incarnation of its sender made: a replay that
 * went otherwise, or a message that outlived what it depended on,
 * shows as other bytes.
 */
static int
check(struct sim *S)
{
	uint32_t i, j, src, dst, round;
	struct sproc *P;

	for (i = 0; i < S->nranks; i++) {
		P = &S->p[i];
		if (P->ngot != MAXRECV) {
			fail(S, "process %u received %d messages, not %d",
			    i, P->ngot, MAXRECV);
			return 0;
		}
		for (j = 0; j < (uint32_t)P->ngot; j++) {
			memcpy(&src, P->got[j], 4);
			memcpy(&dst, P->got[j] + 4, 4);
			memcpy(&round, P->got[j] + 8, 4);
			if (src != P->gotsrc[j] || dst != i || round >= ROUNDS) {
				fail(S, "process %u: message %u is not the "
				    "program's", i, j);
				return 0;
			}
			if (memcmp(S->p[src].sent[dst][round], P->got[j],
			    PAYLOAD) != 0) {
				fail(S, "process %u got rank %u's message %u "
				    "with bytes its incarnation %u did not make",
				    i, src, round, S->p[src].inc);
				return 0;
			}
		}
	}
	return 1;
}

static int
run_check(struct sim *S, const struct ft_proto_ops *ops, uint32_t nranks,
    uint64_t seed, const uint32_t *kills, const uint64_t *at, int nkills,
    long *steps)
{
	long n = run(S, ops, nranks, seed, kills, at, nkills);
	int ok = n >= 0 && check(S);

	if (steps != NULL)
		*steps = n;
	sim_free(S);
	return ok;
}

static void
test_fault_free(struct sim *S)
{
	int seed, ok = 1;

	for (seed = 1; seed <= 30 && ok; seed++)
		ok = run_check(S, &ft__proto_vlog, 3, (uint64_t)seed, NULL,
		    NULL, 0, NULL);
	if (!ok)
		t_diag("seed %d: %s", seed - 1, S->err);
	T_OK(ok, "sim: vlog, 3 ranks, 30 interleavings without faults: every "
	    "message once, in order");
}

/*
 * A kill of each process before each step (every step-th one), for
 * seeds seeds: 1 if all held; *runs counts the runs, *from the restarts
 * from an image, *dropped what the GC dropped in the runs without kills.
 */
static int
every_kill(struct sim *S, uint32_t nranks, int seeds, long every, long *runs,
    long *from, uint64_t *dropped)
{
	long steps, s;
	uint64_t at;
	uint32_t x;
	int seed, ok = 1;

	for (seed = 1; seed <= seeds && ok; seed++) {
		if (!run_check(S, &ft__proto_vlog, nranks, (uint64_t)seed,
		    NULL, NULL, 0, &steps)) {
			t_diag("seed %d without kills: %s", seed, S->err);
			return 0;
		}
		*dropped += S->dropped;
		for (x = 0; x < nranks && ok; x++)
			for (s = 0; s <= steps && ok; s += every) {
				at = (uint64_t)s;
				ok = run_check(S, &ft__proto_vlog, nranks,
				    (uint64_t)seed, &x, &at, 1, NULL);
				(*runs)++;
				*from += S->from_image;
				if (!ok)
					t_diag("seed %d, process %u killed "
					    "before step %ld: %s", seed, x, s,
					    S->err);
			}
	}
	return ok;
}

static void
test_every_kill(struct sim *S, uint32_t nranks, int seeds, long every)
{
	long runs = 0, from = 0;
	uint64_t dropped = 0;
	int ok = every_kill(S, nranks, seeds, every, &runs, &from, &dropped);

	T_OK(ok, "sim: vlog, %u ranks: a kill of each process before every "
	    "%ld-th step, restarted (%ld runs)", nranks, every, runs);
}

/*
 * Several kills at random steps: of two processes (perhaps dead at
 * once), of one process twice (perhaps while it replays), of every
 * process.
 */
static void
test_kills(struct sim *S, uint32_t nranks, int nk, int same, int runs)
{
	uint64_t rng = 4242 + (uint64_t)nk * 7 + (uint64_t)same, at[MAXKILLS];
	uint32_t kills[MAXKILLS];
	long steps;
	int i, k, ok = 1, done = 0;

	for (i = 0; i < runs && ok; i++) {
		uint64_t seed = 1 + rnd(&rng) % 1000;

		if (!run_check(S, &ft__proto_vlog, nranks, seed, NULL, NULL, 0,
		    &steps) || steps <= 0) {
			ok = 0;
			break;
		}
		for (k = 0; k < nk; k++) {
			kills[k] = same ? kills[0] : nk == (int)nranks ?
			    (uint32_t)k : (uint32_t)(rnd(&rng) % nranks);
			if (same && k == 0)
				kills[0] = (uint32_t)(rnd(&rng) % nranks);
			at[k] = (k > 0 ? at[k - 1] : 0) +
			    rnd(&rng) % (uint64_t)(steps / nk + 1);
		}
		ok = run_check(S, &ft__proto_vlog, nranks, seed, kills, at, nk,
		    NULL);
		done++;
		if (!ok) {
			t_diag("seed %" PRIu64 ": %s", seed, S->err);
			for (k = 0; k < nk; k++)
				t_diag("  kill %u before step %" PRIu64,
				    kills[k], at[k]);
		}
	}
	T_OK(ok, "sim: vlog%s, %u ranks: %d kills at random steps%s (%d "
	    "runs)", S->images ? " images" : "", nranks, nk, same ?
	    ", of one process" : nk == (int)nranks ?
	    ", of every process in turn" : "", done);
}

/* The checks catch a restarted process that does not replay. */
static void
test_checks_bite(struct sim *S)
{
	static struct ft_proto_ops broken;
	uint64_t at;
	uint32_t x;
	int seed, caught = 0, runs = 0;
	long steps;

	/* Every outcome is its own, even while the log says otherwise. */
	broken = ft__proto_vlog;
	broken.recv_any = NULL;
	for (seed = 1; seed <= 10; seed++) {
		if (!run_check(S, &ft__proto_vlog, 3, (uint64_t)seed, NULL,
		    NULL, 0, &steps))
			continue;
		for (x = 0; x < 3; x++) {
			at = (uint64_t)steps * 2 / 3;
			runs++;
			if (!run_check(S, &broken, 3, (uint64_t)seed, &x, &at,
			    1, NULL))
				caught++;
		}
	}
	T_OK(caught > 0, "sim: a restarted process that ignores its log is "
	    "caught (%d of %d runs)", caught, runs);
}

/*
 * The logger race (issue 13): the appends of a process that died reach
 * the logger after its restarted incarnation has asked what the log
 * holds.  Reproduced in order with two clients of the real logger: the
 * first one's appends wait in its client until the second one has its
 * answer.
 */
struct fclient {
	struct ft_logc	*c;
	int		 opened;
	uint64_t	 durable;
	uint32_t	 code;		/* of the last error */
	char		 text[256];
	struct ft_det	 got[16];
	uint32_t	 ngot;
	int		 last;
};

static void
f_acked(void *arg, uint32_t rank, uint64_t seq, uint64_t clock)
{
	struct fclient *f = arg;

	(void)rank;
	(void)clock;
	f->opened = 1;
	f->durable = seq;
}

static void
f_records(void *arg, uint32_t rank, uint32_t reqid, const struct ft_det *d,
    uint32_t n, int last)
{
	struct fclient *f = arg;
	uint32_t i;

	(void)rank;
	(void)reqid;
	for (i = 0; i < n && f->ngot < FT_NELEM(f->got); i++)
		f->got[f->ngot++] = d[i];
	f->last = last;
}

static void
f_error(void *arg, uint32_t rank, uint32_t reqid, uint32_t code,
    const char *text)
{
	struct fclient *f = arg;

	(void)rank;
	(void)reqid;
	f->code = code;
	snprintf(f->text, sizeof(f->text), "%s", text);
}

static const struct ft_logc_cb f_cb = { f_acked, f_records, f_error };

static uint64_t	 f_want;

static int
f_opened(void *arg)
{
	return ((struct fclient *)arg)->opened;
}

static int
f_durable(void *arg)
{
	return ((struct fclient *)arg)->durable >= f_want;
}

static int
f_failed(void *arg)
{
	return ((struct fclient *)arg)->code != 0;
}

static int
f_fetched(void *arg)
{
	return ((struct fclient *)arg)->last;
}

/* A client of incarnation inc for rank 0 of job, opened. */
static int
f_open(struct fclient *f, uint64_t job, uint32_t inc)
{
	memset(f, 0, sizeof(*f));
	if ((f->c = ft_logc_new(log_addr, log_key, job, inc, &f_cb, f)) ==
	    NULL)
		return -1;
	ft_logc_incarnation(f->c, inc);
	/* The first progress connects. */
	if (ft_logc_open(f->c, 0) != 0 || ft_logc_progress(f->c) != 0)
		return -1;
	return ft_logc_wait(f->c, f_opened, f, ft_now_ns() + 10000000000ull);
}

/* Append deliveries from seq first to last, of clock base + seq. */
static int
f_append(struct fclient *f, uint64_t first, uint64_t last, uint64_t base)
{
	struct ft_det d;
	uint64_t i;

	for (i = first; i <= last; i++) {
		memset(&d, 0, sizeof(d));
		d.seq = i;
		d.clock = base + i;
		d.sender = 1;
		d.sclock = i;
		if (ft_logc_append(f->c, 0, &d) != 0)
			return -1;
	}
	return 0;
}

static int
f_sync(struct fclient *f, uint64_t seq)
{
	f_want = seq;
	if (ft_logc_flush(f->c) != 0)
		return -1;
	return ft_logc_wait(f->c, f_durable, f, ft_now_ns() + 10000000000ull);
}

static void
test_fence(void)
{
	struct fclient old, cur, next;
	uint64_t job = next_job++, deadline;
	uint32_t i;
	int ok;

	T_OK(f_open(&old, job, 0) == 0 && old.durable == 0 &&
	    f_append(&old, 1, 5, 0) == 0 && f_sync(&old, 5) == 0,
	    "fence: incarnation 0 logs 5 records");
	/* Its last three wait in its client: sent after it died. */
	T_OK(f_append(&old, 6, 8, 0) == 0, "fence: 3 more, not sent yet");
	T_OK(f_open(&cur, job, 1) == 0 && cur.durable == 5,
	    "fence: incarnation 1 is told the log holds 5");
	deadline = ft_now_ns() + 10000000000ull;
	T_OK(ft_logc_flush(old.c) == 0 &&
	    ft_logc_wait(old.c, f_failed, &old, deadline) == 0 &&
	    old.code == FT_LOG_ESTALE &&
	    strstr(old.text, "incarnation 0 of rank 0 is superseded by "
	    "incarnation 1") != NULL, "fence: the late appends of "
	    "incarnation 0 are refused, saying why (%s)", old.text);
	T_OK(f_append(&cur, 6, 7, 100) == 0 && f_sync(&cur, 7) == 0 &&
	    cur.code == 0, "fence: incarnation 1 appends 6 and 7, and is "
	    "not refused because of incarnation 0");
	T_OK(ft_logc_fetch(cur.c, 0, 1, 0) != 0 &&
	    ft_logc_wait(cur.c, f_fetched, &cur, ft_now_ns() +
	    10000000000ull) == 0 && cur.ngot == 7, "fence: the log holds 7");
	for (ok = 1, i = 0; i < cur.ngot; i++)
		if (cur.got[i].seq != i + 1 ||
		    cur.got[i].clock != (i < 5 ? 0 : 100) + i + 1)
			ok = 0;
	T_OK(ok, "fence: 6 and 7 are incarnation 1's, not the stale ones");
	/* A second restart fences off the first one's too. */
	T_OK(f_open(&next, job, 2) == 0 && next.durable == 7,
	    "fence: incarnation 2 is told the log holds 7");
	cur.code = 0;
	T_OK(f_append(&cur, 8, 8, 100) == 0 && ft_logc_flush(cur.c) == 0 &&
	    ft_logc_wait(cur.c, f_failed, &cur, ft_now_ns() +
	    10000000000ull) == 0 && cur.code == FT_LOG_ESTALE,
	    "fence: then incarnation 1 is refused");
	T_OK(f_append(&next, 8, 8, 200) == 0 && f_sync(&next, 8) == 0,
	    "fence: and incarnation 2 goes on");
	ft_logc_free(old.c);
	ft_logc_free(cur.c);
	ft_logc_free(next.c);
}

/*
 * Issue 13 (latency): the client is polled only while it waits for
 * something: from a flush to its acknowledgement, not while it merely
 * holds appended determinants.
 */
static void
test_idle(void)
{
	struct fclient f;
	uint64_t job = next_job++;

	T_OK(f_open(&f, job, 0) == 0 && ft_logc_idle(f.c),
	    "idle: an opened client waits for nothing");
	T_OK(f_append(&f, 1, 3, 0) == 0 && ft_logc_idle(f.c),
	    "idle: 3 appended and not flushed: nothing awaited yet");
	T_OK(ft_logc_flush(f.c) == 0 && !ft_logc_idle(f.c) &&
	    ft_logc_fd(f.c) >= 0, "idle: flushed: it waits for the "
	    "acknowledgement, on its fd");
	f_want = 3;
	T_OK(ft_logc_wait(f.c, f_durable, &f, ft_now_ns() +
	    10000000000ull) == 0 && f.durable == 3 && ft_logc_idle(f.c),
	    "idle: acknowledged: idle again");
	T_OK(ft_logc_fetch(f.c, 0, 1, 0) != 0 && !ft_logc_idle(f.c),
	    "idle: not while a fetch is out");
	ft_logc_free(f.c);
}

/* A logger on the job's host: a Unix socket in its directory, if it fits. */
static void
test_local_addr(void)
{
	char dir[] = "/tmp/test_vlog.XXXXXX", want[512], out[FT_WIRE_ADDR_MAX];
	char deep[400], cwd[4096];
	int ok;

	if (!T_OK(mkdtemp(dir) != NULL && getcwd(cwd, sizeof(cwd)) != NULL,
	    "local address: a directory"))
		return;
	snprintf(want, sizeof(want), "unix:%s/.logger-42.sock", dir);
	T_OK(ft__logger_local_addr(dir, 42, out, sizeof(out)) == 0 &&
	    strcmp(out, want) == 0, "local address: %s", out);
	/* A relative directory is made absolute: ranks run elsewhere. */
	ok = chdir("/tmp") == 0 && ft__logger_local_addr(dir + 5, 42, out,
	    sizeof(out)) == 0 && strcmp(out, want) == 0;
	T_OK(ok && chdir(cwd) == 0, "local address: from a relative "
	    "directory, absolute");
	/* Past a socket path's 108 bytes: none (ftrun then uses TCP). */
	snprintf(deep, sizeof(deep), "%s/%0120d", dir, 0);
	T_OK(mkdir(deep, 0700) == 0 && ft__logger_local_addr(deep, 42, out,
	    sizeof(out)) == -1 && errno == ENAMETOOLONG,
	    "local address: a directory too deep for a socket is refused");
	T_OK(ft__logger_local_addr("/nonexistent/ft", 42, out,
	    sizeof(out)) == -1, "local address: a missing directory is "
	    "refused");
	(void)rmdir(deep);
	(void)rmdir(dir);
}

/*
 * The pessimistic rule (ft(7)): by default a send waits only for the
 * determinants of nondeterministic outcomes and what was recorded before
 * them (--log-wait nondet), strictly for every determinant (all).  The
 * same seeds and kill schedules, under each rule: every restart must
 * give every process the program's messages, in the program's order,
 * with the bytes their senders made, under the relaxed rule as under
 * the strict one.  Kills fall anywhere, so under the relaxed rule many
 * of them find deliveries made and not yet logged.
 */
static void
test_rules(struct sim *S, uint32_t nranks, int runs)
{
	uint64_t rng = 777, at[2];
	uint32_t kills[2];
	long steps;
	int i, k, ok = 1, done = 0;

	for (i = 0; i < runs && ok; i++) {
		uint64_t seed = 1 + rnd(&rng) % 1000;

		sim_strict = 0;
		if (!run_check(S, &ft__proto_vlog, nranks, seed, NULL, NULL, 0,
		    &steps) || steps <= 0) {
			ok = 0;
			break;
		}
		for (k = 0; k < 2; k++) {
			kills[k] = (uint32_t)(rnd(&rng) % nranks);
			at[k] = (k > 0 ? at[k - 1] : 0) +
			    rnd(&rng) % (uint64_t)(steps / 2 + 1);
		}
		for (sim_strict = 1; sim_strict >= 0 && ok; sim_strict--) {
			ok = run_check(S, &ft__proto_vlog, nranks, seed, kills,
			    at, 2, NULL);
			if (!ok)
				t_diag("seed %" PRIu64 ", --log-wait %s: %s",
				    seed, sim_strict ? "all" : "nondet",
				    S->err);
		}
		done++;
	}
	sim_strict = 0;
	T_OK(ok, "sim: %u ranks, 2 kills: restarts under the relaxed rule "
	    "hold as under the strict one (%d schedules, each under both)",
	    nranks, done);
}

static volatile sig_atomic_t logger_stop;

static int
start_logger(void)
{
	struct ft_logd_cfg cfg;
	char why[FT_LOG_WHY];
	int lfd;

	if (mkdtemp(log_dir) == NULL)
		return -1;
	ft_random(log_key, sizeof(log_key));
	if ((lfd = ft_net_listen("tcp:127.0.0.1:0", log_addr,
	    sizeof(log_addr))) < 0)
		return -1;
	if ((log_pid = fork()) == -1)
		return -1;
	if (log_pid == 0) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.lfd = lfd;
		cfg.key = log_key;
		cfg.dir = log_dir;
		cfg.sync = FT_LOG_SYNC_MEMORY;
		cfg.max_conns = 256;
		cfg.stop = &logger_stop;
		_exit(ft_logd_serve(&cfg, why, sizeof(why)) == 0 ? 0 : 1);
	}
	close(lfd);
	return 0;
}

static void
stop_logger(void)
{
	char cmd[128];

	if (log_pid > 0) {
		(void)kill(log_pid, SIGKILL);
		(void)waitpid(log_pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", log_dir);
	(void)!system(cmd);
}

/*
 * vlog images (issue 15): every process saves an image at the start of
 * every round after the first (durable at once: the GC follows), and a
 * dead one restarts from its newest image, or, with fallback, from the
 * one before.  A kill of each process before every step-th step; the
 * checks of run and check hold, restarts did take images, and the GC
 * did drop payloads: what it dropped was never asked for again.
 */
static void
test_images(struct sim *S, uint32_t nranks, int seeds, long every,
    int fallback)
{
	long runs = 0, from = 0;
	uint64_t dropped = 0;
	int ok;

	S->images = 1;
	S->fallback = fallback;
	ok = every_kill(S, nranks, seeds, every, &runs, &from, &dropped);
	T_OK(ok && from > 0 && dropped > 0, "sim: vlog images, %u ranks%s: a "
	    "kill of each process before every %ld-th step (%ld runs, %ld "
	    "restarts from an image, %" PRIu64 " payloads dropped by GC "
	    "without kills)", nranks, fallback ? ", from the image before "
	    "the newest" : "", every, runs, from, dropped);
	S->images = S->fallback = 0;
}

/*
 * vlogbw: the same with every payload in the ranks' sender-log files,
 * images naming their extents (VLG2).  A restart reads its payloads
 * from the file (an extent written over would fail its CRC: the
 * restore, and the run, fail), from the image before the newest too:
 * GC's room is used again only once two later images are durable.
 */
static void
test_logfile(struct sim *S, uint32_t nranks, long every, int fallback)
{
	long runs = 0, from = 0, steps;
	uint64_t dropped = 0;
	int ok;

	S->images = S->logfile = 1;
	S->fallback = fallback;
	ok = run_check(S, &ft__proto_vlog, nranks, 3, NULL, NULL, 0, &steps);
	T_OK(ok && S->logbytes > 0 && S->logsize <= S->logbytes,
	    "sim: vlog images with the sender-log file, %u ranks: %" PRIu64
	    " payload bytes written to the files, never twice (%" PRIu64
	    " at the end)", nranks, S->logbytes, S->logsize);
	if (!ok)
		t_diag("%s", S->err);
	ok = every_kill(S, nranks, 1, every, &runs, &from, &dropped);
	T_OK(ok && from > 0 && dropped > 0, "sim: vlog images with the "
	    "sender-log file, %u ranks%s: a kill of each process before "
	    "every %ld-th step (%ld runs, %ld restarts from an image, %"
	    PRIu64 " payloads dropped by GC without kills)", nranks, fallback ?
	    ", from the image before the newest" : "", every, runs, from,
	    dropped);
	S->images = S->fallback = S->logfile = 0;
}

/* P reads a VLOG_GC frame from process x: incarnation inc, below seq. */
static int
gc_frame(struct sim *S, struct sproc *P, uint32_t x, uint32_t inc,
    uint64_t seq)
{
	struct ft_msg_vlog_gc g = { inc, 1, seq };
	struct ft_wbuf wb;
	struct ft_hdr h;
	int rc = -1;

	ft_wbuf_init(&wb);
	S->in_hook++;
	if (ft_msg_vlog_gc_encode(&wb, x, &g) == 0 &&
	    ft_hdr_decode(wb.p, &h) == 0)
		rc = S->ops->frame(&P->proto, x, &h, wb.p + FT_WIRE_HDRLEN);
	S->in_hook--;
	ft_wbuf_release(&wb);
	return rc;
}

/* P's FT_EXT_VLOG_STATS. */
static struct ft_ext
vlog_stats(struct sim *S, struct sproc *P)
{
	struct ft_ext x = { .op = FT_EXT_VLOG_STATS };

	S->in_hook++;
	(void)S->ops->ext(&P->proto, &x);
	S->in_hook--;
	return x;
}

static uint64_t
dropped_now(struct sim *S, struct sproc *P)
{
	return vlog_stats(S, P).vlog_dropped;
}

/*
 * A 3-rank vlog run of seed with process x killed halfway and
 * restarted: 1 with S holding it (the caller frees it), 0 when the
 * seed gives no such run.
 */
static int
run_restarted(struct sim *S, int seed, uint32_t x)
{
	uint64_t at;
	long steps;

	if (!run_check(S, &ft__proto_vlog, 3, (uint64_t)seed, NULL, NULL, 0,
	    &steps) || steps < 4)
		return 0;
	at = (uint64_t)steps / 2;
	if (run(S, &ft__proto_vlog, 3, (uint64_t)seed, &x, &at, 1) < 0 ||
	    S->p[x].inc == 0) {
		sim_free(S);
		return 0;
	}
	return 1;
}

/*
 * A GC of a dead incarnation is fenced (issue 15): once a process's
 * successor has spoken (RESTART), a VLOG_GC its predecessor sent, read
 * late, drops nothing its peers hold for the successor; the same GC
 * of the successor's incarnation does (the fence, not an empty log).
 */
static void
test_stale_gc(struct sim *S)
{
	uint64_t d0, d1, d2;
	uint32_t x = 1, q;
	int seed, fenced = 0, bit = 0, ok = 1;

	S->images = 1;
	for (seed = 1; seed <= 20 && ok && bit == 0; seed++) {
		if (!run_restarted(S, seed, x))
			continue;
		for (q = 0; q < 3 && ok; q++) {
			if (q == x)
				continue;
			d0 = dropped_now(S, &S->p[q]);
			ok = gc_frame(S, &S->p[q], x, 0, UINT64_MAX / 2) == 0;
			d1 = dropped_now(S, &S->p[q]);
			ok = ok && gc_frame(S, &S->p[q], x, S->p[x].inc,
			    UINT64_MAX / 2) == 0;
			d2 = dropped_now(S, &S->p[q]);
			if (d1 != d0) {
				t_diag("seed %d: process %u dropped %" PRIu64
				    " payloads for a GC of process %u's dead "
				    "incarnation", seed, q, d1 - d0, x);
				ok = 0;
			}
			fenced++;
			bit += d2 > d1;
		}
		sim_free(S);
	}
	S->images = 0;
	T_OK(ok && bit > 0, "sim: vlog images: a VLOG_GC of a dead "
	    "incarnation read after its successor's RESTART drops nothing "
	    "(%d peers; the successor's own GC dropped payloads at %d)",
	    fenced, bit);
}

static uint64_t
stale_now(struct sim *S, struct sproc *P)
{
	return vlog_stats(S, P).vlog_stale;
}

/* A message from process x's incarnation inc, far ahead of what q
 * expects: what the arrive hook says of it. */
static int
arrive_from(struct sim *S, struct sproc *Q, uint32_t x, uint32_t inc)
{
	static const uint8_t b[8];
	struct ft_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.src = m.proc = x;
	m.dst = Q->id;
	m.seq = UINT64_MAX / 4;
	m.buf = b;
	m.len = sizeof(b);
	m.clock = ((uint64_t)inc << 48) + 5;
	S->in_hook++;
	rc = S->ops->arrive(&Q->proto, &m, NULL);
	S->in_hook--;
	return rc;
}

/*
 * A host cut off, not killed: a process declared dead comes back on
 * the network before it learns so, and its messages must not be taken
 * (its successor sends them again).  Once the successor has spoken
 * (RESTART), a message of the incarnation before is dropped unread,
 * whatever its number; and once a REVIVE said a successor runs, a
 * message of any incarnation heard from before is, even before the
 * successor speaks.
 */
static void
test_stale_msg(struct sim *S)
{
	uint64_t st0;
	uint32_t x = 2, q;
	int seed, fenced = 0, ok = 1, rc;

	for (seed = 1; seed <= 20 && ok && fenced == 0; seed++) {
		if (!run_restarted(S, seed, x))
			continue;
		for (q = 0; q < 2 && ok; q++) {
			st0 = stale_now(S, &S->p[q]);
			rc = arrive_from(S, &S->p[q], x, S->p[x].inc - 1);
			if (rc != FT_ARRIVE_DUP ||
			    stale_now(S, &S->p[q]) != st0 + 1) {
				t_diag("seed %d: process %u took a message of "
				    "process %u's dead incarnation (arrive "
				    "%d)", seed, q, x, rc);
				ok = 0;
			}
			fenced++;
		}
		sim_free(S);
	}
	T_OK(ok && fenced > 0, "sim: vlog: a message of a dead incarnation "
	    "read after its successor's RESTART is dropped as stale (%d "
	    "peers)", fenced);

	/* No restart: process 2 is revived while process 0 holds its
	 * messages of incarnation 0. */
	ok = 0;
	for (seed = 1; seed <= 20 && !ok; seed++) {
		if (run(S, &ft__proto_vlog, 3, (uint64_t)seed, NULL, NULL,
		    0) < 0) {
			sim_free(S);
			continue;
		}
		S->in_hook++;
		S->ops->revive(&S->p[0].proto, x);
		S->in_hook--;
		st0 = stale_now(S, &S->p[0]);
		ok = arrive_from(S, &S->p[0], x, 0) == FT_ARRIVE_DUP &&
		    stale_now(S, &S->p[0]) == st0 + 1;
		sim_free(S);
	}
	T_OK(ok, "sim: vlog: after a REVIVE, a message of the incarnation "
	    "before is dropped as stale, before the successor speaks");
}

int
main(void)
{
	static struct sim S;

	signal(SIGPIPE, SIG_IGN);
	if (!T_OK(start_logger() == 0, "a logger for the simulation")) {
		stop_logger();
		return t_done();
	}
	test_fence();
	test_idle();
	test_local_addr();
	test_fault_free(&S);
	test_checks_bite(&S);
	test_every_kill(&S, 3, 2, 1);
	test_kills(&S, 3, 2, 0, 60);
	test_kills(&S, 3, 2, 1, 60);
	test_kills(&S, 3, 3, 1, 40);
	test_kills(&S, 4, 4, 0, 40);
	test_rules(&S, 3, 20);
	test_images(&S, 3, 1, 7, 0);
	test_images(&S, 3, 1, 13, 1);
	test_logfile(&S, 3, 13, 1);
	test_stale_gc(&S);
	test_stale_msg(&S);
	S.images = 1;
	test_kills(&S, 3, 2, 0, 6);
	test_kills(&S, 4, 2, 1, 6);
	S.images = 0;
	stop_logger();
	return t_done();
}

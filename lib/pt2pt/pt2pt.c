/* SPDX-License-Identifier: ISC */
/*
 * The point-to-point engine: connections, the eager and rendezvous
 * protocols, matching, and progress.  Payloads are read straight into the
 * receive buffer when a posted receive matches, and rendezvous data is
 * written straight from the send buffer, so large messages are never
 * copied.
 *
 * The fault-tolerance protocol (lib/proto) is called through its hooks
 * at fixed points, and acts through the effects at the end of this file
 * (core_ops).  The engine knows processes and ranks, never what a
 * protocol makes of them.
 */
#include <sys/socket.h>

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pt2pt.h"

/* Below this, payload bytes go through the input buffer. */
#define DIRECT_MIN	(16u << 10)

enum ux_kind {
	UX_EAGER = 1,	/* payload in data */
	UX_RTS,		/* payload still at the sender */
	UX_SELF,	/* a send to ourselves, payload in sreq's buffer */
};

/* A message that arrived before its receive was posted. */
struct unexp {
	struct unexp	*next;
	enum ux_kind	 kind;
	uint32_t	 src;		/* rank in the communicator */
	uint32_t	 wsrc;		/* world rank */
	uint32_t	 proc;		/* process that sent it */
	uint32_t	 ctx;
	int32_t		 tag;
	uint64_t	 seq;
	size_t		 len;
	uint8_t		*data;		/* UX_EAGER, from ft_buf_get */
	int		 pooled;
	uint64_t	 sreq;		/* UX_RTS */
	struct ft_req	*self;		/* UX_SELF */
	uint64_t	 clock;		/* the sender's, carried for vlog */
	int		 claimed;	/* by ft_pt_improbe: matches nothing */
	int		 injected;	/* by core->inject */
};

/* Matching state of one communicator context, created on first use. */
struct mctx {
	struct mctx	*hnext;
	uint32_t	 ctx;
	struct ft_req	*posted_head, *posted_tail;
	struct unexp	*ux_head, *ux_tail;
	uint32_t	 nheld;		/* receives whose source waits */
	int		 fail;		/* revoked: requests fail so */
};

enum rd_phase {
	RD_HEADER = 0,
	RD_PAYLOAD,
};

struct pconn {
	struct ft_conn	 c;
	int		 outgoing;	/* we opened it: our sends go here */
	uint32_t	 dialed;	/* outgoing: the rank we called */
	int		 closed;
	int		 quiet;		/* its refusal is reported already */
	int		 fresh;		/* a new incarnation's, being
					 * accepted: ft_pt_revive keeps it */
	/* Reading a data frame's payload: left bytes to dst, then skip. */
	enum rd_phase	 phase;
	uint8_t		*dst;
	size_t		 left, skip;
	struct ft_req	*req;		/* completes when the payload ends */
	struct unexp	*ux;		/* or queues when it ends */
	uint32_t	 wsrc;
	uint32_t	 flen;		/* the data frame being read */
	/*
	 * Acknowledgements, on TCP under a protocol that waits for its
	 * messages to be out (acks_on): a process killed with input it
	 * has not read resets its connections, and a host that dies takes
	 * its kernel's buffers with it, so bytes in the kernel are not
	 * yet delivered.  Positions count frame bytes after the handshake
	 * and leave out ACK frames, which are never acknowledged.
	 */
	int		 tcp;
	uint64_t	 in_done;	/* incoming: bytes of whole frames */
	int		 ack_due;	/* ... some not acknowledged yet */
	uint64_t	 acked;		/* outgoing: what the peer has */
	uint64_t	 ack_bytes;	/* ... our ACK frames sent on it */
};

/* One process of the job. */
struct proc {
	struct pconn	*out;
	int		 gone;		/* a view or its connection says so */
	int		 vgone;		/* a view says so */
	uint64_t	 eager_out;	/* our eager bytes it has not matched */
	uint64_t	 eager_in;	/* its eager bytes we matched, owed */
};

/* A rendezvous send to one process of a multi-send, for the callback. */
struct multi_ticket {
	struct ft_pt	*pt;
	struct multi	*mu;
	uint32_t	 k;
};

/*
 * A rendezvous send of one message to several processes (send_msg).
 * Data goes straight from the sender's buffer to each process that
 * answers while the sender's request is pending; that request completes
 * once one process has it all (what the sender would see with one
 * destination).  Only then, if others still need bytes, are those bytes
 * copied (the streams under way are moved onto the copy), so a slow
 * process never holds the sender.  inner holds the slot that CTS frames
 * name; want, sending and from_user index procs[].
 */
struct multi {
	struct ft_req		 inner;
	struct ft_req		*user;		/* until one process has it */
	const uint8_t		*ubuf;		/* the sender's, while user */
	uint32_t		 from_user;	/* streams from ubuf */
	uint8_t			*copy;
	void			*cookie;	/* for the sent hook */
	uint32_t		 n;
	uint32_t		 procs[FT_PROTO_MULTI_MAX];
	uint64_t		 endpos[FT_PROTO_MULTI_MAX];	/* acks */
	struct multi_ticket	 t[FT_PROTO_MULTI_MAX];
};

/*
 * A message sent to several processes, until it is out: an eager one,
 * or a rendezvous whose data waits for acknowledgements.  pos: where
 * it ends in each connection's stream (see struct pconn).
 */
struct eout {
	void		*cookie;
	uint32_t	 n;
	uint32_t	 procs[FT_PROTO_MULTI_MAX];
	uint64_t	 pos[FT_PROTO_MULTI_MAX];
};

/* Requests waiting in a rendezvous, found by the id in CTS and RDATA. */
struct slot {
	struct ft_req	*req;
	uint32_t	 gen;
};

struct ft_pt {
	uint32_t		 rank, size, node;
	uint32_t		 ppr;		/* processes per rank */
	uint32_t		 self, nproc;	/* our process id; processes */
	struct proc		*procs;		/* nproc */
	uint64_t		*sseq;		/* size: next number we send */
	int			 reap_due;
	int			 in_progress;
	uint64_t		 ncompleted;	/* requests completed */
	int			 freeing;
	void			(*notify)(void *, uint32_t, const char *);
	void			*notify_arg;
	const uint8_t		*key;
	int			 force_tcp;
	struct ft_proto		 proto;
	int			 resends;	/* FT_PROTO_RESENDS */
	int			 fails;		/* FT_PROTO_FAILS */
	int			 restarts;	/* FT_PROTO_RESTARTS */
	/* The protocol's watched fd (core->watch), or -1. */
	int			 wfd;
	short			 wevents;
	uint64_t		 wdeadline;
	int			 acks_on;	/* the protocol has sent */
	struct eout		*eouts;		/* eager multi-sends not yet out */
	size_t			 neouts, capeouts;
	int			 lfd_unix, lfd_tcp;
	char			 unix_path[FT_WIRE_ADDR_MAX];
	struct ft_rank_addr	 self_addr;
	struct ft_rank_addr	*table;
	struct pconn		**conns;
	size_t			 nconns, capconns;
	struct pconn		*ctl;
	void			(*on_ctl)(void *, const struct ft_hdr *,
				    const uint8_t *);
	void			*ctl_arg;
	struct mctx		*ctxtab[256];
	struct slot		*slots;
	uint32_t		*freeslots;
	size_t			 nslots, nfree, rdv_pending;
	struct pollfd		*pfd;
	struct pconn		**pfdconn;
	size_t			 cappfd;
	/* Connections we accepted and that are in the handshake. */
	uint64_t		 hello_ns;	/* HELLO due after accept */
	uint64_t		 hs_next;	/* the next one due, or 0 */
	struct ft_ratelim	 refusals;	/* their warnings */
	/* FT_PROTO_FAILS: requests a broken connection failed, held until
	 * a view says their process is dead (req_fail). */
	struct ft_req		**unconfirmed;
	size_t			 nunconfirmed, capunconfirmed;
};

static void	req_complete(struct ft_pt *, struct ft_req *);
static void	rdata_sent(void *);
static void	ctl_read(struct ft_pt *);
static void	conn_close(struct ft_pt *, struct pconn *, const char *);
static int	multi_on_cts(struct ft_pt *, struct pconn *,
		    const struct ft_msg_cts *);
static int	arrive(struct ft_pt *, struct unexp *);
static void	dup_drop(struct ft_pt *, struct unexp *);
static void	multi_done(struct ft_pt *, struct ft_req *);
static int	eout_done(const struct ft_pt *, const struct eout *);
static int	eout_add(struct ft_pt *, const uint32_t *, const uint64_t *,
		    uint32_t, void *);
static void	multi_trim_gone(struct ft_pt *);
static int	core_release(void *, void *);
static void	core_fail_ctx(void *, uint32_t, uint32_t, int);
static const struct ft_core_ops core_ops;

uint32_t
ft_pt_rank(const struct ft_pt *pt)
{
	return pt->rank;
}

uint32_t
ft_pt_size(const struct ft_pt *pt)
{
	return pt->size;
}

/* Is every process of rank r gone: by a view alone with view_only? */
static int
rank_gone(const struct ft_pt *pt, uint32_t r, int view_only)
{
	const struct proc *p = &pt->procs[r * pt->ppr];
	uint32_t k;

	for (k = 0; k < pt->ppr; k++)
		if (!(view_only ? p[k].vgone : p[k].gone))
			return 0;
	return 1;
}

int
ft_pt_peer_gone(const struct ft_pt *pt, uint32_t r)
{
	return r < pt->size && rank_gone(pt, r, 0);
}

void
ft_pt_set_notify(struct ft_pt *pt, void (*fn)(void *, uint32_t,
    const char *), void *arg)
{
	pt->notify = fn;
	pt->notify_arg = arg;
}

/* The rank process proc runs. */
static uint32_t
rank_of(const struct ft_pt *pt, uint32_t proc)
{
	return proc / pt->ppr;
}

struct ft_pt *
ft_pt_new(const struct ft_pt_conf *cf)
{
	struct ft_pt *pt;
	struct ft_conf pc;
	char addr[FT_WIRE_ADDR_MAX];
	uint32_t ppr = cf->ppr > 1 ? cf->ppr : 1;
	int saved;

	if (cf->size == 0 || cf->rank >= cf->size || cf->key == NULL ||
	    ppr > FT_PROTO_MULTI_MAX || (ppr > 1 && cf->index >= ppr) ||
	    (uint64_t)cf->size * ppr > FT_WIRE_MAX_RANKS) {
		errno = EINVAL;
		return NULL;
	}
	if ((pt = calloc(1, sizeof(*pt))) == NULL)
		return NULL;
	pt->rank = cf->rank;
	pt->size = cf->size;
	pt->ppr = ppr;
	pt->self = pt->rank * ppr + (ppr > 1 ? cf->index : 0);
	pt->nproc = cf->size * ppr;
	pt->node = cf->node;
	pt->key = cf->key;
	pt->force_tcp = cf->force_tcp;
	pt->lfd_unix = pt->lfd_tcp = -1;
	pt->hello_ns = cf->hello_ns != 0 ? cf->hello_ns : FT_HS_HELLO_NS;
	ft_ratelim_init(&pt->refusals, "refused connections",
	    FT_HS_WARN_BURST, FT_HS_WARN_NS);
	if ((pt->sseq = calloc(cf->size, sizeof(*pt->sseq))) == NULL ||
	    (pt->procs = calloc(pt->nproc, sizeof(*pt->procs))) == NULL)
		goto fail;
	memset(&pc, 0, sizeof(pc));
	pc.rank = cf->rank;
	pc.size = cf->size;
	pc.ppr = ppr;
	pc.proc = pt->self;
	pc.check_divergence = cf->check_divergence;
	pc.log_addr = cf->log_addr;
	pc.key = cf->log_key != NULL ? cf->log_key : cf->key;
	pc.job = cf->job;
	pc.incarnation = cf->incarnation;
	pc.spill_dir = cf->unix_dir;
	pc.log_mem = cf->log_mem;
	pc.strict = cf->strict;
	pc.replay_off = cf->replay_off;
	pc.record_dir = cf->record_dir;
	pc.record = cf->record;
	pc.universe = cf->universe;
	pt->wfd = -1;
	if (ft_proto_init(&pt->proto, cf->proto != NULL ? cf->proto :
	    &ft__proto_none, &pc, &core_ops, pt) != 0)
		goto fail;
	pt->resends = (pt->proto.ops->flags & FT_PROTO_RESENDS) != 0;
	pt->fails = (pt->proto.ops->flags & FT_PROTO_FAILS) != 0;
	pt->restarts = (pt->proto.ops->flags & FT_PROTO_RESTARTS) != 0;
	pt->acks_on = pt->proto.ops->sent != NULL;
	pt->self_addr.node = cf->node;
	pt->self_addr.pid = (uint32_t)getpid();
	if (cf->unix_dir != NULL && !cf->force_tcp) {
		snprintf(addr, sizeof(addr), "unix:%s/r%u.sock", cf->unix_dir,
		    pt->self);
		pt->lfd_unix = ft_net_listen(addr, pt->self_addr.unix_addr,
		    sizeof(pt->self_addr.unix_addr));
		if (pt->lfd_unix == -1)
			goto fail;
		snprintf(pt->unix_path, sizeof(pt->unix_path), "%s",
		    addr + 5);
	}
	/*
	 * A TCP port is open to every user of the host, the job directory
	 * (mode 0700) to its owner only: listen on TCP only when the job
	 * asks for it, spans several hosts (tcp_host given), or has no
	 * directory and more than one process.  Without it, our address
	 * in the table has no TCP part.
	 */
	if (cf->force_tcp || cf->tcp_host != NULL ||
	    (cf->unix_dir == NULL && pt->nproc > 1)) {
		snprintf(addr, sizeof(addr), "tcp:%s:0",
		    cf->tcp_host != NULL ? cf->tcp_host : "127.0.0.1");
		pt->lfd_tcp = ft_net_listen(addr, pt->self_addr.tcp_addr,
		    sizeof(pt->self_addr.tcp_addr));
		if (pt->lfd_tcp == -1)
			goto fail;
	}
	return pt;
fail:
	saved = errno;
	ft_pt_free(pt);
	errno = saved;
	return NULL;
}

void
ft_pt_addr(const struct ft_pt *pt, struct ft_rank_addr *a)
{
	*a = pt->self_addr;
}

int
ft_pt_grow(struct ft_pt *pt, uint32_t first, const struct ft_rank_addr *t,
    uint32_t n)
{
	struct ft_rank_addr *nt;
	struct proc *np;
	uint64_t *ns;
	uint32_t total;

	if (pt->ppr != 1 || pt->table == NULL || n == 0 ||
	    first >= FT_WIRE_MAX_RANKS || n > FT_WIRE_MAX_RANKS - first) {
		errno = EINVAL;
		return -1;
	}
	total = first + n > pt->nproc ? first + n : pt->nproc;
	if (total > pt->nproc) {
		if ((np = reallocarray(pt->procs, total, sizeof(*np))) == NULL)
			return -1;
		pt->procs = np;
		if ((ns = reallocarray(pt->sseq, total, sizeof(*ns))) == NULL)
			return -1;
		pt->sseq = ns;
		if ((nt = reallocarray(pt->table, total, sizeof(*nt))) == NULL)
			return -1;
		pt->table = nt;
		memset(pt->procs + pt->nproc, 0, (total - pt->nproc) *
		    sizeof(*np));
		memset(pt->sseq + pt->nproc, 0, (total - pt->nproc) *
		    sizeof(*ns));
		memset(pt->table + pt->nproc, 0, (total - pt->nproc) *
		    sizeof(*nt));
		pt->nproc = pt->size = total;
	}
	memcpy(pt->table + first, t, n * sizeof(*t));
	return 0;
}

/* Has process q joined, as far as we know?  Else its entry is empty. */
static int
proc_known(const struct ft_pt *pt, uint32_t q)
{
	const struct ft_rank_addr *a;

	if (q >= pt->nproc || pt->table == NULL)
		return 0;
	a = &pt->table[q];
	return a->pid != 0 || a->unix_addr[0] != '\0' ||
	    a->tcp_addr[0] != '\0';
}

/*
 * Wait for the launcher to tell us of process q (a PROCS frame on the
 * control connection): it does so before anyone can know of q.
 * Returns 0, or -1 with EINVAL when no news of q comes.
 */
static int
await_proc(struct ft_pt *pt, uint32_t q)
{
	uint64_t deadline = ft_now_ns() + FT_PT_JOIN_NS;
	struct pollfd p;

	while (!proc_known(pt, q)) {
		if (q >= FT_WIRE_MAX_RANKS || pt->ctl == NULL ||
		    pt->ctl->closed || ft_now_ns() >= deadline) {
			errno = EINVAL;
			return -1;
		}
		p = (struct pollfd){ pt->ctl->c.fd, POLLIN, 0 };
		if (ft_conn_avail(&pt->ctl->c) == 0 &&
		    poll(&p, 1, 100) <= 0)
			continue;
		ctl_read(pt);
	}
	return 0;
}

int
ft_pt_set_table(struct ft_pt *pt, const struct ft_rank_addr *t, uint32_t n)
{
	/* With one process a rank, processes that joined later too. */
	if (n != pt->nproc && (n < pt->nproc || pt->ppr != 1)) {
		errno = EINVAL;
		return -1;
	}
	free(pt->table);
	if ((pt->table = calloc(pt->nproc, sizeof(*t))) == NULL)
		return -1;
	if (n == pt->nproc) {
		memcpy(pt->table, t, n * sizeof(*t));
		return 0;
	}
	return ft_pt_grow(pt, 0, t, n);
}

static int
conn_add(struct ft_pt *pt, struct pconn *pc)
{
	struct pconn **nc;

	if ((nc = ft_grow(pt->conns, &pt->capconns, pt->nconns,
	    sizeof(*nc))) == NULL)
		return -1;
	pt->conns = nc;
	pt->conns[pt->nconns++] = pc;
	return 0;
}

void
ft_pt_set_ctl(struct ft_pt *pt, struct ft_conn *c,
    void (*on_ctl)(void *, const struct ft_hdr *, const uint8_t *), void *arg)
{
	struct pconn *pc;

	if ((pc = calloc(1, sizeof(*pc))) == NULL)
		FT_BUG();
	pc->c = *c;
	pt->ctl = pc;
	pt->on_ctl = on_ctl;
	pt->ctl_arg = arg;
}

struct ft_conn *
ft_pt_ctl(struct ft_pt *pt)
{
	return pt->ctl != NULL && !pt->ctl->closed ? &pt->ctl->c : NULL;
}

static void
mctx_free(struct mctx *m)
{
	struct unexp *u, *next;

	for (u = m->ux_head; u != NULL; u = next) {
		next = u->next;
		ft_buf_put(u->data, u->pooled);
		free(u);
	}
	free(m);
}

void
ft_pt_free(struct ft_pt *pt)
{
	struct mctx *m, *next;
	struct multi *mu;
	size_t i;

	if (pt == NULL)
		return;
	/* First: the protocol hands back what it holds, which only needs
	 * freeing now. */
	pt->freeing = 1;
	ft_ratelim_flush(&pt->refusals, 1);
	if (pt->proto.ops != NULL)
		ft_proto_release(&pt->proto);
	for (i = 0; i < pt->nconns; i++) {
		/* A message cut short by the end is lost with it. */
		if (pt->conns[i]->ux != NULL) {
			ft_buf_put(pt->conns[i]->ux->data,
			    pt->conns[i]->ux->pooled);
			free(pt->conns[i]->ux);
		}
		ft_conn_release(&pt->conns[i]->c);
		free(pt->conns[i]);
	}
	if (pt->ctl != NULL) {
		ft_conn_release(&pt->ctl->c);
		free(pt->ctl);
	}
	/* Fan-outs still waiting for answers are ours; requests are not. */
	for (i = 0; i < pt->nslots; i++)
		if (pt->slots[i].req != NULL && pt->slots[i].req->multi) {
			mu = (struct multi *)pt->slots[i].req;
			free(mu->copy);
			free(mu);
		}
	for (i = 0; i < FT_NELEM(pt->ctxtab); i++)
		for (m = pt->ctxtab[i]; m != NULL; m = next) {
			next = m->hnext;
			mctx_free(m);
		}
	if (pt->lfd_unix != -1) {
		close(pt->lfd_unix);
		unlink(pt->unix_path);
	}
	if (pt->lfd_tcp != -1)
		close(pt->lfd_tcp);
	free(pt->conns);
	free(pt->sseq);
	free(pt->procs);
	free(pt->eouts);
	free(pt->table);
	free(pt->slots);
	free(pt->unconfirmed);
	free(pt->freeslots);
	free(pt->pfd);
	free(pt->pfdconn);
	free(pt);
}

/* Matching contexts hash on the low bits of the context id. */
static struct mctx *
mctx_get(struct ft_pt *pt, uint32_t ctx)
{
	struct mctx **head = &pt->ctxtab[ctx % FT_NELEM(pt->ctxtab)], *m;

	for (m = *head; m != NULL; m = m->hnext)
		if (m->ctx == ctx)
			return m;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	m->ctx = ctx;
	m->hnext = *head;
	*head = m;
	return m;
}

static uint64_t
slot_add(struct ft_pt *pt, struct ft_req *r)
{
	struct slot *ns;
	uint32_t *nf, idx;
	size_t ncap;

	if (pt->nfree == 0) {
		ncap = pt->nslots == 0 ? 64 : pt->nslots * 2;
		if ((ns = reallocarray(pt->slots, ncap, sizeof(*ns))) == NULL)
			return 0;
		pt->slots = ns;
		if ((nf = reallocarray(pt->freeslots, ncap, sizeof(*nf))) ==
		    NULL)
			return 0;
		pt->freeslots = nf;
		for (idx = (uint32_t)pt->nslots; idx < ncap; idx++) {
			pt->slots[idx].req = NULL;
			pt->slots[idx].gen = 1;
			pt->freeslots[pt->nfree++] = (uint32_t)(ncap - 1 -
			    (idx - pt->nslots));
		}
		pt->nslots = ncap;
	}
	idx = pt->freeslots[--pt->nfree];
	pt->slots[idx].req = r;
	pt->rdv_pending++;
	r->id = (uint64_t)pt->slots[idx].gen << 32 | idx;
	return r->id;
}

static struct ft_req *
slot_find(struct ft_pt *pt, uint64_t id)
{
	uint32_t idx = (uint32_t)id;

	if (idx >= pt->nslots || pt->slots[idx].req == NULL ||
	    pt->slots[idx].gen != (uint32_t)(id >> 32))
		return NULL;
	return pt->slots[idx].req;
}

static void
slot_del(struct ft_pt *pt, struct ft_req *r)
{
	uint32_t idx = (uint32_t)r->id;

	if (r->id == 0 || slot_find(pt, r->id) != r)
		return;
	pt->slots[idx].req = NULL;
	pt->slots[idx].gen++;
	if (pt->slots[idx].gen == 0)
		pt->slots[idx].gen = 1;
	pt->freeslots[pt->nfree++] = idx;
	pt->rdv_pending--;
	r->id = 0;
}

static int
matches(const struct ft_req *r, uint32_t src, int32_t tag)
{
	return (r->src == FT_PT_ANY || (uint32_t)r->src == src) &&
	    (r->tag == FT_PT_ANY || r->tag == tag);
}

/* Take posted receive r off m's queue. */
static void
posted_unlink(struct mctx *m, struct ft_req *r)
{
	if (r->prev != NULL)
		r->prev->next = r->next;
	else
		m->posted_head = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	else
		m->posted_tail = r->prev;
	r->next = r->prev = NULL;
	r->posted = 0;
}

/*
 * Take the first posted receive matching src and tag.  An ANY_SOURCE
 * receive whose source the protocol has yet to settle (held) may be the
 * one this message is for: a message its tag allows stops there,
 * unexpected, until core->resolve.
 */
static struct ft_req *
posted_take(struct mctx *m, uint32_t src, int32_t tag)
{
	struct ft_req *r;

	for (r = m->posted_head; r != NULL; r = r->next) {
		if (r->held) {
			if (r->tag == FT_PT_ANY || r->tag == tag)
				return NULL;
			continue;
		}
		if (matches(r, src, tag))
			break;
	}
	if (r == NULL)
		return NULL;
	posted_unlink(m, r);
	return r;
}

static void
posted_append(struct mctx *m, struct ft_req *r)
{
	r->next = NULL;
	r->prev = m->posted_tail;
	if (m->posted_tail != NULL)
		m->posted_tail->next = r;
	else
		m->posted_head = r;
	m->posted_tail = r;
	r->posted = 1;
}

static void
ux_append(struct mctx *m, struct unexp *u)
{
	u->next = NULL;
	if (m->ux_tail != NULL)
		m->ux_tail->next = u;
	else
		m->ux_head = u;
	m->ux_tail = u;
}

/* Unlink u, which follows prev (NULL: u is first), from m's queue. */
static void
ux_unlink(struct mctx *m, struct unexp *u, struct unexp *prev)
{
	if (prev != NULL)
		prev->next = u->next;
	else
		m->ux_head = u->next;
	if (m->ux_tail == u)
		m->ux_tail = prev;
	u->next = NULL;
}

/*
 * Take the first unexpected message matching src and tag.  A claimed
 * message stays in the queue (a duplicate of it must still find it)
 * but matches nothing.
 */
static struct unexp *
ux_take(struct mctx *m, int src, int tag, int remove)
{
	struct unexp *u, *prev = NULL;

	for (u = m->ux_head; u != NULL; prev = u, u = u->next)
		if (!u->claimed &&
		    (src == FT_PT_ANY || (uint32_t)src == u->src) &&
		    (tag == FT_PT_ANY || tag == u->tag))
			break;
	if (u != NULL && remove)
		ux_unlink(m, u, prev);
	return u;
}

/* Fill a receive's status for a matched message of len bytes. */
static void
recv_matched(struct ft_req *r, uint32_t src, int32_t tag, size_t len)
{
	r->st.source = (int)src;
	r->st.tag = tag;
	r->st.msglen = len;
	r->st.bytes = len <= r->cap ? len : r->cap;
	r->st.error = len <= r->cap ? 0 : EMSGSIZE;
}

static void
req_complete(struct ft_pt *pt, struct ft_req *r)
{
	slot_del(pt, r);
	r->done = 1;
	pt->ncompleted++;
	if (r->on_done != NULL)
		r->on_done(r);
}

/*
 * Receive r matched the message (src in the communicator, world rank
 * wsrc, number seq) from process proc: its source is fixed.
 */
static void
matched(struct ft_pt *pt, struct ft_req *r, uint32_t src, uint32_t wsrc,
    uint64_t seq, uint32_t proc)
{
	struct ft_msg m;

	if (pt->proto.ops->match == NULL)
		return;
	memset(&m, 0, sizeof(m));
	m.ctx = r->ctx;
	m.src = wsrc;
	m.dst = pt->rank;
	m.tag = r->st.tag;
	m.seq = seq;
	m.len = r->st.msglen;
	m.csrc = src;
	m.proc = proc;
	pt->proto.ops->match(&pt->proto, &m, r->rtag);
	r->rtag = 0;
}

static void
deliver(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc, uint64_t seq)
{
	struct ft_msg m = { .ctx = r->ctx, .src = wsrc, .dst = pt->rank,
	    .tag = r->st.tag, .seq = seq, .buf = r->buf, .len = r->st.bytes,
	    .csrc = (uint32_t)r->st.source, .proc = r->peer };

	r->seq = seq;
	(void)ft_proto_deliver(&pt->proto, &m);
	req_complete(pt, r);
}

static int
conn_open(struct ft_pt *pt, uint32_t dst)
{
	const struct ft_rank_addr *a;
	const char *addr;
	struct pconn *pc;
	uint64_t deadline;
	int fd;

	if (pt->table == NULL) {
		errno = ENOTCONN;
		return -1;
	}
	if (!proc_known(pt, dst) && await_proc(pt, dst) != 0)
		return -1;
	a = &pt->table[dst];
	if (!pt->force_tcp && a->node == pt->node && a->unix_addr[0] != '\0')
		addr = a->unix_addr;
	else
		addr = a->tcp_addr;
	/* It listens on nothing we can reach (no TCP without --tcp). */
	if (addr[0] == '\0') {
		errno = EHOSTUNREACH;
		return -1;
	}
	/* A full accept queue (a busy peer) is worth waiting out. */
	deadline = ft_now_ns() + 5000000000u;
	while ((fd = ft_net_connect(addr)) == -1) {
		if (errno != EAGAIN || ft_now_ns() >= deadline)
			return -1;
		(void)poll(NULL, 0, 1);
	}
	if ((pc = calloc(1, sizeof(*pc))) == NULL) {
		close(fd);
		return -1;
	}
	if (ft_conn_connecting(&pc->c, fd, pt->key, pt->self,
	    FT_ROLE_RANK) != 0 || conn_add(pt, pc) != 0) {
		ft_conn_release(&pc->c);
		free(pc);
		return -1;
	}
	pc->c.peer = dst;
	pc->dialed = dst;
	pc->outgoing = 1;
	pc->tcp = strncmp(addr, "tcp:", 4) == 0;
	pt->procs[dst].out = pc;
	/*
	 * HELLO leaves now, not at our next call, which may come after the
	 * peer's deadline for it (ft_hs_guard).  A TCP connect may still
	 * be under way; the kernels finish it without the peer's help.  A
	 * failure is found and reported by the progress that follows.
	 */
	while (ft_conn_flush(&pc->c) == 0 && pc->c.hsout.len > 0 &&
	    ft_now_ns() < deadline)
		(void)poll(&(struct pollfd){ fd, POLLOUT, 0 }, 1, 1);
	return 0;
}

/* The connection to process dst, opened on first use. */
static struct pconn *
peer_conn(struct ft_pt *pt, uint32_t dst)
{
	if (pt->procs[dst].gone) {
		errno = ECONNRESET;
		return NULL;
	}
	if (pt->procs[dst].out == NULL && conn_open(pt, dst) != 0)
		return NULL;
	return pt->procs[dst].out;
}

/*
 * FT_PROTO_FAILS: complete r in error err (ECONNRESET: its peer is
 * dead; ECANCELED: its context is revoked).  Returns 0, for the calls
 * that start a request.
 */
/* The process r waits on: its sender's, or its destination's first. */
static uint32_t
req_proc(const struct ft_pt *pt, const struct ft_req *r)
{
	if (r->kind == FT_REQ_SEND)
		return r->dst * pt->ppr;
	return r->wsrc != UINT32_MAX ? r->wsrc * pt->ppr : r->peer;
}

static int
req_fail(struct ft_pt *pt, struct ft_req *r, int err)
{
	struct ft_req **nu;
	uint32_t q;

	/*
	 * FT_PROTO_FAILS: a broken connection says that its process may
	 * be dead; only the launcher's view says it is.  Until then the
	 * request waits, so that the process failure the application is
	 * told of is one MPIX_Comm_get_failed lists (the ULFM project's
	 * stress/pingpairs saw MPIX_ERR_PROC_FAILED with no process
	 * failed).  The view that names it completes the request.
	 */
	if (err == ECONNRESET && pt->fails && !r->multi && !pt->freeing &&
	    (q = req_proc(pt, r)) < pt->nproc && !pt->procs[q].vgone) {
		nu = ft_grow(pt->unconfirmed, &pt->capunconfirmed,
		    pt->nunconfirmed, sizeof(*nu));
		if (nu != NULL) {
			pt->unconfirmed = nu;
			pt->unconfirmed[pt->nunconfirmed++] = r;
			return 0;
		}
		/* Out of memory: fail it now, unconfirmed. */
	}
	r->st.error = err;
	req_complete(pt, r);
	return 0;
}

/* A view came: complete the held requests whose process it names. */
static void
unconfirmed_settle(struct ft_pt *pt)
{
	struct ft_req *r;
	size_t i, j;

	for (i = j = 0; i < pt->nunconfirmed; i++) {
		r = pt->unconfirmed[i];
		if (pt->procs[req_proc(pt, r)].vgone) {
			r->st.error = ECONNRESET;
			req_complete(pt, r);
		} else
			pt->unconfirmed[j++] = r;
	}
	pt->nunconfirmed = j;
}

/* The error requests on ctx fail with (revoked), or 0. */
static int
ctx_failed(struct ft_pt *pt, uint32_t ctx)
{
	struct mctx *m = mctx_get(pt, ctx);

	return m != NULL ? m->fail : 0;
}

/* May len bytes in this mode go eagerly to process q (window left)? */
static int
eager_fits(const struct ft_pt *pt, uint32_t q, size_t len, int mode)
{
	return len <= FT_PT_EAGER_MAX && mode != FT_SEND_SYNC &&
	    pt->procs[q].eager_out + len + FT_PT_EAGER_COST <=
	    FT_PT_EAGER_WINDOW;
}

/*
 * Send m eagerly to process q over pc: its bytes count against q's
 * window, and m->buf is free when the call returns.  0, or -1 with
 * errno.
 */
static int
eager_send(struct ft_pt *pt, struct pconn *pc, uint32_t q,
    const struct ft_msg *m)
{
	uint8_t prefix[FT_WIRE_HDRLEN + FT_EAGER_FIXED + FT_EAGER_CLOCK];
	struct ft_msg_eager eg = { m->ctx, m->csrc, m->tag, m->seq,
	    m->clock };

	if (ft_msg_eager_cprefix(prefix, pt->self, &eg, m->len) != 0)
		return -1;
	pt->procs[q].eager_out += m->len + FT_PT_EAGER_COST;
	return ft_conn_send2(&pc->c, prefix,
	    FT_WIRE_HDRLEN + ft_msg_eager_fixed(&eg), m->buf, m->len);
}

/* A send to ourselves: match now, or queue as unexpected. */
static int
send_self(struct ft_pt *pt, struct ft_req *s, uint32_t ctx, uint32_t src,
    int tag, uint64_t seq)
{
	struct mctx *m;
	struct ft_req *r;
	struct unexp *u;

	if ((m = mctx_get(pt, ctx)) == NULL)
		return -1;
	if ((r = posted_take(m, src, tag)) != NULL) {
		recv_matched(r, src, tag, s->len);
		matched(pt, r, src, pt->rank, seq, pt->self);
		if (r->st.bytes > 0)
			memcpy(r->buf, s->sbuf, r->st.bytes);
		deliver(pt, r, pt->rank, seq);
		req_complete(pt, s);
		return 0;
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->src = src;
	u->wsrc = pt->rank;
	u->proc = pt->self;
	u->tag = tag;
	u->seq = seq;
	u->len = s->len;
	if (s->len <= FT_PT_EAGER_MAX && s->mode != FT_SEND_SYNC) {
		u->kind = UX_EAGER;
		if (s->len > 0 && (u->data = ft_buf_get(s->len,
		    &u->pooled)) == NULL) {
			free(u);
			return -1;
		}
		if (s->len > 0)
			memcpy(u->data, s->sbuf, s->len);
		ux_append(m, u);
		req_complete(pt, s);
		return 0;
	}
	u->kind = UX_SELF;
	u->self = s;
	ux_append(m, u);
	return 0;
}

int
ft_pt_isend(struct ft_pt *pt, struct ft_req *r, const void *buf, size_t len,
    uint32_t dst, uint32_t ctx, uint32_t src, int tag, int mode)
{
	struct ft_msg_rts rts;
	struct ft_wbuf wb;
	struct ft_msg m;
	struct pconn *pc;
	uint64_t seq;
	uint32_t q;
	int rc;

	memset(r, 0, sizeof(*r) - sizeof(r->on_done) - sizeof(r->user));
	r->kind = FT_REQ_SEND;
	r->sbuf = buf;
	r->len = len;
	r->dst = dst;
	r->ctx = ctx;
	r->mode = mode;
	r->tag = tag;
	if (dst >= pt->size && (pt->ppr != 1 || await_proc(pt, dst) != 0)) {
		errno = EINVAL;
		return -1;
	}
	seq = pt->sseq[dst]++;
	m = (struct ft_msg){ ctx, pt->rank, dst, tag, seq, buf, len, src, mode,
	    pt->self, r, 0, 0 };
	if ((rc = ft_proto_send(&pt->proto, &m)) != 0)
		return rc < 0 ? -1 : 0;	/* 1: the protocol took it */
	if (pt->fails && (rc = ctx_failed(pt, ctx)) != 0)
		return req_fail(pt, r, rc);
	if (dst == pt->rank)
		return send_self(pt, r, ctx, src, tag, seq);
	/* Without a route from the protocol, a rank is its first process. */
	q = dst * pt->ppr;
	if ((pc = peer_conn(pt, q)) == NULL)
		return pt->fails && errno != ENOMEM ?
		    req_fail(pt, r, ECONNRESET) : -1;
	if (eager_fits(pt, q, len, mode)) {
		if (eager_send(pt, pc, q, &m) != 0)
			return pt->fails && errno != ENOMEM ?
			    req_fail(pt, r, ECONNRESET) : -1;
		/* FT_PROTO_FAILS: a process may die right after its send
		 * completes; bytes still queued here (a handshake under way)
		 * would die with it.  Complete once the kernel has them. */
		if (pt->fails && pc->c.oq_tail != NULL &&
		    pc->c.oq_tail->done == NULL) {
			pc->c.oq_tail->done = rdata_sent;
			pc->c.oq_tail->arg = r;
			return 0;
		}
		req_complete(pt, r);
		return 0;
	}
	if (slot_add(pt, r) == 0)
		return -1;
	rts = (struct ft_msg_rts){ ctx, src, tag, seq, len, r->id, m.clock };
	ft_wbuf_init(&wb);
	rc = ft_msg_rts_encode(&wb, pt->self,
	    mode == FT_SEND_SYNC ? FT_FLAG_SYNC : 0, &rts);
	if (rc == 0 && (rc = ft_conn_queue_copy(&pc->c, wb.p, wb.len)) != 0 &&
	    pt->fails && errno != ENOMEM)
		rc = 1;		/* the peer is gone (EPIPE) */
	ft_wbuf_release(&wb);
	if (rc != 0) {
		slot_del(pt, r);
		/* FT_PROTO_FAILS: that fails the request, as for an eager
		 * send, not the call. */
		return rc > 0 ? req_fail(pt, r, ECONNRESET) : -1;
	}
	return 0;
}

/*
 * An eager message from world rank wsrc was matched: its bytes count
 * towards the credit we owe wsrc, paid once a quarter window is due.
 * Best effort: a peer we cannot reach any more needs no credit.
 */
static void
eager_matched(struct ft_pt *pt, uint32_t proc, size_t len)
{
	struct ft_msg_credit cr;
	struct proc *p = &pt->procs[proc];
	struct ft_wbuf wb;
	struct pconn *pc;

	if (proc == pt->self)
		return;
	p->eager_in += len + FT_PT_EAGER_COST;
	if (p->eager_in < FT_PT_EAGER_WINDOW / 4 || p->gone ||
	    (pc = peer_conn(pt, proc)) == NULL)
		return;
	/* Opening the connection may have grown the table. */
	p = &pt->procs[proc];
	cr.bytes = p->eager_in;
	ft_wbuf_init(&wb);
	if (ft_msg_credit_encode(&wb, pt->self, &cr) == 0 &&
	    ft_conn_queue_copy(&pc->c, wb.p, wb.len) == 0)
		p->eager_in = 0;
	ft_wbuf_release(&wb);
}

/*
 * Complete receive r, already matched, with the unexpected eager message
 * u (whose buffer the caller frees), and owe its sender the credit.
 */
static void
ux_eager_deliver(struct ft_pt *pt, struct ft_req *r, const struct unexp *u)
{
	if (r->st.bytes > 0)
		memcpy(r->buf, u->data, r->st.bytes);
	deliver(pt, r, u->wsrc, u->seq);
	eager_matched(pt, u->proc, u->len);
}

/* Answer an RTS that a receive matched: register it and send CTS. */
static int
send_cts(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc, uint64_t sreq,
    uint64_t seq)
{
	struct ft_msg_cts cts;
	struct ft_wbuf wb;
	struct pconn *pc;
	int rc;

	if (slot_add(pt, r) == 0)
		return -1;
	r->seq = seq;
	r->peer = wsrc;
	/* A dead sender's message comes again from another process. */
	if (pt->resends && pt->procs[wsrc].gone)
		return 0;
	if ((pc = peer_conn(pt, wsrc)) == NULL) {
		if (pt->resends && errno != ENOMEM)
			return 0;	/* dead, not yet in a view: as above */
		slot_del(pt, r);
		return -1;
	}
	cts.sreq = sreq;
	cts.rreq = r->id;
	ft_wbuf_init(&wb);
	rc = ft_msg_cts_encode(&wb, pt->self, &cts);
	if (rc == 0)
		rc = ft_conn_queue_copy(&pc->c, wb.p, wb.len);
	ft_wbuf_release(&wb);
	if (rc != 0 && pt->resends && errno != ENOMEM) {
		/* The sender died: another process sends the RTS again. */
		conn_close(pt, pc, NULL);
		pt->reap_due = 1;
		rc = 0;
	}
	if (rc != 0) {
		slot_del(pt, r);
		return -1;
	}
	/* Nothing follows a CTS for an empty message. */
	if (r->st.msglen == 0)
		deliver(pt, r, rank_of(pt, wsrc), seq);
	return 0;
}

/*
 * Complete receive r, just matched, with the unexpected message u, and
 * free u.
 */
static int
take_ux(struct ft_pt *pt, struct ft_req *r, struct unexp *u)
{
	struct ft_req *s;
	int rc = 0;

	recv_matched(r, u->src, u->tag, u->len);
	matched(pt, r, u->src, u->wsrc, u->seq, u->proc);
	switch (u->kind) {
	case UX_EAGER:
		ux_eager_deliver(pt, r, u);
		break;
	case UX_SELF:
		s = u->self;
		if (r->st.bytes > 0)
			memcpy(r->buf, s->sbuf, r->st.bytes);
		deliver(pt, r, u->wsrc, u->seq);
		req_complete(pt, s);
		break;
	case UX_RTS:
		rc = send_cts(pt, r, u->proc, u->sreq, u->seq);
		break;
	}
	ft_buf_put(u->data, u->pooled);
	free(u);
	return rc;
}

/*
 * Match the unexpected messages of m, in arrival order, against the
 * posted receives, as if they arrived now: after a held ANY_SOURCE
 * receive learns its source, or behind one still held.
 */
static int
rematch(struct ft_pt *pt, struct mctx *m)
{
	struct unexp *u, *prev = NULL, *next;
	struct ft_req *r;

	for (u = m->ux_head; u != NULL; u = next) {
		next = u->next;
		if (u->claimed ||
		    (r = posted_take(m, u->src, u->tag)) == NULL) {
			prev = u;
			continue;
		}
		ux_unlink(m, u, prev);
		if (take_ux(pt, r, u) != 0)
			return -1;
	}
	return 0;
}

/* Set up receive r (the caller's on_done and user stay). */
static void
recv_init(struct ft_req *r, void *buf, size_t cap, int src, int tag,
    uint32_t ctx)
{
	memset(r, 0, sizeof(*r) - sizeof(r->on_done) - sizeof(r->user));
	r->kind = FT_REQ_RECV;
	r->wsrc = UINT32_MAX;
	r->buf = buf;
	r->cap = cap;
	r->src = src;
	r->tag = tag;
	r->ctx = ctx;
}

int
ft_pt_irecv(struct ft_pt *pt, struct ft_req *r, void *buf, size_t cap,
    int src, int tag, uint32_t ctx)
{
	return ft_pt_irecv_from(pt, r, buf, cap, src, UINT32_MAX, tag, ctx);
}

int
ft_pt_irecv_from(struct ft_pt *pt, struct ft_req *r, void *buf, size_t cap,
    int src, uint32_t wsrc, int tag, uint32_t ctx)
{
	struct mctx *m;
	struct unexp *u;
	int rc;

	recv_init(r, buf, cap, src, tag, ctx);
	r->wsrc = src == FT_PT_ANY ? UINT32_MAX : wsrc;
	if ((m = mctx_get(pt, ctx)) == NULL)
		return -1;
	if (pt->fails && m->fail != 0)
		return req_fail(pt, r, m->fail);
	if (src == FT_PT_ANY && pt->proto.ops->recv_any != NULL) {
		rc = pt->proto.ops->recv_any(&pt->proto, r, &r->rtag);
		if (rc == FT_RECV_WAIT) {
			/* The protocol settles the source: core->resolve. */
			r->held = 1;
			m->nheld++;
			posted_append(m, r);
			return 0;
		}
		r->src = rc >= 0 ? rc : FT_PT_ANY;
	}
	if (m->nheld > 0) {
		/* Behind a held receive: match in posting order. */
		posted_append(m, r);
		return rematch(pt, m);
	}
	if ((u = ux_take(m, r->src, tag, 1)) == NULL) {
		/* Nothing it sent is here, and nothing more will come. */
		if (pt->fails && r->wsrc < pt->nproc &&
		    pt->procs[r->wsrc].vgone)
			return req_fail(pt, r, ECONNRESET);
		posted_append(m, r);
		return 0;
	}
	return take_ux(pt, r, u);
}

int
ft_pt_iprobe(struct ft_pt *pt, int src, int tag, uint32_t ctx,
    struct ft_pt_status *st)
{
	struct mctx *m;
	struct unexp *u;

	if ((m = mctx_get(pt, ctx)) == NULL ||
	    (u = ux_take(m, src, tag, 0)) == NULL)
		return 0;
	memset(st, 0, sizeof(*st));
	st->source = (int)u->src;
	st->tag = u->tag;
	st->msglen = st->bytes = u->len;
	return 1;
}

/*
 * Could a receive posted before now take u?  Only behind a held
 * receive: otherwise u would have matched it when it came.  A held
 * receive may take whatever its tag allows, from any source.
 */
static int
ux_reserved(const struct mctx *m, const struct unexp *u)
{
	const struct ft_req *r;

	if (m->nheld == 0)
		return 0;
	for (r = m->posted_head; r != NULL; r = r->next)
		if (r->held ? r->tag == FT_PT_ANY || r->tag == u->tag :
		    matches(r, u->src, u->tag))
			return 1;
	return 0;
}

int
ft_pt_improbe(struct ft_pt *pt, int src, int tag, uint32_t ctx,
    struct ft_pt_status *st, void **msg)
{
	struct mctx *m;
	struct unexp *u;

	if ((m = mctx_get(pt, ctx)) == NULL ||
	    (u = ux_take(m, src, tag, 0)) == NULL || ux_reserved(m, u))
		return 0;
	u->claimed = 1;
	u->ctx = ctx;	/* a send to ourselves did not say */
	memset(st, 0, sizeof(*st));
	st->source = (int)u->src;
	st->tag = u->tag;
	st->msglen = st->bytes = u->len;
	*msg = u;
	return 1;
}

int
ft_pt_mrecv(struct ft_pt *pt, struct ft_req *r, void *buf, size_t cap,
    void *msg)
{
	struct unexp *u, *prev = NULL, *claim = msg;
	struct mctx *m;

	recv_init(r, buf, cap, (int)claim->src, claim->tag, claim->ctx);
	if ((m = mctx_get(pt, claim->ctx)) == NULL)
		return -1;
	for (u = m->ux_head; u != claim; prev = u, u = u->next)
		if (u == NULL) {
			errno = EINVAL;
			return -1;
		}
	ux_unlink(m, u, prev);
	return take_ux(pt, r, u);
}

int
ft_pt_cancel(struct ft_pt *pt, struct ft_req *r)
{
	struct mctx *m;
	int held;

	if (r->kind != FT_REQ_RECV || !r->posted ||
	    (m = mctx_get(pt, r->ctx)) == NULL)
		return 0;
	if ((held = r->held)) {
		r->held = 0;
		m->nheld--;
	}
	if (r->rtag != 0 && pt->proto.ops->recv_cancel != NULL)
		pt->proto.ops->recv_cancel(&pt->proto, r);
	posted_unlink(m, r);
	r->st.cancelled = 1;
	r->st.source = FT_PT_ANY;
	r->st.tag = FT_PT_ANY;
	req_complete(pt, r);
	/* What it held back goes to the receives posted behind it. */
	if (held)
		(void)rematch(pt, m);
	return 1;
}

static void
rdata_sent(void *arg)
{
	struct ft_req *r = arg;

	r->done = 1;
	if (r->on_done != NULL)
		r->on_done(r);
}

/* Marks every chunk of a multi-send's stream, so it can be rebased. */
static void
chunk_mark(void *arg)
{
	(void)arg;
}

/*
 * Stream a rendezvous payload to one process; done(arg) once it is all
 * written.  With mark, every chunk carries arg (ft_conn_rebase).
 */
/* The frame bytes stream_data sends for len bytes of data. */
static uint64_t
stream_bytes(size_t len)
{
	uint64_t chunks = (len + FT_WIRE_CHUNK - 1) / FT_WIRE_CHUNK;

	return len + chunks * (FT_WIRE_HDRLEN + FT_RDATA_FIXED);
}

static int
stream_data(struct ft_pt *pt, struct pconn *out, uint64_t rreq,
    const uint8_t *sbuf, size_t len, void (*done)(void *), void *arg,
    int mark)
{
	uint8_t prefix[FT_WIRE_HDRLEN + FT_RDATA_FIXED];
	struct ft_msg_rdata rd;
	size_t off, n;

	if (len == 0) {
		done(arg);
		return 0;
	}
	/*
	 * The last chunk may be written at once, and its completion may
	 * free what arg points to (a buffered send's request): read
	 * nothing from it after.
	 */
	for (off = 0; off < len; off += n) {
		n = len - off < FT_WIRE_CHUNK ? len - off : FT_WIRE_CHUNK;
		rd.rreq = rreq;
		rd.offset = off;
		if (ft_msg_rdata_prefix(prefix, pt->self, &rd, n) != 0 ||
		    ft_conn_queue_copy(&out->c, prefix, sizeof(prefix)) != 0 ||
		    ft_conn_queue_ref(&out->c, sbuf + off, n,
		    off + n == len ? done : mark ? chunk_mark : NULL,
		    arg) != 0)
			return -1;
	}
	return 0;
}

/* A CTS came back: stream the data straight from the send buffer. */
static int
on_cts(struct ft_pt *pt, struct pconn *pc, const uint8_t *body, size_t blen)
{
	struct ft_msg_cts cts;
	struct ft_req *r;
	struct pconn *out;

	if (ft_msg_cts_decode(body, blen, &cts) != 0)
		return -1;
	r = slot_find(pt, cts.sreq);
	if ((r != NULL && r->multi) || (r == NULL && pt->resends))
		return multi_on_cts(pt, pc, &cts);
	/* A send that failed (revoked) while its CTS was on the way. */
	if (r == NULL && pt->fails)
		return 0;
	if (r == NULL || r->kind != FT_REQ_SEND ||
	    r->dst * pt->ppr != pc->c.peer) {
		errno = EPROTO;
		return -1;
	}
	slot_del(pt, r);
	if ((out = peer_conn(pt, pc->c.peer)) == NULL)
		return -1;
	return stream_data(pt, out, cts.rreq, r->sbuf, r->len, rdata_sent, r,
	    0);
}

static int
on_rts(struct ft_pt *pt, struct pconn *pc, const uint8_t *body, size_t blen)
{
	struct ft_msg_rts rts;
	struct ft_req *r;
	struct unexp *u;
	struct mctx *m;

	if (ft_msg_rts_decode(body, blen, &rts) != 0)
		return -1;
	if ((m = mctx_get(pt, rts.ctx)) == NULL)
		return -1;
	if (pt->proto.ops->arrive == NULL &&
	    (r = posted_take(m, rts.src, rts.tag)) != NULL) {
		recv_matched(r, rts.src, rts.tag, rts.size);
		matched(pt, r, rts.src, rank_of(pt, pc->c.peer), rts.seq,
		    pc->c.peer);
		return send_cts(pt, r, pc->c.peer, rts.sreq, rts.seq);
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->kind = UX_RTS;
	u->src = rts.src;
	u->wsrc = rank_of(pt, pc->c.peer);
	u->proc = pc->c.peer;
	u->ctx = rts.ctx;
	u->tag = rts.tag;
	u->seq = rts.seq;
	u->len = rts.size;
	u->sreq = rts.sreq;
	u->clock = rts.clock;
	if (pt->proto.ops->arrive != NULL)
		return arrive(pt, u);
	ux_append(m, u);
	return 0;
}

/* An EAGER header is in: decide where its payload goes. */
static int
on_eager(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *fixed)
{
	struct ft_msg_eager eg;
	struct ft_req *r;
	struct unexp *u;
	struct mctx *m;
	size_t len;

	if (ft_msg_eager_cdecode(fixed, h->len - FT_WIRE_HDRLEN, h->flags,
	    &eg) != 0)
		return -1;
	len = h->len - FT_WIRE_HDRLEN - ft_msg_eager_fixed(&eg);
	if ((m = mctx_get(pt, eg.ctx)) == NULL)
		return -1;
	pc->phase = RD_PAYLOAD;
	pc->wsrc = rank_of(pt, pc->c.peer);
	pc->req = NULL;
	pc->ux = NULL;
	/* Under a protocol that sees arrivals, a message is matched only
	 * once it is whole: a copy cut short by its sender's death must
	 * not have taken a receive. */
	if (pt->proto.ops->arrive == NULL &&
	    (r = posted_take(m, eg.src, eg.tag)) != NULL) {
		recv_matched(r, eg.src, eg.tag, len);
		matched(pt, r, eg.src, pc->wsrc, eg.seq, pc->c.peer);
		r->seq = eg.seq;
		pc->req = r;
		pc->dst = r->buf;
		pc->left = r->st.bytes;
		pc->skip = len - r->st.bytes;
		eager_matched(pt, pc->c.peer, len);
		return 0;
	}
	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->kind = UX_EAGER;
	u->src = eg.src;
	u->wsrc = rank_of(pt, pc->c.peer);
	u->proc = pc->c.peer;
	u->ctx = eg.ctx;
	u->tag = eg.tag;
	u->seq = eg.seq;
	u->len = len;
	u->clock = eg.clock;
	if (len > 0 && (u->data = ft_buf_get(len, &u->pooled)) == NULL) {
		free(u);
		return -1;
	}
	pc->ux = u;
	pc->dst = u->data;
	pc->left = len;
	pc->skip = 0;
	return 0;
}

static int
on_rdata(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *fixed)
{
	struct ft_msg_rdata rd;
	size_t len = h->len - FT_WIRE_HDRLEN - FT_RDATA_FIXED, keep;
	struct ft_req *r;

	if (ft_msg_rdata_decode(fixed, FT_RDATA_FIXED, &rd) != 0)
		return -1;
	r = slot_find(pt, rd.rreq);
	if ((pt->resends && (r == NULL || r->peer != pc->c.peer)) ||
	    (pt->fails && r == NULL)) {
		/* Under FT_PROTO_FAILS: for a receive that failed. */
		/* For a receive that now takes its data from another
		 * process, or one already complete: skip it. */
		pc->phase = RD_PAYLOAD;
		pc->req = NULL;
		pc->ux = NULL;
		pc->dst = NULL;
		pc->left = 0;
		pc->skip = len;
		return 0;
	}
	if (r == NULL || r->kind != FT_REQ_RECV || r->peer != pc->c.peer ||
	    rd.offset != r->got || len > r->st.msglen - r->got) {
		errno = EPROTO;
		return -1;
	}
	keep = 0;
	if (rd.offset < r->st.bytes)
		keep = r->st.bytes - rd.offset < len ?
		    r->st.bytes - rd.offset : len;
	pc->phase = RD_PAYLOAD;
	pc->req = r;
	pc->ux = NULL;
	pc->dst = keep > 0 ? (uint8_t *)r->buf + rd.offset : NULL;
	pc->left = keep;
	pc->skip = len - keep;
	pc->wsrc = rank_of(pt, pc->c.peer);
	r->got += len;
	return 0;
}

/* A whole frame of len bytes was read from pc's peer (struct pconn). */
static void
frame_done(struct pconn *pc, uint32_t len, unsigned int type)
{
	if (type == FT_MSG_ACK)
		return;
	pc->in_done += len;
	pc->ack_due = 1;
}

/* Where the stream to pc stands for acknowledgements (struct pconn). */
static uint64_t
stream_pos(const struct pconn *pc)
{
	return pc->c.qtotal - pc->ack_bytes;
}

/* Is everything sent to pc up to pos out of our hands? */
static int
delivered(const struct ft_pt *pt, const struct pconn *pc, uint64_t pos)
{
	/* Not want_write: data queued behind a handshake still in progress
	 * is not out either. */
	if (pt->acks_on && pc->tcp)
		return pc->acked >= pos;
	return !ft_conn_unsent(&pc->c);
}

/* Acknowledge what came in on TCP since the last pass. */
static void
acks_send(struct ft_pt *pt)
{
	struct ft_msg_ack ack;
	struct pconn *pc, *out;
	struct ft_wbuf wb;
	size_t i;

	ft_wbuf_init(&wb);
	for (i = 0; i < pt->nconns; i++) {
		pc = pt->conns[i];
		if (pc->outgoing || pc->closed || !pc->ack_due || !pc->tcp ||
		    pc->c.hs != FT_HS_READY)
			continue;
		pc->ack_due = 0;
		if ((out = peer_conn(pt, pc->c.peer)) == NULL)
			continue;	/* it is gone: nothing to tell it */
		ack.bytes = pc->in_done;
		ft_wbuf_reset(&wb);
		if (ft_msg_ack_encode(&wb, pt->self, &ack) != 0 ||
		    ft_conn_queue_copy(&out->c, wb.p, wb.len) != 0) {
			conn_close(pt, out, strerror(errno));
			pt->reap_due = 1;
			continue;
		}
		out->ack_bytes += wb.len;
	}
	ft_wbuf_release(&wb);
}

/* The payload of a data frame has been read in full. */
static int
payload_done(struct ft_pt *pt, struct pconn *pc)
{
	struct ft_req *r = pc->req;
	struct unexp *u = pc->ux;
	struct mctx *m;

	pc->phase = RD_HEADER;
	pc->req = NULL;
	pc->ux = NULL;
	frame_done(pc, pc->flen, FT_MSG_EAGER);
	if (r != NULL) {
		if (r->id != 0 && slot_find(pt, r->id) == r) {
			/* Rendezvous: done when every chunk is in. */
			if (r->got == r->st.msglen)
				deliver(pt, r, pc->wsrc, r->seq);
		} else
			deliver(pt, r, pc->wsrc, r->seq);
		return 0;
	}
	if (u == NULL)
		return 0;
	if (pt->proto.ops->arrive != NULL)
		return arrive(pt, u);
	if ((m = mctx_get(pt, u->ctx)) == NULL)
		return -1;
	/* A receive may have been posted while the payload streamed in. */
	if ((r = posted_take(m, u->src, u->tag)) != NULL) {
		recv_matched(r, u->src, u->tag, u->len);
		matched(pt, r, u->src, u->wsrc, u->seq, u->proc);
		ux_eager_deliver(pt, r, u);
		ft_buf_put(u->data, u->pooled);
		free(u);
		return 0;
	}
	ux_append(m, u);
	return 0;
}

/* The peer matched some of our eager messages: we may send more. */
static int
on_credit(struct ft_pt *pt, struct pconn *pc, const uint8_t *body,
    size_t blen)
{
	struct ft_msg_credit cr;
	struct proc *p = &pt->procs[pc->c.peer];

	if (ft_msg_credit_decode(body, blen, &cr) != 0)
		return -1;
	if (cr.bytes > p->eager_out) {
		errno = EPROTO;
		return -1;
	}
	p->eager_out -= cr.bytes;
	return 0;
}

/* The peer has read frame bytes we sent it: they are delivered. */
static int
on_ack(struct ft_pt *pt, struct pconn *pc, const uint8_t *body, size_t blen)
{
	struct ft_msg_ack ack;
	struct pconn *out = pt->procs[pc->c.peer].out;

	if (ft_msg_ack_decode(body, blen, &ack) != 0)
		return -1;
	if (!pt->acks_on || out == NULL || !out->tcp ||
	    ack.bytes > stream_pos(out)) {
		errno = EPROTO;
		return -1;
	}
	if (ack.bytes > out->acked)
		out->acked = ack.bytes;
	return 0;
}

/* Handle one whole control frame on a ready rank connection. */
static int
on_frame(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *body)
{
	size_t blen = h->len - FT_WIRE_HDRLEN;

	switch (h->type) {
	case FT_MSG_RTS:
		return on_rts(pt, pc, body, blen);
	case FT_MSG_CTS:
		return on_cts(pt, pc, body, blen);
	case FT_MSG_CREDIT:
		return on_credit(pt, pc, body, blen);
	case FT_MSG_ACK:
		return on_ack(pt, pc, body, blen);
	default:
		/* The protocol's frames, or nobody's. */
		if (pt->proto.ops->frame == NULL) {
			errno = EPROTO;
			return -1;
		}
		return pt->proto.ops->frame(&pt->proto, pc->c.peer, h, body);
	}
}

/*
 * Read and handle what a connection has.  Returns 0, or -1 when the
 * connection must be closed (errno says why).
 */
static int
conn_read(struct ft_pt *pt, struct pconn *pc)
{
	const uint8_t *body, *p;
	struct ft_hdr h;
	size_t avail, n, fixed;
	ssize_t got;
	int rc;

	/*
	 * Go on until the socket is drained and nothing whole is buffered:
	 * poll(2) only reports the socket, not what already sits in ibuf.
	 */
	for (;;) {
		avail = ft_conn_avail(&pc->c);
		if (pc->phase == RD_PAYLOAD) {
			if (pc->left == 0 && pc->skip == 0) {
				if (payload_done(pt, pc) != 0)
					return -1;
				continue;
			}
			if (avail > 0) {
				p = pc->c.ibuf + pc->c.ibeg;
				n = avail < pc->left ? avail : pc->left;
				if (n > 0) {
					memcpy(pc->dst, p, n);
					pc->dst += n;
					pc->left -= n;
				} else {
					n = avail < pc->skip ? avail :
					    pc->skip;
					pc->skip -= n;
				}
				pc->c.ibeg += n;
				continue;
			}
			if (pc->left >= DIRECT_MIN) {
				got = recv(pc->c.fd, pc->dst, pc->left,
				    MSG_DONTWAIT);
				if (got > 0) {
					pc->dst += got;
					pc->left -= (size_t)got;
					continue;
				}
				if (got == 0) {
					pc->c.eof = 1;
					errno = ECONNRESET;
					return -1;
				}
				if (errno == EAGAIN)
					return 0;
				if (errno == EINTR)
					continue;
				return -1;
			}
		} else if (avail >= FT_WIRE_HDRLEN) {
			if (ft_hdr_decode(pc->c.ibuf + pc->c.ibeg, &h) != 0)
				return -1;
			if (pc->c.hs == FT_HS_READY && h.sender != pc->c.peer) {
				errno = EPROTO;
				return -1;
			}
			fixed = 0;
			if (pc->c.hs == FT_HS_READY && h.type == FT_MSG_EAGER)
				fixed = FT_EAGER_FIXED +
				    ((h.flags & FT_FLAG_CLOCK) != 0 ?
				    FT_EAGER_CLOCK : 0);
			else if (pc->c.hs == FT_HS_READY &&
			    h.type == FT_MSG_RDATA)
				fixed = FT_RDATA_FIXED;
			if (fixed > 0) {
				if (h.len < FT_WIRE_HDRLEN + fixed) {
					errno = EPROTO;
					return -1;
				}
				if (avail >= FT_WIRE_HDRLEN + fixed) {
					p = pc->c.ibuf + pc->c.ibeg +
					    FT_WIRE_HDRLEN;
					pc->c.ibeg += FT_WIRE_HDRLEN + fixed;
					pc->flen = h.len;
					rc = h.type == FT_MSG_EAGER ?
					    on_eager(pt, pc, &h, p) :
					    on_rdata(pt, pc, &h, p);
					if (rc != 0)
						return -1;
					continue;
				}
			} else {
				rc = ft_conn_frame(&pc->c, &h, &body);
				if (rc < 0)
					return -1;
				if (rc == 1) {
					if (pc->c.hs != FT_HS_READY) {
						if (ft_conn_handshake(&pc->c,
						    &h, body) < 0)
							return -1;
						/* A process newer than our
						 * table: the launcher's
						 * news of it is on its way. */
						if (pc->c.hs == FT_HS_READY &&
						    !pc->outgoing &&
						    pc->c.peer >= pt->nproc &&
						    pt->ppr == 1)
							(void)await_proc(pt,
							    pc->c.peer);
						/* A new incarnation of a dead
						 * process: the launcher's REVIVE
						 * went out before it could call,
						 * so it is read first.  When
						 * failures are the program's
						 * (FT-MPI's REBUILD), so is the
						 * view of the death, which may
						 * not be read yet either: the
						 * REVIVE after it would close
						 * this connection, and what is
						 * on it, which nobody resends. */
						if (pc->c.hs == FT_HS_READY &&
						    !pc->outgoing &&
						    pt->restarts &&
						    pc->c.peer < pt->nproc &&
						    (pt->procs[pc->c.peer].gone ||
						    pt->fails) &&
						    pt->ctl != NULL &&
						    !pt->ctl->closed) {
							pc->fresh = 1;
							ctl_read(pt);
							pc->fresh = 0;
						}
						if (pc->c.hs == FT_HS_READY &&
						    (pc->outgoing ?
						    pc->c.peer != pc->dialed :
						    (pc->c.peer >= pt->nproc ||
						    pc->c.peer_role !=
						    FT_ROLE_RANK))) {
							errno = EPROTO;
							return -1;
						}
						(void)ft_conn_flush(&pc->c);
					} else if (on_frame(pt, pc, &h,
					    body) != 0)
						return -1;
					else
						frame_done(pc, h.len, h.type);
					continue;
				}
			}
		}
		got = ft_conn_fill(&pc->c);
		if (got < 0)
			return -1;
		if (got == 0)
			return 0;
	}
}

/*
 * FT_PROTO_FAILS: a connection closes, so what waits on it fails: the
 * receive whose payload it carried, and the rendezvous sends whose
 * data is still queued on it.
 */
static void
conn_fail_reqs(struct ft_pt *pt, struct pconn *pc)
{
	struct ft_req *r = pc->req;
	struct ft_oseg *o;

	pc->req = NULL;
	if (r != NULL && !r->done) {
		slot_del(pt, r);
		(void)req_fail(pt, r, ECONNRESET);
	}
	for (o = pc->c.oq_head; o != NULL; o = o->next)
		if (o->done == rdata_sent && !((struct ft_req *)o->arg)->done) {
			r = o->arg;
			o->done = NULL;
			(void)req_fail(pt, r, ECONNRESET);
		}
}

static void
conn_close(struct ft_pt *pt, struct pconn *pc, const char *why)
{
	uint32_t peer = pc->outgoing ? pc->dialed : pc->c.peer;

	if (pc->closed)
		return;
	pc->closed = 1;
	/* When the protocol resends, a dead peer is ftrun's news and the
	 * job goes on (with FT_PROTO_FAILS, the application's): only a
	 * wrong key is worth a word. */
	if (pc->quiet || ((pt->resends || pt->fails) &&
	    !(pc->c.hs == FT_HS_FAILED && errno == EACCES)))
		;
	else if (pc->outgoing && pc->c.hs != FT_HS_READY)
		ft_warnx("unable to connect to rank %u: %s", peer,
		    why != NULL ? why : "closed during the handshake");
	else if (pc->c.hs != FT_HS_READY)
		/* Anyone's, as many as they like: rate-limited. */
		ft_warnx_limited(&pt->refusals, "refused a connection: %s",
		    pc->c.hs == FT_HS_FAILED && errno == EACCES ?
		    "wrong job key" : why != NULL ? why :
		    "closed during the handshake");
	else if (why != NULL && !pc->c.eof && !pt->resends && !pt->fails)
		/* As above: with resends, a reset is no news. */
		ft_warnx("dropped the connection with rank %u: %s", peer, why);
	if ((pc->c.hs == FT_HS_READY || pc->outgoing) && peer < pt->nproc) {
		pt->procs[peer].gone = 1;
		if (pt->procs[peer].out == pc)
			pt->procs[peer].out = NULL;
	}
	/* A message cut short by the close is lost with its sender. */
	if (pc->ux != NULL) {
		ft_buf_put(pc->ux->data, pc->ux->pooled);
		free(pc->ux);
		pc->ux = NULL;
	}
	/* With resends, another process sends the message again. */
	if (pc->req != NULL && !pt->resends)
		pc->req->st.error = ECONNRESET;
	if (pt->fails)
		conn_fail_reqs(pt, pc);
	pc->req = NULL;
	close(pc->c.fd);
	pc->c.fd = -1;
}

static const struct ft_conn *
hs_at(void *arg, size_t i)
{
	struct ft_pt *pt = arg;

	return pt->conns[i]->closed ? NULL : &pt->conns[i]->c;
}

static void
hs_drop(void *arg, size_t i, const char *why)
{
	struct ft_pt *pt = arg;

	/* Said even when the protocol resends: no peer is this slow. */
	ft_warnx_limited(&pt->refusals, "refused a connection: %s", why);
	pt->conns[i]->quiet = 1;
	conn_close(pt, pt->conns[i], NULL);
	pt->reap_due = 1;
}

/* Enforce the limits on connections in the handshake (ft_hs_guard). */
static void
hs_guard(struct ft_pt *pt)
{
	pt->hs_next = ft_hs_guard(hs_at, hs_drop, pt, pt->nconns,
	    (size_t)pt->nproc + FT_HS_STRANGERS, ft_now_ns(), pt->hello_ns);
}

static void
accept_all(struct ft_pt *pt, int lfd)
{
	struct pconn *pc;
	int fd;

	while ((fd = ft_net_accept(lfd)) != -1) {
		if ((pc = calloc(1, sizeof(*pc))) == NULL) {
			close(fd);
			return;
		}
		if (ft_conn_accepted(&pc->c, fd, pt->key, pt->self) != 0 ||
		    conn_add(pt, pc) != 0) {
			ft_conn_release(&pc->c);
			free(pc);
			return;
		}
		pc->c.peer = FT_WIRE_LAUNCHER;
		pc->tcp = lfd == pt->lfd_tcp;
		/* A rank's HELLO is there already: read it now, so that its
		 * connection is not taken for a silent stranger's. */
		if (conn_read(pt, pc) != 0) {
			conn_close(pt, pc, pc->c.eof ? NULL : strerror(errno));
			pt->reap_due = 1;
		}
		hs_guard(pt);
	}
}

static void
ctl_read(struct ft_pt *pt)
{
	struct pconn *pc = pt->ctl;
	const uint8_t *body;
	struct ft_hdr h;
	ssize_t got;
	int rc;

	for (;;) {
		while ((rc = ft_conn_frame(&pc->c, &h, &body)) == 1)
			pt->on_ctl(pt->ctl_arg, &h, body);
		if (rc < 0 || (got = ft_conn_fill(&pc->c)) < 0) {
			pc->closed = 1;
			pt->on_ctl(pt->ctl_arg, NULL, NULL);
			return;
		}
		if (got == 0)
			return;
	}
}

/* Drop closed connections from the array. */
static void
reap(struct ft_pt *pt)
{
	size_t i, j;

	for (i = j = 0; i < pt->nconns; i++) {
		if (pt->conns[i]->closed) {
			ft_conn_release(&pt->conns[i]->c);
			free(pt->conns[i]);
		} else
			pt->conns[j++] = pt->conns[i];
	}
	pt->nconns = j;
}

static int	progress_pass(struct ft_pt *, int);
static void	eout_check(struct ft_pt *);

/* A progress pass; callbacks it runs may start sends, not wait in one. */
uint64_t
ft_pt_ncompleted(const struct ft_pt *pt)
{
	return pt->ncompleted;
}

int
ft_pt_progress(struct ft_pt *pt, int timeout_ms)
{
	int rc, outer = !pt->in_progress;

	pt->in_progress = 1;
	rc = progress_pass(pt, timeout_ms);
	if (outer)
		pt->in_progress = 0;
	return rc;
}

static int
progress_pass(struct ft_pt *pt, int timeout_ms)
{
	struct pollfd *np;
	struct pconn **npc;
	size_t n = 0, need = pt->nconns + 4, i, widx = SIZE_MAX;
	uint64_t now, wait;
	int rc, dead = 0, ctl_buffered;

	if (need > pt->cappfd) {
		if ((np = reallocarray(pt->pfd, need, sizeof(*np))) == NULL)
			return -1;
		pt->pfd = np;
		if ((npc = reallocarray(pt->pfdconn, need, sizeof(*npc))) ==
		    NULL)
			return -1;
		pt->pfdconn = npc;
		pt->cappfd = need;
	}
	if (pt->ctl != NULL && !pt->ctl->closed) {
		pt->pfd[n] = (struct pollfd){ pt->ctl->c.fd, POLLIN |
		    (ft_conn_want_write(&pt->ctl->c) ? POLLOUT : 0), 0 };
		pt->pfdconn[n++] = pt->ctl;
	}
	for (i = 0; i < pt->nconns; i++) {
		struct pconn *pc = pt->conns[i];

		pt->pfd[n] = (struct pollfd){ pc->c.fd, POLLIN |
		    (ft_conn_want_write(&pc->c) ? POLLOUT : 0), 0 };
		pt->pfdconn[n++] = pc;
	}
	/* Listeners last: what connections have is read before new ones
	 * may push them out (hs_guard). */
	if (pt->lfd_unix != -1) {
		pt->pfd[n] = (struct pollfd){ pt->lfd_unix, POLLIN, 0 };
		pt->pfdconn[n++] = NULL;
	}
	if (pt->lfd_tcp != -1) {
		pt->pfd[n] = (struct pollfd){ pt->lfd_tcp, POLLIN, 0 };
		pt->pfdconn[n++] = NULL;
	}
	/* The protocol's fd goes last, and is skipped by the loop below. */
	if (pt->wfd != -1) {
		widx = n;
		pt->pfd[n] = (struct pollfd){ pt->wfd, pt->wevents, 0 };
		pt->pfdconn[n++] = NULL;
	}
	if (pt->wdeadline != 0 && timeout_ms != 0) {
		now = ft_now_ns();
		wait = pt->wdeadline > now ? (pt->wdeadline - now) / 1000000 +
		    1 : 0;
		if (wait > INT32_MAX)
			wait = INT32_MAX;
		if (timeout_ms < 0 || (uint64_t)timeout_ms > wait)
			timeout_ms = (int)wait;
	}
	/* Frames the launcher sent along with the table of addresses are
	 * buffered already (ft_job_join read them): poll would not say so. */
	ctl_buffered = pt->ctl != NULL && !pt->ctl->closed &&
	    ft_conn_avail(&pt->ctl->c) > 0;
	if (ctl_buffered)
		timeout_ms = 0;
	/* Wake up for the next HELLO deadline. */
	if (pt->hs_next != 0 && timeout_ms != 0) {
		now = ft_now_ns();
		wait = pt->hs_next > now ? (pt->hs_next - now) / 1000000 + 1 :
		    0;
		if (wait > INT32_MAX)
			wait = INT32_MAX;
		if (timeout_ms < 0 || (uint64_t)timeout_ms > wait)
			timeout_ms = (int)wait;
	}
	rc = poll(pt->pfd, (nfds_t)n, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -1;
	if (ctl_buffered)
		ctl_read(pt);
	for (i = 0; i < n && rc > 0; i++) {
		struct pconn *pc = pt->pfdconn[i];
		short re = pt->pfd[i].revents;

		if (re == 0 || i == widx)
			continue;
		rc--;
		/* Closed earlier in this pass: its fd may be someone's now. */
		if (pc != NULL && pc->closed)
			continue;
		if (pc == NULL) {
			accept_all(pt, pt->pfd[i].fd);
			continue;
		}
		if (pc == pt->ctl) {
			if (re & POLLOUT)
				(void)ft_conn_flush(&pc->c);
			if (re & (POLLIN | POLLHUP | POLLERR))
				ctl_read(pt);
			continue;
		}
		if ((re & (POLLOUT | POLLERR)) && ft_conn_flush(&pc->c) != 0) {
			conn_close(pt, pc, strerror(errno));
			dead = 1;
			continue;
		}
		if ((re & (POLLIN | POLLHUP | POLLERR)) &&
		    conn_read(pt, pc) != 0) {
			conn_close(pt, pc, pc->c.eof ? NULL : strerror(errno));
			dead = 1;
			continue;
		}
		/* The handshake may have queued its answer. */
		if (ft_conn_want_write(&pc->c))
			(void)ft_conn_flush(&pc->c);
	}
	if (pt->hs_next != 0 && ft_now_ns() >= pt->hs_next)
		hs_guard(pt);
	if (pt->refusals.held > 0)
		ft_ratelim_flush(&pt->refusals, 0);
	if (pt->acks_on)
		acks_send(pt);
	if (dead || pt->reap_due)
		multi_trim_gone(pt);
	if (pt->neouts > 0)
		eout_check(pt);
	if (pt->proto.ops->io != NULL && ((widx != SIZE_MAX &&
	    pt->pfd[widx].revents != 0) || (pt->wdeadline != 0 &&
	    ft_now_ns() >= pt->wdeadline)))
		pt->proto.ops->io(&pt->proto, widx != SIZE_MAX ?
		    pt->pfd[widx].revents : 0);
	if (pt->proto.ops->tick != NULL)
		pt->proto.ops->tick(&pt->proto);
	if (dead || pt->reap_due) {
		pt->reap_due = 0;
		reap(pt);
	}
	return 0;
}

/*
 * Sending one message to several processes (core->send_msg), for a
 * protocol that routes messages: eager to every process when each has
 * window for it, else an RTS to each and a multi-send that serves them.
 */

/* A multi-send has served every process it still waits for: free it. */
static void
multi_done(struct ft_pt *pt, struct ft_req *inner)
{
	struct multi *mu = (struct multi *)inner;
	struct ft_req *user = mu->user;
	void *cookie = mu->cookie;
	struct eout e;

	slot_del(pt, inner);
	if (cookie != NULL) {
		e.cookie = cookie;
		e.n = mu->n;
		memcpy(e.procs, mu->procs, mu->n * sizeof(*mu->procs));
		memcpy(e.pos, mu->endpos, mu->n * sizeof(*mu->endpos));
	}
	free(mu->copy);
	free(mu);
	/* Every process died before matching it. */
	if (user != NULL)
		req_complete(pt, user);
	if (cookie == NULL || pt->proto.ops->sent == NULL)
		return;
	/* Written; on TCP, perhaps not yet acknowledged. */
	if (eout_done(pt, &e))
		pt->proto.ops->sent(&pt->proto, cookie);
	else if (eout_add(pt, e.procs, e.pos, e.n, cookie) != 0)
		ft_warn("keeping a message until it is acknowledged");
}

/*
 * A stream from the sender's buffer is written: the sender is done.
 * What other processes still need of its buffer is copied first, and
 * their streams move onto the copy.  Returns -1 only when that copy
 * cannot be made (the sender then waits for every stream).
 */
static int
multi_user_done(struct ft_pt *pt, struct multi *mu, uint32_t k)
{
	struct ft_req *user = mu->user, *inner = &mu->inner;
	size_t len = inner->len, min = inner->want != 0 ? 0 : len;
	uint32_t rest = mu->from_user & ~(1u << k), j;
	struct proc *p;

	for (j = 0; j < mu->n && min > 0; j++) {
		p = &pt->procs[mu->procs[j]];
		if ((rest & (1u << j)) && p->out != NULL)
			ft_conn_ref_min(&p->out->c, &mu->t[j], mu->ubuf, len,
			    &min);
	}
	if (min < len) {
		if ((mu->copy = malloc(len)) == NULL) {
			mu->from_user &= ~(1u << k);
			return -1;
		}
		memcpy(mu->copy + min, mu->ubuf + min, len - min);
		for (j = 0; j < mu->n; j++) {
			p = &pt->procs[mu->procs[j]];
			if ((rest & (1u << j)) && p->out != NULL)
				ft_conn_rebase(&p->out->c, &mu->t[j], mu->ubuf,
				    len, mu->copy);
		}
	}
	mu->from_user = 0;
	mu->ubuf = NULL;
	mu->user = NULL;
	req_complete(pt, user);
	return 0;
}

static void
multi_sent(void *arg)
{
	struct multi_ticket *t = arg;
	struct multi *mu = t->mu;
	struct ft_req *inner = &mu->inner;
	uint32_t bit = 1u << t->k;

	inner->sending &= ~bit;
	if (mu->user != NULL && (mu->from_user & bit))
		(void)multi_user_done(t->pt, mu, t->k);
	else
		mu->from_user &= ~bit;
	if (inner->want == 0 && inner->sending == 0)
		multi_done(t->pt, inner);
}

/* A process answered a multi-send's RTS. */
static int
multi_on_cts(struct ft_pt *pt, struct pconn *pc, const struct ft_msg_cts *cts)
{
	struct ft_req *inner;
	struct multi *mu;
	struct pconn *out;
	const uint8_t *src;
	uint32_t k;

	if ((inner = slot_find(pt, cts->sreq)) == NULL &&
	    pt->procs[pc->c.peer].gone)
		return 0;	/* a dead process's late answer */
	if (inner == NULL || !inner->multi ||
	    inner->dst != rank_of(pt, pc->c.peer)) {
		errno = EPROTO;
		return -1;
	}
	mu = (struct multi *)inner;
	for (k = 0; k < mu->n && mu->procs[k] != pc->c.peer; k++)
		;
	if (k == mu->n || !(inner->want & (1u << k)))
		return 0;
	inner->want &= ~(1u << k);
	if (cts->rreq != 0 && (out = peer_conn(pt, pc->c.peer)) != NULL) {
		mu->t[k] = (struct multi_ticket){ pt, mu, k };
		inner->sending |= 1u << k;
		/* From the sender's buffer while it is pending, else the
		 * copy that its completion made. */
		src = mu->user != NULL ? mu->ubuf : mu->copy;
		if (mu->user != NULL)
			mu->from_user |= 1u << k;
		/* Its end, known now: the last chunk may free mu. */
		mu->endpos[k] = stream_pos(out) + stream_bytes(inner->len);
		if (stream_data(pt, out, cts->rreq, src, inner->len,
		    multi_sent, &mu->t[k], 1) == 0)
			return 0;
		/* It died: its queue goes, with the tickets in it. */
		inner->sending &= ~(1u << k);
		mu->from_user &= ~(1u << k);
		conn_close(pt, out, NULL);
		pt->reap_due = 1;
	}
	if (inner->want == 0 && inner->sending == 0)
		multi_done(pt, inner);
	return 0;
}

/* Is a multi-send out: delivered to every live process? */
static int
eout_done(const struct ft_pt *pt, const struct eout *e)
{
	const struct proc *p;
	uint32_t k;

	for (k = 0; k < e->n; k++) {
		p = &pt->procs[e->procs[k]];
		if (!p->gone && p->out != NULL &&
		    !delivered(pt, p->out, e->pos[k]))
			return 0;
	}
	return 1;
}

/* Tell the protocol of eager multi-sends that are out now. */
static void
eout_check(struct ft_pt *pt)
{
	size_t i, j;

	for (i = j = 0; i < pt->neouts; i++) {
		if (eout_done(pt, &pt->eouts[i]))
			pt->proto.ops->sent(&pt->proto, pt->eouts[i].cookie);
		else
			pt->eouts[j++] = pt->eouts[i];
	}
	pt->neouts = j;
}

static int
eout_add(struct ft_pt *pt, const uint32_t *procs, const uint64_t *pos,
    uint32_t n, void *cookie)
{
	struct eout *ne;

	if ((ne = ft_grow(pt->eouts, &pt->capeouts, pt->neouts,
	    sizeof(*ne))) == NULL)
		return -1;
	pt->eouts = ne;
	ne = &pt->eouts[pt->neouts++];
	ne->cookie = cookie;
	ne->n = n;
	memcpy(ne->procs, procs, n * sizeof(*procs));
	memcpy(ne->pos, pos, n * sizeof(*pos));
	return 0;
}

static int
core_send_msg(void *core, const uint32_t *procs, uint32_t n,
    const struct ft_msg *m, void *cookie)
{
	struct ft_pt *pt = core;
	struct ft_msg_rts rts;
	struct ft_wbuf wb;
	struct pconn *pc;
	struct multi *mu;
	struct ft_req *inner;
	uint64_t pos[FT_PROTO_MULTI_MAX];
	uint32_t k, q;
	int eager;

	if (n == 0 || n > FT_PROTO_MULTI_MAX || m->dst >= pt->size) {
		errno = EINVAL;
		return -1;
	}
	eager = 1;
	for (k = 0; k < n; k++)
		if (procs[k] >= pt->nproc || rank_of(pt, procs[k]) != m->dst) {
			errno = EINVAL;
			return -1;
		} else if (!eager_fits(pt, procs[k], m->len, m->mode))
			eager = 0;
	if (eager) {
		for (k = 0; k < n; k++) {
			q = procs[k];
			pos[k] = 0;
			/* A process we cannot reach is dead or soon will be. */
			if ((pc = peer_conn(pt, q)) == NULL)
				continue;
			if (eager_send(pt, pc, q, m) != 0) {
				/* It died; the view that says so is coming. */
				conn_close(pt, pc, NULL);
				pt->reap_due = 1;
			} else
				pos[k] = stream_pos(pc);
		}
		if (m->req != NULL)
			req_complete(pt, m->req);
		if (cookie == NULL || pt->proto.ops->sent == NULL)
			return 0;
		if (eout_add(pt, procs, pos, n, cookie) != 0)
			return -1;
		/* Usually written at once: out already. */
		if (eout_done(pt, &pt->eouts[pt->neouts - 1])) {
			pt->neouts--;
			pt->proto.ops->sent(&pt->proto, cookie);
		}
		return 0;
	}
	/* Without a request, nobody keeps the buffer: copy it now. */
	if ((mu = calloc(1, sizeof(*mu))) == NULL || (m->req == NULL &&
	    m->len > 0 && (mu->copy = malloc(m->len)) == NULL)) {
		free(mu);
		return -1;
	}
	if (m->req == NULL && m->len > 0)
		memcpy(mu->copy, m->buf, m->len);
	mu->user = m->req;
	mu->ubuf = m->req != NULL ? m->buf : NULL;
	mu->cookie = cookie;
	mu->n = n;
	memcpy(mu->procs, procs, n * sizeof(*procs));
	inner = &mu->inner;
	inner->kind = FT_REQ_SEND;
	inner->multi = 1;
	inner->dst = m->dst;
	inner->len = m->len;
	inner->want = (1u << n) - 1;	/* n <= FT_PROTO_MULTI_MAX */
	if (slot_add(pt, inner) == 0) {
		free(mu->copy);
		free(mu);
		return -1;
	}
	rts = (struct ft_msg_rts){ m->ctx, m->csrc, m->tag, m->seq, m->len,
	    inner->id, m->clock };
	ft_wbuf_init(&wb);
	if (ft_msg_rts_encode(&wb, pt->self,
	    m->mode == FT_SEND_SYNC ? FT_FLAG_SYNC : 0, &rts) != 0) {
		ft_wbuf_release(&wb);
		return -1;
	}
	for (k = 0; k < n; k++)
		if ((pc = peer_conn(pt, procs[k])) == NULL ||
		    ft_conn_queue_copy(&pc->c, wb.p, wb.len) != 0)
			inner->want &= ~(1u << k);
	ft_wbuf_release(&wb);
	if (inner->want == 0)
		multi_done(pt, inner);
	return 0;
}

/*
 * A whole message from process u->proc: the protocol says whether it is
 * matched now, held, or a duplicate.
 */
static int
arrive(struct ft_pt *pt, struct unexp *u)
{
	struct ft_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.ctx = u->ctx;
	m.src = u->wsrc;
	m.dst = pt->rank;
	m.tag = u->tag;
	m.seq = u->seq;
	m.buf = u->data;
	m.len = u->len;
	m.csrc = u->src;
	m.proc = u->proc;
	m.flags = u->kind == UX_RTS ? FT_MSGF_RTS : 0;
	m.clock = u->clock;
	rc = pt->proto.ops->arrive(&pt->proto, &m, u);
	switch (rc) {
	case FT_ARRIVE_MATCH:
		return core_release(pt, u);
	case FT_ARRIVE_HELD:
		return 0;
	case FT_ARRIVE_DUP:
		dup_drop(pt, u);
		return 0;
	default:
		return -1;	/* the protocol consumed u */
	}
}

/* Match a whole message that is next in its sender's order. */
static int
core_release(void *core, void *handle)
{
	struct ft_pt *pt = core;
	struct unexp *u = handle;
	struct mctx *m;
	struct ft_req *r;

	if ((m = mctx_get(pt, u->ctx)) == NULL) {
		ft_buf_put(u->data, u->pooled);
		free(u);
		return -1;
	}
	if ((r = posted_take(m, u->src, u->tag)) == NULL) {
		ux_append(m, u);
		return 0;
	}
	return take_ux(pt, r, u);
}

/*
 * A message we already have came again (from another process of its
 * rank).  An RTS is answered: a receive still waiting for the data of
 * its first copy takes the data from the new sender; otherwise CTS 0
 * tells the sender it is not needed.
 */
static void
dup_drop(struct ft_pt *pt, struct unexp *u)
{
	struct ft_msg_cts cts = { u->sreq, 0 };
	struct ft_wbuf wb;
	struct pconn *pc;
	struct ft_req *r;
	struct unexp *x;
	struct mctx *m;
	size_t i;

	if (pt->freeing)
		goto out;
	if (u->kind == UX_EAGER)
		eager_matched(pt, u->proc, u->len);
	if (u->kind != UX_RTS)
		goto out;
	for (i = 0; i < pt->nslots; i++) {
		r = pt->slots[i].req;
		if (r == NULL || r->kind != FT_REQ_RECV ||
		    rank_of(pt, r->peer) != u->wsrc || r->seq != u->seq)
			continue;
		r->peer = u->proc;
		r->got = 0;
		cts.rreq = r->id;
		break;
	}
	if (cts.rreq == 0 && (m = mctx_get(pt, u->ctx)) != NULL)
		for (x = m->ux_head; x != NULL; x = x->next)
			if (x->kind == UX_RTS && x->wsrc == u->wsrc &&
			    x->seq == u->seq) {
				/* Not matched yet: CTS goes to the new one. */
				x->proc = u->proc;
				x->sreq = u->sreq;
				goto out;
			}
	if ((pc = peer_conn(pt, u->proc)) == NULL)
		goto out;
	ft_wbuf_init(&wb);
	if (ft_msg_cts_encode(&wb, pt->self, &cts) == 0)
		(void)ft_conn_queue_copy(&pc->c, wb.p, wb.len);
	ft_wbuf_release(&wb);
out:
	ft_buf_put(u->data, u->pooled);
	free(u);
}

static void
core_drop(void *core, void *handle)
{
	dup_drop(core, handle);
}

static int
core_resolve(void *core, struct ft_req *r, int src)
{
	struct ft_pt *pt = core;
	struct mctx *m;

	if ((m = mctx_get(pt, r->ctx)) == NULL)
		return -1;
	r->src = src >= 0 ? src : FT_PT_ANY;
	if (r->held) {
		r->held = 0;
		m->nheld--;
	}
	return rematch(pt, m);
}

static int
core_send_frame(void *core, uint32_t proc, const struct ft_wbuf *wb)
{
	struct ft_pt *pt = core;
	struct pconn *pc;

	if (proc >= pt->nproc) {
		errno = EINVAL;
		return -1;
	}
	if ((pc = peer_conn(pt, proc)) == NULL)
		return -1;
	return ft_conn_queue_copy(&pc->c, wb->p, wb->len);
}

static void
core_complete(void *core, struct ft_req *r, int err)
{
	r->st.error = err;
	req_complete(core, r);
}

static uint64_t
core_now_ns(void *core)
{
	(void)core;
	return ft_now_ns();
}

static void
core_notify(void *core, uint32_t kind, const char *text)
{
	struct ft_pt *pt = core;

	if (pt->notify != NULL)
		pt->notify(pt->notify_arg, kind, text);
	else
		ft_warnx("%s", text);
}

/* Is a connection from process q still open for reading? */
static int
reading_from(const struct ft_pt *pt, uint32_t q)
{
	size_t i;

	for (i = 0; i < pt->nconns; i++)
		if (!pt->conns[i]->outgoing && !pt->conns[i]->closed &&
		    pt->conns[i]->c.peer == q &&
		    pt->conns[i]->c.hs == FT_HS_READY)
			return 1;
	return 0;
}

static int
core_proc_state(void *core, uint32_t q)
{
	struct ft_pt *pt = core;
	const struct proc *p;
	int st = 0;

	if (q >= pt->nproc)
		return FT_PROC_GONE;
	p = &pt->procs[q];
	if (p->gone)
		st |= FT_PROC_GONE;
	if (p->out != NULL && !delivered(pt, p->out, stream_pos(p->out)))
		st |= FT_PROC_UNSENT;
	if (reading_from(pt, q))
		st |= FT_PROC_READING;
	return st;
}

static int
core_progress(void *core, int timeout_ms)
{
	struct ft_pt *pt = core;

	if (pt->in_progress) {
		errno = EDEADLK;
		return -1;
	}
	return ft_pt_progress(pt, timeout_ms);
}

static void
core_watch(void *core, int fd, short events, uint64_t deadline_ns)
{
	struct ft_pt *pt = core;

	pt->wfd = fd;
	pt->wevents = events;
	pt->wdeadline = deadline_ns;
}

/*
 * core->inject: a message the protocol holds, as if its sender's copy
 * had arrived whole now, ahead of what that sender sent since (coord:
 * one a checkpoint recorded in flight, received again after a
 * rollback; ftreplay run: the record's next message, with no sender
 * running).  It owes its sender no credit (proc is ours).
 */
static int
core_inject(void *core, const struct ft_msg *msg)
{
	struct ft_pt *pt = core;
	struct unexp *u, *x, *prev = NULL;
	struct ft_req *r;
	struct mctx *m;

	if (msg->src >= pt->size || (msg->len > 0 && msg->buf == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if ((m = mctx_get(pt, msg->ctx)) == NULL ||
	    (u = calloc(1, sizeof(*u))) == NULL)
		return -1;
	u->kind = UX_EAGER;
	u->src = msg->csrc;
	u->wsrc = msg->src;
	u->proc = pt->self;
	u->ctx = msg->ctx;
	u->tag = msg->tag;
	u->seq = msg->seq;
	u->len = msg->len;
	u->injected = 1;
	if (msg->len > 0) {
		if ((u->data = ft_buf_get(msg->len, &u->pooled)) == NULL) {
			free(u);
			return -1;
		}
		memcpy(u->data, msg->buf, msg->len);
	}
	if ((r = posted_take(m, u->src, u->tag)) != NULL)
		return take_ux(pt, r, u);
	/* Before what came from its sender since, after what was injected
	 * before it. */
	for (x = m->ux_head; x != NULL; prev = x, x = x->next)
		if (x->wsrc == u->wsrc && !x->injected)
			break;
	if (x == NULL)
		ux_append(m, u);
	else if (prev == NULL) {
		u->next = x;
		m->ux_head = u;
	} else {
		u->next = x;
		prev->next = u;
	}
	return 0;
}

int
ft_pt_save(struct ft_pt *pt, struct ft_wbuf *wb)
{
	if (pt->proto.ops->save == NULL)
		return 0;
	return pt->proto.ops->save(&pt->proto, wb);
}

int
ft_pt_restore(struct ft_pt *pt, struct ft_rbuf *rb)
{
	if (pt->proto.ops->restore == NULL) {
		if (rb->len == 0)
			return 0;
		errno = EPROTO;
		return -1;
	}
	return pt->proto.ops->restore(&pt->proto, rb);
}

/* vlog images: the next message to dst is number seq. */
static void
core_set_seq(void *core, uint32_t dst, uint64_t seq)
{
	struct ft_pt *pt = core;

	if (dst < pt->size)
		pt->sseq[dst] = seq;
}

static const struct ft_core_ops core_ops = {
	.send_frame = core_send_frame,
	.send_msg = core_send_msg,
	.complete = core_complete,
	.now_ns = core_now_ns,
	.notify = core_notify,
	.release = core_release,
	.drop = core_drop,
	.resolve = core_resolve,
	.proc_state = core_proc_state,
	.progress = core_progress,
	.fail_ctx = core_fail_ctx,
	.watch = core_watch,
	.inject = core_inject,
	.set_seq = core_set_seq,
};

/*
 * Fan-outs stop waiting for processes that are gone, known by a view or
 * by a closed connection: a process that died, or one that left the job
 * while a message to it was under way, answers no RTS and reads no data.
 */
static void
multi_trim_gone(struct ft_pt *pt)
{
	struct multi *mu;
	struct ft_req *r;
	uint32_t k, bit;
	size_t s;

	for (s = 0; s < pt->nslots; s++) {
		r = pt->slots[s].req;
		if (r == NULL || !r->multi)
			continue;
		mu = (struct multi *)r;
		for (k = 0; k < mu->n; k++) {
			bit = 1u << k;
			if (!((r->want | r->sending) & bit) ||
			    !pt->procs[mu->procs[k]].gone)
				continue;
			r->want &= ~bit;
			r->sending &= ~bit;
			mu->from_user &= ~bit;
		}
		if (r->want == 0 && r->sending == 0)
			multi_done(pt, r);
	}
}

/*
 * FT_PROTO_FAILS: which requests fail.  A request is hit by the death
 * of process q (kind 0: the receive names it, or takes its data, or
 * the send waits for its answer), or by the revoke of contexts from
 * q to q + n - 1 (kind 1).
 */
struct fail_sel {
	int		 kind;
	uint32_t	 q, n;
};

static int
fail_hit(const struct ft_pt *pt, const struct ft_req *r,
    const struct fail_sel *f)
{
	if (f->kind == 1)
		return r->ctx >= f->q && r->ctx - f->q < f->n;
	if (r->kind == FT_REQ_SEND)
		return r->dst * pt->ppr == f->q;
	return r->posted ? r->wsrc == f->q : r->peer == f->q;
}

/* Fail every request f hits with err; none is left reading. */
static void
fail_where(struct ft_pt *pt, const struct fail_sel *f, int err)
{
	struct ft_req *r, *next;
	struct pconn *pc;
	struct mctx *m;
	size_t i;

	/* Receives reading a payload: the bytes to come are skipped. */
	for (i = 0; i < pt->nconns; i++) {
		pc = pt->conns[i];
		if ((r = pc->req) == NULL || pc->closed || r->done ||
		    !(f->kind == 1 ? fail_hit(pt, r, f) :
		    pc->c.peer == f->q))
			continue;
		pc->skip += pc->left;
		pc->left = 0;
		pc->dst = NULL;
		pc->req = NULL;
		slot_del(pt, r);
		(void)req_fail(pt, r, err);
	}
	for (i = 0; i < FT_NELEM(pt->ctxtab); i++)
		for (m = pt->ctxtab[i]; m != NULL; m = m->hnext)
			for (r = m->posted_head; r != NULL; r = next) {
				next = r->next;
				if (r->held || !fail_hit(pt, r, f))
					continue;
				posted_unlink(m, r);
				(void)req_fail(pt, r, err);
			}
	for (i = 0; i < pt->nslots; i++) {
		r = pt->slots[i].req;
		if (r == NULL || r->multi || !fail_hit(pt, r, f))
			continue;
		slot_del(pt, r);
		(void)req_fail(pt, r, err);
	}
}

static void
core_fail_ctx(void *core, uint32_t ctx, uint32_t n, int err)
{
	struct ft_pt *pt = core;
	struct fail_sel f = { 1, ctx, n };
	struct mctx *m;
	uint32_t k;

	for (k = 0; k < n; k++)
		if ((m = mctx_get(pt, ctx + k)) != NULL)
			m->fail = err;
	fail_where(pt, &f, err);
}

int
ft_pt_ext(struct ft_pt *pt, struct ft_ext *x)
{
	if (pt->proto.ops->ext == NULL) {
		errno = ENOTSUP;
		return -1;
	}
	return pt->proto.ops->ext(&pt->proto, x);
}

/*
 * A process the view declares dead sent what it sent before it died:
 * that is in the sockets it dialed to us (it is dead, so they end), and
 * is read before what waits on it fails, so that a message sent is not
 * lost with its sender (ULFM: an operation fails only when a failure
 * prevents it from completing; ft-ulfm(3)).
 */
static void
view_drain(struct ft_pt *pt, uint32_t q)
{
	struct pconn *pc;
	size_t i;

	for (i = 0; i < pt->nconns; i++) {
		pc = pt->conns[i];
		if (pc->closed || pc->outgoing || pc->c.peer != q)
			continue;
		if (conn_read(pt, pc) != 0)
			conn_close(pt, pc, NULL);
	}
}

int
ft_pt_view(struct ft_pt *pt, const uint32_t *dead, uint32_t ndead)
{
	uint32_t i, q, d;
	int rc = 0;

	for (i = 0; i < ndead; i++) {
		q = dead[i];
		if (q >= pt->nproc || q == pt->self || pt->procs[q].vgone)
			continue;
		pt->procs[q].vgone = 1;
		pt->procs[q].gone = 1;
		/* Nothing more goes to it; what it sent is still read. */
		if (pt->procs[q].out != NULL) {
			conn_close(pt, pt->procs[q].out, NULL);
			pt->procs[q].out = NULL;
		}
		if (pt->fails) {
			view_drain(pt, q);
			fail_where(pt, &(struct fail_sel){ 0, q, 1 },
			    ECONNRESET);
		}
	}
	multi_trim_gone(pt);
	if (pt->proto.ops->view != NULL)
		rc = pt->proto.ops->view(&pt->proto, dead, ndead);
	/* After the protocol's hook: the failure is known when they end. */
	if (pt->nunconfirmed > 0)
		unconfirmed_settle(pt);
	pt->reap_due = 1;
	if (rc != 0)
		return -1;
	/* The application hears of it, or the launcher restarts it: no
	 * rank need survive. */
	if (pt->fails || pt->restarts)
		return 0;
	for (d = 0; d < pt->size; d++)
		if (rank_gone(pt, d, 1)) {
			errno = ENOLINK;
			return -1;
		}
	return 0;
}

int
ft_pt_revive(struct ft_pt *pt, uint32_t q, const struct ft_rank_addr *addr)
{
	struct pconn *pc;
	size_t i;

	if (!pt->restarts || q >= pt->nproc || q == pt->self ||
	    pt->table == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* What waits for the incarnation before stops waiting. */
	pt->procs[q].gone = 1;
	for (i = 0; i < pt->nconns; i++) {
		pc = pt->conns[i];
		if (pc->closed || pc->fresh ||
		    (pc->outgoing ? pc->dialed : pc->c.peer) != q)
			continue;
		pc->quiet = 1;
		conn_close(pt, pc, NULL);
	}
	multi_trim_gone(pt);
	memset(&pt->procs[q], 0, sizeof(pt->procs[q]));
	pt->table[q] = *addr;
	pt->reap_due = 1;
	if (pt->proto.ops->revive != NULL)
		pt->proto.ops->revive(&pt->proto, q);
	return 0;
}

int
ft_pt_nondet_on(const struct ft_pt *pt)
{
	return pt->proto.ops->nondet != NULL;
}

int
ft_pt_nondet(struct ft_pt *pt, struct ft_nd *ev)
{
	if (pt->proto.ops->nondet == NULL) {
		ev->local = 1;
		return 0;
	}
	for (;;) {
		if (pt->proto.ops->nondet(&pt->proto, ev) == 0)
			return 0;
		if (errno != EAGAIN || ft_pt_progress(pt, 100) != 0)
			return -1;
	}
}

int
ft_pt_decide(struct ft_pt *pt, uint32_t kind, uint64_t v[3])
{
	return ft_pt_decide_ctx(pt, kind, 0, v);
}

int
ft_pt_decide_ctx(struct ft_pt *pt, uint32_t kind, uint32_t ctx,
    uint64_t v[3])
{
	struct ft_nd ev;

	if (pt->proto.ops->nondet == NULL)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_SETTLE;
	ev.kind = kind;
	ev.ctx = ctx;
	memcpy(ev.v, v, sizeof(ev.v));
	if (ft_pt_nondet(pt, &ev) != 0)
		return -1;
	memcpy(v, ev.v, sizeof(ev.v));
	return 0;
}

int
ft_pt_decides(struct ft_pt *pt)
{
	struct ft_nd ev;

	if (pt->proto.ops->nondet == NULL)
		return 1;
	memset(&ev, 0, sizeof(ev));
	ev.op = FT_ND_ASK;
	if (ft_pt_nondet(pt, &ev) != 0)
		return 1;
	return ev.local;
}

int
ft_pt_busy(struct ft_pt *pt)
{
	size_t i;

	if (pt->rdv_pending > 0 || pt->neouts > 0 ||
	    (pt->proto.ops->busy != NULL && pt->proto.ops->busy(&pt->proto)))
		return 1;
	for (i = 0; i < pt->nconns; i++)
		/* Bytes queued behind a handshake count: they are not out. */
		if (!pt->conns[i]->closed &&
		    ft_conn_unsent(&pt->conns[i]->c))
			return 1;
	return 0;
}

/* SPDX-License-Identifier: ISC */
/*
 * The point-to-point engine: connections, the eager and rendezvous
 * protocols, matching, and progress.  Payloads are read straight into the
 * receive buffer when a posted receive matches, and rendezvous data is
 * written straight from the send buffer, so large messages are never
 * copied.
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
};

/* Matching state of one communicator context, created on first use. */
struct mctx {
	struct mctx	*hnext;
	uint32_t	 ctx;
	struct ft_req	*posted_head, *posted_tail;
	struct unexp	*ux_head, *ux_tail;
	uint32_t	 nd_waiting;	/* ANY_SOURCE receives not decided */
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
	/* Reading a data frame's payload: left bytes to dst, then skip. */
	enum rd_phase	 phase;
	uint8_t		*dst;
	size_t		 left, skip;
	struct ft_req	*req;		/* completes when the payload ends */
	struct unexp	*ux;		/* or queues when it ends */
	uint32_t	 wsrc;
};

/* One process of the job (a rank, or one replica of a rank). */
struct proc {
	struct pconn	*out;
	int		 gone;
	uint64_t	 eager_out;	/* our eager bytes it has not matched */
	uint64_t	 eager_in;	/* its eager bytes we matched, owed */
};

/* A message a master has sent and will commit once it is out. */
struct cmt {
	struct cmt	*next;
	uint64_t	 seq;
	uint32_t	 crc;
	int		 done;		/* rendezvous: every replica served */
	int		 eager;		/* out once the connections drain */
};

/* One rank: message numbers both ways and, replicated, its tables. */
struct peer {
	uint64_t	 sseq;		/* next number we send it */
	uint64_t	 rseq;		/* next number we take from it */
	struct unexp	*early;		/* ahead of rseq, by number */
	struct ft_rep_backup bk;	/* our uncommitted copies to it */
	struct cmt	*ch, *ct;	/* master: sent, not yet committed */
};

/* A rendezvous send to one replica, for the completion callback. */
struct fan_ticket {
	struct ft_pt	*pt;
	struct fanout	*fo;
	uint32_t	 k;
};

/*
 * A master's rendezvous send to the replicas of a rank.  The payload is
 * copied, so the sender's request completes as soon as one replica has
 * matched it (what the sender of an unreplicated rank would see) and
 * slow replicas are served from the copy; inner holds the slot that
 * CTS frames name.
 */
struct fanout {
	struct ft_req		 inner;
	struct ft_req		*user;		/* until the first CTS */
	uint8_t			*copy;
	struct cmt		*cmt;
	struct fan_ticket	 t[FT_PT_REPLICAS_MAX];
};

/* Decisions received, waiting for their event. */
struct ndq {
	struct ft_decision	*d;
	size_t			 n, cap;
};

/* Requests waiting in a rendezvous, found by the id in CTS and RDATA. */
struct slot {
	struct ft_req	*req;
	uint32_t	 gen;
};

struct ft_pt {
	uint32_t		 rank, size, node;
	uint32_t		 replica, nrep, self, nproc;
	struct proc		*procs;		/* nproc */
	uint8_t			*gone;		/* nproc, for the election */
	uint32_t		*master;	/* size: each rank's master */
	int			 check_div;
	/* Commits to send our replicas, and decisions. */
	size_t			 cmt_pending;
	struct ft_commit	*cbatch;
	struct ft_decision	*dbatch;
	uint32_t		 ndbatch;
	struct ft_commit	*rcbatch;	/* decoding what we receive */
	struct ft_decision	*rdbatch;
	int			 reap_due;
	int			 diverged;
	struct ft_nd_log	 ndlog;		/* decisions made or received */
	uint64_t		 nd_made;	/* decisions below were ours */
	uint64_t		 nd_out;	/* ... and the replicas have these */
	int			 in_progress;
	uint64_t		 nd_sync_site;	/* next event in program order */
	uint64_t		 nd_any_site;	/* next ANY_SOURCE receive */
	struct ndq		 nd_sync, nd_any;	/* received, unused */
	int			 takeover;	/* becoming master */
	uint32_t		 old_master;	/* process we take over from */
	uint8_t			*asked;		/* takeover: NDSYNC owed by */
	uint8_t			*sync_owed;	/* replicas asked us (proc) */
	uint64_t		*sync_have;	/* ... and what they hold */
	void			(*notify)(void *, uint32_t, const char *);
	void			*notify_arg;
	const uint8_t		*key;
	int			 force_tcp;
	struct ft_proto		 proto;
	int			 lfd_unix, lfd_tcp;
	char			 unix_path[FT_WIRE_ADDR_MAX];
	struct ft_rank_addr	 self_addr;
	struct ft_rank_addr	*table;
	struct peer		*peers;
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
};

static void	req_complete(struct ft_pt *, struct ft_req *);
static void	conn_close(struct ft_pt *, struct pconn *, const char *);
static int	rep_isend(struct ft_pt *, struct ft_req *, const struct ft_msg *,
		    int);
static int	any_recv_site(struct ft_pt *, struct ft_req *);
static void	any_matched(struct ft_pt *, struct ft_req *, uint32_t, uint32_t,
		    uint64_t);
static int	rep_arrive(struct ft_pt *, struct unexp *);
static int	rep_on_cts(struct ft_pt *, struct pconn *,
		    const struct ft_msg_cts *);
static int	on_replica_frame(struct ft_pt *, struct pconn *,
		    const struct ft_hdr *, const uint8_t *, size_t);
static void	commit_flush(struct ft_pt *);
static void	takeover_step(struct ft_pt *);
static void	rep_duplicate(struct ft_pt *, struct unexp *);

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

int
ft_pt_peer_gone(const struct ft_pt *pt, uint32_t r)
{
	if (r >= pt->size)
		return 0;
	return pt->nrep == 1 ? pt->procs[r].gone : pt->master[r] == UINT32_MAX;
}

uint32_t
ft_pt_nrep(const struct ft_pt *pt)
{
	return pt->nrep;
}

/* Master of our rank, with every decision of the old one collected. */
int
ft_pt_is_master(const struct ft_pt *pt)
{
	return pt->master[pt->rank] == pt->replica && !pt->takeover;
}

void
ft_pt_set_notify(struct ft_pt *pt, void (*fn)(void *, uint32_t,
    const char *), void *arg)
{
	pt->notify = fn;
	pt->notify_arg = arg;
}

/* The process a connection's peer id names, as a rank. */
static uint32_t
rank_of(const struct ft_pt *pt, uint32_t proc)
{
	return proc / pt->nrep;
}

struct ft_pt *
ft_pt_new(const struct ft_pt_conf *cf)
{
	struct ft_pt *pt;
	struct ft_conf pc;
	char addr[FT_WIRE_ADDR_MAX];
	uint32_t nrep = cf->nrep > 1 ? cf->nrep : 1;
	int saved;

	if (cf->size == 0 || cf->rank >= cf->size || cf->key == NULL ||
	    nrep > FT_PT_REPLICAS_MAX || cf->replica >= nrep ||
	    (uint64_t)cf->size * nrep > FT_WIRE_MAX_RANKS) {
		errno = EINVAL;
		return NULL;
	}
	if ((pt = calloc(1, sizeof(*pt))) == NULL)
		return NULL;
	pt->rank = cf->rank;
	pt->size = cf->size;
	pt->nrep = nrep;
	pt->replica = nrep > 1 ? cf->replica : 0;
	pt->self = pt->rank * nrep + pt->replica;
	pt->nproc = cf->size * nrep;
	pt->check_div = cf->check_divergence;
	pt->node = cf->node;
	pt->key = cf->key;
	pt->force_tcp = cf->force_tcp;
	pt->lfd_unix = pt->lfd_tcp = -1;
	if ((pt->peers = calloc(cf->size, sizeof(*pt->peers))) == NULL ||
	    (pt->procs = calloc(pt->nproc, sizeof(*pt->procs))) == NULL ||
	    (pt->gone = calloc(pt->nproc, 1)) == NULL ||
	    /* Zero: replica 0 of every rank starts as its master. */
	    (pt->master = calloc(cf->size, sizeof(*pt->master))) == NULL)
		goto fail;
	if (nrep > 1 && ((pt->cbatch = calloc(FT_WIRE_BATCH_MAX,
	    sizeof(*pt->cbatch))) == NULL ||
	    (pt->dbatch = calloc(FT_WIRE_BATCH_MAX,
	    sizeof(*pt->dbatch))) == NULL ||
	    (pt->rcbatch = calloc(FT_WIRE_BATCH_MAX,
	    sizeof(*pt->rcbatch))) == NULL ||
	    (pt->rdbatch = calloc(FT_WIRE_BATCH_MAX,
	    sizeof(*pt->rdbatch))) == NULL ||
	    (pt->asked = calloc(nrep, 1)) == NULL ||
	    (pt->sync_owed = calloc(nrep, 1)) == NULL ||
	    (pt->sync_have = calloc(nrep, sizeof(uint64_t))) == NULL ||
	    ft_nd_log_init(&pt->ndlog, 4096) != 0))
		goto fail;
	pc.rank = cf->rank;
	pc.size = cf->size;
	if (ft_proto_init(&pt->proto, cf->proto != NULL ? cf->proto :
	    &ft__proto_none, &pc) != 0)
		goto fail;
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
	snprintf(addr, sizeof(addr), "tcp:%s:0",
	    cf->tcp_host != NULL ? cf->tcp_host : "127.0.0.1");
	pt->lfd_tcp = ft_net_listen(addr, pt->self_addr.tcp_addr,
	    sizeof(pt->self_addr.tcp_addr));
	if (pt->lfd_tcp == -1)
		goto fail;
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
ft_pt_set_table(struct ft_pt *pt, const struct ft_rank_addr *t, uint32_t n)
{
	if (n != pt->nproc) {
		errno = EINVAL;
		return -1;
	}
	free(pt->table);
	if ((pt->table = calloc(n, sizeof(*t))) == NULL)
		return -1;
	memcpy(pt->table, t, n * sizeof(*t));
	return 0;
}

static int
conn_add(struct ft_pt *pt, struct pconn *pc)
{
	struct pconn **nc;
	size_t ncap;

	if (pt->nconns == pt->capconns) {
		ncap = pt->capconns == 0 ? 16 : pt->capconns * 2;
		if ((nc = reallocarray(pt->conns, ncap, sizeof(*nc))) == NULL)
			return -1;
		pt->conns = nc;
		pt->capconns = ncap;
	}
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
	size_t i;

	if (pt == NULL)
		return;
	for (i = 0; i < pt->nconns; i++) {
		ft_conn_release(&pt->conns[i]->c);
		free(pt->conns[i]);
	}
	if (pt->ctl != NULL) {
		ft_conn_release(&pt->ctl->c);
		free(pt->ctl);
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
	if (pt->proto.ops != NULL)
		ft_proto_release(&pt->proto);
	for (i = 0; pt->peers != NULL && i < pt->size; i++) {
		struct peer *p = &pt->peers[i];
		struct unexp *u;
		struct cmt *c;

		while ((u = p->early) != NULL) {
			p->early = u->next;
			ft_buf_put(u->data, u->pooled);
			free(u);
		}
		while ((c = p->ch) != NULL) {
			p->ch = c->next;
			free(c);
		}
		ft_rep_backup_free(&p->bk);
	}
	free(pt->conns);
	free(pt->peers);
	free(pt->procs);
	free(pt->gone);
	free(pt->master);
	free(pt->cbatch);
	free(pt->dbatch);
	free(pt->rcbatch);
	free(pt->rdbatch);
	free(pt->asked);
	free(pt->sync_owed);
	free(pt->sync_have);
	free(pt->nd_sync.d);
	free(pt->nd_any.d);
	if (pt->ndlog.ring != NULL)
		ft_nd_log_free(&pt->ndlog);
	free(pt->table);
	free(pt->slots);
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

/*
 * Take the first posted receive matching src and tag.  A replica's
 * ANY_SOURCE receive still waiting for its master's decision may be the
 * one the master gave this message to: a message its tag allows stops
 * there, unexpected, until the decision comes.
 */
static struct ft_req *
posted_take(struct mctx *m, uint32_t src, int32_t tag)
{
	struct ft_req *r;

	for (r = m->posted_head; r != NULL; r = r->next) {
		if (r->nd_wait) {
			if (r->tag == FT_PT_ANY || r->tag == tag)
				return NULL;
			continue;
		}
		if (matches(r, src, tag))
			break;
	}
	if (r == NULL)
		return NULL;
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

/* Take the first unexpected message matching src and tag. */
static struct unexp *
ux_take(struct mctx *m, int src, int tag, int remove)
{
	struct unexp *u, *prev = NULL;

	for (u = m->ux_head; u != NULL; prev = u, u = u->next)
		if ((src == FT_PT_ANY || (uint32_t)src == u->src) &&
		    (tag == FT_PT_ANY || tag == u->tag))
			break;
	if (u == NULL || !remove)
		return u;
	if (prev != NULL)
		prev->next = u->next;
	else
		m->ux_head = u->next;
	if (m->ux_tail == u)
		m->ux_tail = prev;
	u->next = NULL;
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
	if (r->on_done != NULL)
		r->on_done(r);
}

static void
deliver(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc, uint64_t seq)
{
	r->seq = seq;
	struct ft_msg m = { r->ctx, wsrc, pt->rank, r->st.tag, seq, r->buf,
	    r->st.bytes };

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
	a = &pt->table[dst];
	if (!pt->force_tcp && a->node == pt->node && a->unix_addr[0] != '\0')
		addr = a->unix_addr;
	else
		addr = a->tcp_addr;
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
	pt->procs[dst].out = pc;
	(void)ft_conn_flush(&pc->c);
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
		any_matched(pt, r, src, pt->rank, seq);
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
	uint8_t prefix[FT_WIRE_HDRLEN + FT_EAGER_FIXED];
	struct ft_msg_eager eg;
	struct ft_msg_rts rts;
	struct ft_wbuf wb;
	struct ft_msg m;
	struct pconn *pc;
	uint64_t seq;
	int rc;

	memset(r, 0, sizeof(*r) - sizeof(r->on_done) - sizeof(r->user));
	r->kind = FT_REQ_SEND;
	r->sbuf = buf;
	r->len = len;
	r->dst = dst;
	r->ctx = ctx;
	r->mode = mode;
	r->tag = tag;
	if (dst >= pt->size) {
		errno = EINVAL;
		return -1;
	}
	seq = pt->peers[dst].sseq++;
	m = (struct ft_msg){ ctx, pt->rank, dst, tag, seq, buf, len };
	if (ft_proto_send(&pt->proto, &m) != 0)
		return -1;
	if (dst == pt->rank)
		return send_self(pt, r, ctx, src, tag, seq);
	if (pt->nrep > 1) {
		m.src = src;
		return rep_isend(pt, r, &m, mode);
	}
	if ((pc = peer_conn(pt, dst)) == NULL)
		return -1;
	if (len <= FT_PT_EAGER_MAX && mode != FT_SEND_SYNC &&
	    pt->procs[dst].eager_out + len + FT_PT_EAGER_COST <=
	    FT_PT_EAGER_WINDOW) {
		pt->procs[dst].eager_out += len + FT_PT_EAGER_COST;
		eg = (struct ft_msg_eager){ ctx, src, tag, seq };
		if (ft_msg_eager_prefix(prefix, pt->self, &eg, len) != 0 ||
		    ft_conn_send2(&pc->c, prefix, sizeof(prefix), buf,
		    len) != 0)
			return -1;
		req_complete(pt, r);
		return 0;
	}
	if (slot_add(pt, r) == 0)
		return -1;
	rts = (struct ft_msg_rts){ ctx, src, tag, seq, len, r->id };
	ft_wbuf_init(&wb);
	rc = ft_msg_rts_encode(&wb, pt->self,
	    mode == FT_SEND_SYNC ? FT_FLAG_SYNC : 0, &rts);
	if (rc == 0)
		rc = ft_conn_queue_copy(&pc->c, wb.p, wb.len);
	ft_wbuf_release(&wb);
	if (rc != 0) {
		slot_del(pt, r);
		return -1;
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
	/* Replicated, a dead sender's next master sends the RTS again. */
	if (pt->nrep > 1 && pt->procs[wsrc].gone)
		return 0;
	if ((pc = peer_conn(pt, wsrc)) == NULL) {
		if (pt->nrep > 1 && errno != ENOMEM)
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
	if (rc != 0 && pt->nrep > 1 && errno != ENOMEM) {
		/* The sender died: the next master sends the RTS again. */
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
	any_matched(pt, r, u->src, u->wsrc, u->seq);
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
 * posted receives, as if they arrived now: after a replica's ANY_SOURCE
 * receive learns its source, or behind one still waiting.
 */
static int
rematch(struct ft_pt *pt, struct mctx *m)
{
	struct unexp *u, *prev = NULL, *next;
	struct ft_req *r;

	for (u = m->ux_head; u != NULL; u = next) {
		next = u->next;
		if ((r = posted_take(m, u->src, u->tag)) == NULL) {
			prev = u;
			continue;
		}
		if (prev != NULL)
			prev->next = next;
		else
			m->ux_head = next;
		if (m->ux_tail == u)
			m->ux_tail = prev;
		u->next = NULL;
		if (take_ux(pt, r, u) != 0)
			return -1;
	}
	return 0;
}

int
ft_pt_irecv(struct ft_pt *pt, struct ft_req *r, void *buf, size_t cap,
    int src, int tag, uint32_t ctx)
{
	struct mctx *m;
	struct unexp *u;

	memset(r, 0, sizeof(*r) - sizeof(r->on_done) - sizeof(r->user));
	r->kind = FT_REQ_RECV;
	r->buf = buf;
	r->cap = cap;
	r->src = src;
	r->tag = tag;
	r->ctx = ctx;
	if ((m = mctx_get(pt, ctx)) == NULL)
		return -1;
	if (pt->nrep > 1 && src == FT_PT_ANY && any_recv_site(pt, r)) {
		/* A replica waits for the master's choice. */
		r->nd_wait = 1;
		m->nd_waiting++;
		posted_append(m, r);
		return 0;
	}
	if (m->nd_waiting > 0) {
		/* Behind an undecided receive: match in posting order. */
		posted_append(m, r);
		return rematch(pt, m);
	}
	if ((u = ux_take(m, r->src, tag, 1)) == NULL) {
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

int
ft_pt_cancel(struct ft_pt *pt, struct ft_req *r)
{
	struct mctx *m;

	if (r->kind != FT_REQ_RECV || !r->posted ||
	    (m = mctx_get(pt, r->ctx)) == NULL)
		return 0;
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
	r->st.cancelled = 1;
	r->st.source = FT_PT_ANY;
	r->st.tag = FT_PT_ANY;
	req_complete(pt, r);
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

/* Stream a rendezvous payload to one process. */
static int
stream_data(struct ft_pt *pt, struct pconn *out, uint64_t rreq,
    const uint8_t *sbuf, size_t len, void (*done)(void *), void *arg)
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
		    off + n == len ? done : NULL, arg) != 0)
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
	if (pt->nrep > 1)
		return rep_on_cts(pt, pc, &cts);
	if ((r = slot_find(pt, cts.sreq)) == NULL || r->kind != FT_REQ_SEND ||
	    r->dst != pc->c.peer) {
		errno = EPROTO;
		return -1;
	}
	slot_del(pt, r);
	if ((out = peer_conn(pt, r->dst)) == NULL)
		return -1;
	return stream_data(pt, out, cts.rreq, r->sbuf, r->len, rdata_sent, r);
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
	if (pt->nrep == 1 && (r = posted_take(m, rts.src, rts.tag)) != NULL) {
		recv_matched(r, rts.src, rts.tag, rts.size);
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
	if (pt->nrep > 1)
		return rep_arrive(pt, u);
	ux_append(m, u);
	return 0;
}

/* An EAGER header is in: decide where its payload goes. */
static int
on_eager(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *fixed)
{
	struct ft_msg_eager eg;
	size_t len = h->len - FT_WIRE_HDRLEN - FT_EAGER_FIXED;
	struct ft_req *r;
	struct unexp *u;
	struct mctx *m;

	if (ft_msg_eager_decode(fixed, FT_EAGER_FIXED, &eg) != 0)
		return -1;
	if ((m = mctx_get(pt, eg.ctx)) == NULL)
		return -1;
	pc->phase = RD_PAYLOAD;
	pc->wsrc = rank_of(pt, pc->c.peer);
	pc->req = NULL;
	pc->ux = NULL;
	/* Replicated, a message is matched only once it is whole: a copy
	 * cut short by its sender's death must not have taken a receive. */
	if (pt->nrep == 1 && (r = posted_take(m, eg.src, eg.tag)) != NULL) {
		recv_matched(r, eg.src, eg.tag, len);
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
	if (pt->nrep > 1 && (r == NULL || r->peer != pc->c.peer)) {
		/* For a receive that now takes its data from a new master,
		 * or one already complete: skip it. */
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
	if (pt->nrep > 1)
		return rep_arrive(pt, u);
	if ((m = mctx_get(pt, u->ctx)) == NULL)
		return -1;
	/* A receive may have been posted while the payload streamed in. */
	if ((r = posted_take(m, u->src, u->tag)) != NULL) {
		recv_matched(r, u->src, u->tag, u->len);
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
	case FT_MSG_COMMIT:
	case FT_MSG_DECIDE:
	case FT_MSG_NDSYNC:
		return on_replica_frame(pt, pc, h, body, blen);
	default:
		errno = EPROTO;
		return -1;
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
				fixed = FT_EAGER_FIXED;
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

static void
conn_close(struct ft_pt *pt, struct pconn *pc, const char *why)
{
	uint32_t peer = pc->outgoing ? pc->dialed : pc->c.peer;

	if (pc->closed)
		return;
	pc->closed = 1;
	/* Replicated, a dead peer is ftrun's news and the job goes on:
	 * only a wrong key is worth a word. */
	if (pt->nrep > 1 && !(pc->c.hs == FT_HS_FAILED && errno == EACCES))
		;
	else if (pc->outgoing && pc->c.hs != FT_HS_READY)
		ft_warnx("unable to connect to rank %u: %s", peer,
		    why != NULL ? why : "closed during the handshake");
	else if (pc->c.hs != FT_HS_READY)
		ft_warnx("refused a connection: %s",
		    pc->c.hs == FT_HS_FAILED && errno == EACCES ?
		    "wrong job key" : why != NULL ? why :
		    "closed during the handshake");
	else if (why != NULL && !pc->c.eof && pt->nrep == 1)
		/* Replicated, ftrun tells of a dead replica and the job
		 * goes on: a reset from it is no news. */
		ft_warnx("dropped the connection with rank %u: %s", peer, why);
	if ((pc->c.hs == FT_HS_READY || pc->outgoing) && peer < pt->nproc) {
		pt->procs[peer].gone = 1;
		if (pt->procs[peer].out == pc)
			pt->procs[peer].out = NULL;
	}
	/* A message cut short by the close is lost with its sender. */
	if (pc->ux != NULL) {
		free(pc->ux->data);
		free(pc->ux);
		pc->ux = NULL;
	}
	/* Replicated, the next master sends the message again. */
	if (pc->req != NULL && pt->nrep == 1)
		pc->req->st.error = ECONNRESET;
	pc->req = NULL;
	close(pc->c.fd);
	pc->c.fd = -1;
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

/* A progress pass; callbacks it runs may start sends, not wait in one. */
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
	size_t n = 0, need = pt->nconns + 3, i;
	int rc, dead = 0;

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
	if (pt->lfd_unix != -1) {
		pt->pfd[n] = (struct pollfd){ pt->lfd_unix, POLLIN, 0 };
		pt->pfdconn[n++] = NULL;
	}
	if (pt->lfd_tcp != -1) {
		pt->pfd[n] = (struct pollfd){ pt->lfd_tcp, POLLIN, 0 };
		pt->pfdconn[n++] = NULL;
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
	rc = poll(pt->pfd, (nfds_t)n, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -1;
	for (i = 0; i < n && rc > 0; i++) {
		struct pconn *pc = pt->pfdconn[i];
		short re = pt->pfd[i].revents;

		if (re == 0)
			continue;
		rc--;
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
	if (pt->nrep > 1) {
		takeover_step(pt);
		commit_flush(pt);
	}
	if (dead || pt->reap_due) {
		pt->reap_due = 0;
		reap(pt);
	}
	return 0;
}

/*
 * Replication (R > 1): see pt2pt.h.  What follows is the data path of
 * the "replicate" protocol; its tables live in lib/proto/replicate.c.
 */

/* Send a frame to every live replica of our own rank but us. */
static void
to_my_replicas(struct ft_pt *pt, const struct ft_wbuf *wb)
{
	struct pconn *pc;
	uint32_t k, q;

	for (k = 0; k < pt->nrep; k++) {
		q = pt->rank * pt->nrep + k;
		if (k == pt->replica || pt->procs[q].gone)
			continue;
		if ((pc = peer_conn(pt, q)) != NULL)
			(void)ft_conn_queue_copy(&pc->c, wb->p, wb->len);
	}
}

static void
note(struct ft_pt *pt, uint32_t kind, const char *fmt, ...) FT_PRINTF(3, 4);

static void
note(struct ft_pt *pt, uint32_t kind, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	/* The first divergence is the news; what follows is its echo. */
	if (kind == FT_NOTE_DIVERGE && pt->diverged++ > 0)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (pt->notify != NULL)
		pt->notify(pt->notify_arg, kind, text);
	else
		ft_warnx("%s", text);
}

static void
decide_flush(struct ft_pt *pt)
{
	struct ft_msg_decide md = { 0, 0, pt->ndbatch, pt->dbatch };
	struct ft_wbuf wb;

	if (pt->ndbatch == 0)
		return;
	ft_wbuf_init(&wb);
	if (ft_msg_decide_encode(&wb, pt->self, FT_MSG_DECIDE, &md) == 0)
		to_my_replicas(pt, &wb);
	ft_wbuf_release(&wb);
	pt->ndbatch = 0;
}

/* The master made a decision: log it and tell the replicas. */
static void
decide_local(struct ft_pt *pt, uint32_t kind, uint64_t site,
    const uint64_t v[3])
{
	struct ft_decision d = { pt->ndlog.count, kind, site, v[0], v[1],
	    v[2] };

	(void)ft_nd_log_add(&pt->ndlog, &d);
	pt->nd_made = pt->ndlog.count;
	pt->dbatch[pt->ndbatch++] = d;
	if (pt->ndbatch == FT_WIRE_BATCH_MAX)
		decide_flush(pt);
}

static int
ndq_push(struct ndq *q, const struct ft_decision *d)
{
	struct ft_decision *nd;
	size_t ncap;

	if (q->n == q->cap) {
		ncap = q->cap == 0 ? 64 : q->cap * 2;
		if ((nd = reallocarray(q->d, ncap, sizeof(*nd))) == NULL)
			return -1;
		q->d = nd;
		q->cap = ncap;
	}
	q->d[q->n++] = *d;
	return 0;
}

static void
ndq_del(struct ndq *q, size_t i)
{
	memmove(&q->d[i], &q->d[i + 1], (q->n - i - 1) * sizeof(*q->d));
	q->n--;
}

/* Find the posted ANY_SOURCE receive of a site still waiting. */
static struct ft_req *
find_nd_wait(struct ft_pt *pt, uint64_t site, struct mctx **mp)
{
	struct mctx *m;
	struct ft_req *r;
	size_t i;

	for (i = 0; i < FT_NELEM(pt->ctxtab); i++)
		for (m = pt->ctxtab[i]; m != NULL; m = m->hnext) {
			if (m->nd_waiting == 0)
				continue;
			for (r = m->posted_head; r != NULL; r = r->next)
				if (r->nd_wait && r->nd_site == site) {
					*mp = m;
					return r;
				}
		}
	return NULL;
}

/* The master chose the source of a waiting ANY_SOURCE receive. */
static int
nd_apply_any(struct ft_pt *pt, struct ft_req *r, struct mctx *m,
    const struct ft_decision *d)
{
	r->src = (int)d->a;
	r->nd_wait = 0;
	m->nd_waiting--;
	return rematch(pt, m);
}

/* A decision from the master (or collected in a takeover). */
static int
take_decision(struct ft_pt *pt, const struct ft_decision *d)
{
	struct ft_req *r;
	struct mctx *m;
	int rc;

	if (d->kind == 0 || d->kind > FT_ND_KIND_MAX) {
		errno = EPROTO;
		return -1;
	}
	if ((rc = ft_nd_log_add(&pt->ndlog, d)) != 0)
		return rc < 0 ? -1 : 0;
	if (d->kind == FT_ND_ANYSRC) {
		if ((r = find_nd_wait(pt, d->site, &m)) != NULL)
			return nd_apply_any(pt, r, m, d);
		return ndq_push(&pt->nd_any, d);
	}
	return ndq_push(&pt->nd_sync, d);
}

/*
 * If the master's choice for ANY_SOURCE receive r came before r was
 * posted, apply it (r takes that source) and return 1.
 */
static int
any_decided(struct ft_pt *pt, struct ft_req *r)
{
	size_t i;

	for (i = 0; i < pt->nd_any.n; i++)
		if (pt->nd_any.d[i].site == r->nd_site) {
			r->src = (int)pt->nd_any.d[i].a;
			ndq_del(&pt->nd_any, i);
			return 1;
		}
	return 0;
}

/*
 * A new ANY_SOURCE receive gets the next site number.  On a replica,
 * returns 1 when it must wait for the master's choice, else 0 (with the
 * choice already applied when it came first).
 */
static int
any_recv_site(struct ft_pt *pt, struct ft_req *r)
{
	r->nd_site = ++pt->nd_any_site;
	if (any_decided(pt, r))
		return 0;
	return !ft_pt_is_master(pt);
}

/* A receive matched: if it was ANY_SOURCE on a master, say which. */
static void
any_matched(struct ft_pt *pt, struct ft_req *r, uint32_t src, uint32_t wsrc,
    uint64_t seq)
{
	uint64_t v[3] = { src, seq, wsrc };

	if (r->nd_site == 0 || pt->nrep == 1 || !ft_pt_is_master(pt))
		return;
	decide_local(pt, FT_ND_ANYSRC, r->nd_site, v);
	r->nd_site = 0;
}

int
ft_pt_decide(struct ft_pt *pt, uint32_t kind, uint64_t v[3])
{
	uint64_t site;
	struct ft_decision *d;

	if (pt->nrep == 1)
		return 0;
	site = pt->nd_sync_site++;
	for (;;) {
		if (pt->nd_sync.n > 0) {
			d = &pt->nd_sync.d[0];
			if (d->site != site || d->kind != kind) {
				note(pt, FT_NOTE_DIVERGE, "rank %u replica %u: "
				    "event %llu is a %u here, a %u at the master",
				    pt->rank, pt->replica,
				    (unsigned long long)site, kind, d->kind);
				errno = EPROTO;
				return -1;
			}
			v[0] = d->a;
			v[1] = d->b;
			v[2] = d->c;
			ndq_del(&pt->nd_sync, 0);
			return 0;
		}
		if (ft_pt_is_master(pt)) {
			decide_local(pt, kind, site, v);
			decide_flush(pt);
			return 0;
		}
		if (ft_pt_progress(pt, 100) != 0)
			return -1;
	}
}

int
ft_pt_decides(struct ft_pt *pt)
{
	if (pt->nrep == 1)
		return 1;
	while (pt->nd_sync.n == 0 && !ft_pt_is_master(pt))
		if (ft_pt_progress(pt, 100) != 0)
			return 1;
	return pt->nd_sync.n == 0;
}

/* Send the first n entries of the commit batch to our replicas. */
static void
commit_send(struct ft_pt *pt, uint32_t n)
{
	struct ft_msg_commit mc = { n, pt->cbatch };
	struct ft_wbuf wb;

	ft_wbuf_init(&wb);
	if (ft_msg_commit_encode(&wb, pt->self, &mc) == 0)
		to_my_replicas(pt, &wb);
	ft_wbuf_release(&wb);
}

/* Commits and decisions due to our replicas, after a progress pass. */
static void
commit_flush(struct ft_pt *pt)
{
	struct peer *p;
	struct cmt *c;
	uint32_t d, k, q, n = 0;
	int drained;
	uint64_t bad;

	decide_flush(pt);
	if (pt->cmt_pending == 0)
		return;
	for (d = 0; d < pt->size; d++) {
		p = &pt->peers[d];
		if (p->ch == NULL)
			continue;
		drained = 1;
		for (k = 0; k < pt->nrep; k++) {
			q = d * pt->nrep + k;
			/* Not want_write: data queued behind a handshake
			 * still in progress is not out either. */
			if (!pt->procs[q].gone && pt->procs[q].out != NULL &&
			    ft_conn_unsent(&pt->procs[q].out->c))
				drained = 0;
		}
		while ((c = p->ch) != NULL && (c->eager ? drained : c->done)) {
			if (n > 0 && !pt->check_div && pt->cbatch[n - 1].dst == d)
				n--;
			pt->cbatch[n++] = (struct ft_commit){ d, c->crc, c->seq };
			(void)ft_rep_backup_commit(&p->bk, c->seq, 0, &bad);
			p->ch = c->next;
			if (p->ch == NULL)
				p->ct = NULL;
			free(c);
			pt->cmt_pending--;
			if (n == FT_WIRE_BATCH_MAX) {
				commit_send(pt, n);
				n = 0;
			}
		}
	}
	if (n > 0)
		commit_send(pt, n);
}

/* A rendezvous send has served every live replica: commit, free. */
static void
fan_done(struct ft_pt *pt, struct ft_req *inner)
{
	struct fanout *fo = (struct fanout *)inner;
	struct ft_req *user = fo->user;

	slot_del(pt, inner);
	if (fo->cmt != NULL)
		fo->cmt->done = 1;
	free(fo->copy);
	free(fo);
	/* Every replica of the destination died before matching it. */
	if (user != NULL)
		req_complete(pt, user);
}

static void
fan_sent(void *arg)
{
	struct fan_ticket *t = arg;
	struct ft_req *inner = &t->fo->inner;

	inner->sending &= ~(1u << t->k);
	if (inner->want == 0 && inner->sending == 0)
		fan_done(t->pt, inner);
}

/* A replica of the destination answered our RTS. */
static int
rep_on_cts(struct ft_pt *pt, struct pconn *pc, const struct ft_msg_cts *cts)
{
	uint32_t k = pc->c.peer % pt->nrep;
	struct ft_req *inner, *user;
	struct fanout *fo;
	struct pconn *out;

	if ((inner = slot_find(pt, cts->sreq)) == NULL &&
	    pt->procs[pc->c.peer].gone)
		return 0;	/* a dead replica's late answer */
	if (inner == NULL || inner->kind != FT_REQ_SEND ||
	    inner->dst != rank_of(pt, pc->c.peer)) {
		errno = EPROTO;
		return -1;
	}
	if (!(inner->want & (1u << k)))
		return 0;
	fo = (struct fanout *)inner;
	inner->want &= ~(1u << k);
	if ((user = fo->user) != NULL) {
		/* Matched by the rank (one replica of it): done for the
		 * sender, synchronous mode included. */
		fo->user = NULL;
		req_complete(pt, user);
	}
	if (cts->rreq != 0 && (out = peer_conn(pt, pc->c.peer)) != NULL) {
		fo->t[k] = (struct fan_ticket){ pt, fo, k };
		inner->sending |= 1u << k;
		if (stream_data(pt, out, cts->rreq, fo->copy, inner->len,
		    fan_sent, &fo->t[k]) == 0)
			return 0;
		/* It died: its queue goes, with the tickets in it. */
		inner->sending &= ~(1u << k);
		conn_close(pt, out, NULL);
		pt->reap_due = 1;
	}
	if (inner->want == 0 && inner->sending == 0)
		fan_done(pt, inner);
	return 0;
}

static struct cmt *
cmt_new(struct ft_pt *pt, uint32_t dst, uint64_t seq, uint32_t crc)
{
	struct peer *p = &pt->peers[dst];
	struct cmt *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->seq = seq;
	c->crc = crc;
	if (p->ct != NULL)
		p->ct->next = c;
	else
		p->ch = c;
	p->ct = c;
	pt->cmt_pending++;
	return c;
}

/*
 * Before a master's message leaves, the decisions it made so far must be
 * out of its hands (in its replicas' socket buffers): a message that
 * depends on a decision must never outlive it, or a replica taking over
 * would decide again, and differently.  Usually they went out when
 * made; behind a handshake still in progress they wait here.
 */
static void
decisions_out(struct ft_pt *pt)
{
	struct pconn *pc;
	uint32_t k, q;
	int unsent;

	while (pt->nd_out < pt->nd_made) {
		decide_flush(pt);
		unsent = 0;
		for (k = 0; k < pt->nrep; k++) {
			q = pt->rank * pt->nrep + k;
			if (k != pt->replica && !pt->procs[q].gone &&
			    (pc = pt->procs[q].out) != NULL &&
			    ft_conn_unsent(&pc->c))
				unsent = 1;
		}
		if (!unsent)
			pt->nd_out = pt->nd_made;
		else if (pt->in_progress || ft_pt_progress(pt, 1) != 0)
			return;	/* inside progress: no waiting there */
	}
}

/*
 * The master sends message m (request r) to every live replica of its
 * destination: eager when every one has window for it, else an RTS to
 * each, completing once each has its copy.
 */
static int
rep_transmit(struct ft_pt *pt, struct ft_req *r, const struct ft_msg *m,
    int mode, uint32_t crc)
{
	uint8_t prefix[FT_WIRE_HDRLEN + FT_EAGER_FIXED];
	struct ft_msg_eager eg;
	struct ft_msg_rts rts;
	struct ft_wbuf wb;
	struct pconn *pc;
	struct cmt *c;
	struct fanout *fo;
	struct ft_req *inner;
	uint32_t k, q, mask = 0;
	int eager;

	decisions_out(pt);
	eager = m->len <= FT_PT_EAGER_MAX && mode != FT_SEND_SYNC;
	for (k = 0; k < pt->nrep; k++) {
		q = m->dst * pt->nrep + k;
		if (pt->procs[q].gone)
			continue;
		mask |= 1u << k;
		if (pt->procs[q].eager_out + m->len + FT_PT_EAGER_COST >
		    FT_PT_EAGER_WINDOW)
			eager = 0;
	}
	if (mask == 0) {
		/* Every replica of dst is dead: ftrun is ending the job with
		 * that news, which an error here would only race. */
		req_complete(pt, r);
		return 0;
	}
	if ((c = cmt_new(pt, m->dst, m->seq, crc)) == NULL)
		return -1;
	if (eager) {
		c->eager = 1;
		eg = (struct ft_msg_eager){ m->ctx, m->src, m->tag, m->seq };
		if (ft_msg_eager_prefix(prefix, pt->self, &eg, m->len) != 0)
			return -1;
		for (k = 0; k < pt->nrep; k++) {
			if (!(mask & (1u << k)))
				continue;
			q = m->dst * pt->nrep + k;
			/* A replica we cannot reach is dead or soon will be. */
			if ((pc = peer_conn(pt, q)) == NULL)
				continue;
			pt->procs[q].eager_out += m->len + FT_PT_EAGER_COST;
			if (ft_conn_send2(&pc->c, prefix, sizeof(prefix), m->buf,
			    m->len) != 0) {
				/* It died; the view that says so is coming. */
				conn_close(pt, pc, NULL);
				pt->reap_due = 1;
			}
		}
		req_complete(pt, r);
		return 0;
	}
	if ((fo = calloc(1, sizeof(*fo))) == NULL ||
	    (m->len > 0 && (fo->copy = malloc(m->len)) == NULL)) {
		free(fo);
		return -1;
	}
	if (m->len > 0)
		memcpy(fo->copy, m->buf, m->len);
	fo->user = r;
	fo->cmt = c;
	inner = &fo->inner;
	inner->kind = FT_REQ_SEND;
	inner->dst = m->dst;
	inner->len = m->len;
	inner->want = mask;
	if (slot_add(pt, inner) == 0) {
		free(fo->copy);
		free(fo);
		return -1;
	}
	rts = (struct ft_msg_rts){ m->ctx, m->src, m->tag, m->seq, m->len,
	    inner->id };
	ft_wbuf_init(&wb);
	if (ft_msg_rts_encode(&wb, pt->self,
	    mode == FT_SEND_SYNC ? FT_FLAG_SYNC : 0, &rts) != 0) {
		ft_wbuf_release(&wb);
		return -1;
	}
	for (k = 0; k < pt->nrep; k++) {
		if (!(mask & (1u << k)))
			continue;
		q = m->dst * pt->nrep + k;
		if ((pc = peer_conn(pt, q)) == NULL ||
		    ft_conn_queue_copy(&pc->c, wb.p, wb.len) != 0)
			inner->want &= ~(1u << k);
	}
	ft_wbuf_release(&wb);
	if (inner->want == 0)
		fan_done(pt, inner);
	return 0;
}

static int
rep_isend(struct ft_pt *pt, struct ft_req *r, const struct ft_msg *m,
    int mode)
{
	struct peer *p = &pt->peers[m->dst];
	uint32_t crc = 0;

	if (pt->check_div && m->len > 0)
		crc = ft_crc32c(0, m->buf, m->len) | 1;
	if (m->seq < p->bk.committed) {
		/* The master we follow, or the one before, sent it. */
		if (ft_rep_backup_late(&p->bk, m->seq, crc))
			note(pt, FT_NOTE_DIVERGE, "rank %u replica %u diverged "
			    "from its master: message %llu to rank %u has "
			    "other bytes", pt->rank, pt->replica,
			    (unsigned long long)m->seq, m->dst);
		req_complete(pt, r);
		return 0;
	}
	if (pt->master[pt->rank] != pt->replica) {
		if (ft_rep_backup_add(&p->bk, m, mode, crc) < 0)
			return -1;
		req_complete(pt, r);
		return 0;
	}
	return rep_transmit(pt, r, m, mode, crc);
}

/* A resent backup copy has gone to every replica: free it. */
static void
resend_done(struct ft_req *r)
{
	struct ft_rep_entry *e = r->user;

	free(e->data);
	free(e);
	free(r);
}

/* A new master sends again every message not known to be committed. */
static void
resend_backups(struct ft_pt *pt)
{
	struct ft_rep_entry *e, *next;
	struct ft_req *r;
	struct ft_msg m;
	struct peer *p;
	uint32_t d;

	for (d = 0; d < pt->size; d++) {
		p = &pt->peers[d];
		e = p->bk.head;
		p->bk.head = p->bk.tail = NULL;
		p->bk.count = p->bk.bytes = 0;
		for (; e != NULL; e = next) {
			next = e->next;
			if ((r = calloc(1, sizeof(*r))) == NULL) {
				free(e->data);
				free(e);
				continue;
			}
			r->on_done = resend_done;
			r->user = e;
			memset(r, 0, sizeof(*r) - sizeof(r->on_done) -
			    sizeof(r->user));
			r->kind = FT_REQ_SEND;
			r->sbuf = e->data;
			r->len = e->len;
			r->dst = d;
			r->ctx = e->ctx;
			r->mode = e->mode;
			r->tag = e->tag;
			m = (struct ft_msg){ e->ctx, e->src, d, e->tag, e->seq,
			    e->data, e->len };
			if (rep_transmit(pt, r, &m, e->mode, e->crc) != 0) {
				/* The destination is gone: the job ends. */
				if (!r->done)
					resend_done(r);
			}
		}
	}
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

/*
 * NDSYNC to process q: an ask (reply 0), or an answer with every
 * decision from index from on; long answers go ahead as DECIDE frames
 * and the NDSYNC that ends them comes last.
 */
static void
ndsync_send(struct ft_pt *pt, uint32_t q, uint32_t reply, uint64_t from)
{
	struct ft_msg_decide md = { 0, 0, 0, pt->dbatch };
	struct ft_wbuf wb;
	const struct ft_decision *d;
	struct pconn *pc;
	uint64_t i;

	if ((pc = peer_conn(pt, q)) == NULL)
		return;
	/* The batch is ours from here: nothing is decided meanwhile. */
	decide_flush(pt);
	for (i = from; reply && i < pt->ndlog.count; i++) {
		if ((d = ft_nd_log_get(&pt->ndlog, i)) == NULL) {
			note(pt, FT_NOTE_DIVERGE, "rank %u replica %u: "
			    "decision %llu is no longer kept; replicas may "
			    "diverge", pt->rank, pt->replica,
			    (unsigned long long)i);
			continue;
		}
		md.d[md.n++] = *d;
		if (md.n < FT_WIRE_BATCH_MAX)
			continue;
		ft_wbuf_init(&wb);
		if (ft_msg_decide_encode(&wb, pt->self, FT_MSG_DECIDE, &md) == 0)
			(void)ft_conn_queue_copy(&pc->c, wb.p, wb.len);
		ft_wbuf_release(&wb);
		md.n = 0;
	}
	md.reply = reply;
	md.have = pt->ndlog.count;
	ft_wbuf_init(&wb);
	if (ft_msg_decide_encode(&wb, pt->self, FT_MSG_NDSYNC, &md) == 0)
		(void)ft_conn_queue_copy(&pc->c, wb.p, wb.len);
	ft_wbuf_release(&wb);
}

/*
 * Takeover and its replies wait until the old master's connection is
 * drained: whatever it sent before dying is then known here.
 */
static void
takeover_step(struct ft_pt *pt)
{
	struct mctx *m;
	struct ft_req *r;
	uint32_t k, q;
	size_t i;

	if (pt->nrep == 1)
		return;
	for (k = 0; k < pt->nrep; k++) {
		q = pt->rank * pt->nrep + k;
		if (!pt->sync_owed[k] || pt->procs[q].gone) {
			pt->sync_owed[k] = 0;
			continue;
		}
		if (pt->master[pt->rank] != k ||
		    reading_from(pt, pt->old_master))
			continue;
		ndsync_send(pt, q, 1, pt->sync_have[k]);
		pt->sync_owed[k] = 0;
	}
	if (!pt->takeover || reading_from(pt, pt->old_master))
		return;
	for (k = 0; k < pt->nrep; k++)
		if (pt->asked[k] &&
		    !pt->procs[pt->rank * pt->nrep + k].gone)
			return;
	/* Every replica's decisions are in: give each what it lacks. */
	for (k = 0; k < pt->nrep; k++) {
		q = pt->rank * pt->nrep + k;
		if (k != pt->replica && !pt->procs[q].gone &&
		    pt->sync_have[k] < pt->ndlog.count)
			ndsync_send(pt, q, 1, pt->sync_have[k]);
	}
	pt->takeover = 0;
	/* Undecided ANY_SOURCE receives are ours to decide now. */
	for (i = 0; i < FT_NELEM(pt->ctxtab); i++)
		for (m = pt->ctxtab[i]; m != NULL; m = m->hnext) {
			if (m->nd_waiting == 0)
				continue;
			for (r = m->posted_head; r != NULL; r = r->next) {
				if (!r->nd_wait)
					continue;
				r->nd_wait = 0;
				(void)any_decided(pt, r);
			}
			m->nd_waiting = 0;
			(void)rematch(pt, m);
		}
}

int
ft_pt_view(struct ft_pt *pt, const uint32_t *dead, uint32_t ndead)
{
	uint32_t i, q, k, d, old;
	struct ft_req *r;
	size_t s;
	int lost = 0;

	for (i = 0; i < ndead; i++) {
		q = dead[i];
		if (q >= pt->nproc || q == pt->self || pt->gone[q])
			continue;
		pt->gone[q] = 1;
		pt->procs[q].gone = 1;
		/* Nothing more goes to it; what it sent is still read. */
		if (pt->procs[q].out != NULL) {
			conn_close(pt, pt->procs[q].out, NULL);
			pt->procs[q].out = NULL;
		}
		if (pt->nrep == 1)
			continue;
		d = rank_of(pt, q);
		k = q % pt->nrep;
		for (s = 0; s < pt->nslots; s++) {
			r = pt->slots[s].req;
			if (r == NULL || r->kind != FT_REQ_SEND || r->dst != d ||
			    !((r->want | r->sending) & (1u << k)))
				continue;
			r->want &= ~(1u << k);
			r->sending &= ~(1u << k);
			if (r->want == 0 && r->sending == 0)
				fan_done(pt, r);
		}
	}
	for (d = 0; d < pt->size; d++) {
		old = pt->master[d];
		pt->master[d] = ft_rep_master(pt->gone, d, pt->nrep);
		if (pt->master[d] == UINT32_MAX)
			lost = 1;
		if (d != pt->rank || old == pt->master[d] ||
		    pt->master[d] == UINT32_MAX)
			continue;
		pt->old_master = d * pt->nrep + old;
		if (pt->master[d] != pt->replica)
			continue;
		/* We are the new master. */
		pt->takeover = 1;
		resend_backups(pt);
		for (k = 0; k < pt->nrep; k++) {
			q = pt->rank * pt->nrep + k;
			pt->asked[k] = k != pt->replica && !pt->gone[q];
			pt->sync_have[k] = 0;
			if (pt->asked[k])
				ndsync_send(pt, q, 0, 0);
		}
	}
	pt->reap_due = 1;
	if (lost) {
		errno = ENOLINK;
		return -1;
	}
	return 0;
}

static int
on_replica_frame(struct ft_pt *pt, struct pconn *pc, const struct ft_hdr *h,
    const uint8_t *body, size_t blen)
{
	struct ft_msg_commit mc;
	struct ft_msg_decide md;
	uint32_t i, k = pc->c.peer % pt->nrep;
	uint64_t bad;

	if (pt->nrep == 1 || rank_of(pt, pc->c.peer) != pt->rank) {
		errno = EPROTO;
		return -1;
	}
	switch (h->type) {
	case FT_MSG_COMMIT:
		mc.e = pt->rcbatch;
		if (ft_msg_commit_decode(body, blen, &mc, FT_WIRE_BATCH_MAX) != 0)
			return -1;
		for (i = 0; i < mc.n; i++) {
			if (mc.e[i].dst >= pt->size) {
				errno = EPROTO;
				return -1;
			}
			if (ft_rep_backup_commit(&pt->peers[mc.e[i].dst].bk,
			    mc.e[i].seq, mc.e[i].crc, &bad))
				note(pt, FT_NOTE_DIVERGE, "rank %u replica %u "
				    "diverged from its master: message %llu to "
				    "rank %u has other bytes", pt->rank,
				    pt->replica, (unsigned long long)bad,
				    mc.e[i].dst);
		}
		return 0;
	case FT_MSG_DECIDE:
	case FT_MSG_NDSYNC:
		md.d = pt->rdbatch;
		if (ft_msg_decide_decode(body, blen, &md, FT_WIRE_BATCH_MAX) !=
		    0)
			return -1;
		if (h->type == FT_MSG_NDSYNC && md.reply == 0) {
			pt->sync_owed[k] = 1;
			pt->sync_have[k] = md.have;
			return 0;
		}
		for (i = 0; i < md.n; i++)
			if (take_decision(pt, &md.d[i]) != 0)
				return -1;
		md.n = 0;
		if (h->type == FT_MSG_NDSYNC) {
			pt->asked[k] = 0;
			pt->sync_have[k] = md.have;
		}
		return 0;
	default:
		errno = EPROTO;
		return -1;
	}
}

/* Insert an early message by number; a second copy of one is dropped. */
static void
early_insert(struct ft_pt *pt, struct peer *p, struct unexp *u)
{
	struct unexp **pp, *e;

	for (pp = &p->early; (e = *pp) != NULL && e->seq < u->seq;
	    pp = &e->next)
		;
	if (e != NULL && e->seq == u->seq) {
		/* Keep the copy whose sender is alive. */
		if (!pt->procs[e->proc].gone) {
			rep_duplicate(pt, u);
			return;
		}
		u->next = e->next;
		*pp = u;
		e->next = NULL;
		rep_duplicate(pt, e);
		return;
	}
	u->next = e;
	*pp = u;
}

/*
 * A message we already have came again (from a new master).  An RTS is
 * answered: a receive still waiting for the data of its first copy
 * takes the data from the new sender; otherwise CTS 0 tells the sender
 * it is not needed.
 */
static void
rep_duplicate(struct ft_pt *pt, struct unexp *u)
{
	struct ft_msg_cts cts = { u->sreq, 0 };
	struct ft_wbuf wb;
	struct pconn *pc;
	struct ft_req *r;
	struct unexp *x;
	struct mctx *m;
	size_t i;

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

/* Match a whole message that is next in its sender's order. */
static int
arrive_match(struct ft_pt *pt, struct unexp *u)
{
	struct mctx *m;
	struct ft_req *r;

	if ((m = mctx_get(pt, u->ctx)) == NULL)
		return -1;
	if ((r = posted_take(m, u->src, u->tag)) == NULL) {
		ux_append(m, u);
		return 0;
	}
	return take_ux(pt, r, u);
}

/*
 * A whole message (eager payload in, or an RTS) from a replica of rank
 * u->wsrc: take it once, in its sender's order.
 */
static int
rep_arrive(struct ft_pt *pt, struct unexp *u)
{
	struct peer *p = &pt->peers[u->wsrc];
	struct unexp *e;

	if (u->seq < p->rseq) {
		rep_duplicate(pt, u);
		return 0;
	}
	if (u->seq > p->rseq) {
		early_insert(pt, p, u);
		return 0;
	}
	p->rseq++;
	if (arrive_match(pt, u) != 0)
		return -1;
	while ((e = p->early) != NULL && e->seq <= p->rseq) {
		p->early = e->next;
		e->next = NULL;
		if (e->seq < p->rseq) {
			rep_duplicate(pt, e);
			continue;
		}
		p->rseq++;
		if (arrive_match(pt, e) != 0)
			return -1;
	}
	return 0;
}

int
ft_pt_busy(const struct ft_pt *pt)
{
	size_t i;

	/* Replicated, a master's commits go out before it says it is
	 * done, so its replicas can check and drop their copies. */
	if (pt->rdv_pending > 0 || pt->cmt_pending > 0)
		return 1;
	for (i = 0; i < pt->nconns; i++)
		/* Bytes queued behind a handshake count: they are not out. */
		if (!pt->conns[i]->closed &&
		    ft_conn_unsent(&pt->conns[i]->c))
			return 1;
	return 0;
}

/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: the engine's state (struct ft_pt and the structs it
 * holds) and what its files share.  One concern a file:
 *
 *   pt2pt.c		creating and freeing the engine, what the caller
 *			asks of it, the protocol beyond the data path
 *   pt2pt_send.c	ft_pt_isend: eager and rendezvous sends, slots
 *   pt2pt_match.c	posted and unexpected queues, receives, probes,
 *			cancels, the protocol's arrive hook
 *   pt2pt_input.c	reading a connection: frames in, payloads
 *   pt2pt_conn.c	connections: open, accept, handshake guard, the
 *			control connection, acknowledgements, close
 *   pt2pt_progress.c	ft_pt_progress, the poll loop
 *   pt2pt_multi.c	one message to several processes (send_msg)
 *   pt2pt_fail.c	views, revives, FT_PROTO_FAILS's failed requests
 *   pt2pt_core.c	the effects a protocol may ask for (core_ops)
 *
 * The engine is single-threaded (pt2pt.h).  ft__pt_* are its internals:
 * nothing outside lib/pt2pt calls them.  The few small ones on the data
 * path are static inline here, so that every file inlines them as
 * pt2pt.c did when it was one file.
 */
#ifndef FT_PT2PT_IMPL_H
#define FT_PT2PT_IMPL_H

#include <sys/socket.h>

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pt2pt.h"

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

/* pt2pt.c */
int	 ft__pt_rank_gone(const struct ft_pt *pt, uint32_t r, int view_only);

/* pt2pt_send.c */
uint64_t ft__pt_slot_add(struct ft_pt *pt, struct ft_req *r);
void	 ft__pt_slot_del(struct ft_pt *pt, struct ft_req *r);
int	 ft__pt_eager_fits(const struct ft_pt *pt, uint32_t q, size_t len,
	    int mode);
int	 ft__pt_eager_send(struct ft_pt *pt, struct pconn *pc, uint32_t q,
	    const struct ft_msg *m);
void	 ft__pt_eager_matched(struct ft_pt *pt, uint32_t proc, size_t len);
void	 ft__pt_ux_eager_deliver(struct ft_pt *pt, struct ft_req *r,
	    const struct unexp *u);
int	 ft__pt_send_cts(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc,
	    uint64_t sreq, uint64_t seq);
void	 ft__pt_rdata_sent(void *arg);
uint64_t ft__pt_stream_bytes(size_t len);
int	 ft__pt_stream_data(struct ft_pt *pt, struct pconn *out, uint64_t rreq,
	    const uint8_t *sbuf, size_t len, void (*done)(void *), void *arg,
	    int mark);

/* pt2pt_match.c */
void	 ft__pt_posted_unlink(struct mctx *m, struct ft_req *r);
struct ft_req *ft__pt_posted_take(struct mctx *m, uint32_t src, int32_t tag);
void	 ft__pt_matched(struct ft_pt *pt, struct ft_req *r, uint32_t src,
	    uint32_t wsrc, uint64_t seq, uint32_t proc);
void	 ft__pt_deliver(struct ft_pt *pt, struct ft_req *r, uint32_t wsrc,
	    uint64_t seq);
int	 ft__pt_take_ux(struct ft_pt *pt, struct ft_req *r, struct unexp *u);
int	 ft__pt_rematch(struct ft_pt *pt, struct mctx *m);
int	 ft__pt_arrive(struct ft_pt *pt, struct unexp *u);
int	 ft__pt_core_release(void *core, void *handle);
void	 ft__pt_dup_drop(struct ft_pt *pt, struct unexp *u);

/* pt2pt_input.c */
int	 ft__pt_conn_read(struct ft_pt *pt, struct pconn *pc);

/* pt2pt_conn.c */
int	 ft__pt_await_proc(struct ft_pt *pt, uint32_t q);
struct pconn *ft__pt_peer_conn(struct ft_pt *pt, uint32_t dst);
uint64_t ft__pt_stream_pos(const struct pconn *pc);
int	 ft__pt_delivered(const struct ft_pt *pt, const struct pconn *pc,
	    uint64_t pos);
void	 ft__pt_acks_send(struct ft_pt *pt);
void	 ft__pt_conn_close(struct ft_pt *pt, struct pconn *pc, const char *why);
void	 ft__pt_hs_guard(struct ft_pt *pt);
void	 ft__pt_accept_all(struct ft_pt *pt, int lfd);
void	 ft__pt_ctl_read(struct ft_pt *pt);
void	 ft__pt_reap(struct ft_pt *pt);

/* pt2pt_multi.c */
int	 ft__pt_multi_on_cts(struct ft_pt *pt, struct pconn *pc,
	    const struct ft_msg_cts *cts);
void	 ft__pt_eout_check(struct ft_pt *pt);
int	 ft__pt_core_send_msg(void *core, const uint32_t *procs, uint32_t n,
	    const struct ft_msg *m, void *cookie);
void	 ft__pt_multi_trim_gone(struct ft_pt *pt);

/* pt2pt_fail.c */
int	 ft__pt_req_fail(struct ft_pt *pt, struct ft_req *r, int err);
int	 ft__pt_ctx_failed(struct ft_pt *pt, uint32_t ctx);
void	 ft__pt_conn_fail_reqs(struct ft_pt *pt, struct pconn *pc);
void	 ft__pt_core_fail_ctx(void *core, uint32_t ctx, uint32_t n, int err);

/* pt2pt_core.c */
extern const struct ft_core_ops ft__pt_core_ops;

/* The rank process proc runs. */
static inline uint32_t
ft__pt_rank_of(const struct ft_pt *pt, uint32_t proc)
{
	return proc / pt->ppr;
}

/* Matching contexts hash on the low bits of the context id. */
static inline struct mctx *
ft__pt_mctx_get(struct ft_pt *pt, uint32_t ctx)
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

static inline struct ft_req *
ft__pt_slot_find(struct ft_pt *pt, uint64_t id)
{
	uint32_t idx = (uint32_t)id;

	if (idx >= pt->nslots || pt->slots[idx].req == NULL ||
	    pt->slots[idx].gen != (uint32_t)(id >> 32))
		return NULL;
	return pt->slots[idx].req;
}

static inline void
ft__pt_ux_append(struct mctx *m, struct unexp *u)
{
	u->next = NULL;
	if (m->ux_tail != NULL)
		m->ux_tail->next = u;
	else
		m->ux_head = u;
	m->ux_tail = u;
}

/* Fill a receive's status for a matched message of len bytes. */
static inline void
ft__pt_recv_matched(struct ft_req *r, uint32_t src, int32_t tag, size_t len)
{
	r->st.source = (int)src;
	r->st.tag = tag;
	r->st.msglen = len;
	r->st.bytes = len <= r->cap ? len : r->cap;
	r->st.error = len <= r->cap ? 0 : EMSGSIZE;
}

static inline void
ft__pt_req_complete(struct ft_pt *pt, struct ft_req *r)
{
	ft__pt_slot_del(pt, r);
	r->done = 1;
	pt->ncompleted++;
	if (r->on_done != NULL)
		r->on_done(r);
}

#endif

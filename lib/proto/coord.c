/* SPDX-License-Identifier: ISC */
/*
 * Protocol "coord": coordinated checkpoint in the manner of Chandy and
 * Lamport, as MPICH-V/CL did it (ft(7), ft-proto(7)).
 *
 * Every rank checkpoints at the same ft_checkpoint() call (the cut of
 * an epoch; lib/mpi/ckpt.c decides it).  At its cut a rank sends a
 * MARKER on every channel carrying how many messages it sent on it
 * before the cut; the engine numbers the messages of a channel from 0,
 * so the receiver knows that messages numbered below that count were
 * sent before the cut and those above after it.  The messages in
 * flight across the cut (sent before the sender's cut, received after
 * the receiver's) are recorded as the application receives them, and
 * saved in the receiver's image (save); after a rollback they are
 * delivered again before anything else from their sender (restore,
 * core->inject).  A message sent after its sender's cut and received
 * before the receiver's would make the cut inconsistent: the epoch is
 * refused (READY's err) rather than saved.
 *
 * The rollback itself is ftrun's: on any failure it kills every rank
 * and starts them all again from the newest epoch every rank has made
 * durable, so messages sent after the cut and before the failure die
 * with the processes of that generation.  Meanwhile a dead peer is no
 * error of a request: receives wait (FT_PROTO_RESENDS) until ftrun's
 * SIGKILL comes.
 *
 * Not recorded: messages a rank sends to itself across the cut, and
 * messages to or from processes added by MPI_Comm_spawn.
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define STATE_MAGIC	0x434f5231u	/* "COR1": the image's section */
#define STATE_MSGS_MAX	(1u << 24)

/* A message recorded in flight, or injected and not yet received. */
struct rec {
	struct rec	*next;
	uint32_t	 src, csrc, ctx;
	int32_t		 tag;
	uint64_t	 seq;		/* its number on the channel */
	size_t		 len;
	uint8_t		 data[];
};

struct coord {
	uint32_t	 n, self;
	uint64_t	*nsent;		/* per destination: messages sent */
	uint64_t	*ndel;		/* per source: received */
	uint64_t	*maxdel;	/* per source: highest number + 1 */
	/* The cut being recorded (epoch 0: none). */
	uint64_t	 epoch;
	uint64_t	*delcut, *maxcut;	/* ndel, maxdel at the cut */
	uint64_t	*mepoch, *mcount;	/* the newest marker of each */
	uint64_t	*nrec;		/* recorded since the cut */
	uint32_t	 nmarkers;
	struct rec	*chan, **chan_tail;	/* the channel state */
	size_t		 nchan;
	struct rec	*inj;		/* injected, not received yet */
};

static struct rec *
rec_new(uint32_t src, uint32_t csrc, uint32_t ctx, int32_t tag,
    uint64_t seq, const void *buf, size_t len)
{
	struct rec *r;

	if (len > SIZE_MAX - sizeof(*r) ||
	    (r = malloc(sizeof(*r) + len)) == NULL)
		return NULL;
	r->next = NULL;
	r->src = src;
	r->csrc = csrc;
	r->ctx = ctx;
	r->tag = tag;
	r->seq = seq;
	r->len = len;
	if (len > 0)
		memcpy(r->data, buf, len);
	return r;
}

static void
rec_free_all(struct rec *r)
{
	struct rec *next;

	for (; r != NULL; r = next) {
		next = r->next;
		free(r);
	}
}

static int
chan_add(struct coord *c, struct rec *r)
{
	if (r == NULL)
		return -1;
	*c->chan_tail = r;
	c->chan_tail = &r->next;
	c->nchan++;
	return 0;
}

static void
cut_clear(struct coord *c)
{
	rec_free_all(c->chan);
	c->chan = NULL;
	c->chan_tail = &c->chan;
	c->nchan = 0;
	c->epoch = 0;
	c->nmarkers = 0;
}

static int
coord_init(struct ft_proto *p, const struct ft_conf *conf)
{
	struct coord *c = p->priv;
	uint64_t **arr[] = { &c->nsent, &c->ndel, &c->maxdel, &c->delcut,
	    &c->maxcut, &c->mepoch, &c->mcount, &c->nrec };
	size_t i;

	/* One process a rank: the engine's process ids are ranks. */
	if (conf->ppr > 1 || conf->size == 0) {
		errno = ENOTSUP;
		return -1;
	}
	c->n = conf->size;
	c->self = conf->rank;
	for (i = 0; i < FT_NELEM(arr); i++)
		if ((*arr[i] = calloc(c->n, sizeof(uint64_t))) == NULL)
			return -1;
	c->chan_tail = &c->chan;
	return 0;
}

static void
coord_fini(struct ft_proto *p)
{
	struct coord *c = p->priv;

	if (c == NULL)
		return;
	free(c->nsent);
	free(c->ndel);
	free(c->maxdel);
	free(c->delcut);
	free(c->maxcut);
	free(c->mepoch);
	free(c->mcount);
	free(c->nrec);
	rec_free_all(c->chan);
	rec_free_all(c->inj);
}

static int
coord_send(struct ft_proto *p, struct ft_msg *m)
{
	struct coord *c = p->priv;

	if (m->dst < c->n && m->dst != c->self && m->seq + 1 > c->nsent[m->dst])
		c->nsent[m->dst] = m->seq + 1;
	return 0;
}

/* Does the cut record what src delivers now (numbered seq)? */
static int
recording(const struct coord *c, uint32_t src, uint64_t seq)
{
	if (c->epoch == 0)
		return 0;
	if (c->mepoch[src] != c->epoch)
		return 1;	/* its marker comes after: sent before */
	return seq < c->mcount[src];
}

static int
coord_deliver(struct ft_proto *p, const struct ft_msg *m)
{
	struct coord *c = p->priv;
	struct rec *r, **pp;

	if (m->src >= c->n || m->src == c->self)
		return 0;
	if (m->seq & FT_SEQ_INJECTED) {
		/* Received at last: the cut, if any, took its copy. */
		for (pp = &c->inj; (r = *pp) != NULL; pp = &r->next)
			if (r->src == m->src &&
			    r->seq == (m->seq & ~FT_SEQ_INJECTED)) {
				*pp = r->next;
				free(r);
				break;
			}
		return 0;
	}
	c->ndel[m->src]++;
	if (m->seq + 1 > c->maxdel[m->src])
		c->maxdel[m->src] = m->seq + 1;
	if (!recording(c, m->src, m->seq))
		return 0;
	c->nrec[m->src]++;
	if (chan_add(c, rec_new(m->src, m->csrc, m->ctx, m->tag, m->seq,
	    m->buf, m->len)) != 0)
		ft__proto_note(p, NULL, FT_NOTE_WARNING, "coord: out of "
		    "memory recording a message in flight; epoch %llu will "
		    "not be saved", (unsigned long long)c->epoch);
	return 0;
}

static int
coord_frame(struct ft_proto *p, uint32_t proc, const struct ft_hdr *h,
    const uint8_t *body)
{
	struct coord *c = p->priv;
	struct ft_msg_marker mk;

	if (h->type != FT_MSG_COORD_MARKER || proc >= c->n ||
	    proc == c->self) {
		errno = EPROTO;
		return -1;
	}
	if (ft_msg_marker_decode(body, h->len - FT_WIRE_HDRLEN, &mk) != 0)
		return -1;
	if (mk.epoch <= c->mepoch[proc]) {
		errno = EPROTO;		/* epochs only grow */
		return -1;
	}
	c->mepoch[proc] = mk.epoch;
	c->mcount[proc] = mk.count;
	if (mk.epoch == c->epoch)
		c->nmarkers++;
	return 0;
}

/* The cut of epoch: remember where we are, send the markers. */
static int
cut(struct ft_proto *p, uint64_t epoch)
{
	struct coord *c = p->priv;
	struct ft_msg_marker mk;
	struct ft_wbuf wb;
	struct rec *r;
	uint32_t q;
	int rc = 0;

	if (epoch == 0) {
		errno = EINVAL;
		return -1;
	}
	cut_clear(c);
	c->epoch = epoch;
	memcpy(c->delcut, c->ndel, c->n * sizeof(uint64_t));
	memcpy(c->maxcut, c->maxdel, c->n * sizeof(uint64_t));
	memset(c->nrec, 0, c->n * sizeof(uint64_t));
	for (q = 0; q < c->n; q++)
		if (q != c->self && c->mepoch[q] == epoch)
			c->nmarkers++;
	/* What a rollback gave us and we have not received is still in
	 * flight at this cut. */
	for (r = c->inj; r != NULL && rc == 0; r = r->next)
		rc = chan_add(c, rec_new(r->src, r->csrc, r->ctx, r->tag,
		    r->seq, r->data, r->len));
	if (rc != 0)
		return -1;
	mk.epoch = epoch;
	for (q = 0; q < c->n; q++) {
		if (q == c->self)
			continue;
		mk.count = c->nsent[q];
		ft_wbuf_init(&wb);
		rc = ft_msg_marker_encode(&wb, p->conf.proc, &mk);
		/* A dead peer's marker is lost: ftrun rolls back anyway. */
		if (rc == 0)
			(void)p->core->send_frame(p->cookie, q, &wb);
		ft_wbuf_release(&wb);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* Is the channel state whole?  1, 0, or -1 (an inconsistent cut). */
static int
ready(const struct coord *c)
{
	uint32_t q;
	int whole = 1;

	if (c->epoch == 0)
		return -1;
	for (q = 0; q < c->n; q++) {
		if (q == c->self)
			continue;
		if (c->mepoch[q] != c->epoch) {
			whole = 0;
			continue;
		}
		/* Received before our cut, sent after theirs. */
		if (c->maxcut[q] > c->mcount[q] || c->delcut[q] > c->mcount[q])
			return -1;
		if (c->nrec[q] > c->mcount[q] - c->delcut[q])
			return -1;
		if (c->nrec[q] < c->mcount[q] - c->delcut[q])
			whole = 0;
	}
	return whole;
}

static int
coord_ext(struct ft_proto *p, struct ft_ext *x)
{
	struct coord *c = p->priv;
	int r;

	switch (x->op) {
	case FT_EXT_CKPT_CUT:
		return cut(p, x->epoch);
	case FT_EXT_CKPT_MARKERS:
		x->result = c->epoch != 0 && x->epoch == c->epoch &&
		    c->nmarkers == c->n - 1;
		return 0;
	case FT_EXT_CKPT_READY:
		if (x->epoch != c->epoch || c->epoch == 0) {
			errno = EINVAL;
			return -1;
		}
		r = ready(c);
		x->result = r == 1;
		x->err = r < 0;
		return 0;
	case FT_EXT_CKPT_ABANDON:
		cut_clear(c);
		return 0;
	default:
		errno = ENOTSUP;
		return -1;
	}
}

/*
 * The image's protocol-state section (ft-ckpt(5)): u32 magic "COR1",
 * u64 epoch, u32 count, then count messages: u32 source, u32 source in
 * the communicator, u32 context, i32 tag, u64 number on its channel,
 * u32 length and the bytes.  Saving ends the cut.
 */
static int
coord_save(struct ft_proto *p, struct ft_wbuf *wb)
{
	struct coord *c = p->priv;
	struct rec *r;

	if (c->epoch == 0 || ready(c) != 1 || c->nchan > STATE_MSGS_MAX) {
		errno = EINVAL;
		return -1;
	}
	ft_put32(wb, STATE_MAGIC);
	ft_put64(wb, c->epoch);
	ft_put32(wb, (uint32_t)c->nchan);
	for (r = c->chan; r != NULL; r = r->next) {
		if (r->len > UINT32_MAX) {
			errno = EFBIG;
			return -1;
		}
		ft_put32(wb, r->src);
		ft_put32(wb, r->csrc);
		ft_put32(wb, r->ctx);
		ft_put32(wb, (uint32_t)r->tag);
		ft_put64(wb, r->seq);
		ft_put32(wb, (uint32_t)r->len);
		ft_putbytes(wb, r->data, r->len);
	}
	if (wb->err != 0) {
		errno = wb->err;
		return -1;
	}
	cut_clear(c);
	return 0;
}

/* Read the section back and deliver its messages again. */
static int
coord_restore(struct ft_proto *p, struct ft_rbuf *rb)
{
	struct coord *c = p->priv;
	struct rec *head = NULL, **tail = &head, *r, *next, *old;
	struct ft_msg m;
	uint32_t count, i, src, csrc, ctx, len;
	int32_t tag;
	uint64_t seq;

	if (ft_get32(rb) != STATE_MAGIC || rb->err != 0)
		goto bad;
	(void)ft_get64(rb);
	count = ft_get32(rb);
	if (rb->err != 0 || count > STATE_MSGS_MAX)
		goto bad;
	for (i = 0; i < count; i++) {
		src = ft_get32(rb);
		csrc = ft_get32(rb);
		ctx = ft_get32(rb);
		tag = (int32_t)ft_get32(rb);
		seq = ft_get64(rb);
		len = ft_get32(rb);
		if (rb->err != 0 || src >= c->n || src == c->self ||
		    (seq & FT_SEQ_INJECTED) || len > rb->len - rb->off)
			goto bad;
		if ((r = rec_new(src, csrc, ctx, tag, seq, rb->p + rb->off,
		    len)) == NULL) {
			rec_free_all(head);
			return -1;
		}
		rb->off += len;
		*tail = r;
		tail = &r->next;
	}
	if (rb->off != rb->len)
		goto bad;
	if (head != NULL && p->core->inject == NULL) {
		rec_free_all(head);
		errno = ENOTSUP;
		return -1;
	}
	/* Kept until received (deliver frees each): the next cut may need
	 * them. */
	old = c->inj;
	*tail = old;
	c->inj = head;
	for (r = head; r != NULL && r != old; r = next) {
		next = r->next;
		memset(&m, 0, sizeof(m));
		m.ctx = r->ctx;
		m.src = r->src;
		m.dst = c->self;
		m.tag = r->tag;
		m.seq = r->seq | FT_SEQ_INJECTED;
		m.buf = r->data;
		m.len = r->len;
		m.csrc = r->csrc;
		m.proc = r->src;
		if (p->core->inject(p->cookie, &m) != 0)
			return -1;
	}
	return 0;
bad:
	rec_free_all(head);
	errno = EPROTO;
	return -1;
}

const struct ft_proto_ops ft__proto_coord = {
	.abi = FT_PROTO_ABI,
	.name = "coord",
	.privsize = sizeof(struct coord),
	.flags = FT_PROTO_RESENDS,
	.init = coord_init,
	.fini = coord_fini,
	.send = coord_send,
	.deliver = coord_deliver,
	.save = coord_save,
	.restore = coord_restore,
	.frame = coord_frame,
	.ext = coord_ext,
};

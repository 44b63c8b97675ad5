/* SPDX-License-Identifier: ISC */
/*
 * The recorder of ftrun --record (issue 16, ft-record(5)): a tap in
 * front of whatever protocol the job runs.  ft_proto_init puts it
 * there when conf.record_dir is set: the engine then calls the tap's
 * send, match, deliver, nondet, view and tick, which write the record
 * and call the protocol's own hook (or do what the engine does without
 * one).  Without --record nothing here runs.
 *
 * What is kept: the messages received, in the order receives matched
 * them, with their payloads (zstd); a digest of every message sent;
 * every nondeterministic outcome as the protocol settled it; views
 * that report failures.  A replicated rank is recorded by its first
 * process (replica 0) only; the others record nothing.
 */
#include <bsd/string.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "../store/store.h"

struct ft__tap {
	struct ft_rec_writer	 w;
	uint32_t		 ndead;		/* the last view's */
	int			 told;		/* that recording stopped */
};

/*
 * The writer stopped on an error (a full disk, a message too large to
 * keep): say so once, since the record now ends there.  The job goes
 * on; ftreplay run stops at the record's end and says so.
 */
static void
check(struct ft_proto *p)
{
	struct ft__tap *t = p->tap;

	if (t->w.err == 0 || t->told)
		return;
	t->told = 1;
	ft__proto_note(p, &t->told, FT_NOTE_WARNING, "ftrun --record: rank %"
	    PRIu32 " stops recording: %s", p->conf.rank, t->w.err == EMSGSIZE ?
	    "a message is larger than a record keeps (256 MiB)" :
	    strerror(t->w.err));
}

static int
tap_send(struct ft_proto *p, struct ft_msg *m)
{
	ft_rec_wsend(&p->tap->w, m->ctx, m->dst, m->tag, m->buf, m->len);
	check(p);
	return p->inner->send != NULL ? p->inner->send(p, m) : 0;
}

static void
tap_match(struct ft_proto *p, const struct ft_msg *m, uint64_t rtag)
{
	ft_rec_wmatch(&p->tap->w, m->ctx, m->src, m->csrc, m->tag, m->seq,
	    m->len);
	check(p);
	if (p->inner->match != NULL)
		p->inner->match(p, m, rtag);
}

/*
 * What the application learns (a delivery, an outcome) goes to the
 * kernel before it can act on it: a process that crashes or is killed
 * right after keeps, in its record, what it had when it died, which is
 * what a replay of the crash needs.  A write a delivery.
 */
static void
flush_now(struct ft_proto *p)
{
	(void)ft_rec_writer_flush(&p->tap->w);
	check(p);
}

static int
tap_deliver(struct ft_proto *p, const struct ft_msg *m)
{
	ft_rec_wdata(&p->tap->w, m->src, m->seq, m->buf, m->len);
	flush_now(p);
	return p->inner->deliver != NULL ? p->inner->deliver(p, m) : 0;
}

static int
tap_nondet(struct ft_proto *p, struct ft_nd *ev)
{
	/* Without a protocol that settles outcomes, each is local. */
	if (p->inner->nondet == NULL) {
		ev->local = 1;
	} else if (p->inner->nondet(p, ev) != 0)
		return -1;
	if (ev->op == FT_ND_SETTLE) {
		ft_rec_wnd(&p->tap->w, ev->kind, ev->v);
		flush_now(p);
	}
	return 0;
}

static int
tap_view(struct ft_proto *p, const uint32_t *dead, uint32_t ndead)
{
	/* Views repeat the dead: only news is a failure to record. */
	if (ndead > p->tap->ndead) {
		ft_rec_wfail(&p->tap->w, ndead);
		p->tap->ndead = ndead;
	}
	return p->inner->view != NULL ? p->inner->view(p, dead, ndead) : 0;
}

static void
tap_tick(struct ft_proto *p)
{
	/* Sends and views recorded since the last delivery. */
	flush_now(p);
	if (p->inner->tick != NULL)
		p->inner->tick(p);
}

int
ft__tap_init(struct ft_proto *p)
{
	struct ft_rec_hdr h;
	uint32_t ppr = p->conf.ppr > 1 ? p->conf.ppr : 1;

	/* One replica a rank is enough: its first. */
	if (p->conf.proc % ppr != 0)
		return 0;
	if ((p->tap = calloc(1, sizeof(*p->tap))) == NULL)
		return -1;
	memset(&h, 0, sizeof(h));
	h.rank = p->conf.rank;
	h.size = p->conf.size;
	h.replica = 0;
	h.universe = p->conf.universe;
	h.job = p->conf.job;
	(void)strlcpy(h.proto, p->ops->name, sizeof(h.proto));
	if (ft_rec_writer_open(&p->tap->w, p->conf.record_dir, &h) != 0) {
		free(p->tap);
		p->tap = NULL;
		return -1;
	}
	p->inner = p->ops;
	p->tapops = *p->ops;
	p->tapops.send = tap_send;
	p->tapops.match = tap_match;
	p->tapops.deliver = tap_deliver;
	p->tapops.nondet = tap_nondet;
	p->tapops.view = tap_view;
	p->tapops.tick = tap_tick;
	p->ops = &p->tapops;
	return 0;
}

void
ft__tap_fini(struct ft_proto *p)
{
	/* Ended: MPI_Finalize got this far, so the record is whole. */
	(void)ft_rec_writer_close(&p->tap->w, 1);
	free(p->tap);
	p->tap = NULL;
	p->ops = p->inner;
}

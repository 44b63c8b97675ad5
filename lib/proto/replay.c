/* SPDX-License-Identifier: ISC */
/*
 * The replay protocol of ftreplay run (issue 16, ft-record(5)): one
 * rank re-executes alone from its record.  No other process runs:
 *  - receives are fed the recorded messages (core->inject), one at a
 *    time in the order receives matched them in the recorded run, so
 *    ANY_SOURCE and tags match as they did; a probe told to find a
 *    message gets messages ahead until it is there;
 *  - every nondeterministic outcome (probes, tests, Waitany/Waitsome,
 *    Wtime) is the recorded one, in the recorded order, as a replica
 *    follows its master: the MPI layer asks (local 0) and waits for
 *    what it is told;
 *  - sends are taken, checked against the recorded digest and
 *    completed without leaving: the first that differs is a
 *    divergence (FT_NOTE_DIVERGE naming the send's number, its
 *    destination, tag and size, and what differs).
 * The end: a program that finishes with the record not used up, or
 * that goes beyond it, diverged; a record cut short (its process
 * died) ends the replay with FT_NOTE_REPLAYED once everything in it
 * is used.
 */
#include <inttypes.h>
#include <bsd/string.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "../store/store.h"

struct replay {
	struct ft_rec	*r;
	size_t		 injected, matched, sends, outcomes;
	int		 diverged, ended;
};

static const char *
kind_name(uint32_t kind)
{
	static const char *const names[] = { "?", "ANY_SOURCE", "probe",
	    "test", "wait-any index", "wait-some count", "Wtime" };

	return kind < FT_NELEM(names) ? names[kind] : "?";
}

static int
replay_init(struct ft_proto *p, const struct ft_conf *conf)
{
	struct replay *s = p->priv;

	if (conf->record == NULL || conf->record->h.rank != conf->rank ||
	    conf->record->h.size != conf->size || conf->ppr > 1) {
		errno = EINVAL;
		return -1;
	}
	s->r = conf->record;
	return 0;
}

/* Say that the replay stops: a divergence, or the end of a cut record. */
static void
stop(struct ft_proto *p, uint32_t kind, const char *fmt, ...)
    FT_PRINTF(3, 4);

static void
stop(struct ft_proto *p, uint32_t kind, const char *fmt, ...)
{
	struct replay *s = p->priv;
	char text[512];
	va_list ap;

	if (s->diverged++ > 0)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	p->core->notify(p->cookie, kind, text);
}

/* Everything in a record cut short is used: the replay ends here. */
static void
check_end(struct ft_proto *p)
{
	struct replay *s = p->priv;
	struct ft_rec *r = s->r;

	if (r->ended || s->matched < r->nm || s->sends < r->ns ||
	    s->outcomes < r->nnd)
		return;
	stop(p, FT_NOTE_REPLAYED, "rank %" PRIu32 ": the end of the record "
	    "(the recorded process stopped here without finishing): %zu "
	    "messages received, %zu sent, %zu outcomes", p->conf.rank,
	    s->matched, s->sends, s->outcomes);
}

static int
inject_next(struct ft_proto *p)
{
	struct replay *s = p->priv;
	const struct ft_rec_match *m = &s->r->m[s->injected];
	struct ft_msg msg;
	uint8_t *buf = NULL;
	size_t len;
	int rc;

	if (!m->has_data) {
		/* Matched, never delivered: the process died meanwhile. */
		check_end(p);
		stop(p, FT_NOTE_REPLAYED, "rank %" PRIu32 ": the end of the "
		    "record: message %zu (from rank %" PRIu32 ", tag %" PRId32
		    ") was matched but its payload never came",
		    p->conf.rank, s->injected, m->src, m->tag);
		return -1;
	}
	memset(&msg, 0, sizeof(msg));
	msg.ctx = m->ctx;
	msg.src = m->src;
	msg.dst = p->conf.rank;
	msg.csrc = m->csrc;
	msg.tag = m->tag;
	msg.seq = m->seq;
	/*
	 * A message cut short by a receive too small was delivered in
	 * part: it arrives at its length as sent, so that the receive is
	 * truncated again (MPI_ERR_TRUNCATE), the bytes past what was
	 * delivered never reaching the program.  The payload is read
	 * from the record (and decompressed) now, and let go once fed:
	 * one message at a time in memory (ft_rec_open).
	 */
	len = m->len > m->dlen && m->len <= FT_REC_DATA_MAX ? m->len : m->dlen;
	if (len > 0 && ((buf = calloc(1, len)) == NULL ||
	    ft_rec_payload(s->r, s->injected, buf) != 0)) {
		s->injected++;
		free(buf);
		goto fail;
	}
	msg.buf = buf;
	msg.len = len;
	s->injected++;
	rc = p->core->inject(p->cookie, &msg);
	free(buf);
	if (rc == 0)
		return 0;
fail:
	stop(p, FT_NOTE_DIVERGE, "rank %" PRIu32 ": unable to feed message "
	    "%zu: %s", p->conf.rank, s->injected, strerror(errno));
	return -1;
}

/*
 * Feed the next message once the last one fed is taken: the one after
 * it may only be matched by a receive posted later, and must not be
 * taken by one posted before (ANY_SOURCE) that took another.
 */
static void
feed(struct ft_proto *p)
{
	struct replay *s = p->priv;

	while (s->diverged == 0 && s->injected == s->matched &&
	    s->injected < s->r->nm)
		if (inject_next(p) != 0)
			return;
	if (s->diverged == 0)
		check_end(p);
}

static int
replay_send(struct ft_proto *p, struct ft_msg *m)
{
	struct replay *s = p->priv;
	struct ft_rec_send now;
	char what[160];

	ft_rec_digest(&now, s->sends, m->ctx, m->dst, m->tag, m->buf, m->len);
	if (s->sends >= s->r->ns) {
		if (s->r->ended)
			stop(p, FT_NOTE_DIVERGE, "rank %" PRIu32 " diverged at "
			    "send %zu (to rank %" PRIu32 ", tag %" PRId32 ", %zu "
			    "bytes): the recorded process sent only %zu "
			    "messages", p->conf.rank, s->sends, m->dst, m->tag,
			    m->len, s->r->ns);
		else
			check_end(p);
	} else if (ft_rec_diff(&s->r->s[s->sends], &now, what,
	    sizeof(what)) != 0)
		stop(p, FT_NOTE_DIVERGE, "rank %" PRIu32 " diverged at send %zu "
		    "(to rank %" PRIu32 ", tag %" PRId32 ", %zu bytes): %s "
		    "differs", p->conf.rank, s->sends, m->dst, m->tag, m->len,
		    what);
	s->sends++;
	/* Nothing leaves: the send is done as far as the program knows. */
	p->core->complete(p->cookie, m->req, 0);
	return 1;
}

static void
replay_match(struct ft_proto *p, const struct ft_msg *m, uint64_t rtag)
{
	struct replay *s = p->priv;

	(void)m;
	(void)rtag;
	s->matched++;
}

/*
 * A probe of communicator ctx was found in the record: have that
 * message here to find (one of another communicator with the same
 * source and tag is not it).
 */
static void
feed_probe(struct ft_proto *p, uint32_t ctx, uint32_t csrc, int32_t tag)
{
	struct replay *s = p->priv;
	size_t i;

	for (;;) {
		for (i = s->matched; i < s->injected; i++)
			if (s->r->m[i].ctx == ctx && s->r->m[i].csrc == csrc &&
			    s->r->m[i].tag == tag)
				return;
		if (s->injected >= s->r->nm || s->diverged ||
		    inject_next(p) != 0)
			return;
	}
}

static int
replay_nondet(struct ft_proto *p, struct ft_nd *ev)
{
	struct replay *s = p->priv;
	const struct ft_rec_nd *d;

	if (ev->op == FT_ND_ASK) {
		ev->local = 0;
		return 0;
	}
	if (s->outcomes >= s->r->nnd) {
		if (s->r->ended)
			stop(p, FT_NOTE_DIVERGE, "rank %" PRIu32 " diverged at "
			    "outcome %zu (a %s): the recorded process had only "
			    "%zu", p->conf.rank, s->outcomes,
			    kind_name(ev->kind), s->r->nnd);
		else
			check_end(p);
		/* Diverged: what follows does not matter, keep it local. */
		return 0;
	}
	d = &s->r->nd[s->outcomes];
	if (d->kind != ev->kind) {
		stop(p, FT_NOTE_DIVERGE, "rank %" PRIu32 " diverged at outcome "
		    "%zu: a %s now, a %s in the record", p->conf.rank,
		    s->outcomes, kind_name(ev->kind), kind_name(d->kind));
		return 0;
	}
	memcpy(ev->v, d->v, sizeof(ev->v));
	s->outcomes++;
	if (d->kind == FT_ND_PROBE && d->v[0] != 0)
		feed_probe(p, ev->ctx, (uint32_t)d->v[1], (int32_t)d->v[2]);
	return 0;
}

/*
 * ULFM's failure list and revocation (the MPI layer refuses agreement
 * and revoke under replay): a replayed rank was told of no failure,
 * since a record of one that was is refused.
 */
static int
replay_ext(struct ft_proto *p, struct ft_ext *x)
{
	(void)p;
	switch (x->op) {
	case FT_EXT_FAILED:
		x->dead = NULL;
		x->ndead = 0;
		return 0;
	case FT_EXT_REVOKED:
		x->result = 0;
		return 0;
	default:
		errno = ENOTSUP;
		return -1;
	}
}

static void
replay_tick(struct ft_proto *p)
{
	feed(p);
}

static int
replay_busy(struct ft_proto *p)
{
	feed(p);
	return 0;
}

static void
replay_fini(struct ft_proto *p)
{
	struct replay *s = p->priv;
	struct ft_rec *r = s->r;

	if (r == NULL || s->diverged || !r->ended)
		return;
	if (s->matched < r->nm || s->sends < r->ns || s->outcomes < r->nnd)
		stop(p, FT_NOTE_DIVERGE, "rank %" PRIu32 " diverged: it finished "
		    "with %zu of %zu messages received, %zu of %zu sent and "
		    "%zu of %zu outcomes used", p->conf.rank, s->matched,
		    r->nm, s->sends, r->ns, s->outcomes, r->nnd);
}

const struct ft_proto_ops ft__proto_replay = {
	.abi = FT_PROTO_ABI,
	.name = "replay",
	.privsize = sizeof(struct replay),
	.init = replay_init,
	.fini = replay_fini,
	.send = replay_send,
	.match = replay_match,
	.nondet = replay_nondet,
	.tick = replay_tick,
	.busy = replay_busy,
	.ext = replay_ext,
};

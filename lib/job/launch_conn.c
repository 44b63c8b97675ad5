/* SPDX-License-Identifier: ISC */
/*
 * The ranks' connections to the launcher: accepting and
 * authenticating them, the frames ranks send (REGISTER, ABORT,
 * FINALIZE, NOTE, SPAWN, PORT) and those the launcher sends (TABLE,
 * VIEW, REVIVE, FINALIZE_OK).
 */
#include "launch_impl.h"

void
ft__l_send_frame(struct lconn *lc, const struct ft_wbuf *wb)
{
	if (lc == NULL || lc->closed)
		return;
	if (ft_conn_queue_copy(&lc->c, wb->p, wb->len) != 0)
		lc->closed = 1;
}

/* The TABLE of every process's address, in wb (initialized here). */
static void
table_encode(const struct launcher *l, struct ft_wbuf *wb)
{
	struct ft_msg_table t;
	uint32_t k;

	if ((t.ranks = calloc(l->n, sizeof(*t.ranks))) == NULL)
		ft_die(FT_EXIT_TEMP, "unable to build the rank table");
	t.n = l->n;
	for (k = 0; k < l->n; k++)
		t.ranks[k] = l->ranks[k].addr;
	ft_wbuf_init(wb);
	if (ft_msg_table_encode(wb, FT_WIRE_LAUNCHER, &t) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode the rank table");
	free(t.ranks);
}

/* The table to process i alone: a restarted one (--ft vlog). */
static void
send_table_to(struct launcher *l, uint32_t i)
{
	struct ft_wbuf wb;

	table_encode(l, &wb);
	ft__l_send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
}

static void
send_table(struct launcher *l)
{
	struct ft_wbuf wb;
	uint32_t i;

	table_encode(l, &wb);
	for (i = 0; i < l->n; i++)
		ft__l_send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
	l->table_sent = 1;
	l->started_ns = ft_now_ns();
	/* after-sends kills are the processes' own business. */
	for (i = 0; i < l->cf->ninject; i++)
		if (l->cf->inject[i].trigger != FT_INJECT_AFTER_SENDS)
			l->inj_next[i] = l->started_ns +
			    (l->cf->inject[i].trigger == FT_INJECT_AT ?
			    l->cf->inject[i].at_ns :
			    l->cf->inject[i].every_ns);
}

static void
send_all_empty(struct launcher *l, unsigned int type)
{
	struct ft_wbuf wb;
	uint32_t i;

	ft_wbuf_init(&wb);
	if (ft_msg_empty_encode(&wb, FT_WIRE_LAUNCHER, type) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode %s", ft_msg_name(type));
	for (i = 0; i < l->n; i++)
		ft__l_send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
}

/* The VIEW of the processes that have failed, in wb (initialized). */
static void
view_encode(const struct launcher *l, struct ft_wbuf *wb)
{
	struct ft_msg_view v;
	uint32_t i;

	if ((v.dead = calloc(l->n, sizeof(*v.dead))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	v.epoch = l->view_epoch;
	v.ndead = 0;
	for (i = 0; i < l->n; i++)
		if (l->ranks[i].dead)
			v.dead[v.ndead++] = i;
	ft_wbuf_init(wb);
	if (ft_msg_view_encode(wb, FT_WIRE_LAUNCHER, &v) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode a view");
	free(v.dead);
}

/* Tell every live process of the job which processes have failed. */
void
ft__l_send_view(struct launcher *l)
{
	struct ft_wbuf wb;
	uint32_t i;

	view_encode(l, &wb);
	for (i = 0; i < l->n; i++)
		if (!l->ranks[i].dead && l->ranks[i].state == R_RUNNING)
			ft__l_send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
}

/* The view to process i alone: a restarted one, once it rejoined. */
static void
send_view_to(struct launcher *l, uint32_t i)
{
	struct ft_wbuf wb;

	view_encode(l, &wb);
	ft__l_send_frame(l->ranks[i].conn, &wb);
	ft_wbuf_release(&wb);
}

/* Every live process has finalized: let them go. */
void
ft__l_finalize_check(struct launcher *l)
{
	if (ft__spawn_worlds(l->sp)) {
		if (!l->aborting)
			ft__spawn_finalize(l->sp);
		return;
	}
	/* A dead process comes back (--ft vlog), and may need the others'
	 * messages again. */
	if (l->vlog && l->ndead > 0)
		return;
	if (l->finalized > 0 && l->finalized + l->ndead == l->n &&
	    !l->aborting)
		send_all_empty(l, FT_MSG_FINALIZE_OK);
}

/* A replicated process's diagnostic, or a divergence it found. */
static int
on_note(struct launcher *l, struct lconn *lc, const uint8_t *body,
    size_t blen)
{
	struct ft_msg_note n;
	char text[2 * FT_WIRE_TEXT_MAX], shown[4 * FT_WIRE_TEXT_MAX + 2];
	size_t len;

	if (ft_msg_note_decode(body, blen, &n) != 0)
		return -1;
	/* The text goes to a terminal: its control characters, escape
	 * sequences included, are shown, not obeyed. */
	len = strlen(n.text);
	if (len > 0 && n.text[len - 1] == '\n')
		n.text[--len] = '\0';
	ft_vis(shown, sizeof(shown) - 1, n.text);
	if (n.kind == FT_NOTE_REPLAYED) {
		/* --ft vlog: back where it died, this long after. */
		const struct lrank *r = &l->ranks[lc->rank];

		ft__l_event(l, "\"event\":\"replayed\",\"rank\":%u,\"pid\":%d,"
		    "\"incarnation\":%u,\"ms\":%.3f", r->rank, (int)r->pid,
		    r->incarnation, r->died_ns != 0 ?
		    (double)(ft_now_ns() - r->died_ns) / 1e6 : 0.0);
		return 0;
	}
	if (n.kind == FT_NOTE_CKPT && l->vlog)
		return ft__l_vlog_ckpt_note(l, lc, n.text);
	if (n.kind == FT_NOTE_CKPT)
		return ft__l_coord_note(l, lc, n.text);
	if (n.kind == FT_NOTE_WARNING) {
		len = strlen(shown);
		shown[len++] = '\n';
		(void)!write(STDERR_FILENO, shown, len);
		return 0;
	}
	ft_warnx("divergence: %s", shown);
	ft__l_json_quote(n.text, text, sizeof(text));
	ft__l_event(l, "\"event\":\"diverge\",\"rank\":%u,\"replica\":%u,"
	    "\"what\":\"%s\"", l->ranks[lc->rank].rank,
	    l->ranks[lc->rank].replica, text);
	return 0;
}

/*
 * A restarted process registered (--ft vlog).  Every live process
 * learns its address (REVIVE) before it gets the table and can call
 * them; then it learns who is dead now.
 */
static void
process_rejoined(struct launcher *l, uint32_t i)
{
	struct lrank *r = &l->ranks[i];
	struct ft_msg_revive rv;
	struct ft_wbuf wb;
	uint32_t k;

	r->dead = 0;
	l->ndead--;
	rv.proc = i;
	rv.inc = r->incarnation;
	rv.addr = r->addr;
	ft_wbuf_init(&wb);
	if (ft_msg_revive_encode(&wb, FT_WIRE_LAUNCHER, &rv) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode a revive");
	for (k = 0; k < l->n; k++)
		if (k != i && !l->ranks[k].dead &&
		    l->ranks[k].state == R_RUNNING)
			ft__l_send_frame(l->ranks[k].conn, &wb);
	ft_wbuf_release(&wb);
	send_table_to(l, i);
	send_view_to(l, i);
	ft__l_event(l, "\"event\":\"rejoin\",\"rank\":%u,\"pid\":%d,"
	    "\"incarnation\":%u", i, (int)r->pid, r->incarnation);
}

/* Handle one frame from a rank.  Returns -1 to drop the connection. */
static int
on_rank_frame(struct launcher *l, struct lconn *lc, const struct ft_hdr *h,
    const uint8_t *body)
{
	size_t blen = h->len - FT_WIRE_HDRLEN;
	struct ft_msg_register reg;
	struct ft_msg_abort ab;
	char rep[32];
	struct lrank *r;

	if (h->type == FT_MSG_REGISTER) {
		if (ft_msg_register_decode(body, blen, &reg) != 0 ||
		    reg.rank >= l->n || reg.rank != lc->c.peer ||
		    lc->rank != -1 || l->ranks[reg.rank].registered)
			return -1;
		r = &l->ranks[reg.rank];
		lc->rank = (int)reg.rank;
		r->registered = 1;
		r->addr = reg.addr;
		r->conn = lc;
		/* MPI_Init starts the heartbeat thread before it registers,
		 * so silence counts from here: a process stopped before its
		 * first beat reached us is a hang too, not one to wait for. */
		if (l->cf->hang_ns != 0 && r->hb_last == 0)
			r->hb_last = r->hb_progress_at = ft_now_ns();
		if (r->spec != NULL) {
			ft__spawn_registered(l->sp, reg.rank);
			return 0;
		}
		if (r->incarnation > 0 && l->table_sent) {
			process_rejoined(l, reg.rank);
			return 0;
		}
		if (++l->registered == l->n0)
			send_table(l);
		else if (l->unjoined >= 0 && !l->aborting)
			ft__l_unjoinable(l, l->unjoined);
		return 0;
	}
	if (lc->rank < 0)
		return -1;
	r = &l->ranks[lc->rank];
	switch (h->type) {
	case FT_MSG_ABORT:
		if (ft_msg_abort_decode(body, blen, &ab) != 0)
			return -1;
		/* --ft coord: it is being killed to roll back. */
		if (l->coord.rolling)
			return 0;
		/* --ft coord: an error may come of a death not reaped yet,
		 * which rolls back instead (coord_tick); the rank waits
		 * for our verdict. */
		if (l->coord.on && ab.reason[0] != '\0' && !l->aborting) {
			/* The first is the one said. */
			if (l->coord.err_at == 0) {
				l->coord_err = ab;
				l->coord_err_rank = (uint32_t)lc->rank;
				l->coord.err_at = ft_now_ns() +
				    FT__COORD_ERR_GRACE_NS;
			}
			return 0;
		}
		ft__l_rank_aborted(l, r, &ab);
		return 0;
	case FT_MSG_FINALIZE:
		if (ft_msg_empty_decode(body, blen) != 0 || r->finalized)
			return -1;
		r->finalized = 1;
		ft__l_event(l, "\"event\":\"finalize\",\"rank\":%u,%s"
		    "\"pid\":%d", r->rank, ft__l_replica_field(l, r, rep,
		    sizeof(rep)), (int)r->pid);
		/* Read after its death was reaped, it is counted as dead. */
		if (!r->dead)
			l->finalized++;
		ft__l_coord_finalized(l);
		ft__l_finalize_check(l);
		return 0;
	case FT_MSG_NOTE:
		return on_note(l, lc, body, blen);
	case FT_MSG_SPAWN:
	case FT_MSG_PORT:
		return ft__spawn_frame(l->sp, (uint32_t)lc->rank, h, body);
	default:
		errno = EPROTO;
		return -1;
	}
}

void
ft__l_lconn_read(struct launcher *l, struct lconn *lc)
{
	const uint8_t *body;
	struct ft_hdr h;
	ssize_t got;
	int rc, rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		while ((rc = ft_conn_frame(&lc->c, &h, &body)) == 1) {
			if (lc->c.hs != FT_HS_READY) {
				if (ft_conn_handshake(&lc->c, &h, body) < 0) {
					ft_warnx_limited(&l->refusals,
					    "refused a connection: %s",
					    errno == EACCES ? "wrong job key" :
					    "malformed handshake");
					lc->closed = 1;
					return;
				}
				if (lc->c.hs == FT_HS_READY &&
				    (lc->c.peer_role != FT_ROLE_RANK ||
				    lc->c.peer >= l->n)) {
					ft_warnx_limited(&l->refusals,
					    "refused a connection from an "
					    "unknown rank");
					lc->closed = 1;
					return;
				}
				(void)ft_conn_flush(&lc->c);
				continue;
			}
			if (on_rank_frame(l, lc, &h, body) != 0) {
				ft_warnx("dropped the connection of rank %u: "
				    "bad %s frame", lc->c.peer,
				    ft_msg_name(h.type));
				lc->closed = 1;
				return;
			}
		}
		if (rc < 0) {
			ft_warnx("dropped a connection: malformed frame");
			lc->closed = 1;
			return;
		}
		got = ft_conn_fill(&lc->c);
		if (got < 0) {
			if (lc->c.hs != FT_HS_READY)
				ft_warnx_limited(&l->refusals, "refused a "
				    "connection: closed during the handshake");
			lc->closed = 1;
			return;
		}
		if (got == 0)
			return;
	}
}

static const struct ft_conn *
lconn_at(void *arg, size_t i)
{
	struct launcher *l = arg;

	return l->conns[i]->closed ? NULL : &l->conns[i]->c;
}

static void
lconn_drop(void *arg, size_t i, const char *why)
{
	struct launcher *l = arg;
	struct lconn *lc = l->conns[i];

	ft_warnx_limited(&l->refusals, "refused a connection: %s", why);
	lc->closed = 1;
	/* Its descriptor goes now, not after a burst of accepts. */
	close(lc->c.fd);
	lc->c.fd = -1;
}

void
ft__l_accept_conns(struct launcher *l)
{
	struct lconn *lc, **nc;
	int fd;

	while ((fd = ft_net_accept(l->lfd)) != -1) {
		if ((lc = calloc(1, sizeof(*lc))) == NULL ||
		    (nc = reallocarray(l->conns, l->nconns + 1,
		    sizeof(*nc))) == NULL) {
			free(lc);
			close(fd);
			return;
		}
		l->conns = nc;
		if (ft_conn_accepted(&lc->c, fd, l->key, FT_WIRE_LAUNCHER) !=
		    0) {
			free(lc);
			close(fd);
			return;
		}
		lc->rank = -1;
		l->conns[l->nconns++] = lc;
		/* A rank's HELLO is there already: read it, so that its
		 * connection is not taken for a silent stranger's. */
		ft__l_lconn_read(l, lc);
		(void)ft_hs_guard(lconn_at, lconn_drop, l, l->nconns,
		    (size_t)l->n + FT_HS_STRANGERS, ft_now_ns(),
		    FT_HS_HELLO_NS);
	}
}

void
ft__l_close_lconns(struct launcher *l)
{
	size_t i, j;

	for (i = j = 0; i < l->nconns; i++) {
		struct lconn *lc = l->conns[i];

		if (!lc->closed) {
			l->conns[j++] = lc;
			continue;
		}
		if (lc->rank >= 0 && l->ranks[lc->rank].conn == lc)
			l->ranks[lc->rank].conn = NULL;
		ft_conn_release(&lc->c);
		free(lc);
	}
	l->nconns = j;
}

/* SPDX-License-Identifier: ISC */
/*
 * Checkpoints from the launcher's side: --ft coord's scheduler and
 * complete epochs (the pure state is coord.c; the rollback after a
 * failure is launch_fail.c's), and --ft vlog's images (cuts, and each
 * rank's turn with --ckpt-policy).
 */
#include "launch_impl.h"

static void	coord_pin(struct launcher *, uint64_t);

/*
 * --ft vlog with images (issue 15): a rank at the cut of an image (its
 * output flushed: where it stands is where a restart from that image
 * prints from), or a restarted process going on from one.
 */
int
ft__l_vlog_ckpt_note(struct launcher *l, struct lconn *lc, const char *text)
{
	struct lrank *r = &l->ranks[lc->rank];
	uint64_t epoch, v, out, err;
	int kind;

	if (r->spec != NULL || ft__coord_note_parse(text, &epoch, &kind,
	    &v) != 0)
		return -1;
	if (kind == FT__COORD_CUT)
		ft__l_cut_output(l, r, epoch);
	else if (kind == FT__COORD_SERVER)
		ft__l_ckserver_reach(l, lc->rank, r->rank, (int)v);
	else if (kind == FT__COORD_RECV)
		r->ck_recv = v;
	else if (kind == FT__COORD_SENT)
		ft__vsched_traffic(&l->vs, r->rank, r->ck_recv, v);
	else if (kind == FT__COORD_FROM &&
	    ft__coord_cut_get(&r->ck_cuts, epoch, &out, &err) == 0) {
		r->out.off = out;
		r->err.off = err;
		ft__l_event(l, "\"event\":\"restart_image\",\"rank\":%u,"
		    "\"incarnation\":%u,\"epoch\":%llu", r->rank,
		    r->incarnation, (unsigned long long)epoch);
	}
	return 0;
}

/*
 * --ft vlog, --ckpt-policy rr|adaptive: a rank's turn (vsched.h): DUE
 * to it alone; it saves at its next ft_checkpoint() call.  A rank that
 * is dead or done loses its turn.
 */
void
ft__l_vlog_sched_tick(struct launcher *l, uint64_t now)
{
	struct ft_msg_due d = { 0, FT_DUE_ASK };
	struct ft_wbuf wb;
	struct lrank *r;
	uint32_t k;

	if (!l->table_sent || l->aborting || !ft__vsched_tick(&l->vs, now, &k))
		return;
	r = &l->ranks[k];
	if (r->dead || r->finalized || r->state != R_RUNNING ||
	    r->conn == NULL)
		return;
	d.epoch = l->vs.turns;
	ft_wbuf_init(&wb);
	if (ft_msg_due_encode(&wb, FT_WIRE_LAUNCHER, &d) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode DUE");
	ft__l_send_frame(r->conn, &wb);
	ft_wbuf_release(&wb);
}

/* --ft coord: DUE(epoch, call) to every running rank. */
static void
coord_due(struct launcher *l, uint64_t epoch, uint64_t call)
{
	struct ft_msg_due d = { epoch, call };
	struct ft_wbuf wb;
	uint32_t k;

	ft_wbuf_init(&wb);
	if (ft_msg_due_encode(&wb, FT_WIRE_LAUNCHER, &d) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode DUE");
	for (k = 0; k < l->n; k++)
		if (l->ranks[k].state == R_RUNNING)
			ft__l_send_frame(l->ranks[k].conn, &wb);
	ft_wbuf_release(&wb);
}

/*
 * --ft coord, --ckpt-interval D: a checkpoint is due every D.  ftrun
 * asks every rank where it is (DUE, ASK); each answers at its next
 * ft_checkpoint() call with that call's number, and goes on; the epoch
 * is taken at the highest of them plus a margin (DUE, that call).  A
 * rank already past it says so: the epoch is called off (DUE, OFF) and
 * the margin doubles.  No round while a rank has finalized, or while
 * the job rolls back.
 */
void
ft__l_coord_tick(struct launcher *l, uint64_t now)
{
	uint64_t epoch;

	if (l->coord.on && l->table_sent && !l->aborting &&
	    ft__coord_sched_tick(&l->coord, now, l->finalized == 0, &epoch))
		coord_due(l, epoch, FT_DUE_ASK);
	if (l->coord.err_at != 0 && now >= l->coord.err_at) {
		/* A rank's error: no death came with it (a death reaped
		 * now rolls back and clears err_at), so the job ends at
		 * once, not after the rank's hold. */
		ft__l_reap_children(l);
		if (l->coord.err_at != 0 && !l->coord.rolling &&
		    !l->aborting) {
			ft__l_rank_aborted(l, &l->ranks[l->coord_err_rank],
			    &l->coord_err);
			/* It waits for us: it ends now too. */
			if (l->ranks[l->coord_err_rank].state == R_RUNNING)
				ft__l_proc_signal(l, l->coord_err_rank,
				    SIGTERM);
		}
		l->coord.err_at = 0;
	}
}

/* A rank answered DUE's ASK: at its call'th ft_checkpoint() call. */
static void
coord_called(struct launcher *l, struct lrank *r, uint64_t epoch,
    uint64_t call)
{
	uint64_t at;

	if (ft__coord_sched_called(&l->coord, (uint32_t)(r - l->ranks),
	    epoch, call, ft_now_ns(), &at))
		coord_due(l, epoch, at);
}

/* A rank was past the call of epoch: call it off, widen the margin. */
static void
coord_missed(struct launcher *l, uint64_t epoch)
{
	if (!ft__coord_sched_missed(&l->coord, epoch, ft_now_ns()))
		return;
	ft__l_event(l, "\"event\":\"checkpoint\",\"epoch\":%llu,"
	    "\"missed\":true,\"margin\":%llu", (unsigned long long)epoch,
	    (unsigned long long)l->coord.margin);
	coord_due(l, epoch, FT_DUE_OFF);
}

/* A rank finalized: a round under way is called off. */
void
ft__l_coord_finalized(struct launcher *l)
{
	if (ft__coord_sched_off(&l->coord))
		coord_due(l, l->coord.epoch, FT_DUE_OFF);
}

/*
 * --ft coord: a rank read its image of epoch back in us microseconds;
 * once every rank has, the rollback's restart is over (an event: from
 * the failure, and the slowest image read).
 */
static void
coord_restored(struct launcher *l, uint64_t epoch, uint64_t us)
{
	if (us > l->coord.restore_us)
		l->coord.restore_us = us;
	if (++l->coord.nrestored != l->n || l->coord.failed_ns == 0)
		return;
	ft__l_event(l, "\"event\":\"restored\",\"epoch\":%llu,\"ms\":%.3f,"
	    "\"read_ms\":%.3f", (unsigned long long)epoch,
	    (double)(ft_now_ns() - l->coord.failed_ns) / 1e6,
	    (double)l->coord.restore_us / 1e3);
}

/*
 * --ft coord: rank's image of epoch is written locally (durable 0) or
 * in the store (1), or the server died or cannot be reached (rank
 * UINT32_MAX), or is reached again (UINT32_MAX - 1, ckptsrv2): a new
 * complete epoch is told to the ranks, a new push asked for (coordsrv,
 * lib/job/coord.c).
 */
void
ft__l_coord_image(struct launcher *l, uint32_t rank, uint64_t epoch,
    int durable)
{
	struct ft__coord_cuts **all;
	struct ft__coord_news nw;
	struct ft_wbuf wb;
	uint32_t k;

	/* Mid-rollback, the dead generation's cuts are not to count. */
	if (rank >= UINT32_MAX - 1 && l->coord.rolling) {
		l->coord.srvdown = rank == UINT32_MAX;
		return;
	}
	if ((all = calloc(l->n, sizeof(*all))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	for (k = 0; k < l->n; k++)
		all[k] = &l->ranks[k].ck_cuts;
	if (rank >= UINT32_MAX - 1)
		ft__coord_srv_down(&l->coord, all, l->n, ft_now_ns(), &nw,
		    rank == UINT32_MAX);
	else if (ft__coord_image(&l->coord, all, l->n, rank, epoch, durable,
	    ft_now_ns(), &nw) != 0)
		memset(&nw, 0, sizeof(nw));
	free(all);
	if (nw.local != 0)
		ft__l_event(l, "\"event\":\"checkpoint\",\"epoch\":%llu,"
		    "\"local\":true", (unsigned long long)nw.local);
	if (nw.complete != 0) {
		ft__coord_auto_complete(&l->coord, nw.complete, ft_now_ns());
		ft__l_event(l, "\"event\":\"checkpoint\",\"epoch\":%llu,"
		    "\"complete\":true,\"interval_ms\":%.1f,"
		    "\"since_cut_ms\":%.1f,\"since_local_ms\":%.1f,"
		    "\"behind\":%llu", (unsigned long long)nw.complete,
		    (double)l->coord.interval_ns / 1e6,
		    l->coord.cut_epoch == nw.complete ? (double)(ft_now_ns() -
		    l->coord.cut_ns) / 1e6 : -1.0, nw.lag_ms,
		    (unsigned long long)nw.behind);
		coord_pin(l, nw.complete);
	}
	ft_wbuf_init(&wb);
	/* The ranks keep their images of it (COMPLETE); all push the
	 * same epoch (PUSH). */
	if ((nw.complete != 0 && ft_msg_complete_encode(&wb,
	    FT_WIRE_LAUNCHER, nw.complete) != 0) || (nw.push != 0 &&
	    ft_msg_push_encode(&wb, FT_WIRE_LAUNCHER, nw.push) != 0))
		ft_die(FT_EXIT_TEMP, "unable to encode COMPLETE or PUSH");
	for (k = 0; wb.len > 0 && k < l->n; k++)
		if (l->ranks[k].state == R_RUNNING)
			ft__l_send_frame(l->ranks[k].conn, &wb);
	ft_wbuf_release(&wb);
}

/*
 * --ft coord: rank lc->rank is at the cut of an epoch (its output is
 * flushed: where it stands now is where a rollback to that epoch
 * starts printing again), or has committed an image.  The newest
 * epoch that every rank made durable is the job's complete global
 * checkpoint (ft(7)).
 */
int
ft__l_coord_note(struct launcher *l, struct lconn *lc, const char *text)
{
	struct lrank *r = &l->ranks[lc->rank];
	uint64_t epoch, v;
	int kind;

	if (!l->coord.on || r->spec != NULL ||
	    ft__coord_note_parse(text, &epoch, &kind, &v) != 0)
		return -1;
	if (kind == FT__COORD_CALL) {
		coord_called(l, r, epoch, v);
		return 0;
	}
	if (kind == FT__COORD_MISSED) {
		coord_missed(l, epoch);
		return 0;
	}
	if (kind == FT__COORD_SERVER) {
		ft__l_ckserver_reach(l, lc->rank, r->rank, (int)v);
		return 0;
	}
	if (kind == FT__COORD_RESTORED) {
		coord_restored(l, epoch, v);
		return 0;
	}
	if (kind == FT__COORD_CUT) {
		ft__l_cut_output(l, r, epoch);
		ft__coord_auto_cut(&l->coord, epoch, ft_now_ns());
		return 0;
	}
	if (kind == FT__COORD_DURABLE)
		ft__l_coord_image(l, (uint32_t)(r - l->ranks), epoch, (int)v);
	return 0;
}

/*
 * --ft coord: ftrun too holds every rank's lease, pinned at the
 * complete epoch: while the processes of a rollback are dead, the
 * ranks hold none, and a prune would keep only the images every rank
 * has, which may be newer than ftrun's complete epoch.
 */
static void
coord_pin(struct launcher *l, uint64_t epoch)
{
	char why[FT_LOG_WHY];
	struct lrank *r;
	uint32_t k;
	int fd;

	if (l->cf->ckpt_dir == NULL)
		return;
	for (k = 0; k < l->n; k++) {
		r = &l->ranks[k];
		fd = ft_ckpt_lease(l->cf->ckpt_dir, l->cf->ckpt_job, k, epoch,
		    r->ck_lease - 1, why, sizeof(why));
		if (fd < 0)
			ft_warnx("%s", why);
		else
			r->ck_lease = fd + 1;
	}
}

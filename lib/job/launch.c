/* SPDX-License-Identifier: ISC */
/*
 * The launcher: spawn every rank of a job on this host, give each the job
 * key and the launcher's address, answer REGISTER with the TABLE once all
 * have registered, release FINALIZE once all have finalized, forward
 * stdio a whole line at a time, and end the job as mpirun would.
 *
 * Signals are blocked except inside ppoll, whose handlers only set flags,
 * so the loop sees every SIGCHLD, SIGINT and SIGTERM between two polls.
 *
 * This file holds the job's start and end (ft_launch_run) and the
 * loop; the launcher's other concerns are the launch_*.c files
 * (launch_impl.h lists them).
 */
#include "launch_impl.h"

static volatile sig_atomic_t got_chld, got_term;
static volatile sig_atomic_t term_signo;

static void
on_signal(int sig)
{
	if (sig == SIGCHLD)
		got_chld = 1;
	else {
		got_term = 1;
		term_signo = sig;
	}
}

/* Everything the loop polls, rebuilt every round. */
struct pollset {
	struct pollfd	*fds;
	int		*what;	/* see the WHAT_* below */
	size_t		 n;
};

enum {
	WHAT_LISTEN = -1,
	WHAT_STDIN = -2,
	WHAT_STDIN_OUT = -3,
	WHAT_HEARTBEAT = -4,
	WHAT_REMOTE = -5,
	/* >= 0: conn index; rank outputs are encoded below */
	WHAT_OUT_BASE = 1 << 24,
};

static void
ps_add(struct pollset *ps, int fd, short events, int what)
{
	ps->fds[ps->n] = (struct pollfd){ fd, events, 0 };
	ps->what[ps->n++] = what;
}

static void
loop(struct launcher *l, const sigset_t *waitmask)
{
	struct pollset ps;
	struct timespec ts, *tsp;
	uint64_t now, wake;
	size_t i, cap, rstart, rn = 0;
	int rc, w;

	cap = 5 + FT_REPLICAS_MAX + 2 * (size_t)l->n;
	ps.fds = calloc(cap + 1, sizeof(*ps.fds));
	ps.what = calloc(cap + 1, sizeof(*ps.what));
	if (ps.fds == NULL || ps.what == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	while (l->running > 0 || ft__l_outputs_open(l) ||
	    (l->rm != NULL && ft__remote_busy(l->rm))) {
		if (got_chld) {
			got_chld = 0;
			ft__l_reap_children(l);
		}
		if (got_term) {
			got_term = 0;
			ft_warnx("got signal %d; forwarding it to the ranks",
			    (int)term_signo);
			ft__l_event(l, "\"event\":\"abort\",\"reason\":"
			    "\"signal %d\"", (int)term_signo);
			ft__l_signal_ranks(l, term_signo, 0);
			l->user_signal = 1;
			if (!l->aborting) {
				l->aborting = 1;
				l->abort_status = -1;
				l->kill_at = ft_now_ns() + l->cf->grace_ns;
			}
		}
		ft__l_check_hangs(l);
		now = ft_now_ns();
		ft__l_inject_due(l, now);
		ft__l_coord_tick(l, now);
		ft__l_vlog_sched_tick(l, now);
		if (l->deadline != 0 && now >= l->deadline && !l->aborting && l->running > 0)
			ft__l_on_timeout(l);
		if (l->aborting && l->kill_at != 0 && now >= l->kill_at) {
			ft__l_signal_ranks(l, SIGKILL, 1);
			l->kill_at = 0;
		}
		/* No restart can come now: the agents may end. */
		if (l->rm != NULL && l->running == 0 && l->respawning == 0)
			ft__remote_release(l->rm);
		if (l->running == 0 && !ft__l_outputs_open(l) &&
		    (l->rm == NULL || !ft__remote_busy(l->rm)))
			break;
		/* A restart asked of an agent runs, for this. */
		if (l->running == 0 && l->respawning == 0 && l->drain_at == 0)
			l->drain_at = now + l->cf->grace_ns;
		if (l->running == 0 && l->respawning == 0 &&
		    now >= l->drain_at) {
			for (i = 0; i < l->n; i++) {
				struct outbuf *ob[2] = { &l->ranks[i].out, &l->ranks[i].err };
				for (int k = 0; k < 2; k++) if (ob[k]->fd != -1) {
					ft__l_flush_lines(l, (uint32_t)i, ob[k],
					    l->nrep == 1);
					close(ob[k]->fd);
					ob[k]->fd = -1;
				}
			}
			break;
		}
		ft__l_close_lconns(l);
		if (cap < 4 + FT_REPLICAS_MAX + 2 * (size_t)l->n + l->nconns +
		    l->cf->nhosts) {
			cap = 4 + FT_REPLICAS_MAX + 2 * (size_t)l->n +
			    l->nconns + l->cf->nhosts;
			ps.fds = reallocarray(ps.fds, cap, sizeof(*ps.fds));
			ps.what = reallocarray(ps.what, cap, sizeof(*ps.what));
			if (ps.fds == NULL || ps.what == NULL)
				ft_die(FT_EXIT_TEMP, "out of memory");
		}
		ps.n = 0;
		ps_add(&ps, l->lfd, POLLIN, WHAT_LISTEN);
		if (l->hb_fd != -1)
			ps_add(&ps, l->hb_fd, POLLIN, WHAT_HEARTBEAT);
		if (l->stdin_open && l->in_open > 0) {
			if (ft__l_stdin_drained(l))
				ps_add(&ps, STDIN_FILENO, POLLIN, WHAT_STDIN);
			else
				for (i = 0; i < l->nrep; i++)
					if (l->in_fds[i] != -1 &&
					    l->in_offs[i] < l->inlen)
						ps_add(&ps, l->in_fds[i],
						    POLLOUT, WHAT_STDIN_OUT);
		}
		for (i = 0; i < l->nconns; i++)
			ps_add(&ps, l->conns[i]->c.fd, POLLIN |
			    (ft_conn_want_write(&l->conns[i]->c) ? POLLOUT : 0),
			    (int)i);
		for (i = 0; i < l->n; i++) {
			if (l->ranks[i].out.fd != -1)
				ps_add(&ps, l->ranks[i].out.fd, POLLIN,
				    WHAT_OUT_BASE + 2 * (int)i);
			if (l->ranks[i].err.fd != -1)
				ps_add(&ps, l->ranks[i].err.fd, POLLIN,
				    WHAT_OUT_BASE + 2 * (int)i + 1);
		}
		rstart = ps.n;
		if (l->rm != NULL) {
			rn = ft__remote_pollfds(l->rm, ps.fds + ps.n);
			for (i = 0; i < rn; i++)
				ps.what[ps.n++] = WHAT_REMOTE;
		}
		wake = 0;
		if (l->rm != NULL)
			wake = ft__remote_tick(l->rm, now);
		if (l->deadline != 0 && !l->aborting && (wake == 0 ||
		    l->deadline < wake))
			wake = l->deadline;
		if (l->aborting && l->kill_at != 0 && (wake == 0 ||
		    l->kill_at < wake))
			wake = l->kill_at;
		if (l->running == 0 && l->drain_at != 0 && (wake == 0 ||
		    l->drain_at < wake))
			wake = l->drain_at;
		if (!l->aborting && ft__l_inject_next(l) != 0 &&
		    (wake == 0 || ft__l_inject_next(l) < wake))
			wake = ft__l_inject_next(l);
		if (ft__coord_sched_next(&l->coord) != 0 && (wake == 0 ||
		    ft__coord_sched_next(&l->coord) < wake))
			wake = ft__coord_sched_next(&l->coord);
		if (ft__vsched_next(&l->vs) != 0 && (wake == 0 ||
		    ft__vsched_next(&l->vs) < wake))
			wake = ft__vsched_next(&l->vs);
		if (ft__l_next_hang_check(l) != 0 &&
		    (wake == 0 || ft__l_next_hang_check(l) < wake))
			wake = ft__l_next_hang_check(l);
		tsp = NULL;
		if (wake != 0) {
			uint64_t d = wake > now ? wake - now : 0;

			ts.tv_sec = (time_t)(d / 1000000000u);
			ts.tv_nsec = (long)(d % 1000000000u);
			tsp = &ts;
		}
		rc = ppoll(ps.fds, (nfds_t)ps.n, tsp, waitmask);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			ft_die(FT_EXIT_TEMP, "poll");
		}
		if (l->rm != NULL) {
			ft__remote_io(l->rm, ps.fds + rstart, rn);
			/* Room may have come for rank 0's input. */
			if (l->stdin_open && !ft__l_stdin_drained(l))
				ft__l_forward_stdin(l);
		}
		for (i = 0; i < ps.n; i++) {
			short re = ps.fds[i].revents;

			if (re == 0)
				continue;
			w = ps.what[i];
			if (w == WHAT_REMOTE)
				continue;
			if (w == WHAT_LISTEN)
				ft__l_accept_conns(l);
			else if (w == WHAT_HEARTBEAT)
				ft__l_read_heartbeats(l);
			else if (w == WHAT_STDIN || w == WHAT_STDIN_OUT)
				ft__l_forward_stdin(l);
			else if (w >= WHAT_OUT_BASE) {
				uint32_t r = (uint32_t)(w - WHAT_OUT_BASE) / 2;

				ft__l_read_output(l, r,
				    (w - WHAT_OUT_BASE) % 2 ?
				    &l->ranks[r].err : &l->ranks[r].out);
			} else {
				struct lconn *lc = l->conns[w];

				if ((re & POLLOUT) &&
				    ft_conn_flush(&lc->c) != 0)
					lc->closed = 1;
				if (!lc->closed &&
				    (re & (POLLIN | POLLHUP | POLLERR)))
					ft__l_lconn_read(l, lc);
				if (!lc->closed &&
				    ft_conn_want_write(&lc->c))
					(void)ft_conn_flush(&lc->c);
			}
		}
	}
	free(ps.fds);
	free(ps.what);
}

int
ft_launch_run(const struct ft_launch *cf)
{
	struct launcher l;
	struct ft__remote_cb rcb;
	sigset_t orig, waitmask;
	char prog[4096];
	uint32_t i;
	int status, e, *errfds;
	ssize_t n;

	memset(&l, 0, sizeof(l));
	l.cf = cf;
	l.nranks = cf->nranks;
	l.nrep = cf->nrep > 1 ? cf->nrep : 1;
	l.ulfm = cf->proto != NULL && (strcmp(cf->proto, "ulfm") == 0 ||
	    (strcmp(cf->proto, "ftmpi") == 0 &&
	    cf->ftmpi_comm != FT_FTMPI_ABORT));
	l.rebuild = l.ulfm && cf->ftmpi_comm == FT_FTMPI_REBUILD;
	l.vlog = cf->proto != NULL && strcmp(cf->proto, "vlog") == 0;
	l.coord.on = cf->proto != NULL && strcmp(cf->proto, "coord") == 0;
	l.coord.interval_ns = l.coord.on ? cf->ckpt_interval_ns : 0;
	l.coord.push = l.coord.on && cf->ckpt_push;
	if (l.coord.interval_ns > 0 && ft__coord_sched_init(&l.coord,
	    cf->nranks) != 0)
		ft_die(FT_EXIT_TEMP, "out of memory");
	if (l.coord.interval_ns > 0 && cf->ckpt_interval_auto)
		ft__coord_auto_init(&l.coord, ft_now_ns());
	if (ft__vsched_init(&l.vs, cf->nranks, l.vlog ? cf->ckpt_policy : 0,
	    cf->ckpt_interval_ns) != 0)
		ft_die(FT_EXIT_TEMP, "out of memory");
	l.logger.pid = -1;
	l.ckserver.pid = -1;
	l.n = cf->nranks * l.nrep;
	l.n0 = l.n;
	l.lfd = -1;
	for (i = 0; i < FT_REPLICAS_MAX; i++)
		l.in_fds[i] = -1;
	l.abort_status = -1;
	l.watchdog_fd = -1;
	l.hb_fd = l.hb_wfd = -1;
	l.unjoined = -1;
	l.rng = 0x5eed;
	ft_ratelim_init(&l.refusals, "refused connections", FT_HS_WARN_BURST,
	    FT_HS_WARN_NS);
	for (i = 0; i < cf->ninject; i++)
		if (cf->inject[i].seed != 0)
			l.rng = cf->inject[i].seed;
	l.progname = strrchr(cf->argv[0], '/') != NULL ?
	    strrchr(cf->argv[0], '/') + 1 : cf->argv[0];
	if (ft_find_program(cf->argv[0], cf->path, prog, sizeof(prog)) != 0) {
		ft_error("unable to run '%s'", cf->argv[0]);
		return errno == ENOENT ? 127 : 126;
	}
	snprintf(l.prog, sizeof(l.prog), "%s", prog);
	if ((l.ranks = calloc(l.n, sizeof(*l.ranks))) == NULL ||
	    (errfds = calloc(l.n, sizeof(*errfds))) == NULL ||
	    (l.sp = ft__spawn_new(&l, l.n, cf->universe)) == NULL) {
		ft_warn("unable to allocate %u ranks", l.n);
		return FT_EXIT_TEMP;
	}
	if ((l.printed = calloc(2 * (size_t)l.nranks, sizeof(*l.printed))) ==
	    NULL || (l.inj_next = calloc(cf->ninject + 1,
	    sizeof(*l.inj_next))) == NULL || (l.inj_kills =
	    calloc(cf->ninject + 1, sizeof(*l.inj_kills))) == NULL) {
		ft_warn("unable to allocate %u ranks", l.n);
		return FT_EXIT_TEMP;
	}
	for (i = 0; i < l.n; i++) {
		l.ranks[i].rank = i / l.nrep;
		l.ranks[i].replica = i % l.nrep;
		l.ranks[i].out = (struct outbuf){ -1, STDOUT_FILENO, NULL, 0,
		    0 };
		l.ranks[i].err = (struct outbuf){ -1, STDERR_FILENO, NULL, 0,
		    0 };
		l.ranks[i].out.buf = malloc(LINE_MAX_FWD);
		l.ranks[i].err.buf = malloc(LINE_MAX_FWD);
		if (l.ranks[i].out.buf == NULL || l.ranks[i].err.buf == NULL) {
			ft_warn("unable to allocate output buffers");
			return FT_EXIT_TEMP;
		}
	}
	ft_key_generate(l.key);
	if (ft__l_make_jobdir(&l) != 0) {
		ft_warn("unable to create a job directory in '%s'",
		    cf->tmpdir != NULL ? cf->tmpdir : "/tmp");
		return FT_EXIT_TEMP;
	}
	/* Across hosts the ranks reach us over TCP, at our address on the
	 * connections to their agents. */
	if (cf->hosts != NULL && ft__remote_connect(cf, &l.rm, l.sock,
	    sizeof(l.sock)) != 0) {
		ft__remote_free(l.rm);
		ft__l_remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	for (i = 0; cf->hosts != NULL && i < l.n; i++) {
		uint64_t after;
		int sig;

		l.ranks[i].remote = 1;
		l.ranks[i].host = cf->host_of_proc[i];
		/* Its agent arms it (JOB_START); we learn of the kill when
		 * the agent reports its death. */
		l.ranks[i].injected = ft__inject_after_sends(cf, 0,
		    l.ranks[i].rank, l.ranks[i].replica, &after, &sig);
	}
	if (l.vlog && ft__l_start_logger(&l) != 0) {
		ft__l_remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	if (cf->ckpt_serve_dir != NULL && ft__l_start_ckserver(&l) != 0) {
		ft__l_stop_logger(&l, FT_EXIT_TEMP);
		ft__l_remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	if ((l.lfd = ft_net_listen(l.sock, l.addr, sizeof(l.addr))) == -1) {
		ft_warn("unable to listen on '%s'", l.sock);
		ft__l_remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	if (cf->hang_ns > 0 && ft__l_open_heartbeats(&l) != 0) {
		ft_warn("unable to make the heartbeat pipe");
		close(l.lfd);
		ft__l_remove_jobdir(&l);
		return FT_EXIT_TEMP;
	}
	if (ft__l_start_watchdog(&l) != 0)
		ft_warn("unable to start the watchdog; if ftrun is killed, "
		    "what the ranks started may outlive it");
	/* Block the signals the loop handles; ppoll unblocks them. */
	ft__signals_catch(on_signal, &orig, &waitmask);
	l.stdin_open = 1;
	l.inrec.fd = -1;
	if (cf->record_dir != NULL && ft_rec_stdin_open(&l.inrec,
	    cf->record_dir) != 0)
		ft_warn("ftrun --record: rank 0's standard input is not "
		    "recorded");
	l.origmask = &orig;
	if (cf->timeout_ns > 0)
		l.deadline = ft_now_ns() + cf->timeout_ns;
	for (i = 0; i < l.n; i++)
		errfds[i] = -1;
	/* The agents' callbacks, kept for the whole job (rm holds them). */
	ft__l_remote_cb(&l, &rcb);
	if (l.rm != NULL) {
		if (l.vlog && ft__l_remote_vlog_env(&l) != 0) {
			ft_warn("out of memory");
			ft__l_abort_job(&l, FT_EXIT_TEMP);
		}
		for (i = 0; i < l.nrep; i++)
			l.in_remote[i] = 1;
		l.in_open = (int)l.nrep;
		if ((e = ft__remote_start(l.rm, l.addr, l.key, prog,
		    l.hb_period_ns, l.deadline, &rcb)) != 0) {
			ft__l_event(&l, "\"event\":\"abort\",\"reason\":\"the "
			    "job could not start on every host\"");
			ft__l_abort_job(&l, e);
		}
	}
	for (i = 0; l.rm == NULL && i < l.n; i++) {
		if (ft__l_spawn(&l, i, prog, &orig, &errfds[i]) != 0) {
			ft_error("unable to start rank %u", i);
			ft__l_abort_job(&l, FT_EXIT_TEMP);
			break;
		}
	}
	/* An exec that failed reports its errno on the error pipe. */
	for (i = 0; i < l.n; i++) {
		if (errfds[i] == -1)
			continue;
		do
			n = read(errfds[i], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		close(errfds[i]);
		if (n == (ssize_t)sizeof(e) && !l.aborting) {
			ft_errorx("unable to run '%s': %s", cf->argv[0],
			    strerror(e));
			ft__l_event(&l, "\"event\":\"abort\",\"rank\":%u,"
			    "\"reason\":\"exec failed\"", i);
			ft__l_abort_job(&l, e == ENOENT ? 127 : 126);
		}
	}
	free(errfds);
	/* stdin stays blocking: it is shared with our parent, and it is
	 * read only when poll says it is readable. */
	if (!l.stdin_open || l.in_open == 0)
		ft__l_close_stdin(&l);
	loop(&l, &waitmask);
	/* What the ranks said last (a NOTE just before exiting) is read
	 * even when their exit ended the loop first. */
	for (i = 0; i < l.nconns; i++)
		if (!l.conns[i]->closed)
			ft__l_lconn_read(&l, l.conns[i]);
	ft_ratelim_flush(&l.refusals, 1);
	ft__l_end_outputs(&l);
	status = ft__l_job_status(&l);
	ft__l_close_stdin(&l);
	ft_rec_stdin_close(&l.inrec);
	ft__l_close_lconns(&l);
	for (i = 0; i < l.nconns; i++) {
		ft_conn_release(&l.conns[i]->c);
		free(l.conns[i]);
	}
	free(l.conns);
	close(l.lfd);
	if (l.hb_fd != -1) {
		ft__l_heartbeat_event(&l);
		close(l.hb_fd);
		close(l.hb_wfd);
	}
	ft__l_kill_leftovers(&l);
	ft__remote_free(l.rm);
	free(l.rm_env[0]);
	free(l.rm_env[1]);
	ft__logger_stop(&l.ckserver);
	ft__l_remove_jobdir(&l);
	if (l.vlog)
		ft__l_stop_logger(&l, status);
	ft__l_watchdog_tell(&l, 0);
	if (l.watchdog_fd != -1)
		close(l.watchdog_fd);
	for (i = 0; i < l.n; i++) {
		free(l.ranks[i].out.buf);
		free(l.ranks[i].err.buf);
	}
	ft__spawn_free(l.sp);
	for (i = 0; i < l.n; i++) {
		ft__coord_cuts_free(&l.ranks[i].ck_cuts);
		if (l.ranks[i].ck_lease > 0)
			close(l.ranks[i].ck_lease - 1);
	}
	ft__coord_sched_free(&l.coord);
	ft__coord_lc_free(&l.coord);
	ft__vsched_free(&l.vs);
	free(l.ranks);
	free(l.printed);
	free(l.inj_next);
	free(l.inj_kills);
	{
		sigset_t ps;
		struct timespec zero = { 0, 0 };

		sigemptyset(&ps);
		sigaddset(&ps, SIGPIPE);
		while (sigtimedwait(&ps, NULL, &zero) > 0)
			;
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return status;
}

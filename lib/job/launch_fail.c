/* SPDX-License-Identifier: ISC */
/*
 * A process ended: how its exit reads, and what its failure does
 * under each fault-tolerance mode (the job ends; a replica takes
 * over; ULFM's survivors go on; vlog restarts it; coord rolls every
 * rank back; REBUILD starts a new one); restarts, here or through an
 * agent.
 */
#include "launch_impl.h"

/*
 * Rank i failed.  Every rank of a job runs on this host, so ftrun is
 * the host's detector module: it learns of the death from waitpid at
 * once, with no gossip, and is alone in making the next view of live
 * ranks (stable when made; no other module to wait for).  The gossip
 * schedule and period (--detector, --gossip-period) apply between the
 * modules of several hosts.
 */
static void
failure_events(struct launcher *l, uint32_t i, const char *how, uint64_t t0)
{
	const char *seen = l->ranks[i].lost ? "host" : l->ranks[i].hung ?
	    "heartbeat" : "waitpid";

	FILE *f = l->cf->events;
	const struct lrank *r = &l->ranks[i];
	char rep[32];
	uint32_t k, n = 0;

	if (f == NULL)
		return;
	ft__l_event(l, "\"event\":\"failed\",\"rank\":%u,%s\"pid\":%d,"
	    "\"by\":\"ftrun\",\"how\":\"%s\",\"detector\":\"%s\","
	    "\"reason\":\"%s\"", r->rank, ft__l_replica_field(l, r, rep,
	    sizeof(rep)), (int)r->pid, seen, l->cf->detector, how);
	fprintf(f, "{\"t\":%.6f,\"event\":\"view\",\"epoch\":%llu,"
	    "\"members\":[", ft_now(), (unsigned long long)l->view_epoch);
	/* Members: the processes that have not failed, i.e. running or
	 * ended with status 0 (process i did not, nor did a dead replica or
	 * one killed for its silence). */
	for (k = 0; k < l->n; k++)
		if (!l->ranks[k].hung && !l->ranks[k].dead &&
		    (l->ranks[k].state != R_EXITED ||
		    (WIFEXITED(l->ranks[k].status) &&
		    WEXITSTATUS(l->ranks[k].status) == 0)))
			fprintf(f, "%s%u", n++ > 0 ? "," : "", k);
	fprintf(f, "],\"n\":%u,\"stable_ms\":%.3f}\n", n,
	    (double)(ft_now_ns() - t0) / 1e6);
	ft__l_events_flush(l);
}

static void
rank_failed(struct launcher *l, uint32_t i, const char *how)
{
	uint64_t t0 = ft_now_ns();

	if (l->cf->events == NULL)
		return;
	l->view_epoch++;
	failure_events(l, i, how, t0);
}

/* The master of a rank: its lowest replica that has not failed. */
uint32_t
ft__l_master_of(const struct launcher *l, uint32_t rank)
{
	uint32_t k;

	for (k = 0; k < l->nrep; k++)
		if (!l->ranks[rank * l->nrep + k].dead)
			return k;
	return UINT32_MAX;
}

/*
 * Process i failed and the job goes on without it, whichever the mode
 * (replicate, ulfm and ftmpi, vlog, rebuild): it is dead, counted once
 * (a vlog process that dies again before it rejoined already is); it
 * no longer counts among the finalized, which count live processes, or
 * FINALIZE_OK would go out while others still compute; every live
 * process gets the next view; the failed and view events follow.  t0
 * is when the failure was taken in.  What each mode does besides (its
 * warning, a new master, a restart) is its own, around this.
 */
static void
goes_on_without(struct launcher *l, uint32_t i, const char *how, uint64_t t0)
{
	struct lrank *r = &l->ranks[i];

	if (!r->dead) {
		r->dead = 1;
		l->ndead++;
	}
	if (r->finalized)
		l->finalized--;
	l->view_epoch++;
	ft__l_send_view(l);
	failure_events(l, i, how, t0);
}

/* Process i failed once too often to start again (vlog, rebuild). */
static void
failed_too_often(struct launcher *l, uint32_t i)
{
	ft__l_event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
	    "\"rank %u failed %u times\"", i, i, l->ranks[i].incarnation + 1);
	ft__l_abort_job(l, 128 + SIGKILL);
}

/*
 * Replicated: process i failed.  If another replica of its rank lives,
 * the job goes on: the processes learn the new view, and where the
 * master died its next replica takes over.  Returns 0, or -1 when this
 * was the rank's last replica.
 */
static int
replica_failed(struct launcher *l, uint32_t i, const char *how)
{
	struct lrank *r = &l->ranks[i];
	uint32_t rank = r->rank, old = ft__l_master_of(l, rank), now;
	uint64_t t0 = ft_now_ns();

	if (!l->table_sent || old == UINT32_MAX)
		return -1;
	/* The master once it is gone: none, and the rank is lost. */
	r->dead = 1;
	now = ft__l_master_of(l, rank);
	r->dead = 0;
	if (now == UINT32_MAX)
		return -1;
	ft_warnx("rank %u replica %u (pid %d) %s; rank %u goes on with "
	    "replica %u as master", rank, r->replica, (int)r->pid, how, rank,
	    now);
	goes_on_without(l, i, how, t0);
	if (now != old)
		ft__l_event(l, "\"event\":\"master\",\"rank\":%u,"
		    "\"replica\":%u,\"pid\":%d,\"epoch\":%llu", rank, now,
		    (int)l->ranks[rank * l->nrep + now].pid,
		    (unsigned long long)l->view_epoch);
	ft__l_finalize_check(l);
	return 0;
}

/*
 * --ft ulfm: process i failed and the job goes on.  Every live process
 * gets the new view at once (the application hears of the failure
 * through ULFM's errors); the job ends when the last one does.
 */
static void
ulfm_failed(struct launcher *l, uint32_t i, const char *how,
    const char *seen)
{
	struct lrank *r = &l->ranks[i];
	uint64_t t0 = ft_now_ns();
	char name[48];

	ft_warnx("%s (pid %d) %s%s; the job goes on (--ft %s)",
	    ft__l_who(l, i, name, sizeof(name)), (int)r->pid, how, seen,
	    l->cf->proto);
	goes_on_without(l, i, how, t0);
	ft__l_finalize_check(l);
}

/* --ft vlog: how many times a rank is restarted before the job ends. */
#define VLOG_RESTARTS_MAX	64

/*
 * Across hosts: ask an agent to start process i again, on its host
 * while that is alive, else on another (ft__relocate_pick); the agent's
 * STARTED gives its pid (remote_started).
 */
static void
remote_restart(struct launcher *l, uint32_t i)
{
	struct lrank *r = &l->ranks[i];
	uint32_t nh = l->cf->nhosts, h, k, *load;
	struct ft_msg_job_respawn m;
	uint8_t *alive;
	uint64_t after = 0;
	int sig = 0;
	char name[48];

	alive = calloc(nh + 1, sizeof(*alive));
	load = calloc(nh + 1, sizeof(*load));
	if (alive == NULL || load == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	(void)ft__remote_alive(l->rm, alive);
	for (k = 0; k < l->n; k++)
		if (k != i && l->ranks[k].state == R_RUNNING &&
		    l->ranks[k].remote && l->ranks[k].host < nh)
			load[l->ranks[k].host]++;
	h = ft__relocate_pick(r->host, alive, load, nh);
	free(alive);
	free(load);
	r->lost = 0;
	r->injected = ft__inject_after_sends(l->cf, r->incarnation, r->rank,
	    r->replica, &after, &sig);
	m = (struct ft_msg_job_respawn){ i, r->incarnation, 0,
	    r->injected ? (uint32_t)sig : 0, r->injected ? after : 0, 0 };
	if (l->coord.on && l->coord.rolling) {
		m.flags = FT_RESPAWN_ROLLBACK;
		m.rollback = l->coord.target;
	}
	if (h == FT_RELOCATE_NONE || ft__remote_respawn(l->rm, h, &m) != 0) {
		ft_warnx("unable to restart %s: no host of the job is left",
		    ft__l_who(l, i, name, sizeof(name)));
		r->state = R_EXITED;
		ft__l_abort_job(l, FT_EXIT_TEMP);
		return;
	}
	if (h != r->host)
		ft_warnx("%s moves from host '%s' to host '%s'", ft__l_who(l, i,
		    name, sizeof(name)), l->cf->hosts[r->host].name,
		    l->cf->hosts[h].name);
	r->host = h;
	l->respawning++;
}

/*
 * Start process i again, as its next incarnation (--ft vlog).  It
 * replays what its log holds and prints again what it printed: that
 * much of its output is not shown twice (flush_lines).
 */
static void
restart_process(struct launcher *l, uint32_t i)
{
	struct lrank *r = &l->ranks[i];
	char path[512], name[48];
	ssize_t got;
	int errfd = -1, e;

	ft__l_drain_output(l, i, &r->out);
	ft__l_drain_output(l, i, &r->err);
	/* Hung, or cut off with its host before that was known: killed,
	 * not reaped.  It no longer counts, or the job would wait for it
	 * forever: its exit, if it comes, matches no process. */
	if (r->state == R_RUNNING && r->pid > 0)
		l->running--;
	if (r->conn != NULL) {
		r->conn->closed = 1;
		r->conn = NULL;
	}
	/* Its socket's name is the new one's (ft_pt_new). */
	snprintf(path, sizeof(path), "%s/r%u.sock", l->dir, i);
	(void)unlink(path);
	r->incarnation++;
	r->pid = 0;
	r->state = R_RUNNING;
	r->registered = r->finalized = r->killed = r->aborted = 0;
	r->doomed = r->sent_sig = r->stopped = r->hung = 0;
	r->hb_last = r->hb_completed = r->hb_progress_at = 0;
	r->hb_flags = r->hb_state_ms = 0;
	memset(&r->addr, 0, sizeof(r->addr));
	l->restarts++;
	if (r->remote) {
		remote_restart(l, i);
		return;
	}
	if (ft__l_spawn(l, i, l->prog, l->origmask, &errfd) != 0) {
		ft_error("unable to restart %s", ft__l_who(l, i, name,
		    sizeof(name)));
		r->state = R_EXITED;
		ft__l_abort_job(l, FT_EXIT_TEMP);
		return;
	}
	do
		got = read(errfd, &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close(errfd);
	if (got == (ssize_t)sizeof(e)) {
		ft_errorx("unable to restart '%s': %s", l->cf->argv[0],
		    strerror(e));
		r->aborted = 1;
		ft__l_abort_job(l, e == ENOENT ? 127 : 126);
		return;
	}
	ft__l_event(l, "\"event\":\"restart\",\"rank\":%u,\"pid\":%d,"
	    "\"incarnation\":%u", i, (int)r->pid, r->incarnation);
}

/*
 * --ft vlog: process i died by a signal (or hung, or was lost with its
 * host).  The others learn it from a view and go on; it is started
 * again at once.  A process that exited by itself with an error, or
 * after MPI_Finalize was answered, is no failure to recover from.
 */
static int
vlog_failed(struct launcher *l, uint32_t i, const char *how, const char *seen)
{
	struct lrank *r = &l->ranks[i];
	uint64_t t0 = ft_now_ns();
	char name[48];

	if (!(WIFSIGNALED(r->status) || r->hung || r->lost))
		return -1;
	r->died_ns = ft_now_ns();
	goes_on_without(l, i, how, t0);
	/* Its next incarnation finalizes anew. */
	r->finalized = 0;
	if (r->incarnation >= VLOG_RESTARTS_MAX) {
		ft_warnx("%s (pid %d) %s%s for the %uth time; aborting the "
		    "job", ft__l_who(l, i, name, sizeof(name)), (int)r->pid,
		    how, seen, r->incarnation + 1);
		failed_too_often(l, i);
		return 0;
	}
	ft_warnx("%s (pid %d) %s%s; restarting it (--ft vlog)",
	    ft__l_who(l, i, name, sizeof(name)), (int)r->pid, how, seen);
	restart_process(l, i);
	return 0;
}

/* --ft coord: every process of the job is gone; start them all again. */
static void
coord_restart_all(struct launcher *l)
{
	struct lrank *r;
	uint64_t out, err;
	uint32_t k;

	l->registered = l->finalized = 0;
	l->ndead = 0;
	l->table_sent = 0;
	l->unjoined = -1;
	for (k = 0; k < l->n; k++) {
		r = &l->ranks[k];
		r->dead = 0;
		/* What the dead generation did after it never happened. */
		ft__coord_cut_truncate(&r->ck_cuts, l->coord.target);
		if (ft__coord_cut_get(&r->ck_cuts, l->coord.target, &out,
		    &err) != 0)
			out = err = 0;	/* not reached: checked before */
		restart_process(l, k);
		if (l->aborting)
			return;
		/* It prints again from there: what was shown is not. */
		r->out.off = out;
		r->err.off = err;
	}
	/* The scheduler goes on from there. */
	ft__coord_sched_reset(&l->coord, l->coord.target);
	ft__l_event(l, "\"event\":\"rollback\",\"epoch\":%llu,\"ms\":%.3f",
	    (unsigned long long)l->coord.target,
	    (double)(ft_now_ns() - l->coord.failed_ns) / 1e6);
	l->coord.rolling = 0;
}

/* --ft coord: a process is reaped while the job rolls back. */
static void
coord_reaped(struct launcher *l)
{
	/* Across hosts, restarts asked for before are killed once started. */
	if (l->running == 0 && l->respawning == 0)
		coord_restart_all(l);
}

/*
 * --ft coord: process i died by a signal (or hung).  Every rank rolls
 * back to the newest complete global checkpoint: the others are
 * killed, and once all are reaped, all start again from it (or from
 * the beginning when there is none yet).
 */
static int
coord_failed(struct launcher *l, uint32_t i, const char *how, const char *seen)
{
	struct lrank *r = &l->ranks[i];
	uint64_t out, err;
	char name[48];
	uint32_t k;

	if (!(WIFSIGNALED(r->status) || r->hung || r->lost))
		return -1;
	if (l->coord.rolling) {
		coord_reaped(l);
		return 0;
	}
	failure_events(l, i, how, ft_now_ns());
	if (++l->coord.rollbacks > FT__COORD_ROLLBACKS_MAX) {
		ft_warnx("%s (pid %d) %s%s; %u rollbacks already: aborting "
		    "the job", ft__l_who(l, i, name, sizeof(name)), (int)r->pid,
		    how, seen, FT__COORD_ROLLBACKS_MAX);
		return -1;
	}
	/* Every rank must know where its output stood then. */
	for (k = 0; k < l->n; k++)
		if (ft__coord_cut_get(&l->ranks[k].ck_cuts, l->coord.complete,
		    &out, &err) != 0) {
			ft_warnx("%s (pid %d) %s%s; rank %u's output at epoch "
			    "%llu is not known: aborting the job",
			    ft__l_who(l, i, name, sizeof(name)), (int)r->pid,
			    how, seen, k,
			    (unsigned long long)l->coord.complete);
			return -1;
		}
	l->coord.target = l->coord.complete;
	l->coord.rolling = 1;
	l->coord.err_at = 0;	/* the error was the death's */
	l->coord.nrestored = 0;
	l->coord.restore_us = 0;
	ft__coord_auto_failed(&l->coord, l->coord.failed_ns);
	l->coord.failed_ns = ft_now_ns();
	if (l->coord.target > 0)
		ft_warnx("%s (pid %d) %s%s; every rank rolls back to epoch "
		    "%llu (--ft coord)", ft__l_who(l, i, name, sizeof(name)),
		    (int)r->pid, how, seen,
		    (unsigned long long)l->coord.target);
	else
		ft_warnx("%s (pid %d) %s%s; no complete checkpoint yet: every "
		    "rank starts again (--ft coord)", ft__l_who(l, i, name,
		    sizeof(name)), (int)r->pid, how, seen);
	for (k = 0; k < l->n; k++)
		if (l->ranks[k].state == R_RUNNING && l->ranks[k].pid > 0) {
			l->ranks[k].sent_sig = SIGKILL;
			ft__l_proc_signal(l, k, SIGKILL);
		}
	coord_reaped(l);
	return 0;
}

/* --ft ftmpi --comm-mode rebuild: new processes in one rank's place. */
#define REBUILD_RESPAWNS_MAX	8

/*
 * --ft ftmpi --comm-mode rebuild: process i failed before MPI_Finalize.
 * The survivors hear of it (a view) and rebuild MPI_COMM_WORLD with a
 * new process in its place, started at once by the path vlog uses
 * (restart_process; it joins with process_rejoined).  It runs the
 * program from the start, so its output is all new: none of it is
 * taken for what the failed one printed.
 */
static int
rebuild_failed(struct launcher *l, uint32_t i, const char *how,
    const char *seen)
{
	struct lrank *r = &l->ranks[i];
	uint64_t t0 = ft_now_ns();
	char name[48];

	if (r->finalized)
		return -1;
	goes_on_without(l, i, how, t0);
	if (r->incarnation >= REBUILD_RESPAWNS_MAX) {
		ft_warnx("%s (pid %d) %s%s, and was started %u times in its "
		    "place already (--comm-mode rebuild); aborting the job",
		    ft__l_who(l, i, name, sizeof(name)), (int)r->pid, how, seen,
		    r->incarnation);
		failed_too_often(l, i);
		return 0;
	}
	ft_warnx("%s (pid %d) %s%s; starting a new process in its place "
	    "(--comm-mode rebuild)", ft__l_who(l, i, name, sizeof(name)),
	    (int)r->pid, how, seen);
	restart_process(l, i);
	r->out.off = l->printed[2 * (size_t)r->rank];
	r->err.off = l->printed[2 * (size_t)r->rank + 1];
	return 0;
}

/*
 * Process i failed; how says how ("was killed by signal 9 (Killed)").
 * Replicated, its rank goes on while a replica lives; else the job
 * ends, naming it.  A process we killed because it fell silent makes
 * the job's status 128+SIGKILL, as its death would have.
 */
void
ft__l_process_failed(struct launcher *l, uint32_t i, const char *how)
{
	struct lrank *r = &l->ranks[i];
	const char *seen = r->hung || r->lost ? "" : r->remote ?
	    ", detected by waitpid on its host" :
	    ", detected by waitpid on this host";
	int status = r->hung ? 128 + SIGKILL : -1;
	char name[48];

	if (l->vlog && l->table_sent && !l->aborting &&
	    vlog_failed(l, i, how, seen) == 0)
		return;
	if (l->coord.on && !l->aborting && (l->table_sent ||
	    l->coord.rolling) && coord_failed(l, i, how, seen) == 0)
		return;
	if (l->rebuild && l->table_sent && !l->aborting && !r->dead &&
	    rebuild_failed(l, i, how, seen) == 0)
		return;
	if (l->ulfm && l->table_sent && !r->dead) {
		/* Past MPI_Finalize it is no failure: its status counts. */
		if (!r->finalized)
			ulfm_failed(l, i, how, seen);
		return;
	}

	if (l->nrep > 1) {
		if (replica_failed(l, i, how) == 0)
			return;
		if (!l->table_sent) {
			ft_warnx("rank %u replica %u (pid %d) %s before every "
			    "process joined the job; aborting the job", r->rank,
			    r->replica, (int)r->pid, how);
			ft__l_event(l, "\"event\":\"abort\",\"rank\":%u,"
			    "\"reason\":\"a replica of rank %u %s before the "
			    "job started\"", r->rank, r->rank, how);
			ft__l_abort_job(l, status);
			return;
		}
		ft_warnx("rank %u lost its last replica: replica %u (pid %d) "
		    "%s%s; aborting the job", r->rank, r->replica, (int)r->pid,
		    how, seen);
		ft__l_event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
		    "\"rank %u lost all %u replicas\"", r->rank, r->rank,
		    l->nrep);
		ft__l_abort_job(l, status);
		return;
	}
	rank_failed(l, i, how);
	ft_warnx("%s (pid %d) %s%s; aborting the job", ft__l_who(l, i, name,
	    sizeof(name)), (int)r->pid, how, seen);
	ft__l_event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
	    "\"rank %u %s\"", i, i, how);
	ft__l_abort_job(l, status);
}

/* A rank has exited: record it and decide whether the job goes on. */
void
ft__l_rank_exited(struct launcher *l, uint32_t i, int st)
{
	struct lrank *r = &l->ranks[i];
	char how[128], rep[32], name[48];

	r->state = R_EXITED;
	r->status = st;
	r->stopped = 0;
	l->running--;
	/* What it said before it exited (ABORT, FINALIZE) may still be in
	 * its connection, unread: it decides how the exit reads. */
	if (r->conn != NULL && !r->conn->closed)
		ft__l_lconn_read(l, r->conn);
	/* A SPAWN among it may have moved the table. */
	r = &l->ranks[i];
	(void)ft__l_replica_field(l, r, rep, sizeof(rep));
	if (WIFSIGNALED(st))
		ft__l_event(l, "\"event\":\"exit\",\"rank\":%u,%s\"pid\":%d,"
		    "\"signal\":%d", r->rank, rep, (int)r->pid,
		    WTERMSIG(st));
	else
		ft__l_event(l, "\"event\":\"exit\",\"rank\":%u,%s\"pid\":%d,"
		    "\"status\":%d", r->rank, rep, (int)r->pid,
		    WEXITSTATUS(st));
	/* A spawn that this process was part of fails with it. */
	if (r->spec != NULL && ft__spawn_exited(l->sp, i))
		return;
	/* --ft coord: killed to roll back, or died meanwhile. */
	if (l->coord.rolling && !l->aborting) {
		coord_reaped(l);
		return;
	}
	/* Declared failed when it fell silent, or ended the job itself. */
	if (r->hung || r->aborted)
		return;
	ft__l_describe_status(st, how, sizeof(how));
	if (l->aborting) {
		/*
		 * A death while the job ends may be what ended it: a
		 * survivor's error on the dead connection can reach us
		 * first.  Name it; job_status makes it the status.
		 */
		if (!l->user_signal && !r->dead && !ft__l_ended_by_us(r) &&
		    !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			rank_failed(l, i, how);
			ft_warnx("%s (pid %d) %s, detected by waitpid on this "
			    "host", ft__l_who(l, i, name, sizeof(name)),
			    (int)r->pid, how);
		}
		return;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		if (!r->registered && l->unjoined < 0) {
			l->unjoined = (int)i;
			if (l->registered > 0)
				ft__l_unjoinable(l, i);
			return;
		}
		if (!r->registered || r->finalized)
			return;
		if (l->ulfm && l->table_sent) {
			ft__l_process_failed(l, i, "exited without calling "
			    "MPI_Finalize");
			return;
		}
		ft_warnx("%s (pid %d) exited without calling "
		    "MPI_Finalize; aborting the job",
		    ft__l_who(l, i, name, sizeof(name)), (int)r->pid);
		ft__l_event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
		    "\"rank %u exited without calling MPI_Finalize\"",
		    r->rank, r->rank);
		ft__l_abort_job(l, 1);
		return;
	}
	if (r->injected && WIFSIGNALED(st))
		/* The after-sends kills happen in the process itself. */
		ft__l_event(l, "\"event\":\"inject\",\"rank\":%u,"
		    "\"replica\":%u,\"pid\":%d,\"trigger\":"
		    "\"after-sends\"", r->rank, r->replica, (int)r->pid);
	ft__l_process_failed(l, i, how);
}

/* A process was stopped by a signal, or continued: say so at once. */
void
ft__l_rank_stopped(struct launcher *l, uint32_t i, int st)
{
	struct lrank *r = &l->ranks[i];
	char name[48], rep[32], silent[32];

	(void)ft__l_replica_field(l, r, rep, sizeof(rep));
	if (WIFCONTINUED(st)) {
		if (!r->stopped)
			return;
		r->stopped = 0;
		ft__l_event(l, "\"event\":\"continued\",\"rank\":%u,%s"
		    "\"pid\":%d", r->rank, rep, (int)r->pid);
		return;
	}
	r->stopped = WSTOPSIG(st);
	ft__l_event(l, "\"event\":\"stopped\",\"rank\":%u,%s\"pid\":%d,"
	    "\"signal\":%d", r->rank, rep, (int)r->pid, WSTOPSIG(st));
	if (l->cf->hang_ns == 0 || r->hb_last == 0)
		ft_warnx("%s (pid %d) was stopped by signal %d (%s); the job "
		    "waits for it", ft__l_who(l, i, name, sizeof(name)),
		    (int)r->pid, WSTOPSIG(st), strsignal(WSTOPSIG(st)));
	else
		ft_warnx("%s (pid %d) was stopped by signal %d (%s); it is "
		    "killed if it stays silent for %s", ft__l_who(l, i, name,
		    sizeof(name)), (int)r->pid, WSTOPSIG(st),
		    strsignal(WSTOPSIG(st)), ft_fmt_duration(l->cf->hang_ns,
		    silent, sizeof(silent)));
}

void
ft__l_reap_children(struct launcher *l)
{
	uint32_t i;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG | WUNTRACED | WCONTINUED)) >
	    0) {
		if (pid == l->logger.pid) {
			if (!WIFSTOPPED(st) && !WIFCONTINUED(st))
				ft__l_logger_died(l, st);
			continue;
		}
		if (pid == l->ckserver.pid) {
			if (!WIFSTOPPED(st) && !WIFCONTINUED(st))
				ft__l_ckserver_died(l, st);
			continue;
		}
		for (i = 0; i < l->n; i++) {
			if (l->ranks[i].pid != pid ||
			    l->ranks[i].state != R_RUNNING)
				continue;
			if (WIFSTOPPED(st) || WIFCONTINUED(st))
				ft__l_rank_stopped(l, i, st);
			else
				ft__l_rank_exited(l, i, st);
			break;
		}
	}
}

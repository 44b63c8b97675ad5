/* SPDX-License-Identifier: ISC */
/*
 * Heartbeats: hang detection (--hang-timeout), and what the --timeout
 * message says of each process.
 */
#include "launch_impl.h"

/*
 * A silence during which we did not run ourselves (ftrun stopped, or
 * starved on a loaded host) is not the processes' fault: their beats
 * may have been dropped on a full pipe meanwhile.  The pipe is readable
 * every period, so a longer gap between two reads is our delay.
 */
static void
excuse_own_delay(struct launcher *l)
{
	uint64_t now = ft_now_ns(), late;
	uint32_t i;

	if (l->hb_read_at != 0 && now - l->hb_read_at > 2 * l->hb_period_ns) {
		late = now - l->hb_read_at - l->hb_period_ns;
		for (i = 0; i < l->n; i++)
			if (l->ranks[i].hb_last != 0)
				l->ranks[i].hb_last = l->ranks[i].hb_last +
				    late < now ? l->ranks[i].hb_last + late :
				    now;
	}
	l->hb_read_at = now;
}

/* A beat of process rec->id, read (or received from its agent) now. */
void
ft__l_hb_note(struct launcher *l, const struct ft_hb_rec *rec, uint64_t now)
{
	struct lrank *r;

	if (rec->id >= l->n)
		return;
	r = &l->ranks[rec->id];
	if (r->state != R_RUNNING || r->dead || r->hung)
		return;
	l->hb_beats++;
	if (r->hb_last != 0 && now - r->hb_last > l->hb_maxgap_ns) {
		l->hb_maxgap_ns = now - r->hb_last;
		l->hb_maxgap_id = rec->id;
	}
	if (r->hb_last == 0 || rec->completed != r->hb_completed)
		r->hb_progress_at = now;
	r->hb_last = now;
	r->hb_completed = rec->completed;
	r->hb_flags = rec->flags;
	r->hb_state_ms = rec->state_ms;
}

/*
 * Heartbeats: read every record in the pipe.  A beat stamps its process
 * with the time we read it, so a launcher that was itself late (loaded
 * machine, stopped ftrun) finds everyone's queued beats fresh.
 */
void
ft__l_read_heartbeats(struct launcher *l)
{
	struct ft_hb_rec rec;
	uint64_t now;
	size_t used;
	ssize_t got;

	if (l->hb_fd == -1)
		return;
	excuse_own_delay(l);
	for (;;) {
		got = read(l->hb_fd, l->hb_buf + l->hb_len,
		    sizeof(l->hb_buf) - l->hb_len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return;
		l->hb_len += (size_t)got;
		now = ft_now_ns();
		while (ft_hb_decode(l->hb_buf, l->hb_len, &used, &rec) == 1) {
			memmove(l->hb_buf, l->hb_buf + used, l->hb_len - used);
			l->hb_len -= used;
			ft__l_hb_note(l, &rec, now);
		}
		memmove(l->hb_buf, l->hb_buf + used, l->hb_len - used);
		l->hb_len -= used;
	}
}

/*
 * Fail-stop: a process silent for the hang timeout is killed with
 * SIGKILL, its whole process group with it, and handled as a crash at
 * once, before it is reaped: a process stuck in the kernel may take a
 * while to die, and must not come back as a zombie replica meanwhile.
 */
void
ft__l_check_hangs(struct launcher *l)
{
	struct lrank *r;
	char how[96], silent[32], rep[32];
	uint64_t now;
	uint32_t i;

	if (l->cf->hang_ns == 0 || l->aborting)
		return;
	ft__l_read_heartbeats(l);
	now = ft_now_ns();
	for (i = 0; i < l->n && !l->aborting; i++) {
		r = &l->ranks[i];
		if (r->state != R_RUNNING || r->dead || r->hung ||
		    r->hb_last == 0 || now - r->hb_last < l->cf->hang_ns)
			continue;
		r->hung = 1;
		ft__l_proc_signal(l, i, SIGKILL);
		snprintf(how, sizeof(how), "sent no heartbeat for %s%s; "
		    "killed with SIGKILL", ft_fmt_duration(now - r->hb_last,
		    silent, sizeof(silent)), r->stopped ? " (stopped)" : "");
		ft__l_event(l, "\"event\":\"hang\",\"rank\":%u,%s\"pid\":%d,"
		    "\"silent_ms\":%llu", r->rank, ft__l_replica_field(l, r,
		    rep, sizeof(rep)), (int)r->pid, (unsigned long long)((now -
		    r->hb_last) / 1000000));
		ft__l_process_failed(l, i, how);
	}
}

/*
 * The heartbeat pipe: one for the job, the write end inherited by every
 * process, non-blocking at both ends.  Room for several rounds of beats
 * of every process, so a late launcher loses none.
 */
int
ft__l_open_heartbeats(struct launcher *l)
{
	int p[2];

	if (ft__hb_pipe(l->n, p) != 0)
		return -1;
	l->hb_fd = p[0];
	l->hb_wfd = p[1];
	/* Ten beats a timeout: a process is declared hung after missing
	 * ten in a row, never for one late wake-up. */
	l->hb_period_ns = l->cf->hang_ns / 10;
	if (l->hb_period_ns < 10000000u)
		l->hb_period_ns = 10000000u;
	if (l->hb_period_ns > 1000000000u)
		l->hb_period_ns = 1000000000u;
	return 0;
}

/* The longest silence of a live process: what the hang timeout must
 * exceed on this host (see ftrun(1), --hang-timeout). */
void
ft__l_heartbeat_event(struct launcher *l)
{
	char rep[32];

	ft__l_read_heartbeats(l);
	if (l->hb_beats == 0)
		return;
	ft__l_event(l, "\"event\":\"heartbeats\",\"beats\":%llu,\"period_ms\":"
	    "%llu,\"max_gap_ms\":%.3f,\"rank\":%u,%s\"timeout_ms\":%llu",
	    (unsigned long long)l->hb_beats,
	    (unsigned long long)(l->hb_period_ns / 1000000),
	    (double)l->hb_maxgap_ns / 1e6, l->ranks[l->hb_maxgap_id].rank,
	    ft__l_replica_field(l, &l->ranks[l->hb_maxgap_id], rep,
	    sizeof(rep)),
	    (unsigned long long)(l->cf->hang_ns / 1000000));
}

/* When the next process falls silent for the hang timeout, or 0. */
uint64_t
ft__l_next_hang_check(const struct launcher *l)
{
	const struct lrank *r;
	uint64_t w = 0;
	uint32_t i;

	if (l->cf->hang_ns == 0 || l->aborting)
		return 0;
	for (i = 0; i < l->n; i++) {
		r = &l->ranks[i];
		if (r->state != R_RUNNING || r->dead || r->hung ||
		    r->hb_last == 0)
			continue;
		if (w == 0 || r->hb_last + l->cf->hang_ns < w)
			w = r->hb_last + l->cf->hang_ns;
	}
	return w;
}

/*
 * What process i was doing, for the --timeout message: "" when it made
 * progress lately or we cannot tell (it never beat).
 */
static void
progress_note(const struct launcher *l, uint32_t i, uint64_t now,
    uint64_t window, char *out, size_t size)
{
	const struct lrank *r = &l->ranks[i];
	uint64_t in_state;
	char d[32];

	out[0] = '\0';
	if (r->stopped) {
		snprintf(out, size, "stopped by signal %d", r->stopped);
		return;
	}
	if (r->hb_last == 0 || now - r->hb_progress_at < window)
		return;
	/* As of the last beat, plus the time since. */
	in_state = (uint64_t)r->hb_state_ms * 1000000 + (now - r->hb_last);
	snprintf(out, size, "%s for %s", (r->hb_flags & FT_HB_FINALIZED) ?
	    "after MPI_Finalize" : (r->hb_flags & FT_HB_IN_MPI) ?
	    "waiting in MPI" : "outside MPI", ft_fmt_duration(in_state, d,
	    sizeof(d)));
}

/*
 * The timeout names the processes that were not progressing (no MPI
 * operation completed in the last half of the timeout, at most the
 * hang timeout), and says what each was doing; processes that never
 * beat (not MPI programs, or no heartbeats) are listed as running.
 */
void
ft__l_on_timeout(struct launcher *l)
{
	char stuck[2048], running[1024], all[1024], note[160], name[48],
	    id[24];
	size_t so = 0, ro = 0, ao = 0;
	uint64_t now, window;
	uint32_t i, nprog = 0;

	ft__l_read_heartbeats(l);
	now = ft_now_ns();
	window = l->cf->timeout_ns / 2;
	if (l->cf->hang_ns != 0 && window > l->cf->hang_ns)
		window = l->cf->hang_ns;
	stuck[0] = running[0] = all[0] = '\0';
	for (i = 0; i < l->n; i++) {
		const struct lrank *r = &l->ranks[i];

		if (r->state != R_RUNNING || r->dead)
			continue;
		if (l->nrep > 1)
			snprintf(id, sizeof(id), "%u.%u", r->rank, r->replica);
		else
			snprintf(id, sizeof(id), "%u", i);
		ft_appendf(all, sizeof(all), &ao, "%s%s", ao > 0 ? " " : "",
		    id);
		progress_note(l, i, now, window, note, sizeof(note));
		if (note[0] != '\0')
			ft_appendf(stuck, sizeof(stuck), &so, "%s%s (%s)",
			    so > 0 ? ", " : "", ft__l_who(l, i, name,
			    sizeof(name)), note);
		else if (r->hb_last != 0)
			nprog++;
		else
			ft_appendf(running, sizeof(running), &ro, "%s%s",
			    ro > 0 ? " " : "", id);
	}
	if (so == 0 && nprog == 0)
		ft_warnx("the job timed out after %.3gs; ranks still running: "
		    "%s", (double)l->cf->timeout_ns / 1e9, running);
	else
		ft_warnx("the job timed out after %.3gs; %s%s%s%s%s%s",
		    (double)l->cf->timeout_ns / 1e9,
		    so > 0 ? "not progressing: " : "every MPI process was "
		    "progressing", stuck, ro > 0 ? "; not in MPI, still "
		    "running: " : "", running, nprog > 0 && so > 0 ?
		    "; the others were progressing" : "", "");
	ft__l_event(l, "\"event\":\"abort\",\"reason\":\"timeout\","
	    "\"running\":\"%s\"", all);
	ft__l_abort_job(l, FT_LAUNCH_TIMEOUT_STATUS);
}

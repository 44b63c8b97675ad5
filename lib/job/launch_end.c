/* SPDX-License-Identifier: ISC */
/*
 * How the job ends: signals to its processes, aborting it (a rank's
 * ABORT, a rank that never joined), and its exit status as mpirun's.
 */
#include "launch_impl.h"

/* Signal process i's group, here or through the agent of its host. */
void
ft__l_proc_signal(struct launcher *l, uint32_t i, int sig)
{
	struct lrank *r = &l->ranks[i];

	if (r->remote)
		ft__remote_signal(l->rm, i, sig);
	else if (killpg(r->pid, sig) != 0)
		(void)kill(r->pid, sig);
}

/* Kill every running rank's process group with sig. */
void
ft__l_signal_ranks(struct launcher *l, int sig, int mark_killed)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		if (l->ranks[i].state != R_RUNNING || l->ranks[i].pid <= 0)
			continue;
		/* A rank that asked for the abort exits with its code on
		 * its own; only SIGKILL, after the grace period, is for it. */
		if (l->ranks[i].aborted && sig != SIGKILL)
			continue;
		if (mark_killed)
			l->ranks[i].killed = 1;
		l->ranks[i].sent_sig = sig;
		ft__l_proc_signal(l, i, sig);
	}
}

/*
 * Did process i end because of us (a signal we sent while ending the
 * job, or its own ABORT), rather than by itself?  A process we sent
 * SIGTERM that died of SIGKILL before the grace period ran out was
 * killed by someone else: that death is a cause, not a consequence.
 */
int
ft__l_ended_by_us(const struct lrank *r)
{
	if (r->aborted)
		return 1;
	if (!r->killed)
		return 0;
	if (WIFSIGNALED(r->status))
		return WTERMSIG(r->status) == r->sent_sig ||
		    WTERMSIG(r->status) == SIGTERM;
	return 1;
}

/* Start ending the job: SIGTERM now, SIGKILL after the grace period. */
void
ft__l_abort_job(struct launcher *l, int status)
{
	if (l->aborting)
		return;
	l->aborting = 1;
	l->abort_status = status;
	ft__l_signal_ranks(l, SIGTERM, 1);
	l->kill_at = ft_now_ns() + l->cf->grace_ns;
}

/*
 * Rank i ended without joining the job while others have joined (or
 * will): those wait in MPI_Init for a table that can never be complete.
 */
void
ft__l_unjoinable(struct launcher *l, uint32_t i)
{
	char name[48];

	ft_warnx("%s (pid %d) exited without calling MPI_Init, and the "
	    "ranks that did wait for it; aborting the job",
	    ft__l_who(l, i, name, sizeof(name)), (int)l->ranks[i].pid);
	ft__l_event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
	    "\"rank %u exited without calling MPI_Init\"", l->ranks[i].rank,
	    l->ranks[i].rank);
	ft__l_abort_job(l, 1);
}

/* Rank r aborted the job (ABORT): with its code, or 1. */
void
ft__l_rank_aborted(struct launcher *l, struct lrank *r,
    const struct ft_msg_abort *ab)
{
	char reason[2 * FT_WIRE_TEXT_MAX], name[48];
	char shown[4 * FT_WIRE_TEXT_MAX + 1];

	/* It exits by itself, with its code. */
	r->aborted = 1;
	ft__l_json_quote(ab->reason[0] != '\0' ? ab->reason : "MPI_Abort",
	    reason, sizeof(reason));
	/* An empty reason is MPI_Abort's: the program chose to end. */
	if (ab->reason[0] == '\0')
		ft_warnx("%s (pid %d) called MPI_Abort with code %d",
		    ft__l_who(l, r - l->ranks, name, sizeof(name)),
		    (int)r->pid, ab->code);
	else
		ft_warnx("%s (pid %d) aborted the job with code %d: %s",
		    ft__l_who(l, r - l->ranks, name, sizeof(name)),
		    (int)r->pid, ab->code, ft_vis(shown, sizeof(shown),
		    ab->reason));
	ft__l_event(l, "\"event\":\"abort\",\"rank\":%u,\"code\":%d,"
	    "\"reason\":\"%s\"", r->rank, ab->code, reason);
	/* An error may be the consequence of a death we have not
	 * reaped yet: job_status lets such a death win. */
	if (!l->aborting)
		l->abort_is_error = ab->reason[0] != '\0';
	/* An abort never reads as success, whatever its code. */
	ft__l_abort_job(l, (ab->code & 0xff) != 0 ? ab->code & 0xff : 1);
}

int
ft__l_job_status(struct launcher *l)
{
	const struct lrank *r;
	uint32_t i;

	/* The program chose the end (MPI_Abort), or ftrun did. */
	if (l->abort_status >= 0 && !l->abort_is_error)
		return l->abort_status;
	/*
	 * Otherwise the lowest rank that failed by itself decides: a death
	 * wins over the errors it causes in others.  Ranks we ended while
	 * aborting do not decide; but when the user signalled the job, the
	 * ranks' own answer to that signal is the status.
	 */
	for (i = 0; i < l->n; i++) {
		r = &l->ranks[i];
		if ((!l->user_signal && ft__l_ended_by_us(r)) ||
		    r->state != R_EXITED || r->dead)
			continue;
		if (WIFSIGNALED(r->status))
			return 128 + WTERMSIG(r->status);
		if (WEXITSTATUS(r->status) != 0)
			return WEXITSTATUS(r->status);
	}
	if (l->abort_status >= 0)
		return l->abort_status;
	/* --ft ulfm with no survivor: the lowest rank's death, as mpirun. */
	if (l->ulfm && l->ndead == l->n && l->n > 0) {
		r = &l->ranks[0];
		if (WIFSIGNALED(r->status))
			return 128 + WTERMSIG(r->status);
		return WEXITSTATUS(r->status) != 0 ?
		    WEXITSTATUS(r->status) : 1;
	}
	return l->aborting && !l->user_signal ? 1 : 0;
}

/*
 * At the end of the job, what the ranks started dies with them: every
 * rank leads its own process group, and the group lives on while a
 * member does, even after its leader was reaped.
 */
void
ft__l_kill_leftovers(struct launcher *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->ranks[i].pid > 0 && (!l->ranks[i].remote ||
		    l->ranks[i].state == R_RUNNING))
			ft__l_proc_signal(l, i, SIGKILL);
}

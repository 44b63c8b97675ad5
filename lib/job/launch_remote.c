/* SPDX-License-Identifier: ISC */
/*
 * Across hosts (--host): the agents' reports on their processes,
 * each handled as the same event of a local process.
 */
#include "launch_impl.h"

/*
 * Across hosts (cf->hosts): the agents report what their processes do,
 * and each report goes where the same event of a local process goes.
 */
static void
remote_started(void *arg, uint32_t i, pid_t pid, int err, const char *host)
{
	struct launcher *l = arg;
	struct lrank *r = &l->ranks[i];
	char rep[32], name[48];

	if (r->incarnation > 0 && r->pid <= 0 && l->respawning > 0)
		l->respawning--;
	if (pid <= 0) {
		errno = err;
		ft_error("unable to start %s on host '%s'", ft__l_who(l, i,
		    name, sizeof(name)), host);
		ft__l_abort_job(l, FT_EXIT_TEMP);
		return;
	}
	r->pid = pid;
	l->running++;
	/* Asked for before the job began to end, or to roll back again. */
	if (l->aborting || (l->coord.on && l->coord.rolling)) {
		/* Ended by us, as the ranks ft__l_abort_job signalled: a
		 * process that started after the abort (its host was slower)
		 * must not read as a failure of its own, nor its SIGKILL as
		 * the job's status. */
		if (l->aborting)
			r->killed = 1;
		r->sent_sig = SIGKILL;
		ft__l_proc_signal(l, i, SIGKILL);
	}
	if (r->incarnation > 0)
		ft__l_event(l, "\"event\":\"restart\",\"rank\":%u,\"pid\":%d,"
		    "\"incarnation\":%u,\"host\":\"%s\"", i, (int)pid,
		    r->incarnation, host);
	ft__l_event(l, "\"event\":\"spawn\",\"rank\":%u,%s\"pid\":%d,"
	    "\"host\":\"%s\"", r->rank, ft__l_replica_field(l, r, rep,
	    sizeof(rep)), (int)pid, host);
	/* As a local exec error read from its pipe: the job cannot run. */
	if (err != 0 && !l->exec_failed) {
		l->exec_failed = 1;
		ft_errorx("unable to run '%s' on host '%s': %s", l->cf->argv[0],
		    host, strerror(err));
		ft__l_event(l, "\"event\":\"abort\",\"rank\":%u,\"reason\":"
		    "\"exec failed\"", r->rank);
		ft__l_abort_job(l, err == ENOENT ? 127 : 126);
	}
}

static void
remote_output(void *arg, uint32_t i, int stream, const uint8_t *p,
    size_t len, int eof)
{
	struct launcher *l = arg;
	struct outbuf *o = stream ? &l->ranks[i].err : &l->ranks[i].out;
	size_t n;

	while (len > 0) {
		n = LINE_MAX_FWD - o->len < len ? LINE_MAX_FWD - o->len : len;
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		p += n;
		len -= n;
		ft__l_flush_lines(l, i, o, 0);
	}
	if (eof)
		ft__l_flush_lines(l, i, o, l->nrep == 1);
}

static void
remote_status(void *arg, uint32_t i, int st)
{
	struct launcher *l = arg;

	if (l->ranks[i].state != R_RUNNING || l->ranks[i].pid <= 0)
		return;
	if (WIFSTOPPED(st) || WIFCONTINUED(st))
		ft__l_rank_stopped(l, i, st);
	else
		ft__l_rank_exited(l, i, st);
}

static void
remote_beat(void *arg, const struct ft_hb_rec *rec)
{
	ft__l_hb_note(arg, rec, ft_now_ns());
}

static void
remote_staged(void *arg, uint32_t host, uint32_t cached, uint32_t received,
    uint32_t fetched)
{
	struct launcher *l = arg;

	ft__l_event(l, "\"event\":\"stage\",\"host\":\"%s\",\"cached\":%u,"
	    "\"received\":%u,\"fetched\":%u", l->cf->hosts[host].name,
	    cached, received, fetched);
}

/* A host is gone: every process of the job there failed with it. */
static void
remote_lost(void *arg, uint32_t host, const char *why)
{
	struct launcher *l = arg;
	struct lrank *r;
	char how[256];
	uint32_t i;

	snprintf(how, sizeof(how), "was lost with its host '%s' (%s)",
	    l->cf->hosts[host].name, why);
	ft__l_event(l, "\"event\":\"host\",\"host\":\"%s\",\"reason\":\"%s\"",
	    l->cf->hosts[host].name, why);
	for (i = 0; i < l->n; i++) {
		r = &l->ranks[i];
		if (!r->remote || r->host != host || r->state != R_RUNNING ||
		    (r->pid <= 0 && r->incarnation == 0))
			continue;
		r->lost = 1;
		r->state = R_EXITED;
		r->status = SIGKILL;
		/* A restart it was asked for is lost with it too. */
		if (r->pid > 0)
			l->running--;
		else if (l->respawning > 0)
			l->respawning--;
		if (r->hung || r->aborted || l->aborting)
			continue;
		ft__l_process_failed(l, i, how);
	}
}

/* The agents' callbacks, for ft__remote_start. */
void
ft__l_remote_cb(struct launcher *l, struct ft__remote_cb *rcb)
{
	*rcb = (struct ft__remote_cb){ l, remote_started, remote_output,
	    remote_status, remote_beat, remote_lost, remote_staged };
}

/* --ft vlog across hosts: every process learns the logger and job id. */
int
ft__l_remote_vlog_env(struct launcher *l)
{
	if (asprintf(&l->rm_env[0], "%s=%s", FT_ENV_LOG_ADDR,
	    l->log_addr) < 0 || asprintf(&l->rm_env[1], "%s=%016llx",
	    FT_ENV_JOB_ID, (unsigned long long)l->job_id) < 0)
		return -1;
	ft__remote_setenv(l->rm, l->rm_env, 2);
	return 0;
}

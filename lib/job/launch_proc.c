/* SPDX-License-Identifier: ISC */
/*
 * Starting the job's processes on this host: spawn one (its pipes,
 * environment and key); and for spawn.c, add processes to the running
 * job or cancel them, and what it may see of them.
 */
#include "launch_impl.h"

/*
 * Spawn rank i.  In the child: own process group, die with the
 * launcher (PR_SET_PDEATHSIG), signals as they were, stdio on pipes,
 * the key on an inherited pipe.  exec errors come back on errpipe.
 */
int
ft__l_spawn(struct launcher *l, uint32_t i, const char *prog,
    const sigset_t *origmask, int *errfd)
{
	int out[2], err[2], in[2] = { -1, -1 }, key[2], ep[2];
	int lkey[2] = { -1, -1 };
	const struct ft_launch_proc *spec = l->ranks[i].spec;
	char **argv = spec != NULL ? spec->argv : l->cf->argv;
	pid_t pid, parent = getpid();
	struct ft__rank_env re;
	struct ft__spawn sp;
	char *extra[FT__ENV_MAX], **env = extra;
	size_t nenv, k;
	int nextra;

	if (ft__l_pipe_cloexec(out) != 0 || ft__l_pipe_cloexec(err) != 0 ||
	    ft__l_pipe_cloexec(key) != 0 || ft__l_pipe_cloexec(ep) != 0)
		return -1;
	/* A restarted rank 0 reads nothing: its input went to the one
	 * before. */
	if (i < l->nrep && l->stdin_open && l->ranks[i].incarnation == 0 &&
	    ft__l_pipe_cloexec(in) != 0)
		return -1;
	if (write(key[1], l->key, sizeof(l->key)) != (ssize_t)sizeof(l->key))
		return -1;
	close(key[1]);
	/* --log-server: the logger's key, on a pipe of its own. */
	if (l->vlog && l->cf->log_key != NULL) {
		if (ft__l_pipe_cloexec(lkey) != 0)
			return -1;
		if (write(lkey[1], l->cf->log_key, FT_WIRE_KEYLEN) !=
		    FT_WIRE_KEYLEN)
			return -1;
		close(lkey[1]);
	}
	memset(&re, 0, sizeof(re));
	re.rank = spec != NULL ? spec->rank : l->ranks[i].rank;
	re.size = spec != NULL ? spec->size : l->nranks;
	re.universe = l->cf->universe > l->n0 ? l->cf->universe : l->n0;
	re.node = 0;
	re.nrep = l->nrep;
	re.replica = l->ranks[i].replica;
	re.launcher = l->addr;
	re.jobdir = l->dir;
	re.progname = l->progname;
	re.proto = l->cf->proto;
	re.keyfd = key[0];
	re.log_keyfd = lkey[0];
	re.hbfd = l->hb_wfd;
	re.hb_period_ns = l->hb_period_ns;
	re.force_tcp = l->cf->force_tcp;
	re.diverge = l->cf->check_divergence;
	l->ranks[i].injected = 0;
	if (spec == NULL && ft__inject_after_sends(l->cf,
	    l->ranks[i].incarnation, l->ranks[i].rank, l->ranks[i].replica,
	    &re.kill_after, &re.kill_signal))
		l->ranks[i].injected = 1;
	/* A restart of it (ckptsrv2) listens on the same address. */
	if (l->ckserver.pid > 0 || (l->ckserver.addr[0] != '\0' &&
	    !l->ckserver_gone)) {
		re.ckpt_server = l->ckserver.addr;
		re.ckpt_keyfile = l->ckkey;
	}
	if (l->coord.on && l->coord.rolling) {
		re.rollback = 1;
		re.rollback_epoch = l->coord.target;
	}
	re.incarnation = l->ranks[i].incarnation;
	if (l->vlog) {
		re.log_addr = l->log_addr;
		re.job_id = l->job_id;
	}
	if ((nextra = ft__rank_env(&re, extra)) < 0)
		return -1;
	/* A spawned process's own variables come last: they win. */
	nenv = (size_t)nextra;
	for (k = 0; spec != NULL && spec->env[k] != NULL; k++)
		;
	if (k > 0) {
		if ((env = calloc(nenv + k, sizeof(*env))) == NULL) {
			ft__env_free(extra, (size_t)nextra);
			return -1;
		}
		memcpy(env, extra, nenv * sizeof(*env));
		memcpy(env + nenv, spec->env, k * sizeof(*env));
		nenv += k;
	}
	fflush(NULL);
	if ((pid = fork()) == -1) {
		ft__env_free(extra, (size_t)nextra);
		if (env != extra)
			free(env);
		return -1;
	}
	if (pid == 0) {
		sp = (struct ft__spawn){ prog, argv, l->cf->setenv,
		    l->cf->nsetenv, env, nenv, in[0], out[1], err[1],
		    { key[0], l->hb_wfd, lkey[0] },
		    spec != NULL ? spec->wdir : NULL,
		    origmask, parent, ep[1] };
		ft__spawn_exec(&sp);
	}
	ft__env_free(extra, (size_t)nextra);
	if (env != extra)
		free(env);
	close(out[1]);
	close(err[1]);
	close(key[0]);
	if (lkey[0] != -1)
		close(lkey[0]);
	close(ep[1]);
	*errfd = ep[0];
	if (in[0] != -1) {
		close(in[0]);
		l->in_fds[i] = in[1];
		l->in_open++;
		ft__fd_nonblock(in[1]);
	}
	ft__fd_nonblock(out[0]);
	ft__fd_nonblock(err[0]);
	l->ranks[i].pid = pid;
	ft__l_watchdog_tell(l, pid);
	l->ranks[i].out.fd = out[0];
	l->ranks[i].err.fd = err[0];
	l->running++;
	if (l->nrep > 1)
		ft__l_event(l, "\"event\":\"spawn\",\"rank\":%u,\"replica\":%u,"
		    "\"pid\":%d", l->ranks[i].rank, l->ranks[i].replica,
		    (int)pid);
	else
		ft__l_event(l, "\"event\":\"spawn\",\"rank\":%u,\"pid\":%d", i,
		    (int)pid);
	return 0;
}

/* For spawn.c: adding processes to the running job, and what it sees */

int
ft__launch_add(struct launcher *l, const struct ft_launch_proc *procs,
    uint32_t n, uint32_t *first, uint32_t *failed)
{
	struct lrank *nr;
	uint64_t *np;
	uint32_t i, k, id;
	ssize_t got;
	int e, errfd;

	*first = l->n;
	*failed = 0;
	if ((nr = reallocarray(l->ranks, (size_t)l->n + n,
	    sizeof(*nr))) == NULL)
		return -1;
	l->ranks = nr;
	/* Output is counted per process: one process a rank here. */
	if ((np = reallocarray(l->printed, 2 * ((size_t)l->n + n),
	    sizeof(*np))) == NULL)
		return -1;
	l->printed = np;
	for (i = 0; i < n; i++) {
		id = l->n;
		memset(&l->ranks[id], 0, sizeof(l->ranks[id]));
		memset(&l->printed[2 * (size_t)id], 0, 2 * sizeof(*np));
		l->ranks[id].rank = id;
		l->ranks[id].spec = &procs[i];
		l->ranks[id].out = (struct outbuf){ -1, STDOUT_FILENO,
		    malloc(LINE_MAX_FWD), 0, 0 };
		l->ranks[id].err = (struct outbuf){ -1, STDERR_FILENO,
		    malloc(LINE_MAX_FWD), 0, 0 };
		l->n++;
		errfd = -1;
		if (l->ranks[id].out.buf == NULL ||
		    l->ranks[id].err.buf == NULL ||
		    ft__l_spawn(l, id, procs[i].prog, l->origmask,
		    &errfd) != 0) {
			/* Never started: it ends here, as if it had. */
			e = errno;
			l->ranks[id].state = R_EXITED;
			l->ranks[id].aborted = 1;
			if (errfd != -1)
				close(errfd);
			goto fail;
		}
		do
			got = read(errfd, &e, sizeof(e));
		while (got < 0 && errno == EINTR);
		close(errfd);
		if (got == (ssize_t)sizeof(e)) {
			/* Exec failed: it exits 127, and is reaped later. */
			l->ranks[id].aborted = 1;
			goto fail;
		}
	}
	return 0;
fail:
	*failed = i;
	for (k = 0; k < i; k++)
		ft__launch_cancel(l, *first + k, 1);
	errno = e;
	return -1;
}

void
ft__launch_cancel(struct launcher *l, uint32_t id, int kill_it)
{
	struct lrank *r = &l->ranks[id];

	/* Read as an abort of its own: no failure, not in the status. */
	r->aborted = 1;
	if (kill_it && r->state == R_RUNNING && r->pid > 0) {
		r->sent_sig = SIGKILL;
		if (killpg(r->pid, SIGKILL) != 0)
			(void)kill(r->pid, SIGKILL);
	}
}

void
ft__launch_send(struct launcher *l, uint32_t id, const struct ft_wbuf *wb)
{
	if (id < l->n && l->ranks[id].state == R_RUNNING)
		ft__l_send_frame(l->ranks[id].conn, wb);
}

unsigned int
ft__launch_state(const struct launcher *l, uint32_t id)
{
	const struct lrank *r = &l->ranks[id];
	unsigned int st = 0;

	if (r->registered)
		st |= FT_LS_REGISTERED;
	if (r->finalized)
		st |= FT_LS_FINALIZED;
	if (r->state == R_EXITED || r->dead || r->hung)
		st |= FT_LS_EXITED;
	if (id < l->n0 && l->table_sent)
		st |= FT_LS_TABLED;
	return st;
}

const struct ft_rank_addr *
ft__launch_addr(const struct launcher *l, uint32_t id)
{
	return &l->ranks[id].addr;
}

uint32_t
ft__launch_nprocs(const struct launcher *l)
{
	return l->n;
}

uint32_t
ft__launch_nrep(const struct launcher *l)
{
	return l->nrep;
}

const struct ft_launch *
ft__launch_conf(const struct launcher *l)
{
	return l->cf;
}

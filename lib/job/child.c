/* SPDX-License-Identifier: ISC */
/*
 * Starting one process of a job, for both host agents: the variables
 * it is told, and what the child of the fork does before exec.
 */
#include <sys/prctl.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "child.h"

static char *
env_entry(const char *name, const char *fmt, ...) FT_PRINTF(2, 3);

static char *
env_entry(const char *name, const char *fmt, ...)
{
	char val[512], *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (asprintf(&s, "%s=%s", name, val) < 0)
		return NULL;
	return s;
}

void
ft__env_free(char **v, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		free(v[k]);
}

int
ft__rank_env(const struct ft__rank_env *e, char **x)
{
	size_t n = 0, k;

	x[n++] = env_entry(FT_ENV_RANK, "%u", e->rank);
	x[n++] = env_entry(FT_ENV_SIZE, "%u", e->size);
	if (e->universe != 0)
		x[n++] = env_entry(FT_ENV_UNIVERSE, "%u", e->universe);
	x[n++] = env_entry(FT_ENV_NODE, "%u", e->node);
	x[n++] = env_entry(FT_ENV_LAUNCHER, "%s", e->launcher);
	x[n++] = env_entry(FT_ENV_KEYFD, "%d", e->keyfd);
	x[n++] = env_entry(FT_ENV_JOBDIR, "%s", e->jobdir);
	x[n++] = env_entry("FT_PROGNAME", "%s", e->progname);
	x[n++] = env_entry(FT_ENV_PROTO, "%s",
	    e->proto != NULL ? e->proto : "none");
	if (e->force_tcp)
		x[n++] = env_entry(FT_ENV_TCP, "1");
	if (e->tcp_host != NULL)
		x[n++] = env_entry(FT_ENV_TCP_HOST, "%s", e->tcp_host);
	if (e->nrep > 1) {
		x[n++] = env_entry(FT_ENV_REPLICAS, "%u", e->nrep);
		x[n++] = env_entry(FT_ENV_REPLICA, "%u", e->replica);
	}
	if (e->diverge)
		x[n++] = env_entry(FT_ENV_DIVERGE, "1");
	if (e->hbfd != -1) {
		x[n++] = env_entry(FT_ENV_HB_FD, "%d", e->hbfd);
		x[n++] = env_entry(FT_ENV_HB_PERIOD, "%llu",
		    (unsigned long long)(e->hb_period_ns / 1000000));
	}
	if (e->log_addr != NULL) {
		x[n++] = env_entry(FT_ENV_LOG_ADDR, "%s", e->log_addr);
		x[n++] = env_entry(FT_ENV_JOB_ID, "%016llx",
		    (unsigned long long)e->job_id);
		x[n++] = env_entry(FT_ENV_INCARNATION, "%u", e->incarnation);
		if (e->log_keyfd != -1)
			x[n++] = env_entry(FT_ENV_LOG_KEYFD, "%d",
			    e->log_keyfd);
	} else if (e->incarnation > 0)
		/* --ft ftmpi: a replacement of REBUILD (ft_restarted). */
		x[n++] = env_entry(FT_ENV_INCARNATION, "%u", e->incarnation);
	if (e->ckpt_server != NULL) {
		x[n++] = env_entry("FT_CKPT_SERVER", "%s", e->ckpt_server);
		x[n++] = env_entry("FT_CKPT_KEY_FILE", "%s", e->ckpt_keyfile);
	}
	if (e->rollback)
		x[n++] = env_entry("FT_CKPT_ROLLBACK", "%llu",
		    (unsigned long long)e->rollback_epoch);
	if (e->kill_after != 0) {
		x[n++] = env_entry(FT_ENV_KILL_AFTER, "%llu",
		    (unsigned long long)e->kill_after);
		x[n++] = env_entry(FT_ENV_KILL_SIGNAL, "%d", e->kill_signal);
	}
	for (k = 0; k < n; k++)
		if (x[k] == NULL) {
			ft__env_free(x, n);
			errno = ENOMEM;
			return -1;
		}
	return (int)n;
}

void
ft__fd_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl != -1)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/*
 * Like bash, refuse to hand sh a file that is binary (a NUL in its first
 * line, or an ELF header the kernel would not take): sh would only fail
 * with its own, less clear error.
 */
static int
looks_binary(const char *prog)
{
	unsigned char head[128];
	ssize_t len, i;
	int fd;

	if ((fd = open(prog, O_RDONLY | O_CLOEXEC)) == -1)
		return 1;
	len = read(fd, head, sizeof(head));
	close(fd);
	if (len < 0)
		return 1;
	if (len >= 4 && memcmp(head, "\177ELF", 4) == 0)
		return 1;
	for (i = 0; i < len && head[i] != '\n'; i++)
		if (head[i] == '\0')
			return 1;
	return 0;
}

/* A file without a #! line is a shell script, as execvp(3) has it. */
static void
exec_script(const char *prog, char **argv)
{
	char **nargv;
	size_t n;

	if (looks_binary(prog)) {
		errno = ENOEXEC;
		return;
	}
	for (n = 0; argv[n] != NULL; n++)
		continue;
	if ((nargv = calloc(n + 2, sizeof(*nargv))) == NULL)
		return;
	nargv[0] = "sh";
	nargv[1] = (char *)(uintptr_t)prog;
	memcpy(nargv + 2, argv + 1, n * sizeof(*nargv));
	execv("/bin/sh", nargv);
	free(nargv);
	errno = ENOEXEC;
}

void
ft__spawn_exec(const struct ft__spawn *s)
{
	struct sigaction sa;
	size_t k;
	int devnull, e;

	(void)setpgid(0, 0);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != s->parent)
		_exit(127);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	(void)sigaction(SIGCHLD, &sa, NULL);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
	(void)sigaction(SIGPIPE, &sa, NULL);
	(void)sigprocmask(SIG_SETMASK, s->mask, NULL);
	if (s->in_fd != -1)
		(void)dup2(s->in_fd, STDIN_FILENO);
	else if ((devnull = open("/dev/null", O_RDONLY)) != -1) {
		(void)dup2(devnull, STDIN_FILENO);
		if (devnull != STDIN_FILENO)
			close(devnull);
	}
	(void)dup2(s->out_fd, STDOUT_FILENO);
	(void)dup2(s->err_fd, STDERR_FILENO);
	for (k = 0; k < FT_NELEM(s->keep); k++)
		if (s->keep[k] != -1)
			(void)fcntl(s->keep[k], F_SETFD, 0);
	if (s->cwd != NULL && chdir(s->cwd) != 0)
		goto fail;
	/* The job's own variables win over -x. */
	for (k = 0; k < s->nsetenv; k++)
		(void)putenv(s->setenv[k]);
	for (k = 0; k < s->nenv; k++)
		(void)putenv(s->env[k]);
	execv(s->prog, s->argv);
	if (errno == ENOEXEC)
		exec_script(s->prog, s->argv);
fail:
	e = errno;
	(void)!write(s->errfd, &e, sizeof(e));
	_exit(127);
}

int
ft__inject_after_sends(const struct ft_launch *cf, uint32_t nth,
    uint32_t rank, uint32_t replica, uint64_t *after, int *signo)
{
	const struct ft_inject *ij;
	size_t k;

	for (k = 0; k < cf->ninject; k++) {
		ij = &cf->inject[k];
		/* The process counts its own sends; its agent learns of
		 * the kill when it reaps it. */
		if (ij->trigger == FT_INJECT_AFTER_SENDS && ij->rank == rank &&
		    ((ij->target == FT_INJECT_REPLICA &&
		    ij->replica == replica) ||
		    (ij->target != FT_INJECT_REPLICA && replica ==
		    (ij->target == FT_INJECT_NONMASTER ? 1u : 0u))) &&
		    nth-- == 0) {
			*after = ij->after_sends;
			*signo = ij->signo;
			return 1;
		}
	}
	return 0;
}

void
ft__signals_catch(void (*handler)(int), sigset_t *orig, sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGPIPE);
	sigprocmask(SIG_BLOCK, &block, orig);
	*waitmask = *orig;
	sigaddset(waitmask, SIGPIPE);
	sigdelset(waitmask, SIGCHLD);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGHUP);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int
ft__hb_pipe(uint32_t n, int p[2])
{
	long want;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
		return -1;
	/* Room for several rounds of beats of every process. */
	want = (long)n * FT_HB_RECLEN * 16;
	if (want > 65536)
		(void)fcntl(p[0], F_SETPIPE_SZ, want < 1048576 ? want :
		    1048576);
	return 0;
}

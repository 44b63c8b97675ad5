/* SPDX-License-Identifier: ISC */
/*
 * The job directory (the ranks' sockets) and the watchdog that
 * cleans up after an ftrun that was killed.
 */
#include "launch_impl.h"

int
ft__l_make_jobdir(struct launcher *l)
{
	const char *tmp = l->cf->tmpdir != NULL ? l->cf->tmpdir : "/tmp";

	if ((size_t)snprintf(l->dir, sizeof(l->dir), "%s/ft.XXXXXX", tmp) >=
	    sizeof(l->dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdtemp(l->dir) == NULL)
		return -1;
	snprintf(l->sock, sizeof(l->sock), "unix:%s/launcher.sock", l->dir);
	return 0;
}

/* Remove job directory dir of n ranks: its sockets, then itself. */
static void
remove_jobdir_at(const char *dir, uint32_t n)
{
	char path[512];
	uint32_t i;

	snprintf(path, sizeof(path), "%s/launcher.sock", dir);
	(void)unlink(path);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/r%u.sock", dir, i);
		(void)unlink(path);
	}
	(void)rmdir(dir);
}

void
ft__l_remove_jobdir(struct launcher *l)
{
	if (l->dir[0] != '\0')
		remove_jobdir_at(l->dir, l->n);
}

/*
 * PR_SET_PDEATHSIG ends the ranks when ftrun is killed, but not what the
 * ranks started, and nothing would remove the job directory.  A watchdog,
 * detached from ftrun so that it is nobody's rank, learns the process
 * group of each rank through a pipe.  If the pipe closes without ftrun
 * first writing 0 (the job ended normally), ftrun died: the watchdog kills
 * those groups and removes the directory.
 */
static void
watchdog_run(int rfd, const char *dir, uint32_t n)
{
	pid_t *pgids = NULL, *grown;
	size_t npg = 0, cap = 0, k;
	int32_t pgid;
	ssize_t got;
	int devnull;

	(void)setsid();
	(void)prctl(PR_SET_NAME, "ftrun-watchdog");
	(void)signal(SIGINT, SIG_IGN);
	(void)signal(SIGTERM, SIG_IGN);
	(void)signal(SIGHUP, SIG_IGN);
	(void)signal(SIGPIPE, SIG_IGN);
	if ((devnull = open("/dev/null", O_RDWR)) != -1) {
		(void)dup2(devnull, STDIN_FILENO);
		(void)dup2(devnull, STDOUT_FILENO);
		(void)dup2(devnull, STDERR_FILENO);
	}
	(void)dup2(rfd, 3);
	closefrom(4);
	for (;;) {
		do
			got = read(3, &pgid, sizeof(pgid));
		while (got < 0 && errno == EINTR);
		if (got != (ssize_t)sizeof(pgid))
			break;
		if (pgid == 0)
			_exit(0);
		if (npg == cap) {
			cap = cap ? cap * 2 : 64;
			if ((grown = realloc(pgids, cap * sizeof(*pgids))) ==
			    NULL)
				break;
			pgids = grown;
		}
		pgids[npg++] = pgid;
	}
	for (k = 0; k < npg; k++)
		(void)killpg(pgids[k], SIGKILL);
	remove_jobdir_at(dir, n);
	_exit(0);
}

/* Start the watchdog as a grandchild, so that ftrun never reaps it. */
int
ft__l_start_watchdog(struct launcher *l)
{
	int p[2], st;
	pid_t mid;

	if (ft__l_pipe_cloexec(p) != 0)
		return -1;
	if ((mid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (mid == 0) {
		if (fork() == 0)
			watchdog_run(p[0], l->dir, l->n);
		_exit(0);
	}
	close(p[0]);
	while (waitpid(mid, &st, 0) == -1 && errno == EINTR)
		continue;
	l->watchdog_fd = p[1];
	return 0;
}

void
ft__l_watchdog_tell(struct launcher *l, pid_t pgid)
{
	int32_t v = (int32_t)pgid;
	ssize_t n;

	if (l->watchdog_fd == -1)
		return;
	do
		n = write(l->watchdog_fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v)) {
		close(l->watchdog_fd);
		l->watchdog_fd = -1;
	}
}

int
ft__l_pipe_cloexec(int p[2])
{
	return pipe2(p, O_CLOEXEC);
}

/* SPDX-License-Identifier: ISC */
/*
 * The event logger of a --ft vlog job (logger.h): ftrun starts `ftlog
 * serve` with the job key on an inherited pipe, reads the address it
 * prints once ready, and stops it with SIGTERM at the end of the job.
 * The checkpoint server of --ckpt-server auto (`ftckpt serve`) is
 * started and stopped the same way, with a key file.
 *
 * A logger on this host (asked for on "tcp:127.0.0.1:0") listens on a
 * Unix socket in its log directory instead, when the path fits: the
 * ranks reach it with fewer instructions and system calls a batch than
 * over loopback TCP (issue 13's latency).  Across hosts the address
 * ftrun gives stays.
 */
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logger.h"
#include "child.h"
#include "detector.h"

/* Read the line the logger prints when it is ready. */
static int
read_addr(int fd, char *out, size_t size, uint64_t deadline)
{
	size_t len = 0;
	uint64_t now;
	ssize_t n;
	char *nl;

	for (;;) {
		now = ft_now_ns();
		if (now >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(&(struct pollfd){ fd, POLLIN, 0 }, 1,
		    (int)((deadline - now) / 1000000 + 1)) < 0 &&
		    errno != EINTR)
			return -1;
		n = read(fd, out + len, size - 1 - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			errno = n == 0 ? EPROTO : errno;
			return -1;
		}
		len += (size_t)n;
		out[len] = '\0';
		if ((nl = strchr(out, '\n')) != NULL) {
			*nl = '\0';
			return 0;
		}
		if (len == size - 1) {
			errno = EPROTO;
			return -1;
		}
	}
}

/*
 * Start helper prog with argv (and setenv, keeping fd keep open in it)
 * and read the address it prints once ready.
 */
static int
helper_start(struct ft__logger *lg, const char *name, char **argv,
    char **setenv, size_t nsetenv, int keep, const sigset_t *mask,
    uint64_t timeout_ns)
{
	char prog[PATH_MAX];
	int out[2] = { -1, -1 }, e;
	struct ft__spawn sp;
	pid_t parent = getpid();

	lg->pid = -1;
	lg->addr[0] = '\0';
	if (ft__helper_path(name, prog, sizeof(prog)) != 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) != 0)
		return -1;
	fflush(NULL);
	if ((lg->pid = fork()) == -1)
		goto fail;
	if (lg->pid == 0) {
		sp = (struct ft__spawn){ .prog = prog, .argv = argv,
		    .setenv = setenv, .nsetenv = nsetenv, .in_fd = -1,
		    .out_fd = out[1], .err_fd = STDERR_FILENO,
		    .keep = { keep, -1, -1 }, .mask = mask,
		    .parent = parent, .errfd = -1 };
		ft__spawn_exec(&sp);
	}
	close(out[1]);
	out[1] = -1;
	if (read_addr(out[0], lg->addr, sizeof(lg->addr), ft_now_ns() +
	    timeout_ns) != 0) {
		e = errno;
		ft__logger_stop(lg);
		errno = e;
		goto fail;
	}
	/* It prints nothing more; a closed pipe must not stop it. */
	close(out[0]);
	return 0;
fail:
	e = errno;
	if (out[0] != -1)
		close(out[0]);
	if (out[1] != -1)
		close(out[1]);
	lg->pid = -1;
	errno = e;
	return -1;
}

int
ft__logger_local_addr(const char *dir, long id, char *out, size_t size)
{
	struct sockaddr_un sun;
	char abs[PATH_MAX];
	int n;

	/* The ranks may run elsewhere in the tree: an absolute path. */
	if (realpath(dir, abs) == NULL)
		return -1;
	n = snprintf(out, size, "unix:%s/.logger-%ld.sock", abs, id);
	if (n < 0 || (size_t)n >= size ||
	    (size_t)n - 5 >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* A socket a dead logger of ours left at addr (unix:) goes. */
static void
unix_unlink(const char *addr)
{
	struct stat st;

	if (strncmp(addr, "unix:", 5) == 0 && lstat(addr + 5, &st) == 0 &&
	    S_ISSOCK(st.st_mode))
		(void)unlink(addr + 5);
}

int
ft__logger_start(struct ft__logger *lg, const struct ft__logger_cfg *cf)
{
	char keyenv[32], *argv[12], *setenv[1], laddr[FT_WIRE_ADDR_MAX];
	const char *listen = cf->listen;
	int key[2] = { -1, -1 }, e, rc;
	size_t k = 0;

	lg->pid = -1;
	lg->addr[0] = '\0';
	if (strcmp(listen, FT__LOGGER_LOCAL) == 0 &&
	    ft__logger_local_addr(cf->dir, (long)getpid(), laddr,
	    sizeof(laddr)) == 0)
		listen = laddr;
	unix_unlink(listen);	/* a restart: its predecessor's */
	if (pipe2(key, O_CLOEXEC) != 0)
		return -1;
	if (write(key[1], cf->key, FT_WIRE_KEYLEN) != FT_WIRE_KEYLEN) {
		e = errno;
		close(key[0]);
		close(key[1]);
		errno = e;
		return -1;
	}
	close(key[1]);
	snprintf(keyenv, sizeof(keyenv), "%s=%d", FT_ENV_KEYFD, key[0]);
	argv[k++] = "ftlog";
	argv[k++] = "serve";
	argv[k++] = "--dir";
	argv[k++] = (char *)(uintptr_t)cf->dir;
	argv[k++] = "--listen";
	argv[k++] = (char *)(uintptr_t)listen;
	if (cf->sync != NULL) {
		argv[k++] = "--sync";
		argv[k++] = (char *)(uintptr_t)cf->sync;
	}
	argv[k] = NULL;
	setenv[0] = keyenv;
	rc = helper_start(lg, "ftlog", argv, setenv, 1, key[0], cf->mask,
	    cf->timeout_ns);
	e = errno;
	close(key[0]);
	errno = e;
	return rc;
}

int
ft__ckserver_start(struct ft__logger *srv, const char *dir,
    const char *keyfile, const char *listen, const sigset_t *mask,
    uint64_t timeout_ns)
{
	char *argv[] = { "ftckpt", "serve", "--dir", (char *)(uintptr_t)dir,
	    "--listen", (char *)(uintptr_t)(listen != NULL ? listen :
	    "tcp:127.0.0.1:0"), "--key-file",
	    (char *)(uintptr_t)keyfile, NULL };

	return helper_start(srv, "ftckpt", argv, NULL, 0, -1, mask,
	    timeout_ns);
}

void
ft__logger_stop(struct ft__logger *lg)
{
	if (lg->pid <= 0)
		return;
	(void)kill(lg->pid, SIGTERM);
	while (waitpid(lg->pid, NULL, 0) == -1 && errno == EINTR)
		continue;
	lg->pid = -1;
	unix_unlink(lg->addr);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) == 0 ||
	    errno == ENOENT ? 0 : -1;
}

int
ft__logdir_remove(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

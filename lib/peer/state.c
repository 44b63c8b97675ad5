/* SPDX-License-Identifier: ISC */
/*
 * Files of a daemon and its user: the cluster key, the state directory
 * with its locked pid file and address file, and atomic small writes.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <bsd/stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "peer.h"

/* $VAR/sub, or $HOME/fallback/sub when VAR is unset or not absolute. */
static int
xdg_path(const char *var, const char *fallback, const char *sub, char *buf,
    size_t size)
{
	const char *v = getenv(var), *home;
	int n;

	if (v != NULL && v[0] == '/')
		n = snprintf(buf, size, "%s/%s", v, sub);
	else {
		if ((home = getenv("HOME")) == NULL || home[0] == '\0') {
			errno = ENOENT;
			return -1;
		}
		n = snprintf(buf, size, "%s/%s/%s", home, fallback, sub);
	}
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
ft_cluster_key_path(char *buf, size_t size)
{
	return xdg_path("XDG_CONFIG_HOME", ".config", "ft/cluster.key", buf,
	    size);
}

int
ft_boot_conf_path(char *buf, size_t size)
{
	return xdg_path("XDG_CONFIG_HOME", ".config", "ft/ftboot.conf", buf,
	    size);
}

int
ft_boot_statedir(const char *given, char *buf, size_t size)
{
	int n;

	if (given == NULL || given[0] == '\0')
		return xdg_path("XDG_STATE_HOME", ".local/state", "ft", buf,
		    size);
	n = snprintf(buf, size, "%s", given);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
ft_boot_path(const char *statedir, const char *file, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s", statedir, file);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* mkdir -p with mode for the directories it makes. */
static int
mkdirs(const char *dir, mode_t mode)
{
	char p[PATH_MAX];
	size_t i;

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (i = 1; p[i] != '\0'; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST)
			return -1;
		p[i] = '/';
	}
	if (mkdir(p, mode) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int
parent_dir(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return snprintf(buf, size, ".") < 0 ? -1 : 0;
	if ((size_t)(slash - path) + 1 > size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, (size_t)(slash - path));
	buf[slash - path] = '\0';
	if (buf[0] == '\0')
		snprintf(buf, size, "/");
	return 0;
}

int
ft_cluster_key_load(const char *path, uint8_t key[FT_WIRE_KEYLEN], char *why,
    size_t whysize)
{
	char buf[2 * FT_WIRE_KEYLEN + 2];
	struct stat st;
	ssize_t got;
	size_t len = 0;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		saved = errno;
		snprintf(why, whysize, "cluster key '%s': %s%s", path,
		    strerror(saved), saved == ENOENT ?
		    " (make one with: ftboot keygen)" : "");
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) != 0)
		goto syserr;
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whysize, "cluster key '%s' is not a regular "
		    "file", path);
		errno = EINVAL;
		goto fail;
	}
	if ((st.st_mode & 077) != 0) {
		snprintf(why, whysize, "cluster key '%s' is open to others "
		    "(mode %04o); chmod 600 it", path,
		    (unsigned int)(st.st_mode & 07777));
		errno = EPERM;
		goto fail;
	}
	while (len < sizeof(buf)) {
		got = read(fd, buf + len, sizeof(buf) - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto syserr;
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (len != sizeof(buf) - 1 || buf[len - 1] != '\n') {
		snprintf(why, whysize, "cluster key '%s' must hold %d lowercase "
		    "hex digits and a newline", path, 2 * FT_WIRE_KEYLEN);
		explicit_bzero(buf, sizeof(buf));
		errno = EINVAL;
		return -1;
	}
	buf[len - 1] = '\0';
	if (ft_hex_decode(buf, key, FT_WIRE_KEYLEN) != 0) {
		snprintf(why, whysize, "cluster key '%s' holds a character that "
		    "is not a lowercase hex digit", path);
		explicit_bzero(buf, sizeof(buf));
		errno = EINVAL;
		return -1;
	}
	explicit_bzero(buf, sizeof(buf));
	return 0;
syserr:
	saved = errno;
	snprintf(why, whysize, "cluster key '%s': %s", path, strerror(saved));
	close(fd);
	errno = saved;
	return -1;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
ft_cluster_key_write(const char *path, int force, char *why, size_t whysize)
{
	uint8_t key[FT_WIRE_KEYLEN];
	char text[2 * FT_WIRE_KEYLEN + 2], dir[PATH_MAX];
	struct stat st;
	int saved;

	if (!force && lstat(path, &st) == 0) {
		snprintf(why, whysize, "'%s' exists; keep it, or give --force "
		    "to replace it (daemons with the old key will no longer "
		    "be trusted)", path);
		errno = EEXIST;
		return -1;
	}
	if (parent_dir(path, dir, sizeof(dir)) != 0 || mkdirs(dir, 0700) != 0) {
		saved = errno;
		snprintf(why, whysize, "directory of '%s': %s", path,
		    strerror(saved));
		errno = saved;
		return -1;
	}
	ft_key_generate(key);
	ft_hex_encode(key, sizeof(key), text);
	text[2 * FT_WIRE_KEYLEN] = '\n';
	text[2 * FT_WIRE_KEYLEN + 1] = '\0';
	explicit_bzero(key, sizeof(key));
	if (ft_boot_write_file(path, text, sizeof(text) - 1, 0600) != 0) {
		saved = errno;
		snprintf(why, whysize, "'%s': %s", path, strerror(saved));
		explicit_bzero(text, sizeof(text));
		errno = saved;
		return -1;
	}
	explicit_bzero(text, sizeof(text));
	return 0;
}

int
ft_boot_write_file(const char *path, const void *p, size_t len, int mode)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	const uint8_t *b = p;
	ssize_t n;
	int fd, saved, dfd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp) || parent_dir(path, dir, sizeof(dir)) != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, mode)) < 0)
		return -1;
	/* The umask must not widen or narrow what the caller asked. */
	if (fchmod(fd, (mode_t)mode) != 0)
		goto fail;
	while (len > 0) {
		n = write(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		b += n;
		len -= (size_t)n;
	}
	if (fsync(fd) != 0 || close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	(void)unlink(tmp);
	errno = saved;
	return -1;
}

/* Read a small file into buf (NUL-terminated, last newline cut). */
static int
read_line_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int
ft_boot_running(const char *statedir, pid_t *pid, char *addr, size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX], line[64];
	const char *errstr;
	int fd, saved;

	*pid = 0;
	if (addr != NULL && size > 0)
		addr[0] = '\0';
	if (ft_boot_statedir(statedir, dir, sizeof(dir)) != 0 ||
	    ft_boot_path(dir, "ftboot.pid", path, sizeof(path)) != 0)
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		close(fd);
		return 0;
	}
	saved = errno;
	close(fd);
	if (saved != EWOULDBLOCK) {
		errno = saved;
		return -1;
	}
	if (read_line_file(path, line, sizeof(line)) == 0)
		*pid = (pid_t)strtonum(line, 1, INT_MAX, &errstr);
	if (addr != NULL && size > 0 &&
	    (ft_boot_path(dir, "ftboot.addr", path, sizeof(path)) != 0 ||
	    read_line_file(path, addr, size) != 0))
		addr[0] = '\0';
	return 1;
}

int
ft_boot_local_addr(const char *statedir, char *addr, size_t size)
{
	pid_t pid;
	int rc = ft_boot_running(statedir, &pid, addr, size);

	if (rc < 0)
		return -1;
	if (rc == 0 || addr[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int
ft_boot_lock(const char *statedir, pid_t *holder, char *why, size_t whysize)
{
	char path[PATH_MAX], line[64];
	const char *errstr;
	int fd, saved;

	*holder = 0;
	if (mkdirs(statedir, 0700) != 0) {
		saved = errno;
		snprintf(why, whysize, "state directory '%s': %s", statedir,
		    strerror(saved));
		errno = saved;
		return -1;
	}
	if (ft_boot_path(statedir, "ftboot.pid", path, sizeof(path)) != 0) {
		snprintf(why, whysize, "state directory '%s': name too long",
		    statedir);
		return -1;
	}
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) < 0) {
		saved = errno;
		snprintf(why, whysize, "'%s': %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		saved = errno;
		if (saved == EWOULDBLOCK &&
		    read_line_file(path, line, sizeof(line)) == 0)
			*holder = (pid_t)strtonum(line, 1, INT_MAX, &errstr);
		snprintf(why, whysize, saved == EWOULDBLOCK ?
		    "a daemon already runs with state directory '%s'" :
		    "locking the pid file of '%s': %s", statedir,
		    strerror(saved));
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int
ft_boot_write_pid(int fd, pid_t pid)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%ld\n", (long)pid);

	if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n)
		return -1;
	return 0;
}

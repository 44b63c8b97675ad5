/* SPDX-License-Identifier: ISC */
/*
 * A tiny TAP producer for the unit tests: "ok N - what" or "not ok N -
 * what" per check, "# " diagnostics, and the plan "1..N" at the end.
 * t_child runs a check in a forked process, so that a test showing a
 * crash or a sanitizer report fails alone instead of taking the rest of
 * the program with it.
 */
#ifndef FT_TAP_H
#define FT_TAP_H

#include <sys/wait.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int	t_count, t_failed;

static inline void
t_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static inline int
t_vok(int ok, const char *file, int line, const char *fmt, va_list ap)
{
	printf("%sok %d - ", ok ? "" : "not ", ++t_count);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	if (!ok) {
		t_failed++;
		printf("# failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return ok;
}

static inline int __attribute__((format(printf, 4, 5)))
t_ok(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = t_vok(ok, file, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* T_OK(cond, fmt, ...): one check; evaluates to cond (0 or 1). */
#define T_OK(cond, ...)	t_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* Integer equality, with both values shown when it fails. */
#define T_EQ_INT(a, b, desc) do {					\
	intmax_t t__a = (intmax_t)(a), t__b = (intmax_t)(b);		\
	if (!t_ok(t__a == t__b, __FILE__, __LINE__, "%s", (desc)))	\
		t_diag("got %jd (%s), want %jd (%s)", t__a, #a, t__b, #b); \
} while (0)

#define T_EQ_UINT(a, b, desc) do {					\
	uintmax_t t__a = (uintmax_t)(a), t__b = (uintmax_t)(b);		\
	if (!t_ok(t__a == t__b, __FILE__, __LINE__, "%s", (desc)))	\
		t_diag("got %#jx (%s), want %#jx (%s)", t__a, #a, t__b, #b); \
} while (0)

#define T_EQ_STR(a, b, desc) do {					\
	const char *t__a = (a), *t__b = (b);				\
	if (!t_ok(strcmp(t__a, t__b) == 0, __FILE__, __LINE__, "%s",	\
	    (desc)))							\
		t_diag("got \"%s\", want \"%s\"", t__a, t__b);		\
} while (0)

/* A call that must fail with -1 and this errno. */
#define T_FAILS(call, err, desc) do {					\
	long t__rc;							\
	errno = 0;							\
	t__rc = (long)(call);						\
	if (!t_ok(t__rc == -1 && errno == (err), __FILE__, __LINE__,	\
	    "%s", (desc)))						\
		t_diag("got %ld, errno %d (%s); want -1, errno %d (%s)", \
		    t__rc, errno, strerror(errno), (int)(err),		\
		    strerror(err));					\
} while (0)

static inline void __attribute__((format(printf, 1, 2)))
t_skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++t_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputs(" # SKIP\n", stdout);
	fflush(stdout);
}

/*
 * Run fn(arg) in a child process and return 1 if it exited 0.  The
 * child leaves with _exit, so that it neither flushes the parent's
 * stdio nor runs the leak checker on memory the parent still owns.
 * How the child died is printed as a diagnostic.
 */
static inline int
t_child(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1) {
		t_diag("fork: %s", strerror(errno));
		return 0;
	}
	if (pid == 0)
		_exit(fn(arg) == 0 ? 0 : 1);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFSIGNALED(status))
		t_diag("the child died of signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	else
		t_diag("the child exited with status %d", WEXITSTATUS(status));
	return 0;
}

/*
 * Diagnostics a test captures: with ft_diag_setsink(t_sink), each line
 * libft would print goes to t_sunk instead (the first 16 are kept, all
 * are counted).  t_sunk_with counts the kept lines containing what.
 */
static struct {
	char	line[16][160];
	int	n;
} t_sunk __attribute__((unused));

static inline void
t_sink(const char *line, size_t len)
{
	if (t_sunk.n < (int)(sizeof(t_sunk.line) / sizeof(t_sunk.line[0])))
		snprintf(t_sunk.line[t_sunk.n], sizeof(t_sunk.line[0]),
		    "%.*s", (int)len, line);
	t_sunk.n++;
}

static inline int
t_sunk_with(const char *what)
{
	int i, n = 0;

	for (i = 0; i < t_sunk.n &&
	    i < (int)(sizeof(t_sunk.line) / sizeof(t_sunk.line[0])); i++)
		if (strstr(t_sunk.line[i], what) != NULL)
			n++;
	return n;
}

/* Print the plan; the exit status for main. */
static inline int
t_done(void)
{
	printf("1..%d\n", t_count);
	if (t_failed > 0)
		printf("# %d of %d failed\n", t_failed, t_count);
	fflush(stdout);
	return t_failed > 0 ? 1 : 0;
}

#endif

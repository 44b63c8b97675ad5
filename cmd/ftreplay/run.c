/* SPDX-License-Identifier: ISC */
/*
 * ftreplay run --rank R [--gdb | --print-command] DIR -- PROGRAM [ARGS]:
 * re-execute rank R of a job recorded with ftrun --record DIR, alone
 * (ft-record(5)).  This checks the record, then runs the program with
 * the variables that make its MPI_Init follow the record (lib/mpi/
 * record.c) and reads the verdict the library writes on a pipe.
 *
 * Exit: the program's status when the replay reached the end of the
 * record and the program ended; 1 when it diverged, or when the record
 * (of a process that died) ended first; 100 for a record it cannot
 * use; 126/127 when the program (or gdb) cannot be run.
 */
#include <sys/wait.h>

#include <bsd/stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/store/store.h"
#include "run.h"

/* Print s quoted for a POSIX shell when it needs to be. */
static void
shell_word(const char *s)
{
	const char *p;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
	    "mnopqrstuvwxyz0123456789_-./=:,+@%") == strlen(s)) {
		fputs(s, stdout);
		return;
	}
	putchar('\'');
	for (p = s; *p != '\0'; p++)
		if (*p == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*p);
	putchar('\'');
}

/* Whether PROGRAM is on PATH (or a path that can be run). */
static int
findable(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	const char *p, *e;

	if (strchr(prog, '/') != NULL)
		return access(prog, X_OK) == 0;
	for (p = path != NULL ? path : "/usr/bin:/bin"; ; p = e + 1) {
		e = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), p, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		if (*e == '\0')
			return 0;
	}
}

/*
 * The program's standard input: rank 0's as ftrun forwarded it, when
 * the record holds it (DIR/stdin.zst, ft-record(5)), fed by a child of
 * ours through a pipe; /dev/null for other ranks, as under ftrun.
 * Returns the fd for the program's stdin (-1: leave ours), and the
 * feeder's pid in *feeder (-1: none).
 */
static int
replay_stdin(const char *dir, uint32_t rank, pid_t *feeder)
{
	char path[PATH_MAX];
	int64_t n;
	int in, p[2], cut;

	*feeder = -1;
	if (rank != 0)
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
	    FT_REC_STDIN) >= sizeof(path) ||
	    (in = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno != ENOENT)
			ft_warn("'%s': rank 0's standard input is not fed",
			    path);
		else
			ft_info("no %s in the record: the program reads our "
			    "standard input", FT_REC_STDIN);
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) != 0)
		ft_die(FT_EXIT_TEMP, "pipe");
	if ((*feeder = fork()) == -1)
		ft_die(FT_EXIT_TEMP, "fork");
	if (*feeder == 0) {
		(void)close(p[0]);
		(void)signal(SIGPIPE, SIG_IGN);
		n = ft__zstd_cat(in, p[1], &cut);
		if (n < 0 && errno != EPIPE) {
			ft_warn("'%s': rank 0's standard input", path);
			_exit(1);
		}
		if (cut)
			ft_warnx("'%s': rank 0's standard input is cut short "
			    "after %" PRId64 " bytes (ftrun stopped while "
			    "recording it)", path, n);
		_exit(0);
	}
	(void)close(in);
	(void)close(p[1]);
	return p[0];
}

/*
 * What the program said on the pipe: "started" (MPI_Init under replay),
 * then "finished" (MPI_Finalize), or where the replay stopped.  Says
 * it, and returns the exit status.
 */
static int
verdict(char *lines, const char *prog, int status)
{
	int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
	    WEXITSTATUS(status), started = 0, finished = 0;
	char *l, *next;

	for (l = lines; *l != '\0'; l = next) {
		next = l + strcspn(l, "\n");
		if (*next == '\n')
			*next++ = '\0';
		if (strcmp(l, "started") == 0)
			started = 1;
		else if (strcmp(l, "finished") == 0)
			finished = 1;
		else if (strncmp(l, "diverged ", 9) == 0 ||
		    strncmp(l, "end ", 4) == 0) {
			/* One line, as ftreplay's own diagnostics read. */
			fprintf(stderr, "ftreplay: %s\n", strchr(l, ' ') + 1);
			return FT_EXIT_NO;
		}
	}
	if (!started) {
		ft_warnx("'%s' never started a replay in MPI_Init (is it a "
		    "program built with ftcc, and does it call MPI_Init?)",
		    prog);
		return code != 0 ? code : FT_EXIT_NO;
	}
	if (!finished && code == 0)
		ft_warnx("'%s' exited without MPI_Finalize", prog);
	return code;
}

int
ft_replay_run(int argc, char *argv[])
{
	static const struct option lo[] = {
		{ "rank", required_argument, NULL, 'r' },
		{ "gdb", no_argument, NULL, 'g' },
		{ "print-command", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct ft_rec rec;
	const char *errstr, *dir;
	char path[PATH_MAX], why[640], rankbuf[16], fdbuf[16], line[1024];
	char *absdir, **av;
	int ch, gdb = 0, print = 0, p[2], status, i, n, in = -1;
	uint32_t rank = 0;
	size_t got = 0;
	ssize_t k;
	pid_t pid, feeder = -1;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+r:v", lo, NULL)) != -1) {
		switch (ch) {
		case 'v':
			ft_diag_setlevel(1);
			break;
		case 'r':
			rank = (uint32_t)strtonum(optarg, 0, FT_WIRE_MAX_RANKS - 1,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--rank '%s' is %s",
				    optarg, errstr);
			break;
		case 'g':
			gdb = 1;
			break;
		case 'p':
			print = 1;
			break;
		default:
			ft_replay_usage();
		}
	}
	argc -= optind;
	argv += optind;
	/* DIR, then "--" and the program. */
	if (argc < 3 || strcmp(argv[1], "--") != 0 || (gdb && print))
		ft_replay_usage();
	dir = argv[0];
	argv++;
	argc--;
	if (ft_rec_path(path, sizeof(path), dir, rank) != 0)
		ft_diex(FT_EXIT_USAGE, "'%s': path too long", dir);
	if (ft_rec_open(&rec, path, why, sizeof(why)) != 0)
		ft_diex(errno == ENOMEM ? FT_EXIT_TEMP : FT_EXIT_USAGE, "%s",
		    why);
	if (rec.h.rank != rank)
		ft_diex(FT_EXIT_USAGE, "record '%s' is rank %" PRIu32 "'s, not "
		    "rank %" PRIu32 "'s", path, rec.h.rank, rank);
	if (rec.torn > 0)
		ft_warnx("record '%s': cut %" PRIu64 " bytes of a torn tail "
		    "(the process died while recording)", path, rec.torn);
	if (rec.nfail > 0 && strcmp(rec.h.proto, "ulfm") == 0)
		ft_diex(FT_EXIT_USAGE, "record '%s': rank %" PRIu32 " was told "
		    "of process failures (--ft ulfm), which cannot be "
		    "replayed", path, rank);
	ft_info("record '%s': rank %" PRIu32 " of %" PRIu32 ", protocol %s, "
	    "%zu messages received (%" PRIu64 " bytes), %zu sent, %zu "
	    "outcomes%s", path, rank, rec.h.size, rec.h.proto, rec.nm,
	    rec.bytes, rec.ns, rec.nnd, rec.ended ? "" : ", no end");
	ft_rec_free(&rec);
	if ((absdir = realpath(dir, NULL)) == NULL)
		ft_die(FT_EXIT_USAGE, "'%s'", dir);
	snprintf(rankbuf, sizeof(rankbuf), "%" PRIu32, rank);
	snprintf(path, sizeof(path), "%s/%s", absdir, FT_REC_STDIN);
	if (print) {
		if (rank == 0 && access(path, R_OK) == 0) {
			printf("zstd -dc ");
			shell_word(path);
			printf(" | ");
		}
		printf("FT_REPLAY=");
		shell_word(absdir);
		printf(" FT_REPLAY_RANK=%s", rankbuf);
		for (i = 1; i < argc; i++) {
			putchar(' ');
			shell_word(argv[i]);
		}
		putchar('\n');
		free(absdir);
		return ft_exit(FT_EXIT_OK);
	}
	if (gdb && !findable("gdb"))
		ft_diex(127, "gdb is not installed; run the program under "
		    "your debugger with the command --print-command gives");
	/* gdb keeps the terminal: the program's input is given in gdb. */
	if (gdb && rank == 0 && access(path, R_OK) == 0)
		ft_warnx("rank 0's standard input is in '%s': in gdb, 'run < "
		    "FILE' with FILE made by zstd -dc from it", path);
	else if (!gdb)
		in = replay_stdin(absdir, rank, &feeder);
	/* Not a rank of a job, whatever ran us. */
	(void)unsetenv("FT_LAUNCHER");
	(void)unsetenv("FT_RECORD_DIR");
	if (setenv("FT_REPLAY", absdir, 1) != 0 ||
	    setenv("FT_REPLAY_RANK", rankbuf, 1) != 0 ||
	    (gdb && setenv("FT_REPLAY_TRAP", "1", 1) != 0))
		ft_die(FT_EXIT_TEMP, "setenv");
	free(absdir);
	if (pipe2(p, 0) != 0)
		ft_die(FT_EXIT_TEMP, "pipe");
	snprintf(fdbuf, sizeof(fdbuf), "%d", p[1]);
	if (setenv("FT_REPLAY_FD", fdbuf, 1) != 0)
		ft_die(FT_EXIT_TEMP, "setenv");
	av = argv + 1;
	if (gdb) {
		if ((av = calloc((size_t)argc + 3, sizeof(*av))) == NULL)
			ft_die(FT_EXIT_TEMP, "calloc");
		av[0] = "gdb";
		av[1] = "-q";
		av[2] = "--args";
		for (i = 1; i < argc; i++)
			av[i + 2] = argv[i];
	}
	fflush(stdout);
	if ((pid = fork()) == -1)
		ft_die(FT_EXIT_TEMP, "fork");
	if (pid == 0) {
		(void)close(p[0]);
		if (in != -1 && dup2(in, STDIN_FILENO) == -1)
			_exit(126);
		execvp(av[0], av);
		n = errno;
		ft_warn("unable to run '%s'", av[0]);
		_exit(n == ENOENT ? 127 : 126);
	}
	(void)close(p[1]);
	if (in != -1)
		(void)close(in);
	/* The verdict comes before the program ends, if at all. */
	while (got < sizeof(line) - 1 && (k = read(p[0], line + got,
	    sizeof(line) - 1 - got)) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		got += (size_t)k;
	}
	line[got] = '\0';
	(void)close(p[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			ft_die(FT_EXIT_TEMP, "waitpid");
	/* The feeder ends once the program stops reading (EPIPE). */
	while (feeder != -1 && waitpid(feeder, &i, 0) == -1)
		if (errno != EINTR)
			break;
	return ft_exit(verdict(line, argv[1], status));
}

/* SPDX-License-Identifier: ISC */
/*
 * Run a command and write the CPU time of the command and of every process
 * it waited for, and its wall-clock time, to a file: the meter of
 * bench/cpu.sh.  A launcher (ftrun, mpirun) is the parent of the ranks it
 * starts and waits for them, so the CPU time of the launcher's children is
 * that of the whole job: the kernel adds a reaped child's time, and what it
 * had itself reaped, to its parent's RUSAGE_CHILDREN.  A process nobody
 * waits for (a daemon, a double-forked watchdog) is not counted.
 *
 * The file holds one line, in seconds with microsecond resolution:
 *
 *	<user> <sys> <wall>
 *
 * usage: cpurun -o file command [arg ...]
 *
 * The exit status is that of the command, 128 + N if signal N killed it,
 * 127 if it could not be run, 100 on a usage error and 111 if the file
 * cannot be written.
 */

#define _POSIX_C_SOURCE 200809L

#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
usage(void)
{
	fprintf(stderr, "usage: cpurun -o file command [arg ...]\n");
	exit(100);
}

static double
tv_sec(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int
main(int argc, char *argv[])
{
	struct rusage	 ru;
	struct timespec	 t0, t1;
	const char	*out = NULL;
	FILE		*f;
	pid_t		 pid;
	int		 ch, st;

	while ((ch = getopt(argc, argv, "+o:")) != -1) {
		switch (ch) {
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (out == NULL || argc == 0)
		usage();

	/*
	 * The meter must not count itself: it only forks and waits, so what
	 * RUSAGE_CHILDREN holds afterwards is the command's alone.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) == -1) {
		fprintf(stderr, "cpurun: fatal: fork: %s\n", strerror(errno));
		return 111;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "cpurun: fatal: unable to run '%s': %s\n",
		    argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1) {
		if (errno != EINTR) {
			fprintf(stderr, "cpurun: fatal: waitpid: %s\n",
			    strerror(errno));
			return 111;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getrusage(RUSAGE_CHILDREN, &ru) == -1) {
		fprintf(stderr, "cpurun: fatal: getrusage: %s\n",
		    strerror(errno));
		return 111;
	}
	if ((f = fopen(out, "w")) == NULL ||
	    fprintf(f, "%.6f %.6f %.6f\n", tv_sec(ru.ru_utime),
	    tv_sec(ru.ru_stime), (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9) < 0 || fclose(f) != 0) {
		fprintf(stderr, "cpurun: fatal: unable to write '%s': %s\n",
		    out, strerror(errno));
		return 111;
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

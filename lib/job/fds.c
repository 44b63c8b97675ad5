/* SPDX-License-Identifier: ISC */
/*
 * Open files: how many a job needs, in ftrun and in each rank, and the
 * soft limit on them raised to the hard one, as mpirun does.  With the
 * usual soft limit of 1,024, a job of a few hundred ranks would
 * otherwise run out of descriptors halfway through starting.
 *
 * The counts follow what the code keeps open: spawn(), start_watchdog()
 * and accept_conns() in launch_*.c for ftrun; ft_pt_new(), conn_open()
 * and accept_all() in lib/pt2pt for a rank.  Change them together.
 */
#include <sys/resource.h>

#include <dirent.h>
#include <string.h>

#include "job.h"

/*
 * ftrun, for every process: the read ends of its stdout and stderr
 * pipes, and its control connection once it joined; while the ranks
 * start, the read end of its exec error pipe takes the place of the
 * connection, which is accepted only once every rank has started.
 */
#define LAUNCHER_PER_PROC	3
/*
 * ftrun, once: the listening socket, the watchdog's pipe, both ends of
 * the heartbeat pipe, and while a rank starts, the ends of its pipes
 * that are closed once it has forked (stdout, stderr and stdin write
 * and read ends, both ends of the key pipe, the exec error pipe's write
 * end).
 */
#define LAUNCHER_FIXED		(1 + 1 + 2 + 6)
/* A rank: a connection to every other process, and one from it. */
#define RANK_PER_PEER		2
/*
 * A rank, once: its Unix and TCP listeners, its connection to ftrun,
 * the job key's pipe until MPI_Init has read it, the heartbeat pipe.
 */
#define RANK_FIXED		(2 + 1 + 1 + 1)
/*
 * Slack for what is not counted: connections refused during their
 * handshake, files the C library opens, and, for a rank, files the
 * program opens itself.
 */
#define LAUNCHER_MARGIN		16
#define RANK_MARGIN		32

/* Descriptors open now (stdio and what our parent left us); 3 if unknown. */
static uint64_t
open_now(void)
{
	struct dirent *d;
	uint64_t n = 0;
	DIR *dir;

	if ((dir = opendir("/proc/self/fd")) == NULL)
		return 3;
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	/* Less the directory's own descriptor. */
	return n > 0 ? n - 1 : 0;
}

void
ft_launch_fds(const struct ft_launch *cf, struct ft_launch_fds *need)
{
	uint64_t nrep = cf->nrep > 1 ? cf->nrep : 1;
	uint64_t nproc = (uint64_t)cf->nranks * nrep, inherited = open_now();
	int events_file = cf->events_name != NULL &&
	    strcmp(cf->events_name, "-") != 0;

	/* Every replica of rank 0 has a stdin pipe. */
	need->launcher = inherited + LAUNCHER_PER_PROC * nproc + nrep +
	    LAUNCHER_FIXED + (uint64_t)events_file + LAUNCHER_MARGIN;
	/* A rank inherits what ftrun inherited, and may talk to all. */
	need->rank = inherited + RANK_PER_PEER * (nproc - 1) + RANK_FIXED +
	    RANK_MARGIN;
}

int
ft_launch_nofile(uint64_t need, uint64_t *limit)
{
	struct rlimit rl;
	rlim_t was;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		*limit = rl.rlim_max;
		errno = EMFILE;
		return -1;
	}
	was = rl.rlim_cur;
	if (was != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		/* Linux refuses more than fs.nr_open, which an unlimited
		 * hard limit is: then as much as the job needs will do. */
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			rl.rlim_cur = was >= need ? was : need;
			if (rl.rlim_cur != was &&
			    setrlimit(RLIMIT_NOFILE, &rl) != 0)
				return -1;
		}
	}
	*limit = rl.rlim_cur;
	return 0;
}

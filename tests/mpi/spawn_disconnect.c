/* SPDX-License-Identifier: ISC */
/*
 * spawn_disconnect: MPI_Comm_disconnect completes what was sent before
 * it (a long message, sent by rendezvous, and short ones left
 * unreceived until after the children called it), and makes the
 * children independent: they finalize and exit while their parents
 * are still running, which the parents see by the files the children
 * create after MPI_Finalize, and which does not fail the job.  Then a
 * second spawn, and a disconnect of MPI_COMM_WORLD is MPI_ERR_COMM.
 */

#define NAME	"spawn_disconnect"
#include "dyn.h"

#include <fcntl.h>
#include <unistd.h>

#define LONG	(300 * 1024)	/* ints: past the eager limit */

/* Wait for the file dir/name, made by a child after MPI_Finalize. */
static int
wait_file(const char *dir, int k)
{
	char	path[512];
	int	i;

	snprintf(path, sizeof(path), "%s/done.%d", dir, k);
	/* Bounded only so that a hang is a failure, not a stuck test. */
	for (i = 0; i < 60000; i++) {
		if (access(path, F_OK) == 0)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void
parent(char *prog)
{
	char		 dir[] = "/tmp/ft-spawn-disc.XXXXXX", *args[3];
	MPI_Comm	 kids, c;
	int		*big, i, v, nkids = 2;

	big = xzalloc(LONG * sizeof(int));
	for (i = 0; i < LONG; i++)
		big[i] = i ^ 0x5a5a;
	if (myrank == 0 && mkdtemp(dir) == NULL) {
		fail("mkdtemp");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
	args[0] = "child";
	args[1] = dir;
	args[2] = NULL;
	ok(MPI_Comm_spawn(prog, args, nkids, MPI_INFO_NULL, 0,
	    MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE), "Comm_spawn");
	if (myrank == 0) {
		MPI_Send(big, LONG, MPI_INT, 0, 5, kids);
		for (i = 0; i < 10; i++)
			MPI_Send(&i, 1, MPI_INT, 1, 6, kids);
	}
	parent_collect(kids);
	ok(MPI_Comm_disconnect(&kids), "Comm_disconnect");
	if (kids != MPI_COMM_NULL)
		fail("the handle is not MPI_COMM_NULL after the disconnect");
	/* The children end while we are still here. */
	if (myrank == 0)
		for (i = 0; i < nkids; i++)
			if (!wait_file(dir, i))
				fail("child %d never got past MPI_Finalize", i);
	MPI_Barrier(MPI_COMM_WORLD);
	/* Another world, after the first is gone. */
	args[0] = "again";
	args[1] = NULL;
	ok(MPI_Comm_spawn(prog, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
	    &kids, MPI_ERRCODES_IGNORE), "second Comm_spawn");
	v = 0;
	MPI_Bcast(&v, 1, MPI_INT, 0, kids);
	if (v != 99)
		fail("the second world sent %d", v);
	parent_collect(kids);
	MPI_Comm_disconnect(&kids);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	c = MPI_COMM_WORLD;
	expect(MPI_Comm_disconnect(&c), MPI_ERR_COMM,
	    "disconnect MPI_COMM_WORLD");
	if (myrank == 0) {
		for (i = 0; i < nkids; i++) {
			char	path[512];

			snprintf(path, sizeof(path), "%s/done.%d", dir, i);
			unlink(path);
		}
		rmdir(dir);
	}
	free(big);
}

static void
child(MPI_Comm par, char **argv)
{
	char	 path[512];
	int	*big, i, v, fd;

	if (strcmp(argv[1], "again") == 0) {
		v = 99;
		MPI_Bcast(&v, 1, MPI_INT, myrank == 0 ? MPI_ROOT :
		    MPI_PROC_NULL, par);
		child_report(par);
		MPI_Comm_disconnect(&par);
		return;
	}
	big = xzalloc(LONG * sizeof(int));
	if (myrank == 0) {
		MPI_Recv(big, LONG, MPI_INT, 0, 5, par, MPI_STATUS_IGNORE);
		for (i = 0; i < LONG; i++)
			if (big[i] != (i ^ 0x5a5a)) {
				fail("long message: word %d is %d", i, big[i]);
				break;
			}
	}
	child_report(par);
	/* Rank 1 receives the short ones only after the disconnect. */
	if (myrank == 1) {
		MPI_Request	req[10];
		int		got[10];

		for (i = 0; i < 10; i++)
			MPI_Irecv(&got[i], 1, MPI_INT, 0, 6, par, &req[i]);
		MPI_Waitall(10, req, MPI_STATUSES_IGNORE);
		for (i = 0; i < 10; i++)
			if (got[i] != i)
				fail("short message %d is %d", i, got[i]);
	}
	ok(MPI_Comm_disconnect(&par), "Comm_disconnect in the child");
	free(big);
	MPI_Finalize();
	snprintf(path, sizeof(path), "%s/done.%d", argv[2], myrank);
	/* After MPI_Finalize: the parents see it before they finalize. */
	if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0)
		close(fd);
	exit(errs != 0);
}

int
main(int argc, char **argv)
{
	return dyn_main(argc, argv, parent, child);
}

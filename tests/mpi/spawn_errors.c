/* SPDX-License-Identifier: ISC */
/*
 * spawn_errors: spawns that fail without ending the job.  With
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD, a missing program gives
 * MPI_ERR_SPAWN at every rank, every errcode MPI_ERR_SPAWN and
 * MPI_COMM_NULL; so does one of two commands missing in
 * MPI_Comm_spawn_multiple (nothing starts), and a spawn beyond
 * MPI_UNIVERSE_SIZE, which is the one ftrun was given.  A bad root
 * is MPI_ERR_ROOT, maxprocs 0 at the root MPI_ERR_ARG.  After all
 * that, a spawn within the universe works.
 */

#define NAME	"spawn_errors"
#include "dyn.h"

#define UNIVERSE	6	/* ftrun --universe-size, in TESTS */

static void
check_failed(int rc, MPI_Comm kids, const int *codes, int n,
    const char *what)
{
	int	i;

	expect(rc, MPI_ERR_SPAWN, what);
	if (kids != MPI_COMM_NULL)
		fail("%s: the intercomm is not MPI_COMM_NULL", what);
	for (i = 0; i < n; i++)
		if (codes[i] != MPI_ERR_SPAWN)
			fail("%s: errcodes[%d] is %d", what, i, codes[i]);
}

int
main(int argc, char **argv)
{
	char		*cmds[2], *args[] = { "child", NULL };
	int		 codes[8], np[2] = { 1, 2 }, *usize, flag, i, rc;
	MPI_Comm	 kids, par;
	MPI_Info	 infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };

	init(&argc, &argv);
	MPI_Comm_get_parent(&par);
	if (par != MPI_COMM_NULL) {
		child_report(par);
		MPI_Comm_disconnect(&par);
		MPI_Finalize();
		return errs != 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
	if (!flag || *usize != UNIVERSE)
		fail("MPI_UNIVERSE_SIZE %d (flag %d), want %d",
		    flag ? *usize : -1, flag, UNIVERSE);

	for (i = 0; i < 8; i++)
		codes[i] = -1;
	kids = MPI_COMM_WORLD;
	rc = MPI_Comm_spawn("./no-such-program-here", MPI_ARGV_NULL, 2,
	    MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, codes);
	check_failed(rc, kids, codes, 2, "a missing program");

	cmds[0] = argv[0];
	cmds[1] = "no-such-program-in-path";
	for (i = 0; i < 8; i++)
		codes[i] = -1;
	kids = MPI_COMM_WORLD;
	rc = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, infos,
	    nprocs - 1, MPI_COMM_WORLD, &kids, codes);
	check_failed(rc, kids, codes, 3, "one missing of two commands");

	for (i = 0; i < 8; i++)
		codes[i] = -1;
	kids = MPI_COMM_WORLD;
	rc = MPI_Comm_spawn(argv[0], args, UNIVERSE - nprocs + 1,
	    MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, codes);
	check_failed(rc, kids, codes, UNIVERSE - nprocs + 1,
	    "one process beyond the universe");

	rc = MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, nprocs,
	    MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE);
	expect(rc, MPI_ERR_ROOT, "root nprocs");
	rc = MPI_Comm_spawn(argv[0], args, myrank == 0 ? 0 : 1,
	    MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE);
	expect(rc, MPI_ERR_ARG, "maxprocs 0 at the root");

	/* The universe still holds what is left of it. */
	ok(MPI_Comm_spawn(argv[0], args, UNIVERSE - nprocs, MPI_INFO_NULL, 0,
	    MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE),
	    "a spawn that fills the universe");
	if (kids != MPI_COMM_NULL) {
		parent_collect(kids);
		MPI_Comm_disconnect(&kids);
	}
	return finish();
}

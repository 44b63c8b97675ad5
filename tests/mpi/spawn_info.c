/* SPDX-License-Identifier: ISC */
/*
 * spawn_info: the info keys of MPI_Comm_spawn that ft honours.  The
 * command is this program's base name, found through the info key
 * "path" (its directory), and the children run in the directory given
 * by "wdir", which they check with getcwd(3); "host" and "arch" are
 * accepted and ignored.
 */

#define NAME	"spawn_info"
#include "dyn.h"

#include <limits.h>
#include <unistd.h>

static void
parent(char *prog)
{
	char		 dir[] = "/tmp/ft-spawn-info.XXXXXX", path[PATH_MAX];
	char		 real[PATH_MAX], *base, *args[3];
	MPI_Comm	 kids;
	MPI_Info	 info;

	if (myrank == 0 && mkdtemp(dir) == NULL)
		fail("mkdtemp");
	MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
	if (realpath(dir, real) == NULL)
		fail("realpath");
	snprintf(path, sizeof(path), "%s", prog);
	base = strrchr(path, '/');
	if (base == NULL) {
		fail("the program was not run with a path");
		return;
	}
	*base++ = '\0';
	MPI_Info_create(&info);
	MPI_Info_set(info, "path", path);
	MPI_Info_set(info, "wdir", dir);
	MPI_Info_set(info, "host", "localhost");
	MPI_Info_set(info, "arch", "any");
	args[0] = real;
	args[1] = NULL;
	ok(MPI_Comm_spawn(base, args, 2, info, 0, MPI_COMM_WORLD, &kids,
	    MPI_ERRCODES_IGNORE), "Comm_spawn with path and wdir");
	MPI_Info_free(&info);
	if (kids != MPI_COMM_NULL) {
		parent_collect(kids);
		MPI_Comm_disconnect(&kids);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0)
		rmdir(dir);
}

static void
child(MPI_Comm par, char **argv)
{
	char	cwd[PATH_MAX];

	if (getcwd(cwd, sizeof(cwd)) == NULL || argv[1] == NULL ||
	    strcmp(cwd, argv[1]) != 0)
		fail("running in '%s', want '%s'", cwd, argv[1]);
	child_report(par);
	MPI_Comm_disconnect(&par);
}

int
main(int argc, char **argv)
{
	return dyn_main(argc, argv, parent, child);
}

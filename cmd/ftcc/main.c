/* SPDX-License-Identifier: ISC */
/*
 * ftcc: compile and link an MPI program against ft.  It runs the C
 * compiler (FTCC_CC, or cc) with ft's include directory and, unless only
 * compiling, libft with an rpath, so the program runs from the build tree
 * or an install alike.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/base/base.h"

static void
usage(void)
{
	fprintf(stderr, "usage: ftcc [-show] [cc options] file ...\n");
	exit(FT_EXIT_USAGE);
}

/* Where ft's headers and library are, from where ftcc itself is. */
static void
find_dirs(char *inc, char *libdir, size_t size)
{
	char exe[PATH_MAX - 64], probe[PATH_MAX + 32], *slash;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
		ft_die(FT_EXIT_TEMP, "unable to find ftcc's own path");
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	/* The build tree keeps headers in lib/include. */
	snprintf(probe, sizeof(probe), "%s/../lib/include/mpi.h", exe);
	if (access(probe, R_OK) == 0) {
		snprintf(inc, size, "%s/../lib/include", exe);
		snprintf(libdir, size, "%s/../lib", exe);
		return;
	}
	snprintf(inc, size, "%s/../include/ft", exe);
	snprintf(libdir, size, "%s/../lib", exe);
	snprintf(probe, sizeof(probe), "%s/mpi.h", inc);
	if (access(probe, R_OK) != 0)
		ft_diex(FT_EXIT_USAGE, "unable to find ft's mpi.h next to "
		    "'%s'", exe);
}

static char *
canon(const char *p)
{
	char *r = realpath(p, NULL);

	if (r == NULL)
		ft_die(FT_EXIT_TEMP, "unable to resolve '%s'", p);
	return r;
}

int
main(int argc, char *argv[])
{
	char inc[PATH_MAX], libdir[PATH_MAX], *incflag, *ldflag, *rpath;
	char **cmd, *ccwords, *w;
	const char *cc;
	size_t ncmd = 0, cap;
	int i, show = 0, link = 1;

	ft_diag_init(argv[0]);
	if (argc < 2)
		usage();
	find_dirs(inc, libdir, sizeof(inc));
	cc = getenv("FTCC_CC");
	if (cc == NULL || *cc == '\0')
		cc = "cc";
	if ((ccwords = strdup(cc)) == NULL)
		ft_die(FT_EXIT_TEMP, "strdup");
	cap = (size_t)argc + 16 + strlen(cc);
	if ((cmd = calloc(cap, sizeof(*cmd))) == NULL)
		ft_die(FT_EXIT_TEMP, "calloc");
	/* FTCC_CC may carry flags: "clang -fsanitize=address". */
	for (w = strtok_r(ccwords, " \t", &ccwords); w != NULL;
	    w = strtok_r(NULL, " \t", &ccwords))
		cmd[ncmd++] = w;
	if (ncmd == 0)
		ft_diex(FT_EXIT_USAGE, "FTCC_CC is empty");
	if (asprintf(&incflag, "-I%s", canon(inc)) < 0)
		ft_die(FT_EXIT_TEMP, "asprintf");
	cmd[ncmd++] = incflag;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-show") == 0 ||
		    strcmp(argv[i], "--show") == 0) {
			show = 1;
			continue;
		}
		if (strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "-S") == 0 ||
		    strcmp(argv[i], "-E") == 0 || strcmp(argv[i], "-M") == 0 ||
		    strcmp(argv[i], "-MM") == 0)
			link = 0;
		cmd[ncmd++] = argv[i];
	}
	if (link) {
		char *ld = canon(libdir);

		if (asprintf(&ldflag, "-L%s", ld) < 0 ||
		    asprintf(&rpath, "-Wl,-rpath,%s", ld) < 0)
			ft_die(FT_EXIT_TEMP, "asprintf");
		cmd[ncmd++] = ldflag;
		cmd[ncmd++] = rpath;
		cmd[ncmd++] = "-lft";
	}
	cmd[ncmd] = NULL;
	if (show) {
		for (i = 0; cmd[i] != NULL; i++)
			printf("%s%s", i > 0 ? " " : "", cmd[i]);
		printf("\n");
		return ft_exit(FT_EXIT_OK);
	}
	execvp(cmd[0], cmd);
	ft_die(errno == ENOENT ? 127 : 126, "unable to run '%s'", cmd[0]);
}

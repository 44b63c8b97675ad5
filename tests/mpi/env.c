/* SPDX-License-Identifier: ISC */
/*
 * env: the environment calls.  MPI_Initialized and MPI_Finalized before
 * MPI_Init_thread, after it and after MPI_Finalize; the thread level
 * provided for MPI_THREAD_FUNNELED; MPI_Get_version (also before
 * initialisation and after finalisation, which the standard allows)
 * and MPI_Get_library_version; MPI_Wtime, which must not go backwards
 * and must advance, and MPI_Wtick; MPI_Get_processor_name; the
 * MPI_TAG_UB attribute; MPI_COMM_WORLD and MPI_COMM_SELF sizes.
 * Checks after MPI_Finalize cannot be gathered: a rank that fails one
 * says so and exits 1, and rank 0 prints "No Errors" only after its own
 * checks pass.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"env"
#define MINPROCS	1
#define TAG_ERRS	32000

static int	errs;	/* failures seen by this rank */
static int	myrank;
static int	nulcounted;	/* Get_library_version counted the NUL */

static void
fail(const char *fmt, ...)
{
	va_list	ap;

	if (++errs > 20)
		return;
	fprintf(stderr, "%s: rank %d: ", NAME, myrank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
version(const char *when)
{
	int	v = -1, sv = -1;

	MPI_Get_version(&v, &sv);
	if (v < 3 || v > 4 || sv < 0)
		fail("%s: Get_version gave %d.%d, expected 3.x or 4.x", when,
		    v, sv);
	if (v != MPI_VERSION || sv != MPI_SUBVERSION)
		fail("%s: Get_version gave %d.%d, mpi.h says %d.%d", when,
		    v, sv, MPI_VERSION, MPI_SUBVERSION);
}

static void
libversion(const char *when)
{
	char	lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int	len = -1;

	memset(lib, 0, sizeof(lib));
	MPI_Get_library_version(lib, &len);
	if (len <= 0 || len >= MPI_MAX_LIBRARY_VERSION_STRING ||
	    lib[0] == '\0')
		fail("%s: Get_library_version gave length %d", when, len);
	else if ((size_t)len == strlen(lib) + 1) {
		/*
		 * The standard says resultlen characters are written and a
		 * NUL is stored at version[resultlen], so resultlen is the
		 * string length.  Open MPI 4.1 counts the NUL too; allow
		 * that, with a warning from rank 0 at the end.
		 */
		nulcounted = 1;
	} else if ((size_t)len != strlen(lib))
		fail("%s: Get_library_version length %d but strlen %zu", when,
		    len, strlen(lib));
}

static void
clocks(void)
{
	double	t0, t1, prev, tick;
	int	i;

	tick = MPI_Wtick();
	if (!(tick > 0.0 && tick <= 1.0))
		fail("Wtick is %g, expected a positive resolution of at most"
		    " a second", tick);
	t0 = prev = MPI_Wtime();
	for (i = 0; i < 100000; i++) {
		t1 = MPI_Wtime();
		if (t1 < prev) {
			fail("Wtime went backwards: %.9f after %.9f", t1,
			    prev);
			break;
		}
		prev = t1;
	}
	/* Spin for 20 ms of Wtime; give up after far too many reads. */
	for (i = 0; i < 200000000 && MPI_Wtime() - t0 < 0.02; i++)
		continue;
	t1 = MPI_Wtime();
	if (t1 - t0 < 0.02)
		fail("Wtime advanced only %g s", t1 - t0);
	if (t1 - t0 > 10.0)
		fail("Wtime advanced %g s during a 20 ms spin", t1 - t0);
}

static void
names(void)
{
	char	 name[MPI_MAX_PROCESSOR_NAME];
	int	 len = -1, size, flag = 0;
	int	*attr;

	memset(name, 0, sizeof(name));
	MPI_Get_processor_name(name, &len);
	if (len <= 0 || len >= MPI_MAX_PROCESSOR_NAME || name[0] == '\0')
		fail("Get_processor_name gave length %d", len);
	else if ((size_t)len != strlen(name))
		fail("Get_processor_name length %d but strlen %zu", len,
		    strlen(name));

	MPI_Comm_size(MPI_COMM_SELF, &size);
	MPI_Comm_rank(MPI_COMM_SELF, &flag);
	if (size != 1 || flag != 0)
		fail("MPI_COMM_SELF: size %d rank %d", size, flag);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (myrank < 0 || myrank >= size)
		fail("rank %d outside 0..%d", myrank, size - 1);

	attr = NULL;
	flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
	if (!flag || attr == NULL)
		fail("MPI_TAG_UB attribute missing");
	else if (*attr < 32767)
		fail("MPI_TAG_UB is %d, must be at least 32767", *attr);
}

int
main(int argc, char *argv[])
{
	int	i, size, e, total, before, provided, flag, fin;

	/* Before initialisation. */
	flag = fin = -1;
	MPI_Initialized(&flag);
	MPI_Finalized(&fin);
	version("before MPI_Init_thread");
	libversion("before MPI_Init_thread");

	provided = -1;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (flag != 0)
		fail("Initialized before MPI_Init_thread: %d", flag);
	if (fin != 0)
		fail("Finalized before MPI_Init_thread: %d", fin);
	if (provided != MPI_THREAD_SINGLE && provided != MPI_THREAD_FUNNELED &&
	    provided != MPI_THREAD_SERIALIZED &&
	    provided != MPI_THREAD_MULTIPLE)
		fail("Init_thread provided %d, not a thread level", provided);
	if (!(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED &&
	    MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
	    MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE))
		fail("thread level constants are not in increasing order");

	flag = fin = -1;
	MPI_Initialized(&flag);
	MPI_Finalized(&fin);
	if (flag != 1)
		fail("Initialized after MPI_Init_thread: %d", flag);
	if (fin != 0)
		fail("Finalized after MPI_Init_thread: %d", fin);
	version("after MPI_Init_thread");
	libversion("after MPI_Init_thread");
	clocks();
	names();

	total = before = errs;
	if (myrank == 0) {
		for (i = 1; i < size; i++) {
			MPI_Recv(&e, 1, MPI_INT, i, TAG_ERRS, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			total += e;
		}
	} else
		MPI_Send(&errs, 1, MPI_INT, 0, TAG_ERRS, MPI_COMM_WORLD);
	MPI_Finalize();

	/* After finalisation: these calls remain legal. */
	flag = fin = -1;
	MPI_Initialized(&flag);
	MPI_Finalized(&fin);
	if (flag != 1)
		fail("Initialized after MPI_Finalize: %d", flag);
	if (fin != 1)
		fail("Finalized after MPI_Finalize: %d", fin);
	version("after MPI_Finalize");
	libversion("after MPI_Finalize");

	if (myrank != 0)
		return errs != 0;
	if (nulcounted)
		fprintf(stderr, "%s: warning: Get_library_version's resultlen"
		    " counts the terminating NUL\n", NAME);
	total += errs - before;
	if (total == 0)
		printf("No Errors\n");
	else
		printf(" Found %d errors\n", total);
	fflush(stdout);
	return total != 0;
}

/* SPDX-License-Identifier: ISC */
/*
 * type_name: MPI_Type_set_name and MPI_Type_get_name.  Predefined types
 * carry their MPI names (the pair types and MPI_PACKED included), a
 * new derived type has the empty name, names are set and replaced,
 * cut to MPI_MAX_OBJECT_NAME - 1 characters, and may be set on a
 * predefined type too.  Every rank checks on its own.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_name"
#define TAG_ERRS	32000

static int	errs, myrank;

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

static int
finish(void)
{
	int	i, size, e, total = errs;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (myrank == 0) {
		for (i = 1; i < size; i++) {
			MPI_Recv(&e, 1, MPI_INT, i, TAG_ERRS, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			total += e;
		}
		if (total == 0)
			printf("No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	} else
		MPI_Send(&errs, 1, MPI_INT, 0, TAG_ERRS, MPI_COMM_WORLD);
	MPI_Finalize();
	return total != 0;
}

static void
expect_name(MPI_Datatype t, const char *want)
{
	char	name[MPI_MAX_OBJECT_NAME];
	int	len = -1;

	memset(name, 'z', sizeof(name));
	MPI_Type_get_name(t, name, &len);
	if (strcmp(name, want) != 0 || len != (int)strlen(want))
		fail("name '%s' (%d), expected '%s'", name, len, want);
}

int
main(int argc, char *argv[])
{
	MPI_Datatype	t, d;
	char		big[200], want[MPI_MAX_OBJECT_NAME];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);

	expect_name(MPI_INT, "MPI_INT");
	expect_name(MPI_DOUBLE, "MPI_DOUBLE");
	expect_name(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG");
	expect_name(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
	expect_name(MPI_2INT, "MPI_2INT");
	expect_name(MPI_PACKED, "MPI_PACKED");
	expect_name(MPI_BYTE, "MPI_BYTE");

	MPI_Type_contiguous(2, MPI_INT, &t);
	expect_name(t, "");
	MPI_Type_set_name(t, "pair of ints");
	expect_name(t, "pair of ints");
	MPI_Type_commit(&t);
	expect_name(t, "pair of ints");
	MPI_Type_set_name(t, "renamed");
	expect_name(t, "renamed");
	MPI_Type_set_name(t, "");
	expect_name(t, "");

	/* Too long: cut to MPI_MAX_OBJECT_NAME - 1 characters. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	MPI_Type_set_name(t, big);
	memset(want, 'x', sizeof(want) - 1);
	want[sizeof(want) - 1] = '\0';
	expect_name(t, want);

	/* A duplicate is a new type: its name is its own. */
	MPI_Type_dup(t, &d);
	MPI_Type_set_name(d, "the dup");
	expect_name(d, "the dup");
	expect_name(t, want);
	MPI_Type_free(&d);
	MPI_Type_free(&t);

	/* Predefined types may be renamed (for this process). */
	MPI_Type_set_name(MPI_SHORT, "my short");
	expect_name(MPI_SHORT, "my short");
	expect_name(MPI_INT, "MPI_INT");
	return finish();
}

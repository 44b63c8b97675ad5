/* SPDX-License-Identifier: ISC */
/*
 * type_errors: under MPI_ERRORS_RETURN every datatype call reports a
 * bad argument with the right error class and goes on: MPI_ERR_TYPE
 * for null, freed or garbage handles, uncommitted types where a
 * committed one is needed, and freeing a predefined type;
 * MPI_ERR_COUNT for negative counts; MPI_ERR_ARG for negative
 * blocklengths and null output arguments; MPI_ERR_COMM for a bad
 * communicator in MPI_Pack; MPI_ERR_TRUNCATE when packing overflows.
 * Freed and garbage handles are ft's promise (handles are checked
 * before use); the standard only calls them erroneous.  Every rank
 * checks on its own, sending only to itself.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_errors"
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

/* Call must fail with error class cls. */
#define EXPECT(call, cls) do {						\
	int rc_ = (call), c_ = -1;					\
									\
	if (rc_ != MPI_SUCCESS)						\
		MPI_Error_class(rc_, &c_);				\
	if (rc_ == MPI_SUCCESS || c_ != (cls))				\
		fail("line %d: %s: class %d, expected %s", __LINE__,	\
		    #call, rc_ == MPI_SUCCESS ? 0 : c_, #cls);		\
} while (0)

int
main(int argc, char *argv[])
{
	MPI_Datatype	t, u, stale, nt, garbage, types[2];
	MPI_Status	st;
	MPI_Aint	a, b, ad[2] = { 0, 8 };
	int		buf[8] = { 0 }, bl[2] = { 1, -1 }, ds[2] = { 0, 1 };
	int		n, pos, rc, cls;
	char		pb[64], name[MPI_MAX_OBJECT_NAME];
	static double	junk[32];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

	/* Constructors. */
	EXPECT(MPI_Type_contiguous(-1, MPI_INT, &nt), MPI_ERR_COUNT);
	EXPECT(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &nt), MPI_ERR_TYPE);
	EXPECT(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Type_vector(-1, 1, 1, MPI_INT, &nt), MPI_ERR_COUNT);
	EXPECT(MPI_Type_vector(2, -1, 3, MPI_INT, &nt), MPI_ERR_ARG);
	EXPECT(MPI_Type_create_hvector(2, 1, 8, MPI_DATATYPE_NULL, &nt),
	    MPI_ERR_TYPE);
	EXPECT(MPI_Type_indexed(2, bl, ds, MPI_INT, &nt), MPI_ERR_ARG);
	EXPECT(MPI_Type_indexed(-1, bl, ds, MPI_INT, &nt), MPI_ERR_COUNT);
	EXPECT(MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &nt),
	    MPI_ERR_ARG);
	EXPECT(MPI_Type_create_indexed_block(-2, 1, ds, MPI_INT, &nt),
	    MPI_ERR_COUNT);
	EXPECT(MPI_Type_create_hindexed_block(2, -1, ad, MPI_INT, &nt),
	    MPI_ERR_ARG);
	types[0] = MPI_INT;
	types[1] = MPI_DATATYPE_NULL;
	bl[1] = 1;
	EXPECT(MPI_Type_create_struct(2, bl, ad, types, &nt), MPI_ERR_TYPE);
	EXPECT(MPI_Type_create_struct(-1, bl, ad, types, &nt),
	    MPI_ERR_COUNT);
	EXPECT(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &nt),
	    MPI_ERR_TYPE);
	EXPECT(MPI_Type_dup(MPI_DATATYPE_NULL, &nt), MPI_ERR_TYPE);

	/* Commit and free. */
	nt = MPI_DATATYPE_NULL;
	EXPECT(MPI_Type_commit(&nt), MPI_ERR_TYPE);
	EXPECT(MPI_Type_free(&nt), MPI_ERR_TYPE);
	nt = MPI_DOUBLE;
	EXPECT(MPI_Type_free(&nt), MPI_ERR_TYPE);
	if (nt != MPI_DOUBLE)
		fail("freeing MPI_DOUBLE changed the handle");
	nt = MPI_DOUBLE_INT;
	EXPECT(MPI_Type_free(&nt), MPI_ERR_TYPE);
	if (MPI_Type_commit(&nt) != MPI_SUCCESS)
		fail("committing a predefined type failed");

	/* Queries. */
	EXPECT(MPI_Type_size(MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
	EXPECT(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Type_get_extent(MPI_DATATYPE_NULL, &a, &b), MPI_ERR_TYPE);
	EXPECT(MPI_Type_get_true_extent(MPI_DATATYPE_NULL, &a, &b),
	    MPI_ERR_TYPE);
	EXPECT(MPI_Type_set_name(MPI_DATATYPE_NULL, "x"), MPI_ERR_TYPE);
	EXPECT(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &n), MPI_ERR_TYPE);
	memset(&st, 0, sizeof(st));
	EXPECT(MPI_Get_elements(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
	EXPECT(MPI_Get_elements(NULL, MPI_INT, &n), MPI_ERR_ARG);
	EXPECT(MPI_Get_count(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
	EXPECT(MPI_Get_address(buf, NULL), MPI_ERR_ARG);

	/* An uncommitted type cannot carry data. */
	MPI_Type_contiguous(2, MPI_INT, &t);
	EXPECT(MPI_Send(buf, 1, t, myrank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
	pos = 0;
	EXPECT(MPI_Pack(buf, 1, t, pb, sizeof(pb), &pos, MPI_COMM_WORLD),
	    MPI_ERR_TYPE);
	MPI_Type_commit(&t);

	/* Pack and Unpack. */
	pos = 0;
	EXPECT(MPI_Pack(buf, -1, t, pb, sizeof(pb), &pos, MPI_COMM_WORLD),
	    MPI_ERR_COUNT);
	EXPECT(MPI_Pack(buf, 1, t, pb, sizeof(pb), &pos, MPI_COMM_NULL),
	    MPI_ERR_COMM);
	EXPECT(MPI_Pack(buf, 1, t, pb, sizeof(pb), NULL, MPI_COMM_WORLD),
	    MPI_ERR_ARG);
	EXPECT(MPI_Pack(buf, 1, t, pb, 4, &pos, MPI_COMM_WORLD),
	    MPI_ERR_TRUNCATE);
	pos = 60;
	EXPECT(MPI_Pack(buf, 1, t, pb, sizeof(pb), &pos, MPI_COMM_WORLD),
	    MPI_ERR_TRUNCATE);
	pos = 0;
	EXPECT(MPI_Unpack(pb, 7, &pos, buf, 1, t, MPI_COMM_WORLD),
	    MPI_ERR_TRUNCATE);
	EXPECT(MPI_Unpack(pb, sizeof(pb), &pos, buf, 1, MPI_DATATYPE_NULL,
	    MPI_COMM_WORLD), MPI_ERR_TYPE);
	EXPECT(MPI_Pack_size(-1, t, MPI_COMM_WORLD, &n), MPI_ERR_COUNT);
	EXPECT(MPI_Pack_size(1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &n),
	    MPI_ERR_TYPE);

	/* Freed handles, and handles that never were types. */
	MPI_Type_dup(t, &u);
	stale = u;
	MPI_Type_free(&u);
	EXPECT(MPI_Type_size(stale, &n), MPI_ERR_TYPE);
	EXPECT(MPI_Type_free(&stale), MPI_ERR_TYPE);
	EXPECT(MPI_Send(buf, 1, stale, myrank, 0, MPI_COMM_WORLD),
	    MPI_ERR_TYPE);
	EXPECT(MPI_Type_contiguous(2, stale, &nt), MPI_ERR_TYPE);
	garbage = (MPI_Datatype)(void *)junk;
	EXPECT(MPI_Type_commit(&garbage), MPI_ERR_TYPE);
	EXPECT(MPI_Recv(buf, 1, garbage, myrank, 0, MPI_COMM_WORLD, &st),
	    MPI_ERR_TYPE);

	/* After all that, the type still works. */
	rc = MPI_Sendrecv(buf, 1, t, myrank, 5, buf + 4, 1, t, myrank, 5,
	    MPI_COMM_WORLD, &st);
	MPI_Error_class(rc, &cls);
	if (rc != MPI_SUCCESS)
		fail("a send to self after the errors failed: class %d", cls);
	MPI_Type_free(&t);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	return finish();
}

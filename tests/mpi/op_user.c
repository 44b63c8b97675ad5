/* SPDX-License-Identifier: ISC */
/*
 * op_user: MPI_Op_create, MPI_Op_free and MPI_Op_commutative, and user
 * operations in MPI_Reduce_local, MPI_Reduce and MPI_Allreduce: on
 * MPI_INT, and on a struct type with holes (a double and an int, resized
 * to leave a gap), for short vectors and for long ones that take the
 * reduce-scatter path in pieces; the function must always get the
 * application's datatype, and the holes must stay untouched.  Freeing
 * a predefined operation fails with MPI_ERR_OP.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"op_user"
#define TAG_ERRS	32000

static int	errs;
static int	myrank, nprocs;

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
	int	i, e, total = errs;

	if (myrank == 0) {
		for (i = 1; i < nprocs; i++) {
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

static void *xmalloc(size_t) __attribute__((unused));

static void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = calloc(1, n > 0 ? n : 1)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

struct item {
	double	d;
	int	n;
	int	hole;	/* not part of the type */
};

static MPI_Datatype	itemtype;
static int		wrongtype;

/* inout = max(in, inout) on d, sum on n. */
static void
itemop(void *in, void *inout, int *len, MPI_Datatype *type)
{
	struct item *a = in, *b = inout;
	int i;

	if (*type != itemtype)
		wrongtype++;
	for (i = 0; i < *len; i++) {
		if (a[i].d > b[i].d)
			b[i].d = a[i].d;
		b[i].n += a[i].n;
	}
}

/*
 * Associative but not commutative: pairs (a, b) stand for x -> a x + b,
 * and in op inout applies in's map first, then inout's.
 */
static void
affine(void *in, void *inout, int *len, MPI_Datatype *type)
{
	int *p = in, *q = inout, i;

	(void)type;
	for (i = 0; i < *len; i++) {
		q[2 * i + 1] = q[2 * i] * p[2 * i + 1] + q[2 * i + 1];
		q[2 * i] = p[2 * i] * q[2 * i];
	}
}

static void
items(int count)
{
	struct item *in, *out;
	MPI_Op op;
	int i, r;
	double maxd;

	MPI_Op_create(itemop, 1, &op);
	in = xmalloc((size_t)count * sizeof(*in));
	out = xmalloc((size_t)count * sizeof(*out));
	for (i = 0; i < count; i++) {
		in[i].d = (double)((myrank * 7 + i) % 13);
		in[i].n = myrank + i % 5;
		in[i].hole = -1;
		out[i].hole = 4242;
	}
	MPI_Allreduce(in, out, count, itemtype, op, MPI_COMM_WORLD);
	for (i = 0; i < count; i++) {
		for (r = 0, maxd = 0; r < nprocs; r++)
			if ((double)((r * 7 + i) % 13) > maxd)
				maxd = (double)((r * 7 + i) % 13);
		if (out[i].d != maxd ||
		    out[i].n != nprocs * (nprocs - 1) / 2 + nprocs * (i % 5)) {
			fail("items %d: element %d is (%g, %d)", count, i,
			    out[i].d, out[i].n);
			break;
		}
		if (out[i].hole != 4242) {
			fail("items %d: the hole of element %d was written",
			    count, i);
			break;
		}
	}
	/* The same to the last rank with MPI_Reduce. */
	for (i = 0; i < count; i++)
		out[i].n = -5;
	MPI_Reduce(in, out, count, itemtype, op, nprocs - 1, MPI_COMM_WORLD);
	if (myrank == nprocs - 1)
		for (i = 0; i < count; i++)
			if (out[i].n != nprocs * (nprocs - 1) / 2 +
			    nprocs * (i % 5)) {
				fail("items reduce %d: element %d is %d",
				    count, i, out[i].n);
				break;
			}
	MPI_Op_free(&op);
	free(in);
	free(out);
}

int
main(int argc, char *argv[])
{
	MPI_Datatype	 types[2] = { MPI_DOUBLE, MPI_INT }, tmp;
	MPI_Aint	 displs[2] = { offsetof(struct item, d),
			    offsetof(struct item, n) };
	int		 blens[2] = { 1, 1 }, a[4], b[4], i, x, want, rc, cls;
	MPI_Op		 op, sum = MPI_SUM;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Type_create_struct(2, blens, displs, types, &tmp);
	MPI_Type_create_resized(tmp, 0, sizeof(struct item), &itemtype);
	MPI_Type_commit(&itemtype);
	MPI_Type_free(&tmp);

	items(1);
	items(5);
	items(3000);
	items(40000);
	if (wrongtype)
		fail("the user function got another datatype %d times",
		    wrongtype);

	/*
	 * Non-commutative: composing x -> 2x + (r + 1) over ranks in order
	 * gives b = sum over r of 2^(n-1-r) (r + 1).
	 */
	MPI_Type_contiguous(2, MPI_INT, &tmp);
	MPI_Type_commit(&tmp);
	MPI_Op_create(affine, 0, &op);
	a[0] = 2;
	a[1] = myrank + 1;
	MPI_Allreduce(a, b, 1, tmp, op, MPI_COMM_WORLD);
	for (i = 0, want = 0, x = 1; i < nprocs; i++, x *= 2)
		want = 2 * want + (i + 1);
	if (b[0] != x || b[1] != want)
		fail("non-commutative allreduce gave (%d, %d), expected "
		    "(%d, %d)", b[0], b[1], x, want);
	a[0] = 3;
	a[1] = 1;
	a[2] = 5;
	a[3] = 2;
	b[0] = 2;
	b[1] = 7;
	b[2] = 1;
	b[3] = 0;
	MPI_Reduce_local(a, b, 2, tmp, op);
	/* 2(3x + 1) + 7 and 1(5x + 2) + 0. */
	if (b[0] != 6 || b[1] != 9 || b[2] != 5 || b[3] != 2)
		fail("MPI_Reduce_local with a user op gave %d %d %d %d",
		    b[0], b[1], b[2], b[3]);
	MPI_Op_free(&op);
	MPI_Type_free(&tmp);

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Op_free(&sum);
	MPI_Error_class(rc, &cls);
	if (rc == MPI_SUCCESS || cls != MPI_ERR_OP)
		fail("freeing MPI_SUM: error class %d", cls);
	op = MPI_OP_NULL;
	rc = MPI_Op_free(&op);
	MPI_Error_class(rc, &cls);
	if (rc == MPI_SUCCESS || cls != MPI_ERR_OP)
		fail("freeing MPI_OP_NULL: error class %d", cls);
	MPI_Type_free(&itemtype);
	return finish();
}

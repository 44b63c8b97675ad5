/* SPDX-License-Identifier: ISC */
/*
 * coll_noncomm: reductions with a non-commutative user operation, the
 * product of 2x2 matrices modulo a prime, on a derived datatype (four
 * ints), must combine the ranks' contributions in rank order: MPI_Reduce
 * from every root, MPI_Allreduce on short and long vectors, MPI_Scan,
 * MPI_Exscan, MPI_Reduce_scatter_block, MPI_Reduce_scatter, with and
 * without MPI_IN_PLACE, and their nonblocking forms.  Also a
 * commutative user operation, which may combine in any order, and
 * MPI_Op_commutative.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"coll_noncomm"
#define TAG_ERRS	32000
#define P		1000003

static int	errs;
static int	myrank, nprocs;
static int	calls;		/* of the user function */

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

struct mat {
	int	a, b, c, d;	/* [[a b] [c d]] */
};

static MPI_Datatype	mattype;

static struct mat
mul(struct mat x, struct mat y)
{
	struct mat z;

	z.a = (int)(((int64_t)x.a * y.a + (int64_t)x.b * y.c) % P);
	z.b = (int)(((int64_t)x.a * y.b + (int64_t)x.b * y.d) % P);
	z.c = (int)(((int64_t)x.c * y.a + (int64_t)x.d * y.c) % P);
	z.d = (int)(((int64_t)x.c * y.b + (int64_t)x.d * y.d) % P);
	return z;
}

static void
matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
	struct mat *x = in, *y = inout;
	int i;

	calls++;
	if (*type != mattype)
		fail("the user function got another datatype");
	for (i = 0; i < *len; i++)
		y[i] = mul(x[i], y[i]);
}

/* A sum of matrices: commutative. */
static void
matadd(void *in, void *inout, int *len, MPI_Datatype *type)
{
	struct mat *x = in, *y = inout;
	int i;

	(void)type;
	for (i = 0; i < *len; i++) {
		y[i].a = (y[i].a + x[i].a) % P;
		y[i].b = (y[i].b + x[i].b) % P;
		y[i].c = (y[i].c + x[i].c) % P;
		y[i].d = (y[i].d + x[i].d) % P;
	}
}

/* Element k of rank r's vector: no two ranks' matrices commute. */
static struct mat
elem(int r, int k)
{
	struct mat m;

	m.a = (r * 7 + k * 3 + 3) % 11 + 1;
	m.b = (r * 5 + k + 1) % 13;
	m.c = (r * 3 + k * 5 + 2) % 7 + 1;
	m.d = (r + k * 2 + 5) % 9;
	return m;
}

/* The product of element k over ranks lo .. hi - 1, in order. */
static struct mat
prod(int lo, int hi, int k)
{
	struct mat m = { 1, 0, 0, 1 };
	int r;

	for (r = lo; r < hi; r++)
		m = mul(m, elem(r, k));
	return m;
}

static int
same(struct mat x, struct mat y)
{
	return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}

static void
check(const struct mat *got, int count, int lo, int hi, int k0,
    const char *what)
{
	int k;

	for (k = 0; k < count; k++)
		if (!same(got[k], prod(lo, hi, k0 + k))) {
			fail("%s: element %d is [%d %d %d %d], expected "
			    "ranks %d..%d in order", what, k, got[k].a,
			    got[k].b, got[k].c, got[k].d, lo, hi - 1);
			return;
		}
}

static struct mat *
vec(int count)
{
	struct mat *v;
	int k;

	if ((v = calloc((size_t)count + 1, sizeof(*v))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (k = 0; k < count; k++)
		v[k] = elem(myrank, k);
	return v;
}

static void
wait_or_not(MPI_Request *req, int nb)
{
	if (nb)
		MPI_Wait(req, MPI_STATUS_IGNORE);
}

static void
reductions(MPI_Op op, int count, int nb)
{
	struct mat *in = vec(count), *out = vec(count);
	MPI_Request req = MPI_REQUEST_NULL;
	char what[96];
	int root;

	for (root = 0; root < nprocs; root++) {
		memset(out, 0, (size_t)count * sizeof(*out));
		if (nb)
			MPI_Ireduce(in, out, count, mattype, op, root,
			    MPI_COMM_WORLD, &req);
		else
			MPI_Reduce(in, out, count, mattype, op, root,
			    MPI_COMM_WORLD);
		wait_or_not(&req, nb);
		snprintf(what, sizeof(what), "%sreduce count %d root %d",
		    nb ? "i" : "", count, root);
		if (myrank == root)
			check(out, count, 0, nprocs, 0, what);
		/* In place at the root. */
		free(out);
		out = vec(count);
		if (nb)
			MPI_Ireduce(myrank == root ? MPI_IN_PLACE : out,
			    out, count, mattype, op, root, MPI_COMM_WORLD,
			    &req);
		else
			MPI_Reduce(myrank == root ? MPI_IN_PLACE : out,
			    out, count, mattype, op, root, MPI_COMM_WORLD);
		wait_or_not(&req, nb);
		snprintf(what, sizeof(what), "%sreduce in place count %d "
		    "root %d", nb ? "i" : "", count, root);
		if (myrank == root)
			check(out, count, 0, nprocs, 0, what);
		free(out);
		out = vec(count);
	}

	memset(out, 0, (size_t)count * sizeof(*out));
	if (nb)
		MPI_Iallreduce(in, out, count, mattype, op, MPI_COMM_WORLD,
		    &req);
	else
		MPI_Allreduce(in, out, count, mattype, op, MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sallreduce count %d", nb ? "i" : "",
	    count);
	check(out, count, 0, nprocs, 0, what);
	free(out);
	out = vec(count);
	if (nb)
		MPI_Iallreduce(MPI_IN_PLACE, out, count, mattype, op,
		    MPI_COMM_WORLD, &req);
	else
		MPI_Allreduce(MPI_IN_PLACE, out, count, mattype, op,
		    MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sallreduce in place count %d",
	    nb ? "i" : "", count);
	check(out, count, 0, nprocs, 0, what);

	memset(out, 0, (size_t)count * sizeof(*out));
	if (nb)
		MPI_Iscan(in, out, count, mattype, op, MPI_COMM_WORLD, &req);
	else
		MPI_Scan(in, out, count, mattype, op, MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sscan count %d", nb ? "i" : "", count);
	check(out, count, 0, myrank + 1, 0, what);
	free(out);
	out = vec(count);
	if (nb)
		MPI_Iscan(MPI_IN_PLACE, out, count, mattype, op,
		    MPI_COMM_WORLD, &req);
	else
		MPI_Scan(MPI_IN_PLACE, out, count, mattype, op,
		    MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sscan in place count %d",
	    nb ? "i" : "", count);
	check(out, count, 0, myrank + 1, 0, what);

	memset(out, 0, (size_t)count * sizeof(*out));
	if (nb)
		MPI_Iexscan(in, out, count, mattype, op, MPI_COMM_WORLD,
		    &req);
	else
		MPI_Exscan(in, out, count, mattype, op, MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sexscan count %d", nb ? "i" : "",
	    count);
	if (myrank > 0)
		check(out, count, 0, myrank, 0, what);
	free(out);
	out = vec(count);
	if (nb)
		MPI_Iexscan(MPI_IN_PLACE, out, count, mattype, op,
		    MPI_COMM_WORLD, &req);
	else
		MPI_Exscan(MPI_IN_PLACE, out, count, mattype, op,
		    MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sexscan in place count %d",
	    nb ? "i" : "", count);
	if (myrank > 0)
		check(out, count, 0, myrank, 0, what);
	free(in);
	free(out);
}

static void
reduce_scatters(MPI_Op op, int blk, int nb)
{
	MPI_Request req = MPI_REQUEST_NULL;
	struct mat *in, *out;
	int *counts, i, total, off;
	char what[96];

	/* Block: blk elements each. */
	in = vec(blk * nprocs);
	out = vec(blk);
	memset(out, 0, (size_t)blk * sizeof(*out));
	if (nb)
		MPI_Ireduce_scatter_block(in, out, blk, mattype, op,
		    MPI_COMM_WORLD, &req);
	else
		MPI_Reduce_scatter_block(in, out, blk, mattype, op,
		    MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sreduce_scatter_block %d",
	    nb ? "i" : "", blk);
	check(out, blk, 0, nprocs, myrank * blk, what);
	if (nb)
		MPI_Ireduce_scatter_block(MPI_IN_PLACE, in, blk, mattype, op,
		    MPI_COMM_WORLD, &req);
	else
		MPI_Reduce_scatter_block(MPI_IN_PLACE, in, blk, mattype, op,
		    MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sreduce_scatter_block in place %d",
	    nb ? "i" : "", blk);
	check(in, blk, 0, nprocs, myrank * blk, what);
	free(in);
	free(out);

	/* Varying counts, some of them 0. */
	if ((counts = malloc((size_t)nprocs * sizeof(*counts))) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = total = 0; i < nprocs; i++) {
		counts[i] = (i + blk) % 3;
		total += counts[i];
	}
	for (i = off = 0; i < myrank; i++)
		off += counts[i];
	in = vec(total);
	out = vec(counts[myrank]);
	if (nb)
		MPI_Ireduce_scatter(in, out, counts, mattype, op,
		    MPI_COMM_WORLD, &req);
	else
		MPI_Reduce_scatter(in, out, counts, mattype, op,
		    MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sreduce_scatter %d", nb ? "i" : "",
	    blk);
	check(out, counts[myrank], 0, nprocs, off, what);
	if (nb)
		MPI_Ireduce_scatter(MPI_IN_PLACE, in, counts, mattype, op,
		    MPI_COMM_WORLD, &req);
	else
		MPI_Reduce_scatter(MPI_IN_PLACE, in, counts, mattype, op,
		    MPI_COMM_WORLD);
	wait_or_not(&req, nb);
	snprintf(what, sizeof(what), "%sreduce_scatter in place %d",
	    nb ? "i" : "", blk);
	check(in, counts[myrank], 0, nprocs, off, what);
	free(in);
	free(out);
	free(counts);
}

int
main(int argc, char *argv[])
{
	static const int counts[] = { 1, 2, 5, 64, 3000 };
	struct mat in[3], out[3], want;
	MPI_Op op, cop;
	int i, nb, flag, k;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Type_contiguous(4, MPI_INT, &mattype);
	MPI_Type_commit(&mattype);
	MPI_Op_create(matmul, 0, &op);
	MPI_Op_create(matadd, 1, &cop);

	MPI_Op_commutative(op, &flag);
	if (flag)
		fail("MPI_Op_commutative says the product commutes");
	MPI_Op_commutative(cop, &flag);
	if (!flag)
		fail("MPI_Op_commutative says the sum does not commute");
	MPI_Op_commutative(MPI_SUM, &flag);
	if (!flag)
		fail("MPI_Op_commutative says MPI_SUM does not commute");

	for (nb = 0; nb < 2; nb++) {
		for (i = 0; i < (int)(sizeof(counts) / sizeof(counts[0]));
		    i++)
			reductions(op, counts[i], nb);
		reduce_scatters(op, 1, nb);
		reduce_scatters(op, 4, nb);
	}
	if (calls == 0 && nprocs > 1)
		fail("the user function was never called");

	/* A commutative user operation (and its long-vector path). */
	for (k = 0; k < 3; k++)
		in[k] = elem(myrank, k);
	MPI_Allreduce(in, out, 3, mattype, cop, MPI_COMM_WORLD);
	for (k = 0; k < 3; k++) {
		want = (struct mat){ 0, 0, 0, 0 };
		for (i = 0; i < nprocs; i++) {
			struct mat e = elem(i, k);

			want.a = (want.a + e.a) % P;
			want.b = (want.b + e.b) % P;
			want.c = (want.c + e.c) % P;
			want.d = (want.d + e.d) % P;
		}
		if (!same(out[k], want))
			fail("commutative allreduce: element %d is wrong", k);
	}
	{
		struct mat *big = vec(20000), *res = vec(20000);

		MPI_Allreduce(big, res, 20000, mattype, cop, MPI_COMM_WORLD);
		for (k = 0; k < 20000; k += 997) {
			want = (struct mat){ 0, 0, 0, 0 };
			for (i = 0; i < nprocs; i++) {
				struct mat e = elem(i, k);

				want.a = (want.a + e.a) % P;
				want.b = (want.b + e.b) % P;
				want.c = (want.c + e.c) % P;
				want.d = (want.d + e.d) % P;
			}
			if (!same(res[k], want)) {
				fail("long commutative allreduce: element %d "
				    "is wrong", k);
				break;
			}
		}
		free(big);
		free(res);
	}

	MPI_Op_free(&op);
	MPI_Op_free(&cop);
	if (op != MPI_OP_NULL || cop != MPI_OP_NULL)
		fail("MPI_Op_free did not set the handle to MPI_OP_NULL");
	MPI_Type_free(&mattype);
	return finish();
}

/* SPDX-License-Identifier: ISC */
/*
 * selfsend: every rank talks to itself, in MPI_COMM_WORLD and in
 * MPI_COMM_SELF, with every send mode, small and large messages,
 * MPI_Sendrecv and MPI_Sendrecv_replace.  Only patterns the standard
 * guarantees are used: a blocking send to self is issued only after
 * the matching receive is posted (or is buffered with MPI_Bsend), since
 * a standard-mode send to self may wait for its receive.  Also checks
 * that the two communicators do not cross-match.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"selfsend"
#define MINPROCS	1
#define TAG_ERRS	32000
#define BIG		(1024 * 1024)

static int	errs;	/* failures seen by this rank */
static int	myrank;

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

	/* Not before every rank is done: a wildcard receive still
	 * running on another rank must not catch an error count. */
	MPI_Barrier(MPI_COMM_WORLD);
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

static void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = malloc(n)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

static void
fill(int *p, int n, int seed)
{
	int	i;

	for (i = 0; i < n; i++)
		p[i] = seed * 7919 + i;
}

static void
check(const int *p, int n, int seed, const MPI_Status *st, int src,
    int tag, const char *what)
{
	int	i, count;

	for (i = 0; i < n; i++)
		if (p[i] != seed * 7919 + i) {
			fail("%s: int %d is %d, expected %d", what, i, p[i],
			    seed * 7919 + i);
			break;
		}
	if (st == NULL)
		return;
	MPI_Get_count(st, MPI_INT, &count);
	if (count != n)
		fail("%s: count %d, expected %d", what, count, n);
	if (st->MPI_SOURCE != src || st->MPI_TAG != tag)
		fail("%s: status source %d tag %d, expected %d and %d", what,
		    st->MPI_SOURCE, st->MPI_TAG, src, tag);
}

/* Exercise one communicator in which this process has rank me. */
static void
selfcomm(MPI_Comm comm, int me, const char *cname)
{
	static const int lens[2] = { 10, BIG / 4 };
	MPI_Request	 req, reqs[10];
	MPI_Status	 st;
	char		 what[96];
	int		*a, *b, *bsbuf, *det;
	int		 i, k, n, flag, bsize, dsize;

	a = xmalloc(BIG);
	b = xmalloc(BIG);
	for (k = 0; k < 2; k++) {
		n = lens[k];

		snprintf(what, sizeof(what), "%s: Isend+Recv of %d ints",
		    cname, n);
		fill(a, n, 1 + k);
		memset(b, 0, BIG);
		MPI_Isend(a, n, MPI_INT, me, 1, comm, &req);
		MPI_Recv(b, n, MPI_INT, me, 1, comm, &st);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		check(b, n, 1 + k, &st, me, 1, what);

		snprintf(what, sizeof(what), "%s: Irecv+Send of %d ints",
		    cname, n);
		fill(a, n, 2 + k);
		memset(b, 0, BIG);
		MPI_Irecv(b, n, MPI_INT, me, 2, comm, &req);
		MPI_Send(a, n, MPI_INT, me, 2, comm);
		MPI_Wait(&req, &st);
		check(b, n, 2 + k, &st, me, 2, what);

		snprintf(what, sizeof(what), "%s: Sendrecv of %d ints",
		    cname, n);
		fill(a, n, 3 + k);
		memset(b, 0, BIG);
		MPI_Sendrecv(a, n, MPI_INT, me, 3, b, n, MPI_INT, me, 3, comm,
		    &st);
		check(b, n, 3 + k, &st, me, 3, what);

		snprintf(what, sizeof(what),
		    "%s: Sendrecv_replace of %d ints", cname, n);
		fill(a, n, 4 + k);
		MPI_Sendrecv_replace(a, n, MPI_INT, me, 4, me, 4, comm, &st);
		check(a, n, 4 + k, &st, me, 4, what);

		/*
		 * A synchronous send to self cannot complete before the
		 * receive is posted, however often it is tested.
		 */
		snprintf(what, sizeof(what), "%s: Issend of %d ints",
		    cname, n);
		fill(a, n, 5 + k);
		memset(b, 0, BIG);
		MPI_Issend(a, n, MPI_INT, me, 5, comm, &req);
		for (i = 0; i < 100; i++) {
			flag = 0;
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
			if (flag) {
				fail("%s: completed before the receive was"
				    " posted", what);
				break;
			}
		}
		MPI_Recv(b, n, MPI_INT, me, 5, comm, &st);
		if (!flag)
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		check(b, n, 5 + k, &st, me, 5, what);

		snprintf(what, sizeof(what), "%s: Irecv+Rsend of %d ints",
		    cname, n);
		fill(a, n, 6 + k);
		memset(b, 0, BIG);
		MPI_Irecv(b, n, MPI_INT, me, 6, comm, &req);
		MPI_Rsend(a, n, MPI_INT, me, 6, comm);
		MPI_Wait(&req, &st);
		check(b, n, 6 + k, &st, me, 6, what);

		/* Bsend completes locally, so it may precede the Recv. */
		snprintf(what, sizeof(what), "%s: Bsend+Recv of %d ints",
		    cname, n);
		bsize = n * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
		bsbuf = xmalloc((size_t)bsize);
		MPI_Buffer_attach(bsbuf, bsize);
		fill(a, n, 7 + k);
		memset(b, 0, BIG);
		MPI_Bsend(a, n, MPI_INT, me, 7, comm);
		memset(a, 0, (size_t)n * sizeof(int));
		MPI_Recv(b, n, MPI_INT, me, 7, comm, &st);
		check(b, n, 7 + k, &st, me, 7, what);
		MPI_Buffer_detach(&det, &dsize);
		if (det != bsbuf || dsize != bsize)
			fail("%s: detach returned %p/%d, attached %p/%d",
			    what, (void *)det, dsize, (void *)bsbuf, bsize);
		free(bsbuf);
	}

	/* Ten messages to self arrive in order, and a probe sees them. */
	for (i = 0; i < 10; i++) {
		a[i] = 100 + i;
		MPI_Isend(&a[i], 1, MPI_INT, me, 20 + i % 3, comm, &reqs[i]);
	}
	MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
	if (st.MPI_SOURCE != me || st.MPI_TAG != 20)
		fail("%s: Probe saw source %d tag %d, expected %d and 20",
		    cname, st.MPI_SOURCE, st.MPI_TAG, me);
	for (i = 0; i < 10; i++) {
		b[0] = -1;
		MPI_Recv(b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm,
		    &st);
		if (b[0] != 100 + i || st.MPI_TAG != 20 + i % 3 ||
		    st.MPI_SOURCE != me)
			fail("%s: ordered message %d: value %d tag %d source"
			    " %d", cname, i, b[0], st.MPI_TAG, st.MPI_SOURCE);
	}
	MPI_Waitall(10, reqs, MPI_STATUSES_IGNORE);

	free(a);
	free(b);
}

int
main(int argc, char *argv[])
{
	MPI_Request	req, sreq;
	MPI_Status	st;
	int		size, self_rank, self_size, flag, v, w;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < MINPROCS) {
		if (myrank == 0)
			fprintf(stderr, "%s: needs at least %d ranks\n",
			    NAME, MINPROCS);
		MPI_Finalize();
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
	MPI_Comm_size(MPI_COMM_SELF, &self_size);
	if (self_rank != 0 || self_size != 1)
		fail("MPI_COMM_SELF: rank %d size %d, expected 0 and 1",
		    self_rank, self_size);

	selfcomm(MPI_COMM_WORLD, myrank, "MPI_COMM_WORLD");
	selfcomm(MPI_COMM_SELF, 0, "MPI_COMM_SELF");

	/*
	 * A message in MPI_COMM_SELF must not match a receive posted in
	 * MPI_COMM_WORLD with the same source and tag, and vice versa.
	 */
	v = -1;
	MPI_Irecv(&v, 1, MPI_INT, myrank, 9, MPI_COMM_WORLD, &req);
	w = 1;
	MPI_Isend(&w, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &sreq);
	MPI_Recv(&flag, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &st);
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
	if (flag != 1)
		fail("MPI_COMM_SELF message carries %d, expected 1", flag);
	flag = 0;
	MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
	if (flag)
		fail("MPI_COMM_WORLD receive matched an MPI_COMM_SELF"
		    " message (value %d)", v);
	else {
		w = 2;
		MPI_Send(&w, 1, MPI_INT, myrank, 9, MPI_COMM_WORLD);
		MPI_Wait(&req, &st);
		if (v != 2)
			fail("MPI_COMM_WORLD message carries %d, expected 2",
			    v);
	}

	return finish();
}

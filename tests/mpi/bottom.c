/* SPDX-License-Identifier: ISC */
/*
 * bottom: every call that takes a buffer, given MPI_BOTTOM and a type of
 * absolute addresses (MPI_Get_address).  Two kinds of type: "dense", K
 * ints at the absolute address of an array (one block of data, which
 * takes the dense fast path of point-to-point with the address as its
 * offset), and "rec", the fields of a C struct with padding at their
 * absolute addresses, resized to the struct's extent so that element i
 * is the i-th struct of an array (packed on the way).  Each call moves
 * data from and to MPI_BOTTOM and is checked against the values it
 * must deliver: point-to-point in every mode, nonblocking, persistent,
 * Sendrecv and Sendrecv_replace, the blocking collectives with a
 * buffer, a few nonblocking ones, reductions in place on the dense
 * type, MPI_Pack and MPI_Unpack.  Before the fix, MPI_BOTTOM with the
 * dense type sent from and received into address 0.
 */
#define NAME	"bottom"
#include "mtest.h"

#define K	6	/* ints in a dense element */
#define TAG	7

struct rec {
	int	a[3];
	double	d[2];
	char	c[5];
};

/* The value of int j of dense element i in round "what" from rank r. */
static int
ival(int what, int r, int i, int j)
{
	return what * 100000 + r * 1000 + i * 10 + j;
}

static void
rec_fill(struct rec *x, int what, int r, int i)
{
	int	j;

	memset(x, 0, sizeof(*x));
	for (j = 0; j < 3; j++)
		x->a[j] = ival(what, r, i, j);
	x->d[0] = ival(what, r, i, 3) + 0.5;
	x->d[1] = -ival(what, r, i, 4) - 0.25;
	for (j = 0; j < 5; j++)
		x->c[j] = (char)('a' + (what + r + i + j) % 26);
}

static int
rec_ok(const struct rec *x, int what, int r, int i)
{
	struct rec	want;

	rec_fill(&want, what, r, i);
	return memcmp(x->a, want.a, sizeof(want.a)) == 0 &&
	    x->d[0] == want.d[0] && x->d[1] == want.d[1] &&
	    memcmp(x->c, want.c, sizeof(want.c)) == 0;
}

static void
ints_fill(int *v, int n, int what, int r)
{
	int	i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < K; j++)
			v[i * K + j] = ival(what, r, i, j);
}

/* n dense elements from rank r (element i numbered from i0). */
static int
ints_ok(const int *v, int n, int what, int r, int i0)
{
	int	i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < K; j++)
			if (v[i * K + j] != ival(what, r, i0 + i, j))
				return 0;
	return 1;
}

/* K ints at the absolute address of v: one dense block. */
static MPI_Datatype
dense_type(const int *v)
{
	MPI_Datatype	t;
	MPI_Aint	d = addr(v);
	int		bl = K;

	MPI_Type_create_hindexed(1, &bl, &d, MPI_INT, &t);
	MPI_Type_commit(&t);
	return t;
}

/* The fields of *x at their absolute addresses, extent sizeof(*x). */
static MPI_Datatype
rec_type(const struct rec *x)
{
	MPI_Datatype	types[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, s, t;
	MPI_Aint	d[3];
	int		bl[3] = { 3, 2, 5 };

	d[0] = addr(x->a);
	d[1] = addr(x->d);
	d[2] = addr(x->c);
	MPI_Type_create_struct(3, bl, d, types, &s);
	MPI_Type_create_resized(s, addr(x), (MPI_Aint)sizeof(*x), &t);
	MPI_Type_free(&s);
	MPI_Type_commit(&t);
	return t;
}

static int	nextr, prevr;

/* Point-to-point around the ring, every mode, from and to MPI_BOTTOM. */
static void
test_p2p(void)
{
	MPI_Datatype	 sd, rd, sr, rr;
	MPI_Request	 req[4];
	MPI_Status	 st;
	struct rec	 srec, rrec;
	int		 sv[K], rv[K], mode, n, bsize;
	char		*bbuf;
	static const char *const names[] = { "MPI_Send", "MPI_Ssend",
	    "MPI_Rsend", "MPI_Bsend", "MPI_Isend", "MPI_Issend" };
	static int (*const blocking[])(const void *, int, MPI_Datatype, int,
	    int, MPI_Comm) = { MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Bsend };
	static int (*const nonblocking[])(const void *, int, MPI_Datatype, int,
	    int, MPI_Comm, MPI_Request *) = { MPI_Isend, MPI_Issend };

	sd = dense_type(sv);
	rd = dense_type(rv);
	sr = rec_type(&srec);
	rr = rec_type(&rrec);
	MPI_Pack_size(2, MPI_INT, MPI_COMM_WORLD, &bsize);
	bsize += 2 * (K * (int)sizeof(int) + (int)sizeof(srec) +
	    MPI_BSEND_OVERHEAD);
	bbuf = xzalloc((size_t)bsize);
	MPI_Buffer_attach(bbuf, bsize);
	for (mode = 0; mode < 6; mode++) {
		ints_fill(sv, 1, mode, myrank);
		rec_fill(&srec, mode, myrank, 0);
		memset(rv, 0, sizeof(rv));
		memset(&rrec, 0, sizeof(rrec));
		MPI_Irecv(MPI_BOTTOM, 1, rd, prevr, TAG, MPI_COMM_WORLD,
		    &req[0]);
		MPI_Irecv(MPI_BOTTOM, 1, rr, prevr, TAG + 1, MPI_COMM_WORLD,
		    &req[1]);
		/* Ready mode needs the receives posted everywhere. */
		MPI_Barrier(MPI_COMM_WORLD);
		if (mode < 4) {
			blocking[mode](MPI_BOTTOM, 1, sd, nextr, TAG,
			    MPI_COMM_WORLD);
			blocking[mode](MPI_BOTTOM, 1, sr, nextr, TAG + 1,
			    MPI_COMM_WORLD);
		} else {
			nonblocking[mode - 4](MPI_BOTTOM, 1, sd, nextr, TAG,
			    MPI_COMM_WORLD, &req[2]);
			nonblocking[mode - 4](MPI_BOTTOM, 1, sr, nextr, TAG + 1,
			    MPI_COMM_WORLD, &req[3]);
			MPI_Waitall(2, &req[2], MPI_STATUSES_IGNORE);
		}
		MPI_Wait(&req[0], &st);
		MPI_Get_count(&st, rd, &n);
		if (n != 1 || !ints_ok(rv, 1, mode, prevr, 0))
			fail("%s of the dense type from MPI_BOTTOM: count %d, "
			    "ints %d %d ..., expected %d %d ...", names[mode],
			    n, rv[0], rv[1], ival(mode, prevr, 0, 0),
			    ival(mode, prevr, 0, 1));
		MPI_Wait(&req[1], &st);
		MPI_Get_count(&st, rr, &n);
		if (n != 1 || !rec_ok(&rrec, mode, prevr, 0))
			fail("%s of the struct type from MPI_BOTTOM: count %d,"
			    " a[0] %d, expected %d", names[mode], n,
			    rrec.a[0], ival(mode, prevr, 0, 0));
	}
	MPI_Buffer_detach(&bbuf, &bsize);
	free(bbuf);

	/* Blocking receives into MPI_BOTTOM, from plain buffers. */
	ints_fill(sv, 1, 7, myrank);
	memset(rv, 0, sizeof(rv));
	MPI_Isend(sv, K, MPI_INT, nextr, TAG, MPI_COMM_WORLD, &req[0]);
	MPI_Recv(MPI_BOTTOM, 1, rd, prevr, TAG, MPI_COMM_WORLD, &st);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	if (!ints_ok(rv, 1, 7, prevr, 0))
		fail("MPI_Recv into MPI_BOTTOM: %d, expected %d", rv[0],
		    ival(7, prevr, 0, 0));

	/* Sendrecv, and Sendrecv_replace in place at MPI_BOTTOM. */
	ints_fill(sv, 1, 8, myrank);
	memset(rv, 0, sizeof(rv));
	MPI_Sendrecv(MPI_BOTTOM, 1, sd, nextr, TAG, MPI_BOTTOM, 1, rd, prevr,
	    TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!ints_ok(rv, 1, 8, prevr, 0))
		fail("MPI_Sendrecv dense: %d, expected %d", rv[0],
		    ival(8, prevr, 0, 0));
	rec_fill(&srec, 9, myrank, 0);
	memset(&rrec, 0, sizeof(rrec));
	MPI_Sendrecv(MPI_BOTTOM, 1, sr, nextr, TAG, MPI_BOTTOM, 1, rr, prevr,
	    TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!rec_ok(&rrec, 9, prevr, 0))
		fail("MPI_Sendrecv struct: a[0] %d, expected %d", rrec.a[0],
		    ival(9, prevr, 0, 0));
	ints_fill(sv, 1, 10, myrank);
	MPI_Sendrecv_replace(MPI_BOTTOM, 1, sd, nextr, TAG, prevr, TAG,
	    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!ints_ok(sv, 1, 10, prevr, 0))
		fail("MPI_Sendrecv_replace dense: %d, expected %d", sv[0],
		    ival(10, prevr, 0, 0));
	rec_fill(&srec, 11, myrank, 0);
	MPI_Sendrecv_replace(MPI_BOTTOM, 1, sr, nextr, TAG, prevr, TAG,
	    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!rec_ok(&srec, 11, prevr, 0))
		fail("MPI_Sendrecv_replace struct: a[0] %d, expected %d",
		    srec.a[0], ival(11, prevr, 0, 0));

	MPI_Type_free(&sd);
	MPI_Type_free(&rd);
	MPI_Type_free(&sr);
	MPI_Type_free(&rr);
}

/* Persistent requests started twice, with new data each time. */
static void
test_persist(void)
{
	MPI_Datatype	sd, rd, sr, rr;
	MPI_Request	req[4];
	struct rec	srec, rrec;
	int		sv[K], rv[K], round;

	sd = dense_type(sv);
	rd = dense_type(rv);
	sr = rec_type(&srec);
	rr = rec_type(&rrec);
	MPI_Recv_init(MPI_BOTTOM, 1, rd, prevr, TAG, MPI_COMM_WORLD, &req[0]);
	MPI_Recv_init(MPI_BOTTOM, 1, rr, prevr, TAG + 1, MPI_COMM_WORLD,
	    &req[1]);
	MPI_Send_init(MPI_BOTTOM, 1, sd, nextr, TAG, MPI_COMM_WORLD, &req[2]);
	MPI_Ssend_init(MPI_BOTTOM, 1, sr, nextr, TAG + 1, MPI_COMM_WORLD,
	    &req[3]);
	for (round = 20; round < 22; round++) {
		ints_fill(sv, 1, round, myrank);
		rec_fill(&srec, round, myrank, 0);
		memset(rv, 0, sizeof(rv));
		memset(&rrec, 0, sizeof(rrec));
		MPI_Startall(4, req);
		MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
		if (!ints_ok(rv, 1, round, prevr, 0))
			fail("persistent dense, start %d: %d, expected %d",
			    round - 19, rv[0], ival(round, prevr, 0, 0));
		if (!rec_ok(&rrec, round, prevr, 0))
			fail("persistent struct, start %d: a[0] %d, expected "
			    "%d", round - 19, rrec.a[0],
			    ival(round, prevr, 0, 0));
	}
	for (round = 0; round < 4; round++)
		MPI_Request_free(&req[round]);
	MPI_Type_free(&sd);
	MPI_Type_free(&rd);
	MPI_Type_free(&sr);
	MPI_Type_free(&rr);
}

/*
 * The rooted and all-to-all collectives.  Per-rank data is one element:
 * the receive side is an array of nprocs elements described by a type
 * whose element i is the i-th slot of the array.
 */
static void
test_coll(void)
{
	MPI_Datatype	 sd, rd, sr, rr, *sw, *rw;
	MPI_Request	 req;
	struct rec	 srec, *recs;
	int		*sv, *rv, *cnt, *dsp, *zero, i, root, what;

	sv = xzalloc((size_t)nprocs * K * sizeof(int));
	rv = xzalloc((size_t)nprocs * K * sizeof(int));
	recs = xzalloc((size_t)nprocs * sizeof(*recs));
	cnt = xzalloc((size_t)nprocs * sizeof(int));
	dsp = xzalloc((size_t)nprocs * sizeof(int));
	zero = xzalloc((size_t)nprocs * sizeof(int));
	sw = xzalloc((size_t)nprocs * sizeof(*sw));
	rw = xzalloc((size_t)nprocs * sizeof(*rw));
	sd = dense_type(sv);
	rd = dense_type(rv);
	sr = rec_type(&srec);
	rr = rec_type(&recs[0]);
	for (i = 0; i < nprocs; i++) {
		cnt[i] = 1;
		dsp[i] = nprocs - 1 - i;	/* reversed, for the v forms */
		zero[i] = 0;
	}

	/* Bcast, from each end. */
	for (root = 0; root < nprocs; root += nprocs > 1 ? nprocs - 1 : 1) {
		what = 30 + root;
		ints_fill(sv, 1, what, myrank == root ? root : -1);
		MPI_Bcast(MPI_BOTTOM, 1, sd, root, MPI_COMM_WORLD);
		if (!ints_ok(sv, 1, what, root, 0))
			fail("MPI_Bcast dense from %d: %d, expected %d", root,
			    sv[0], ival(what, root, 0, 0));
		rec_fill(&srec, what, myrank == root ? root : -1, 0);
		MPI_Bcast(MPI_BOTTOM, 1, sr, root, MPI_COMM_WORLD);
		if (!rec_ok(&srec, what, root, 0))
			fail("MPI_Bcast struct from %d: a[0] %d, expected %d",
			    root, srec.a[0], ival(what, root, 0, 0));
		if (nprocs == 1)
			break;
	}

	/* Gather and Gatherv, dense and struct, into MPI_BOTTOM. */
	root = nprocs / 2;
	ints_fill(sv, 1, 40, myrank);
	memset(rv, 0, (size_t)nprocs * K * sizeof(int));
	MPI_Gather(MPI_BOTTOM, 1, sd, MPI_BOTTOM, 1, rd, root,
	    MPI_COMM_WORLD);
	for (i = 0; myrank == root && i < nprocs; i++)
		if (!ints_ok(rv + i * K, 1, 40, i, 0))
			fail("MPI_Gather dense: block %d is %d, expected %d",
			    i, rv[i * K], ival(40, i, 0, 0));
	rec_fill(&srec, 41, myrank, 0);
	memset(recs, 0, (size_t)nprocs * sizeof(*recs));
	MPI_Gatherv(MPI_BOTTOM, 1, sr, MPI_BOTTOM, cnt, dsp, rr, root,
	    MPI_COMM_WORLD);
	for (i = 0; myrank == root && i < nprocs; i++)
		if (!rec_ok(&recs[nprocs - 1 - i], 41, i, 0))
			fail("MPI_Gatherv struct: rank %d's record is wrong",
			    i);

	/* Scatter and Scatterv, from MPI_BOTTOM. */
	for (i = 0; i < nprocs; i++) {
		ints_fill(rv + i * K, 1, 50, i);
		rec_fill(&recs[nprocs - 1 - i], 51, i, 0);
	}
	memset(sv, 0, K * sizeof(int));
	MPI_Scatter(MPI_BOTTOM, 1, rd, MPI_BOTTOM, 1, sd, root,
	    MPI_COMM_WORLD);
	if (!ints_ok(sv, 1, 50, myrank, 0))
		fail("MPI_Scatter dense: %d, expected %d", sv[0],
		    ival(50, myrank, 0, 0));
	memset(&srec, 0, sizeof(srec));
	MPI_Scatterv(MPI_BOTTOM, cnt, dsp, rr, MPI_BOTTOM, 1, sr, root,
	    MPI_COMM_WORLD);
	if (!rec_ok(&srec, 51, myrank, 0))
		fail("MPI_Scatterv struct: a[0] %d, expected %d", srec.a[0],
		    ival(51, myrank, 0, 0));

	/* Allgather and Allgatherv. */
	ints_fill(sv, 1, 60, myrank);
	memset(rv, 0, (size_t)nprocs * K * sizeof(int));
	MPI_Allgather(MPI_BOTTOM, 1, sd, MPI_BOTTOM, 1, rd, MPI_COMM_WORLD);
	for (i = 0; i < nprocs; i++)
		if (!ints_ok(rv + i * K, 1, 60, i, 0))
			fail("MPI_Allgather dense: block %d is %d, expected "
			    "%d", i, rv[i * K], ival(60, i, 0, 0));
	rec_fill(&srec, 61, myrank, 0);
	memset(recs, 0, (size_t)nprocs * sizeof(*recs));
	MPI_Allgatherv(MPI_BOTTOM, 1, sr, MPI_BOTTOM, cnt, dsp, rr,
	    MPI_COMM_WORLD);
	for (i = 0; i < nprocs; i++)
		if (!rec_ok(&recs[nprocs - 1 - i], 61, i, 0))
			fail("MPI_Allgatherv struct: rank %d's record is "
			    "wrong", i);

	/* Alltoall (dense: K ints to each rank), Alltoallv (struct). */
	MPI_Type_free(&sd);
	sd = dense_type(sv);
	for (i = 0; i < nprocs; i++)
		ints_fill(sv + i * K, 1, 70 + i, myrank);
	memset(rv, 0, (size_t)nprocs * K * sizeof(int));
	MPI_Alltoall(MPI_BOTTOM, 1, sd, MPI_BOTTOM, 1, rd, MPI_COMM_WORLD);
	for (i = 0; i < nprocs; i++)
		if (!ints_ok(rv + i * K, 1, 70 + myrank, i, 0))
			fail("MPI_Alltoall dense: from %d %d, expected %d", i,
			    rv[i * K], ival(70 + myrank, i, 0, 0));
	{
		struct rec	*srecs;
		MPI_Datatype	 srt;

		srecs = xzalloc((size_t)nprocs * sizeof(*srecs));
		srt = rec_type(&srecs[0]);
		for (i = 0; i < nprocs; i++)
			rec_fill(&srecs[nprocs - 1 - i], 80 + i, myrank, 0);
		memset(recs, 0, (size_t)nprocs * sizeof(*recs));
		MPI_Alltoallv(MPI_BOTTOM, cnt, dsp, srt, MPI_BOTTOM, cnt, dsp,
		    rr, MPI_COMM_WORLD);
		for (i = 0; i < nprocs; i++)
			if (!rec_ok(&recs[nprocs - 1 - i], 80 + myrank, i, 0))
				fail("MPI_Alltoallv struct: rank %d's record "
				    "is wrong", i);

		/* Alltoallw: a type per peer, each at its own slot. */
		for (i = 0; i < nprocs; i++) {
			sw[i] = rec_type(&srecs[i]);
			rw[i] = rec_type(&recs[i]);
			rec_fill(&srecs[i], 90 + i, myrank, 0);
		}
		memset(recs, 0, (size_t)nprocs * sizeof(*recs));
		MPI_Alltoallw(MPI_BOTTOM, cnt, zero, sw, MPI_BOTTOM, cnt, zero,
		    rw, MPI_COMM_WORLD);
		for (i = 0; i < nprocs; i++)
			if (!rec_ok(&recs[i], 90 + myrank, i, 0))
				fail("MPI_Alltoallw: from %d a[0] %d, expected "
				    "%d", i, recs[i].a[0],
				    ival(90 + myrank, i, 0, 0));
		for (i = 0; i < nprocs; i++) {
			MPI_Type_free(&sw[i]);
			MPI_Type_free(&rw[i]);
		}
		MPI_Type_free(&srt);
		free(srecs);
	}

	/* Nonblocking: Ibcast and Igather. */
	root = nprocs - 1;
	ints_fill(sv, 1, 100, myrank == root ? root : -1);
	MPI_Ibcast(MPI_BOTTOM, 1, sd, root, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (!ints_ok(sv, 1, 100, root, 0))
		fail("MPI_Ibcast dense: %d, expected %d", sv[0],
		    ival(100, root, 0, 0));
	rec_fill(&srec, 101, myrank, 0);
	memset(recs, 0, (size_t)nprocs * sizeof(*recs));
	MPI_Igather(MPI_BOTTOM, 1, sr, MPI_BOTTOM, 1, rr, root,
	    MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	for (i = 0; myrank == root && i < nprocs; i++)
		if (!rec_ok(&recs[i], 101, i, 0))
			fail("MPI_Igather struct: rank %d's record is wrong",
			    i);

	MPI_Type_free(&sd);
	MPI_Type_free(&rd);
	MPI_Type_free(&sr);
	MPI_Type_free(&rr);
	free(sv);
	free(rv);
	free(recs);
	free(cnt);
	free(dsp);
	free(zero);
	free(sw);
	free(rw);
}

/*
 * Reductions on the dense type, whose one block of ints is made of one
 * predefined type and so takes the predefined operations: in place at
 * MPI_BOTTOM, and from MPI_BOTTOM at the ranks that only send.
 */
static void
test_reduce(void)
{
	MPI_Datatype	t;
	MPI_Request	req;
	int		v[K], j, sum, root = 0;

	t = dense_type(v);
	for (j = 0; j < K; j++)
		v[j] = myrank + j;
	MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, t, MPI_SUM, MPI_COMM_WORLD);
	sum = nprocs * (nprocs - 1) / 2;
	for (j = 0; j < K; j++)
		if (v[j] != sum + nprocs * j)
			fail("MPI_Allreduce in place at MPI_BOTTOM: int %d is "
			    "%d, expected %d", j, v[j], sum + nprocs * j);
	for (j = 0; j < K; j++)
		v[j] = myrank * j;
	if (myrank == root)
		MPI_Reduce(MPI_IN_PLACE, MPI_BOTTOM, 1, t, MPI_MAX, root,
		    MPI_COMM_WORLD);
	else
		MPI_Reduce(MPI_BOTTOM, NULL, 1, t, MPI_MAX, root,
		    MPI_COMM_WORLD);
	for (j = 0; myrank == root && j < K; j++)
		if (v[j] != (nprocs - 1) * j)
			fail("MPI_Reduce MAX at MPI_BOTTOM: int %d is %d, "
			    "expected %d", j, v[j], (nprocs - 1) * j);
	for (j = 0; j < K; j++)
		v[j] = 1;
	MPI_Iallreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, t, MPI_SUM,
	    MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	for (j = 0; j < K; j++)
		if (v[j] != nprocs)
			fail("MPI_Iallreduce in place at MPI_BOTTOM: int %d is "
			    "%d, expected %d", j, v[j], nprocs);
	for (j = 0; j < K; j++)
		v[j] = 2;
	MPI_Scan(MPI_IN_PLACE, MPI_BOTTOM, 1, t, MPI_SUM, MPI_COMM_WORLD);
	for (j = 0; j < K; j++)
		if (v[j] != 2 * (myrank + 1))
			fail("MPI_Scan in place at MPI_BOTTOM: int %d is %d, "
			    "expected %d", j, v[j], 2 * (myrank + 1));
	MPI_Type_free(&t);
}

/* MPI_Pack from MPI_BOTTOM, MPI_Unpack to MPI_BOTTOM. */
static void
test_pack(void)
{
	MPI_Datatype	 sr, rr, sd, rd;
	struct rec	 a, b;
	char		*buf;
	int		 sv[K], rv[K], size, n, pos;

	sr = rec_type(&a);
	rr = rec_type(&b);
	sd = dense_type(sv);
	rd = dense_type(rv);
	MPI_Pack_size(1, sr, MPI_COMM_WORLD, &size);
	MPI_Pack_size(1, sd, MPI_COMM_WORLD, &n);
	if (size != 3 * (int)sizeof(int) + 2 * (int)sizeof(double) + 5 ||
	    n != K * (int)sizeof(int))
		fail("MPI_Pack_size: %d and %d", size, n);
	size += n;
	buf = xzalloc((size_t)size);
	rec_fill(&a, 110, myrank, 0);
	ints_fill(sv, 1, 111, myrank);
	memset(&b, 0, sizeof(b));
	memset(rv, 0, sizeof(rv));
	pos = 0;
	MPI_Pack(MPI_BOTTOM, 1, sr, buf, size, &pos, MPI_COMM_WORLD);
	MPI_Pack(MPI_BOTTOM, 1, sd, buf, size, &pos, MPI_COMM_WORLD);
	if (pos != size)
		fail("MPI_Pack from MPI_BOTTOM: position %d, expected %d", pos,
		    size);
	if (memcmp(buf, a.a, sizeof(a.a)) != 0)
		fail("MPI_Pack from MPI_BOTTOM: the ints are not first");
	pos = 0;
	MPI_Unpack(buf, size, &pos, MPI_BOTTOM, 1, rr, MPI_COMM_WORLD);
	MPI_Unpack(buf, size, &pos, MPI_BOTTOM, 1, rd, MPI_COMM_WORLD);
	if (pos != size || !rec_ok(&b, 110, myrank, 0) ||
	    !ints_ok(rv, 1, 111, myrank, 0))
		fail("MPI_Unpack to MPI_BOTTOM: position %d, a[0] %d, int %d",
		    pos, b.a[0], rv[0]);
	free(buf);
	MPI_Type_free(&sr);
	MPI_Type_free(&rr);
	MPI_Type_free(&sd);
	MPI_Type_free(&rd);
}

/* MPI_BOTTOM with a predefined type is a null buffer: an error. */
static void
test_errors(void)
{
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect_rc(MPI_Send(MPI_BOTTOM, 1, MPI_INT, myrank, TAG,
	    MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send(MPI_BOTTOM, MPI_INT)");
	expect_rc(MPI_Bcast(MPI_BOTTOM, 1, MPI_INT, 0, MPI_COMM_WORLD),
	    MPI_ERR_BUFFER, "MPI_Bcast(MPI_BOTTOM, MPI_INT)");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	nextr = (myrank + 1) % nprocs;
	prevr = (myrank + nprocs - 1) % nprocs;
	test_p2p();
	test_persist();
	test_coll();
	test_reduce();
	test_pack();
	test_errors();
	return finish();
}

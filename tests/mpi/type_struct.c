/* SPDX-License-Identifier: ISC */
/*
 * type_struct: MPI_Type_create_struct over a C struct laid out with
 * MPI_Get_address, whose extent must be the struct's sizeof (the
 * alignment padding at the end included); arrays of it sent typed and
 * received typed, and sent typed and received as bytes (the fields in
 * order with no padding), and back; the same struct cut to its first
 * two fields with MPI_Type_create_resized; the pair types of MAXLOC
 * (size, extent and a round trip of C structs for each); and a struct
 * of absolute addresses packed from MPI_BOTTOM.  Ranks pair up as
 * (0,1), (2,3), ...; an odd last rank, or a lone rank, is its own
 * partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_struct"
#define TAG_ERRS	32000
#define N		5

static int	errs, myrank, peer, tag;

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
xchg(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, MPI_Status *st)
{
	MPI_Request	reqs[2];
	MPI_Status	sts[2];

	tag++;
	MPI_Irecv(rbuf, rcount, rtype, peer, tag, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend(sbuf, scount, stype, peer, tag, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, sts);
	if (st != NULL)
		*st = sts[0];
}

struct rec {
	char	c;
	double	d;
	int	v[3];
	short	s;
};

/* The packed form of a rec: its fields in order, no padding. */
#define REC_PACKED	(1 + sizeof(double) + 3 * sizeof(int) + sizeof(short))

static void
rec_fill(struct rec *r, int n, int rank)
{
	int	i, j;

	memset(r, 0, (size_t)n * sizeof(*r));
	for (i = 0; i < n; i++) {
		r[i].c = (char)('a' + rank + i);
		r[i].d = rank * 1000.0 + i + 0.25;
		for (j = 0; j < 3; j++)
			r[i].v[j] = rank * 100 + i * 10 + j;
		r[i].s = (short)(-rank - i);
	}
}

static int
rec_equal(const struct rec *a, const struct rec *b)
{
	return a->c == b->c && a->d == b->d && a->v[0] == b->v[0] &&
	    a->v[1] == b->v[1] && a->v[2] == b->v[2] && a->s == b->s;
}

static MPI_Datatype
rec_type(void)
{
	struct rec	r;
	MPI_Datatype	t, types[4] = { MPI_CHAR, MPI_DOUBLE, MPI_INT,
			    MPI_SHORT };
	MPI_Aint	base, disp[4];
	int		bl[4] = { 1, 1, 3, 1 }, i;

	memset(&r, 0, sizeof(r));
	MPI_Get_address(&r, &base);
	MPI_Get_address(&r.c, &disp[0]);
	MPI_Get_address(&r.d, &disp[1]);
	MPI_Get_address(&r.v[0], &disp[2]);
	MPI_Get_address(&r.s, &disp[3]);
	for (i = 0; i < 4; i++)
		disp[i] = MPI_Aint_diff(disp[i], base);
	MPI_Type_create_struct(4, bl, disp, types, &t);
	return t;
}

static void
test_rec(void)
{
	struct rec	 mine[N], got[N], want[N];
	unsigned char	 bytes[N * REC_PACKED + 16], *p;
	MPI_Datatype	 t;
	MPI_Aint	 lb, extent;
	MPI_Status	 st;
	int		 i, size, count;

	t = rec_type();
	MPI_Type_commit(&t);
	MPI_Type_size(t, &size);
	MPI_Type_get_extent(t, &lb, &extent);
	if (size != (int)REC_PACKED)
		fail("struct rec: size %d, expected %d", size,
		    (int)REC_PACKED);
	if (lb != 0 || extent != (MPI_Aint)sizeof(struct rec))
		fail("struct rec: lb %td extent %td, expected 0 %zu", lb,
		    extent, sizeof(struct rec));

	rec_fill(mine, N, myrank);
	rec_fill(want, N, peer);

	/* Typed to typed. */
	memset(got, 0, sizeof(got));
	xchg(mine, N, t, got, N, t, &st);
	MPI_Get_count(&st, t, &count);
	if (count != N)
		fail("struct rec: count %d, expected %d", count, N);
	MPI_Get_elements(&st, t, &count);
	if (count != 6 * N)
		fail("struct rec: elements %d, expected %d", count, 6 * N);
	for (i = 0; i < N; i++)
		if (!rec_equal(&got[i], &want[i])) {
			fail("struct rec: element %d differs", i);
			break;
		}

	/* Typed to bytes: the fields in order, without padding. */
	memset(bytes, 0, sizeof(bytes));
	xchg(mine, N, t, bytes, (int)sizeof(bytes), MPI_BYTE, &st);
	MPI_Get_count(&st, MPI_BYTE, &count);
	if (count != N * (int)REC_PACKED)
		fail("struct rec as bytes: %d bytes, expected %d", count,
		    N * (int)REC_PACKED);
	for (i = 0, p = bytes; i < N; i++) {
		if (memcmp(p, &want[i].c, 1) != 0 ||
		    memcmp(p + 1, &want[i].d, sizeof(double)) != 0 ||
		    memcmp(p + 1 + sizeof(double), want[i].v,
		    3 * sizeof(int)) != 0 ||
		    memcmp(p + 1 + sizeof(double) + 3 * sizeof(int),
		    &want[i].s, sizeof(short)) != 0) {
			fail("struct rec as bytes: element %d differs", i);
			break;
		}
		p += REC_PACKED;
	}

	/* Bytes to typed: send back what arrived, now in our own layout. */
	memset(got, 0, sizeof(got));
	xchg(bytes, N * (int)REC_PACKED, MPI_BYTE, got, N, t, &st);
	for (i = 0; i < N; i++)
		if (!rec_equal(&got[i], &mine[i])) {
			fail("bytes to struct rec: element %d differs", i);
			break;
		}
	MPI_Type_free(&t);
}

/* The first two fields of each rec, by resizing to the whole struct. */
static void
test_resized(void)
{
	struct rec	 mine[N], got[N], want[N];
	MPI_Datatype	 t, head, types[2] = { MPI_CHAR, MPI_DOUBLE };
	MPI_Aint	 disp[2], lb, extent;
	int		 bl[2] = { 1, 1 }, i;

	disp[0] = offsetof(struct rec, c);
	disp[1] = offsetof(struct rec, d);
	MPI_Type_create_struct(2, bl, disp, types, &t);
	MPI_Type_create_resized(t, 0, sizeof(struct rec), &head);
	MPI_Type_free(&t);
	MPI_Type_commit(&head);
	MPI_Type_get_extent(head, &lb, &extent);
	if (lb != 0 || extent != (MPI_Aint)sizeof(struct rec))
		fail("resized head: lb %td extent %td", lb, extent);
	rec_fill(mine, N, myrank);
	rec_fill(want, N, peer);
	memset(got, 0x7f, sizeof(got));
	xchg(mine, N, head, got, N, head, NULL);
	for (i = 0; i < N; i++)
		if (got[i].c != want[i].c || got[i].d != want[i].d ||
		    got[i].v[0] != 0x7f7f7f7f || got[i].s != 0x7f7f) {
			fail("resized head: element %d differs", i);
			break;
		}
	MPI_Type_free(&head);
}

/*
 * A pair type: its size and extent are those of the C struct, and
 * arrays of the struct survive the wire.
 */
#define TEST_PAIR(vtype, mpitype) do {					\
	struct { vtype v; int i; } s_[N], r_[N];			\
	MPI_Aint lb_, ex_;						\
	int sz_, k_;							\
									\
	MPI_Type_size(mpitype, &sz_);					\
	MPI_Type_get_extent(mpitype, &lb_, &ex_);			\
	if (sz_ != (int)(sizeof(vtype) + sizeof(int)) || lb_ != 0 ||	\
	    ex_ != (MPI_Aint)sizeof(s_[0]))				\
		fail("%s: size %d extent %td, expected %zu %zu",	\
		    #mpitype, sz_, ex_, sizeof(vtype) + sizeof(int),	\
		    sizeof(s_[0]));					\
	memset(s_, 0, sizeof(s_));					\
	memset(r_, 0, sizeof(r_));					\
	for (k_ = 0; k_ < N; k_++) {					\
		s_[k_].v = (vtype)(myrank * 10 + k_);			\
		s_[k_].i = -myrank - k_;				\
	}								\
	xchg(s_, N, mpitype, r_, N, mpitype, NULL);			\
	for (k_ = 0; k_ < N; k_++)					\
		if (r_[k_].v != (vtype)(peer * 10 + k_) ||		\
		    r_[k_].i != -peer - k_) {				\
			fail("%s: element %d differs", #mpitype, k_);	\
			break;						\
		}							\
} while (0)

static void
test_pairs(void)
{
	TEST_PAIR(float, MPI_FLOAT_INT);
	TEST_PAIR(double, MPI_DOUBLE_INT);
	TEST_PAIR(long, MPI_LONG_INT);
	TEST_PAIR(int, MPI_2INT);
	TEST_PAIR(short, MPI_SHORT_INT);
	TEST_PAIR(long double, MPI_LONG_DOUBLE_INT);
}

/* Absolute addresses: a struct over separate variables, from MPI_BOTTOM. */
static void
test_bottom(void)
{
	static int	x;
	static double	y[2];
	static short	z;
	MPI_Datatype	t, types[3] = { MPI_INT, MPI_DOUBLE, MPI_SHORT };
	MPI_Aint	disp[3];
	unsigned char	buf[64];
	int		bl[3] = { 1, 2, 1 }, pos = 0, ok;

	x = 42;
	y[0] = 1.5;
	y[1] = -2.5;
	z = 7;
	MPI_Get_address(&x, &disp[0]);
	MPI_Get_address(y, &disp[1]);
	MPI_Get_address(&z, &disp[2]);
	MPI_Type_create_struct(3, bl, disp, types, &t);
	MPI_Type_commit(&t);
	MPI_Pack(MPI_BOTTOM, 1, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD);
	if (pos != (int)(sizeof(int) + 2 * sizeof(double) + sizeof(short)))
		fail("MPI_BOTTOM: packed %d bytes", pos);
	ok = memcmp(buf, &x, sizeof(int)) == 0 &&
	    memcmp(buf + sizeof(int), y, 2 * sizeof(double)) == 0 &&
	    memcmp(buf + sizeof(int) + 2 * sizeof(double), &z,
	    sizeof(short)) == 0;
	if (!ok)
		fail("MPI_BOTTOM: packed bytes differ");
	x = 0;
	y[0] = y[1] = 0;
	z = 0;
	pos = 0;
	MPI_Unpack(buf, sizeof(buf), &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD);
	if (x != 42 || y[0] != 1.5 || y[1] != -2.5 || z != 7)
		fail("MPI_BOTTOM: unpack gave %d %g %g %d", x, y[0], y[1], z);
	MPI_Type_free(&t);
}

/* Blocks of length zero, and a struct of nothing. */
static void
test_empty(void)
{
	MPI_Datatype	t, types[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
	MPI_Aint	disp[3] = { 0, 8, 100 }, lb, extent;
	int		bl[3] = { 1, 0, 1 }, size;

	MPI_Type_create_struct(3, bl, disp, types, &t);
	MPI_Type_size(t, &size);
	MPI_Type_get_extent(t, &lb, &extent);
	/* int at 0, char at 100: ub 101, padded to int alignment. */
	if (size != (int)sizeof(int) + 1 || lb != 0 || extent != 104)
		fail("struct with an empty block: size %d lb %td extent %td",
		    size, lb, extent);
	MPI_Type_free(&t);
	MPI_Type_create_struct(0, bl, disp, types, &t);
	MPI_Type_size(t, &size);
	MPI_Type_get_extent(t, &lb, &extent);
	if (size != 0 || lb != 0 || extent != 0)
		fail("empty struct: size %d lb %td extent %td", size, lb,
		    extent);
	MPI_Type_free(&t);
}

int
main(int argc, char *argv[])
{
	int	size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	test_rec();
	test_resized();
	test_pairs();
	test_bottom();
	test_empty();
	return finish();
}

/* SPDX-License-Identifier: ISC */
/*
 * type_pack: MPI_Pack, MPI_Unpack and MPI_Pack_size.  Several values of
 * different types packed one after another into one buffer, the
 * position advancing by each one's size, sent as MPI_PACKED and
 * unpacked by the peer in the same order; a packed vector received as
 * plain MPI_INT; packing at an odd position; counts of zero; round trips
 * of derived types; and MPI_ERR_TRUNCATE, leaving the position alone,
 * when the buffer is too small on either side.  Ranks pair up as (0,1),
 * (2,3), ...; an odd last rank, or a lone rank, is its own partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"type_pack"
#define TAG_ERRS	32000

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
xchg(const void *sb, int scount, MPI_Datatype stype, void *rb, int rcount,
    MPI_Datatype rtype, MPI_Status *st)
{
	MPI_Request	reqs[2];
	MPI_Status	sts[2];

	tag++;
	MPI_Irecv(rb, rcount, rtype, peer, tag, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend(sb, scount, stype, peer, tag, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, sts);
	if (st != NULL)
		*st = sts[0];
}

/* Pack an int, a vector, a struct and doubles; the peer unpacks them. */
static void
sequence(void)
{
	struct { char c; double d; } st2[2], rst[2];
	char		buf[1024], rbuf[1024];
	int		n = 3 + myrank, rn, ivec[12], rvec[12], pos, rpos;
	int		sz, psz, expect, k, count, bl[2] = { 1, 1 };
	double		dd[2], rdd[2];
	MPI_Datatype	v, s, types[2] = { MPI_CHAR, MPI_DOUBLE };
	MPI_Aint	disp[2];
	MPI_Status	st;

	MPI_Type_vector(3, 2, 4, MPI_INT, &v);		/* 6 ints */
	MPI_Type_commit(&v);
	memset(st2, 0, sizeof(st2));
	MPI_Get_address(&st2[0].c, &disp[0]);
	MPI_Get_address(&st2[0].d, &disp[1]);
	disp[1] -= disp[0];
	disp[0] = 0;
	MPI_Type_create_struct(2, bl, disp, types, &s);
	MPI_Type_commit(&s);

	for (k = 0; k < 12; k++)
		ivec[k] = myrank * 100 + k;
	for (k = 0; k < 2; k++) {
		st2[k].c = (char)('A' + myrank + k);
		st2[k].d = myrank + k * 0.5;
		dd[k] = -myrank - k * 0.25;
	}

	pos = 0;
	expect = 0;
	MPI_Pack(&n, 1, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD);
	expect += (int)sizeof(int);
	if (pos != expect)
		fail("position %d after an int, expected %d", pos, expect);
	MPI_Pack(ivec, 1, v, buf, sizeof(buf), &pos, MPI_COMM_WORLD);
	expect += 6 * (int)sizeof(int);
	if (pos != expect)
		fail("position %d after a vector, expected %d", pos, expect);
	MPI_Pack(st2, 2, s, buf, sizeof(buf), &pos, MPI_COMM_WORLD);
	MPI_Type_size(s, &sz);
	expect += 2 * sz;
	if (pos != expect)
		fail("position %d after 2 structs, expected %d", pos, expect);
	MPI_Pack(dd, 2, MPI_DOUBLE, buf, sizeof(buf), &pos, MPI_COMM_WORLD);
	expect += 2 * (int)sizeof(double);
	if (pos != expect)
		fail("position %d after 2 doubles, expected %d", pos, expect);
	MPI_Pack(dd, 0, MPI_DOUBLE, buf, sizeof(buf), &pos, MPI_COMM_WORLD);
	if (pos != expect)
		fail("packing nothing moved the position to %d", pos);

	MPI_Pack_size(1, v, MPI_COMM_WORLD, &psz);
	if (psz < 6 * (int)sizeof(int))
		fail("MPI_Pack_size of the vector is %d", psz);

	xchg(buf, pos, MPI_PACKED, rbuf, sizeof(rbuf), MPI_PACKED, &st);
	MPI_Get_count(&st, MPI_PACKED, &count);
	if (count != expect)
		fail("received %d packed bytes, expected %d", count, expect);

	memset(rvec, 0xff, sizeof(rvec));
	memset(rst, 0, sizeof(rst));
	rpos = 0;
	MPI_Unpack(rbuf, count, &rpos, &rn, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Unpack(rbuf, count, &rpos, rvec, 1, v, MPI_COMM_WORLD);
	MPI_Unpack(rbuf, count, &rpos, rst, 2, s, MPI_COMM_WORLD);
	MPI_Unpack(rbuf, count, &rpos, rdd, 2, MPI_DOUBLE, MPI_COMM_WORLD);
	if (rpos != count)
		fail("unpacking ended at %d of %d", rpos, count);
	if (rn != 3 + peer)
		fail("unpacked int %d, expected %d", rn, 3 + peer);
	for (k = 0; k < 12; k++) {
		int want = k % 4 < 2 && k < 10 ? peer * 100 + k : -1;

		if (rvec[k] != want) {
			fail("unpacked vector: int %d is %d, expected %d", k,
			    rvec[k], want);
			break;
		}
	}
	for (k = 0; k < 2; k++)
		if (rst[k].c != (char)('A' + peer + k) ||
		    rst[k].d != peer + k * 0.5 || rdd[k] != -peer - k * 0.25)
			fail("unpacked struct or double %d differs", k);
	MPI_Type_free(&v);
	MPI_Type_free(&s);
}

/* A packed vector is the ints it names: receive it as MPI_INT. */
static void
packed_as_ints(void)
{
	int		a[8], got[8], k, pos = 0;
	char		buf[64];
	MPI_Datatype	v;

	MPI_Type_vector(4, 1, 2, MPI_INT, &v);
	MPI_Type_commit(&v);
	for (k = 0; k < 8; k++)
		a[k] = myrank * 10 + k;
	MPI_Pack(a, 1, v, buf, sizeof(buf), &pos, MPI_COMM_WORLD);
	memset(got, 0, sizeof(got));
	xchg(buf, pos, MPI_PACKED, got, 4, MPI_INT, NULL);
	for (k = 0; k < 4; k++)
		if (got[k] != peer * 10 + 2 * k)
			fail("packed vector as MPI_INT: int %d is %d", k,
			    got[k]);
	MPI_Type_free(&v);
}

/* Round trips through an odd position, and truncation. */
static void
roundtrip_and_truncate(void)
{
	double		m[4][5], back[4][5];
	char		buf[256];
	MPI_Datatype	col;
	int		i, j, pos, rc, cls;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	/* Column 1 of a 4x5 matrix. */
	MPI_Type_vector(4, 1, 5, MPI_DOUBLE, &col);
	MPI_Type_commit(&col);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 5; j++) {
			m[i][j] = i * 10 + j;
			back[i][j] = -1;
		}
	pos = 3;
	MPI_Pack(&m[0][1], 1, col, buf, sizeof(buf), &pos, MPI_COMM_WORLD);
	if (pos != 3 + 4 * (int)sizeof(double))
		fail("position %d after a column at 3", pos);
	pos = 3;
	MPI_Unpack(buf, sizeof(buf), &pos, &back[0][2], 1, col,
	    MPI_COMM_WORLD);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 5; j++)
			if (back[i][j] != (j == 2 ? m[i][1] : -1))
				fail("column round trip: [%d][%d] is %g", i, j,
				    back[i][j]);

	/* Too small to pack into: MPI_ERR_TRUNCATE, position unchanged. */
	pos = 8;
	rc = MPI_Pack(&m[0][0], 1, col, buf, 8 + 3 * (int)sizeof(double),
	    &pos, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	if (rc == MPI_SUCCESS || cls != MPI_ERR_TRUNCATE)
		fail("MPI_Pack into too small a buffer: class %d, expected "
		    "MPI_ERR_TRUNCATE", rc == MPI_SUCCESS ? 0 : cls);
	if (pos != 8)
		fail("failed MPI_Pack moved the position to %d", pos);

	/* Too few bytes to unpack from. */
	pos = 0;
	rc = MPI_Unpack(buf, 3 * (int)sizeof(double), &pos, &back[0][0], 1,
	    col, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	if (rc == MPI_SUCCESS || cls != MPI_ERR_TRUNCATE)
		fail("MPI_Unpack from too few bytes: class %d, expected "
		    "MPI_ERR_TRUNCATE", rc == MPI_SUCCESS ? 0 : cls);
	if (pos != 0)
		fail("failed MPI_Unpack moved the position to %d", pos);
	MPI_Type_free(&col);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	int	size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	sequence();
	packed_as_ints();
	roundtrip_and_truncate();
	return finish();
}

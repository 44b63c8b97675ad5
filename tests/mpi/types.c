/* SPDX-License-Identifier: ISC */
/*
 * types: every predefined C datatype crosses the wire intact, from
 * MPI_CHAR to MPI_C_LONG_DOUBLE_COMPLEX, including the extreme values
 * of each integer type, and MPI_Get_count reports the element count in
 * that type.  Also checks MPI_Get_count when the byte count is not a
 * multiple of the type size: a 5-byte message received as MPI_INT
 * gives MPI_UNDEFINED.  Values are compared as values, never with
 * memcmp, because long double and its complex carry padding bytes.
 * Ranks pair up as (0,1), (2,3), ...; an odd last rank, or a lone rank,
 * is its own partner.
 */

#include <mpi.h>
#include <complex.h>
#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define NAME		"types"
#define MINPROCS	1
#define TAG_ERRS	32000
#define N		17

static int	errs;	/* failures seen by this rank */
static int	myrank;
static int	peer;
static int	tag;

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

/*
 * Send n elements of sbuf to the partner and receive its n into rbuf,
 * which has room for n + 2, then check the status.
 */
static void
exchange(const void *sbuf, void *rbuf, int n, MPI_Datatype type,
    const char *what)
{
	MPI_Request	reqs[2];
	MPI_Status	sts[2];
	int		count;

	tag++;
	MPI_Irecv(rbuf, n + 2, type, peer, tag, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend(sbuf, n, type, peer, tag, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, sts);
	MPI_Get_count(&sts[0], type, &count);
	if (count != n)
		fail("%s: count %d, expected %d", what, count, n);
	if (sts[0].MPI_SOURCE != peer || sts[0].MPI_TAG != tag)
		fail("%s: status source %d tag %d", what, sts[0].MPI_SOURCE,
		    sts[0].MPI_TAG);
}

/*
 * Integer types: element 0 is the maximum, element 1 the minimum, the
 * rest small values that depend on the index.
 */
#define TEST_INT(ctype, mpitype, min, max) do {				\
	ctype	s_[N], r_[N + 2];					\
	int	i_;							\
									\
	for (i_ = 0; i_ < N; i_++)					\
		s_[i_] = (ctype)(i_ == 0 ? (max) : i_ == 1 ? (min) :	\
		    (ctype)(i_ * 7 + 3));				\
	memset(r_, 0, sizeof(r_));					\
	exchange(s_, r_, N, mpitype, #mpitype);				\
	for (i_ = 0; i_ < N; i_++)					\
		if (r_[i_] != s_[i_]) {					\
			fail("%s: element %d is %lld, expected %lld",	\
			    #mpitype, i_, (long long)r_[i_],		\
			    (long long)s_[i_]);				\
			break;						\
		}							\
} while (0)

/* Unsigned 64-bit values do not fit long long; print them unsigned. */
#define TEST_UINT(ctype, mpitype, max) do {				\
	ctype	s_[N], r_[N + 2];					\
	int	i_;							\
									\
	for (i_ = 0; i_ < N; i_++)					\
		s_[i_] = (ctype)(i_ == 0 ? (max) : i_ == 1 ? 0 :	\
		    (ctype)(i_ * 7 + 3));				\
	memset(r_, 0, sizeof(r_));					\
	exchange(s_, r_, N, mpitype, #mpitype);				\
	for (i_ = 0; i_ < N; i_++)					\
		if (r_[i_] != s_[i_]) {					\
			fail("%s: element %d is %llu, expected %llu",	\
			    #mpitype, i_, (unsigned long long)r_[i_],	\
			    (unsigned long long)s_[i_]);		\
			break;						\
		}							\
} while (0)

#define TEST_FLOAT(ctype, mpitype, max, eps) do {			\
	ctype	s_[N], r_[N + 2];					\
	int	i_;							\
									\
	for (i_ = 0; i_ < N; i_++)					\
		s_[i_] = (ctype)(i_ * 1.25 - 7);			\
	s_[0] = (max);							\
	s_[1] = -(max);							\
	s_[2] = (eps);							\
	memset(r_, 0, sizeof(r_));					\
	exchange(s_, r_, N, mpitype, #mpitype);				\
	for (i_ = 0; i_ < N; i_++)					\
		if (r_[i_] != s_[i_]) {					\
			fail("%s: element %d is %Lg, expected %Lg",	\
			    #mpitype, i_, (long double)r_[i_],		\
			    (long double)s_[i_]);			\
			break;						\
		}							\
} while (0)

#define TEST_COMPLEX(ctype, rtype, mpitype, max) do {			\
	ctype	s_[N], r_[N + 2];					\
	int	i_;							\
									\
	for (i_ = 0; i_ < N; i_++)					\
		s_[i_] = (rtype)(i_ * 0.5) - (rtype)(i_ + 1) * I;	\
	s_[0] = (max) + (rtype)1 * I;					\
	s_[1] = (rtype)1 - (max) * I;					\
	memset(r_, 0, sizeof(r_));					\
	exchange(s_, r_, N, mpitype, #mpitype);				\
	for (i_ = 0; i_ < N; i_++)					\
		if (r_[i_] != s_[i_]) {					\
			fail("%s: element %d is %Lg%+Lgi, expected"	\
			    " %Lg%+Lgi", #mpitype, i_,			\
			    (long double)creall(r_[i_]),		\
			    (long double)cimagl(r_[i_]),		\
			    (long double)creall(s_[i_]),		\
			    (long double)cimagl(s_[i_]));		\
			break;						\
		}							\
} while (0)

static void
basic(void)
{
	bool	bs[N], br[N + 2];
	int	i;

	TEST_INT(char, MPI_CHAR, CHAR_MIN, CHAR_MAX);
	TEST_INT(signed char, MPI_SIGNED_CHAR, SCHAR_MIN, SCHAR_MAX);
	TEST_UINT(unsigned char, MPI_UNSIGNED_CHAR, UCHAR_MAX);
	TEST_INT(short, MPI_SHORT, SHRT_MIN, SHRT_MAX);
	TEST_UINT(unsigned short, MPI_UNSIGNED_SHORT, USHRT_MAX);
	TEST_INT(int, MPI_INT, INT_MIN, INT_MAX);
	TEST_UINT(unsigned, MPI_UNSIGNED, UINT_MAX);
	TEST_INT(long, MPI_LONG, LONG_MIN, LONG_MAX);
	TEST_UINT(unsigned long, MPI_UNSIGNED_LONG, ULONG_MAX);
	TEST_INT(long long, MPI_LONG_LONG, LLONG_MIN, LLONG_MAX);
	TEST_INT(long long, MPI_LONG_LONG_INT, LLONG_MIN, LLONG_MAX);
	TEST_UINT(unsigned long long, MPI_UNSIGNED_LONG_LONG, ULLONG_MAX);
	TEST_INT(wchar_t, MPI_WCHAR, WCHAR_MIN, WCHAR_MAX);
	TEST_INT(int8_t, MPI_INT8_T, INT8_MIN, INT8_MAX);
	TEST_INT(int16_t, MPI_INT16_T, INT16_MIN, INT16_MAX);
	TEST_INT(int32_t, MPI_INT32_T, INT32_MIN, INT32_MAX);
	TEST_INT(int64_t, MPI_INT64_T, INT64_MIN, INT64_MAX);
	TEST_UINT(uint8_t, MPI_UINT8_T, UINT8_MAX);
	TEST_UINT(uint16_t, MPI_UINT16_T, UINT16_MAX);
	TEST_UINT(uint32_t, MPI_UINT32_T, UINT32_MAX);
	TEST_UINT(uint64_t, MPI_UINT64_T, UINT64_MAX);
	TEST_UINT(unsigned char, MPI_BYTE, UCHAR_MAX);
	TEST_INT(MPI_Aint, MPI_AINT, PTRDIFF_MIN, PTRDIFF_MAX);
	TEST_INT(MPI_Offset, MPI_OFFSET, LLONG_MIN, LLONG_MAX);
	TEST_INT(MPI_Count, MPI_COUNT, LLONG_MIN, LLONG_MAX);

	TEST_FLOAT(float, MPI_FLOAT, FLT_MAX, FLT_MIN);
	TEST_FLOAT(double, MPI_DOUBLE, DBL_MAX, DBL_MIN);
	TEST_FLOAT(long double, MPI_LONG_DOUBLE, LDBL_MAX, LDBL_MIN);

	TEST_COMPLEX(float _Complex, float, MPI_C_FLOAT_COMPLEX, FLT_MAX);
	TEST_COMPLEX(float _Complex, float, MPI_C_COMPLEX, FLT_MAX);
	TEST_COMPLEX(double _Complex, double, MPI_C_DOUBLE_COMPLEX, DBL_MAX);
	TEST_COMPLEX(long double _Complex, long double,
	    MPI_C_LONG_DOUBLE_COMPLEX, LDBL_MAX);

	for (i = 0; i < N; i++)
		bs[i] = (i % 3) != 0;
	memset(br, 0, sizeof(br));
	exchange(bs, br, N, MPI_C_BOOL, "MPI_C_BOOL");
	for (i = 0; i < N; i++)
		if (br[i] != bs[i]) {
			fail("MPI_C_BOOL: element %d is %d, expected %d", i,
			    (int)br[i], (int)bs[i]);
			break;
		}
}

/*
 * MPI_Get_count gives MPI_UNDEFINED when the bytes received are not a
 * whole number of elements.  Strictly, receiving MPI_BYTE data as
 * MPI_INT breaks the type-matching rules; with no derived datatypes
 * available it is the only way to produce such a message, and a
 * homogeneous implementation moves bytes either way.
 */
static void
undefined(void)
{
	MPI_Request	req;
	MPI_Status	st;
	unsigned char	bytes[16];
	int		ints[4], count;
	short		shorts[8];

	memset(bytes, 0x11, sizeof(bytes));

	MPI_Isend(bytes, 5, MPI_BYTE, peer, 900, MPI_COMM_WORLD, &req);
	MPI_Recv(ints, 2, MPI_INT, peer, 900, MPI_COMM_WORLD, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Get_count(&st, MPI_INT, &count);
	if (count != MPI_UNDEFINED)
		fail("5 bytes as MPI_INT: count %d, expected MPI_UNDEFINED"
		    " (%d)", count, MPI_UNDEFINED);

	MPI_Isend(bytes, 8, MPI_BYTE, peer, 901, MPI_COMM_WORLD, &req);
	MPI_Recv(ints, 4, MPI_INT, peer, 901, MPI_COMM_WORLD, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Get_count(&st, MPI_INT, &count);
	if (count != 2)
		fail("8 bytes as MPI_INT: count %d, expected 2", count);

	MPI_Isend(bytes, 7, MPI_BYTE, peer, 902, MPI_COMM_WORLD, &req);
	MPI_Recv(shorts, 8, MPI_SHORT, peer, 902, MPI_COMM_WORLD, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Get_count(&st, MPI_SHORT, &count);
	if (count != MPI_UNDEFINED)
		fail("7 bytes as MPI_SHORT: count %d, expected"
		    " MPI_UNDEFINED", count);

	MPI_Isend(bytes, 5, MPI_BYTE, peer, 903, MPI_COMM_WORLD, &req);
	MPI_Recv(bytes + 8, 8, MPI_BYTE, peer, 903, MPI_COMM_WORLD, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Get_count(&st, MPI_BYTE, &count);
	if (count != 5)
		fail("5 bytes as MPI_BYTE: count %d, expected 5", count);
}

int
main(int argc, char *argv[])
{
	int	size;

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
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	basic();
	undefined();
	return finish();
}

/* SPDX-License-Identifier: ISC */
/*
 * op_predef: every predefined operation on every C type the standard
 * defines it for, through MPI_Allreduce and MPI_Reduce_local: MAX, MIN,
 * SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR on every integer type
 * (fixed-width ones, MPI_AINT, MPI_OFFSET and MPI_COUNT included), MAX,
 * MIN, SUM, PROD on float, double and long double, SUM and PROD on the
 * three complex types, the logical operations on MPI_C_BOOL, the
 * bitwise ones on MPI_BYTE, MAXLOC and MINLOC on the six pair types
 * with ties resolved to the lower index, and MPI_ERR_OP for an
 * operation on a type it is not defined for.
 */

#include <mpi.h>
#include <complex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"op_predef"
#define TAG_ERRS	32000
#define N		7

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

/* Small values, so that nothing overflows even in int8_t. */
static int
val(int r, int i)
{
	return (r * 5 + i * 3) % 7 - 3;
}

/* Factors for PROD: at most one 2 per element, else 1 or -1. */
static int
fac(int r, int i, int issigned)
{
	if (r == i % nprocs)
		return 2;
	return ((r + i) % 2 == 0 || !issigned) ? 1 : -1;
}

/* Unsigned types get val + 3 (>= 0). */
#define INT_TYPE(T, MT, issigned) do {					\
	static const MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM,	\
	    MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR,	\
	    MPI_BXOR };							\
	T in[N], out[N], want = 0, x;				\
	int o, i, r;							\
									\
	for (o = 0; o < 10; o++) {					\
		for (i = 0; i < N; i++)					\
			in[i] = o == 3 ? (T)fac(myrank, i, issigned) :	\
			    (T)(val(myrank, i) + (issigned ? 0 : 3));	\
		MPI_Allreduce(in, out, N, MT, ops[o], MPI_COMM_WORLD);	\
		for (i = 0; i < N; i++) {				\
			for (r = 0; r < nprocs; r++) {			\
				x = o == 3 ? (T)fac(r, i, issigned) :	\
				    (T)(val(r, i) + (issigned ? 0 : 3)); \
				if (r == 0) {				\
					want = x;			\
					continue;			\
				}					\
				switch (o) {				\
				case 0: want = x > want ? x : want; break; \
				case 1: want = x < want ? x : want; break; \
				case 2: want = (T)(want + x); break;	\
				case 3: want = (T)(want * x); break;	\
				case 4: want = want && x; break;	\
				case 5: want = want || x; break;	\
				case 6: want = (want != 0) != (x != 0); break; \
				case 7: want &= x; break;		\
				case 8: want |= x; break;		\
				case 9: want ^= x; break;		\
				}					\
			}						\
			if (out[i] != want) {				\
				fail("%s op %d element %d: %lld, expected " \
				    "%lld", #MT, o, i, (long long)out[i], \
				    (long long)want);			\
				break;					\
			}						\
		}							\
		/* Reduce_local: out = in op out. */			\
		for (i = 0; i < N; i++)					\
			out[i] = in[i];					\
		MPI_Reduce_local(in, out, N, MT, ops[o]);		\
		for (i = 0; i < N; i++) {				\
			x = in[i];					\
			switch (o) {					\
			case 2: want = (T)(x + x); break;		\
			case 3: want = (T)(x * x); break;		\
			case 4: case 5: want = x != 0; break;		\
			case 6: case 9: want = 0; break;		\
			default: want = x; break;			\
			}						\
			if (out[i] != want) {				\
				fail("%s op %d: MPI_Reduce_local gave "	\
				    "%lld, expected %lld", #MT, o,	\
				    (long long)out[i], (long long)want); \
				break;					\
			}						\
		}							\
	}								\
} while (0)

#define FLOAT_TYPE(T, MT) do {						\
	static const MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM,	\
	    MPI_PROD };							\
	T in[N], out[N], want = 0, x;				\
	int o, i, r;							\
									\
	for (o = 0; o < 4; o++) {					\
		for (i = 0; i < N; i++)					\
			in[i] = o == 3 ? (T)fac(myrank, i, 1) * 0.5 :	\
			    (T)val(myrank, i) * 0.25;			\
		MPI_Allreduce(in, out, N, MT, ops[o], MPI_COMM_WORLD);	\
		for (i = 0; i < N; i++) {				\
			for (r = 0; r < nprocs; r++) {			\
				x = o == 3 ? (T)fac(r, i, 1) * 0.5 :	\
				    (T)val(r, i) * 0.25;		\
				if (r == 0)				\
					want = x;			\
				else if (o == 0)			\
					want = x > want ? x : want;	\
				else if (o == 1)			\
					want = x < want ? x : want;	\
				else if (o == 2)			\
					want += x;			\
				else					\
					want *= x;			\
			}						\
			if (out[i] != want) {				\
				fail("%s op %d element %d: %Lg, "	\
				    "expected %Lg", #MT, o, i,		\
				    (long double)out[i],		\
				    (long double)want);			\
				break;					\
			}						\
		}							\
	}								\
} while (0)

#define COMPLEX_TYPE(T, MT) do {					\
	T in[N], out[N], want = 0, x;				\
	int o, i, r;							\
									\
	for (o = 0; o < 2; o++) {					\
		for (i = 0; i < N; i++)					\
			in[i] = (T)(1 + (myrank + i) % 2 * I);		\
		MPI_Allreduce(in, out, N, MT, o ? MPI_PROD : MPI_SUM,	\
		    MPI_COMM_WORLD);					\
		for (i = 0; i < N; i++) {				\
			want = o ? 1 : 0;				\
			for (r = 0; r < nprocs; r++) {			\
				x = (T)(1 + (r + i) % 2 * I);		\
				want = o ? want * x : want + x;		\
			}						\
			if (out[i] != want) {				\
				fail("%s %s element %d: (%g, %g)",	\
				    #MT, o ? "PROD" : "SUM", i,		\
				    (double)creall(out[i]),		\
				    (double)cimagl(out[i]));		\
				break;					\
			}						\
		}							\
	}								\
} while (0)

#define PAIR_TYPE(T, MT) do {						\
	struct { T v; int i; } in[3], out[3];				\
	int k, best;							\
									\
	/* 0: value r % 2, index r.  1: the same, index n - r. */	\
	/* 2: all equal, index 5 * r + 1. */				\
	in[0].v = (T)(myrank % 2);					\
	in[0].i = myrank;						\
	in[1].v = (T)(myrank % 2);					\
	in[1].i = nprocs - myrank;					\
	in[2].v = (T)3;							\
	in[2].i = 5 * myrank + 1;					\
	for (k = 0; k < 2; k++) {					\
		MPI_Allreduce(in, out, 3, MT, k ? MPI_MINLOC : MPI_MAXLOC, \
		    MPI_COMM_WORLD);					\
		/* Max: value 1 (or 0 alone), lowest index holding it. */ \
		if (k == 0) {						\
			T wv = nprocs > 1 ? (T)1 : (T)0;		\
			int w0 = nprocs > 1 ? 1 : 0;			\
			best = nprocs > 1 ? nprocs - (nprocs - 1 -	\
			    (nprocs - 1 + 1) % 2) : nprocs;		\
			(void)best;					\
			if (out[0].v != wv || out[0].i != w0)		\
				fail("%s MAXLOC gave (%g, %d)", #MT,	\
				    (double)out[0].v, out[0].i);	\
			/* Odd ranks r hold 1 with index n - r: the	\
			 * highest odd rank gives the lowest index. */	\
			best = (nprocs - 1) % 2 ? nprocs - 1 : nprocs - 2; \
			if (nprocs > 1 && (out[1].v != wv ||		\
			    out[1].i != nprocs - best))			\
				fail("%s MAXLOC tie gave (%g, %d)", #MT, \
				    (double)out[1].v, out[1].i);	\
		} else {						\
			if (out[0].v != 0 || out[0].i != 0)		\
				fail("%s MINLOC gave (%g, %d)", #MT,	\
				    (double)out[0].v, out[0].i);	\
			best = (nprocs - 1) % 2 ? nprocs - 2 : nprocs - 1; \
			if (out[1].v != 0 || out[1].i != nprocs - best)	\
				fail("%s MINLOC tie gave (%g, %d)", #MT, \
				    (double)out[1].v, out[1].i);	\
		}							\
		if (out[2].v != 3 || out[2].i != 1)			\
			fail("%s %s with all equal gave index %d", #MT,	\
			    k ? "MINLOC" : "MAXLOC", out[2].i);		\
	}								\
} while (0)

static void
logical_types(void)
{
	bool		b[4], bo[4];
	unsigned char	c[3], co[3];
	int		i, r, all, any, odd;

	for (i = 0; i < 4; i++)
		b[i] = (myrank >> i) & 1 || i == 3;
	MPI_Allreduce(b, bo, 4, MPI_C_BOOL, MPI_LAND, MPI_COMM_WORLD);
	for (i = 0; i < 4; i++) {
		for (r = 0, all = 1; r < nprocs; r++)
			all = all && (((r >> i) & 1) || i == 3);
		if (bo[i] != all)
			fail("MPI_C_BOOL LAND bit %d is %d", i, bo[i]);
	}
	MPI_Allreduce(b, bo, 4, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD);
	for (i = 0; i < 4; i++) {
		for (r = 0, any = 0; r < nprocs; r++)
			any = any || ((r >> i) & 1) || i == 3;
		if (bo[i] != any)
			fail("MPI_C_BOOL LOR bit %d is %d", i, bo[i]);
	}
	MPI_Allreduce(b, bo, 4, MPI_C_BOOL, MPI_LXOR, MPI_COMM_WORLD);
	for (i = 0; i < 4; i++) {
		for (r = 0, odd = 0; r < nprocs; r++)
			odd ^= ((r >> i) & 1) || i == 3;
		if (bo[i] != odd)
			fail("MPI_C_BOOL LXOR bit %d is %d", i, bo[i]);
	}

	c[0] = (unsigned char)(1u << (myrank % 8));
	c[1] = (unsigned char)~(1u << (myrank % 8));
	c[2] = (unsigned char)(0x11 * (myrank + 1));
	MPI_Allreduce(c, co, 3, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
	{
		unsigned char w0 = 0, w1 = 0, w2 = 0;

		for (r = 0; r < nprocs; r++) {
			w0 |= (unsigned char)(1u << (r % 8));
			w1 |= (unsigned char)~(1u << (r % 8));
			w2 |= (unsigned char)(0x11 * (r + 1));
		}
		if (co[0] != w0 || co[1] != w1 || co[2] != w2)
			fail("MPI_BYTE BOR gave %x %x %x", co[0], co[1],
			    co[2]);
	}
	MPI_Allreduce(c, co, 3, MPI_BYTE, MPI_BAND, MPI_COMM_WORLD);
	{
		unsigned char w0 = 0xff, w1 = 0xff, w2 = 0xff;

		for (r = 0; r < nprocs; r++) {
			w0 &= (unsigned char)(1u << (r % 8));
			w1 &= (unsigned char)~(1u << (r % 8));
			w2 &= (unsigned char)(0x11 * (r + 1));
		}
		if (co[0] != w0 || co[1] != w1 || co[2] != w2)
			fail("MPI_BYTE BAND gave %x %x %x", co[0], co[1],
			    co[2]);
	}
	MPI_Allreduce(c, co, 3, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD);
	{
		unsigned char w0 = 0, w1 = 0, w2 = 0;

		for (r = 0; r < nprocs; r++) {
			w0 ^= (unsigned char)(1u << (r % 8));
			w1 ^= (unsigned char)~(1u << (r % 8));
			w2 ^= (unsigned char)(0x11 * (r + 1));
		}
		if (co[0] != w0 || co[1] != w1 || co[2] != w2)
			fail("MPI_BYTE BXOR gave %x %x %x", co[0], co[1],
			    co[2]);
	}
}

static void
mismatches(void)
{
	static const struct {
		MPI_Op		 op;
		MPI_Datatype	 type;
		const char	*what;
	} bad[] = {
		{ MPI_SUM, MPI_2INT, "MPI_SUM on MPI_2INT" },
		{ MPI_MAXLOC, MPI_INT, "MPI_MAXLOC on MPI_INT" },
		{ MPI_BAND, MPI_DOUBLE, "MPI_BAND on MPI_DOUBLE" },
		{ MPI_LAND, MPI_DOUBLE, "MPI_LAND on MPI_DOUBLE" },
		{ MPI_BOR, MPI_C_BOOL, "MPI_BOR on MPI_C_BOOL" },
		{ MPI_REPLACE, MPI_INT, "MPI_REPLACE in a collective" },
		{ MPI_NO_OP, MPI_INT, "MPI_NO_OP in a collective" },
	};
	long double	buf[8], res[8];
	int		i, rc, cls;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	memset(buf, 0, sizeof(buf));
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		rc = MPI_Allreduce(buf, res, 1, bad[i].type, bad[i].op,
		    MPI_COMM_WORLD);
		MPI_Error_class(rc, &cls);
		if (cls != MPI_ERR_OP)
			fail("%s: error class %d, expected MPI_ERR_OP",
			    bad[i].what, cls);
	}
	rc = MPI_Allreduce(buf, res, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_OP)
		fail("MPI_OP_NULL: error class %d, expected MPI_ERR_OP", cls);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	INT_TYPE(signed char, MPI_SIGNED_CHAR, 1);
	INT_TYPE(unsigned char, MPI_UNSIGNED_CHAR, 0);
	INT_TYPE(short, MPI_SHORT, 1);
	INT_TYPE(unsigned short, MPI_UNSIGNED_SHORT, 0);
	INT_TYPE(int, MPI_INT, 1);
	INT_TYPE(unsigned, MPI_UNSIGNED, 0);
	INT_TYPE(long, MPI_LONG, 1);
	INT_TYPE(unsigned long, MPI_UNSIGNED_LONG, 0);
	INT_TYPE(long long, MPI_LONG_LONG, 1);
	INT_TYPE(long long, MPI_LONG_LONG_INT, 1);
	INT_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG, 0);
	INT_TYPE(int8_t, MPI_INT8_T, 1);
	INT_TYPE(int16_t, MPI_INT16_T, 1);
	INT_TYPE(int32_t, MPI_INT32_T, 1);
	INT_TYPE(int64_t, MPI_INT64_T, 1);
	INT_TYPE(uint8_t, MPI_UINT8_T, 0);
	INT_TYPE(uint16_t, MPI_UINT16_T, 0);
	INT_TYPE(uint32_t, MPI_UINT32_T, 0);
	INT_TYPE(uint64_t, MPI_UINT64_T, 0);
	INT_TYPE(MPI_Aint, MPI_AINT, 1);
	INT_TYPE(MPI_Offset, MPI_OFFSET, 1);
	INT_TYPE(MPI_Count, MPI_COUNT, 1);
	FLOAT_TYPE(float, MPI_FLOAT);
	FLOAT_TYPE(double, MPI_DOUBLE);
	FLOAT_TYPE(long double, MPI_LONG_DOUBLE);
	COMPLEX_TYPE(float _Complex, MPI_C_FLOAT_COMPLEX);
	COMPLEX_TYPE(float _Complex, MPI_C_COMPLEX);
	COMPLEX_TYPE(double _Complex, MPI_C_DOUBLE_COMPLEX);
	COMPLEX_TYPE(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
	PAIR_TYPE(int, MPI_2INT);
	PAIR_TYPE(float, MPI_FLOAT_INT);
	PAIR_TYPE(double, MPI_DOUBLE_INT);
	PAIR_TYPE(long, MPI_LONG_INT);
	PAIR_TYPE(short, MPI_SHORT_INT);
	PAIR_TYPE(long double, MPI_LONG_DOUBLE_INT);
	logical_types();
	mismatches();
	return finish();
}

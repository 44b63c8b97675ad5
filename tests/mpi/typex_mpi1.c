/* SPDX-License-Identifier: ISC */
/*
 * typex_mpi1: the MPI-1 names removed in MPI 3.0, which mpi.h still
 * declares, deprecated.  MPI_Type_struct with MPI_LB and MPI_UB markers
 * sets the bounds MPI_Type_extent, MPI_Type_lb and MPI_Type_ub report,
 * and a contiguous type of it strides by that extent on the wire;
 * MPI_Type_hvector, MPI_Type_hindexed and MPI_Address are their MPI-2
 * replacements.  MPI_Errhandler_create makes a handler that is called
 * with the communicator and error code, after which the call returns
 * the code; MPI_Errhandler_set and _get (a new handle to free), and a
 * freed handler that stays in use.
 */
#define NAME	"typex_mpi1"
#include "mtest.h"

/* What this test is about: the deprecated names. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int	ncalls, lastcode;
static MPI_Comm	lastcomm;

static void
handler(MPI_Comm *comm, int *code, ...)
{
	ncalls++;
	lastcode = *code;
	lastcomm = *comm;
}

/* Do two types pack n bytes of buf alike?  Frees both. */
static int
same_pack(MPI_Datatype a, MPI_Datatype b, const int *buf, int n)
{
	char	p1[64], p2[64];
	int	pa = 0, pb = 0;

	MPI_Type_commit(&a);
	MPI_Type_commit(&b);
	MPI_Pack(buf, 1, a, p1, sizeof(p1), &pa, MPI_COMM_WORLD);
	MPI_Pack(buf, 1, b, p2, sizeof(p2), &pb, MPI_COMM_WORLD);
	MPI_Type_free(&a);
	MPI_Type_free(&b);
	return pa == n && pb == n && memcmp(p1, p2, (size_t)n) == 0;
}

static void
types(void)
{
	MPI_Datatype	t, u, types[3] = { MPI_LB, MPI_INT, MPI_UB }, h1, h2;
	MPI_Aint	d[3] = { -8, 0, 40 }, lb, ub, ext, a1, a2;
	int		bl[3] = { 1, 3, 1 }, buf[36], out[9], size, i;
	int		ni, na, nd, comb;
	int		hb[2] = { 2, 1 };

	MPI_Type_struct(3, bl, d, types, &t);
	MPI_Type_extent(t, &ext);
	MPI_Type_lb(t, &lb);
	MPI_Type_ub(t, &ub);
	MPI_Type_size(t, &size);
	if (ext != 48 || lb != -8 || ub != 40 || size != 12)
		fail("MPI_Type_struct with MPI_LB -8 and MPI_UB 40: extent "
		    "%td lb %td ub %td size %d, expected 48 -8 40 12", ext, lb,
		    ub, size);
	MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
	if (comb != MPI_COMBINER_STRUCT || nd != 3)
		fail("MPI_Type_struct makes combiner %d", comb);
	MPI_Type_size(MPI_UB, &size);
	MPI_Type_extent(MPI_LB, &ext);
	if (size != 0 || ext != 0)
		fail("MPI_UB has size %d, MPI_LB extent %td", size, ext);

	/* Three of them stride by 48 bytes: 12 ints, data at +8 each. */
	MPI_Type_contiguous(3, t, &u);
	MPI_Type_commit(&u);
	for (i = 0; i < 36; i++)
		buf[i] = i;
	MPI_Sendrecv(buf + 2, 1, u, myrank, 9, out, 9, MPI_INT, myrank, 9,
	    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (i = 0; i < 9; i++)
		if (out[i] != 2 + i / 3 * 12 + i % 3) {
			fail("a contiguous type of it: int %d is %d, expected "
			    "%d", i, out[i], 2 + i / 3 * 12 + i % 3);
			break;
		}
	MPI_Type_free(&u);
	MPI_Type_free(&t);

	/* The old constructors are the new ones. */
	MPI_Type_hvector(3, 2, 20, MPI_INT, &h1);
	MPI_Type_create_hvector(3, 2, 20, MPI_INT, &h2);
	MPI_Type_get_envelope(h1, &ni, &na, &nd, &comb);
	if (comb != MPI_COMBINER_HVECTOR || ni != 2 || na != 1)
		fail("MPI_Type_hvector makes combiner %d", comb);
	if (!same_pack(h1, h2, buf, 24))
		fail("MPI_Type_hvector packs otherwise");
	d[0] = 4;
	d[1] = 24;
	MPI_Type_hindexed(2, hb, d, MPI_INT, &h1);
	MPI_Type_create_hindexed(2, hb, d, MPI_INT, &h2);
	if (!same_pack(h1, h2, buf, 12))
		fail("MPI_Type_hindexed packs otherwise");

	MPI_Address(&buf[5], &a1);
	MPI_Get_address(&buf[5], &a2);
	if (a1 != a2)
		fail("MPI_Address and MPI_Get_address differ");
}

static void
errhandlers(void)
{
	MPI_Errhandler	eh, got, stale;
	MPI_Comm	c;
	int		rc, x = 0;

	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Errhandler_create(handler, &eh);
	MPI_Errhandler_set(c, eh);
	MPI_Errhandler_get(c, &got);
	if (got != eh)
		fail("MPI_Errhandler_get: not the handler set");
	rc = MPI_Send(&x, 1, MPI_INT, nprocs, 0, c);
	if (rc != MPI_ERR_RANK || ncalls != 1 || lastcode != MPI_ERR_RANK ||
	    lastcomm != c)
		fail("a send to rank %d: %d, handler called %d times with %d",
		    nprocs, rc, ncalls, lastcode);
	/* Freed, the handler stays on the communicator. */
	MPI_Errhandler_free(&eh);
	if (eh != MPI_ERRHANDLER_NULL)
		fail("MPI_Errhandler_free left the handle");
	rc = MPI_Recv(&x, -1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE);
	if (rc != MPI_ERR_COUNT || ncalls != 2)
		fail("after MPI_Errhandler_free: %d, %d calls", rc, ncalls);
	/*
	 * A freed or unknown handler cannot be set.  MPI_Errhandler_get
	 * handed out a handle of its own (MPI 1.2): free that one too.
	 */
	stale = got;
	MPI_Errhandler_free(&got);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect_rc(MPI_Errhandler_set(MPI_COMM_WORLD, stale), MPI_ERR_ARG,
	    "setting a freed handler");
	expect_rc(MPI_Errhandler_set(MPI_COMM_WORLD, (MPI_Errhandler)&x),
	    MPI_ERR_ARG, "setting a garbage handler");
	expect_rc(MPI_Errhandler_create(NULL, &eh), MPI_ERR_ARG,
	    "MPI_Errhandler_create(NULL)");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_free(&c);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	types();
	errhandlers();
	return finish();
}

/* SPDX-License-Identifier: ISC */
/*
 * alloc_mem: MPI_Alloc_mem and MPI_Free_mem.  Memory of any size, 0
 * included, comes back usable and goes back; an info object is taken;
 * a size that cannot be had fails with MPI_ERR_NO_MEM (alike in every
 * replica of a rank: the allocation's outcome is the master's); and
 * ft refuses bad arguments with the right class.
 */

#include <stddef.h>

#define NAME		"alloc_mem"
#include "mtest.h"

int
main(int argc, char *argv[])
{
	MPI_Info	info;
	double		*d;
	char		*p, *z, on_stack;
	size_t		i;
	int		rc, sizes[] = { 1, 7, 4096, 1 << 20 }, k;

	init(&argc, &argv);

	for (k = 0; k < (int)(sizeof(sizes) / sizeof(sizes[0])); k++) {
		p = NULL;
		ok(MPI_Alloc_mem(sizes[k], MPI_INFO_NULL, &p), "Alloc_mem");
		if (p == NULL) {
			fail("Alloc_mem(%d) gave NULL", sizes[k]);
			continue;
		}
		for (i = 0; i < (size_t)sizes[k]; i++)
			p[i] = (char)i;
		for (i = 0; i < (size_t)sizes[k]; i++)
			if (p[i] != (char)i)
				fail("Alloc_mem(%d) memory did not hold",
				    sizes[k]);
		ok(MPI_Free_mem(p), "Free_mem");
	}
	/* Aligned for any type, and good for communication. */
	MPI_Info_create(&info);
	MPI_Info_set(info, "alloc_shared_noncontig", "true");
	ok(MPI_Alloc_mem(4 * sizeof(double), info, &d), "Alloc_mem, info");
	MPI_Info_free(&info);
	if (((size_t)d) % sizeof(double) != 0)
		fail("Alloc_mem gave unaligned memory");
	d[0] = myrank;
	MPI_Allreduce(d, d + 1, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (d[1] != nprocs * (nprocs - 1) / 2.0)
		fail("Allreduce from Alloc_mem memory gave %g", d[1]);
	MPI_Free_mem(d);
	z = NULL;
	ok(MPI_Alloc_mem(0, MPI_INFO_NULL, &z), "Alloc_mem(0)");
	ok(MPI_Free_mem(z), "Free_mem of Alloc_mem(0)");

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	p = &on_stack;
	rc = MPI_Alloc_mem(PTRDIFF_MAX, MPI_INFO_NULL, &p);
	expect(rc, MPI_ERR_NO_MEM, "Alloc_mem(PTRDIFF_MAX)");
	if (p != &on_stack)
		fail("a failed Alloc_mem changed the pointer");
	if (is_ft()) {
		expect(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_ARG,
		    "Alloc_mem(-1)");
		expect(MPI_Alloc_mem(8, (MPI_Info)&on_stack, &p),
		    MPI_ERR_INFO, "Alloc_mem with a bad info");
		expect(MPI_Free_mem(&on_stack), MPI_ERR_ARG,
		    "Free_mem of memory not from Alloc_mem");
		MPI_Alloc_mem(8, MPI_INFO_NULL, &p);
		MPI_Free_mem(p);
		expect(MPI_Free_mem(p), MPI_ERR_ARG, "Free_mem twice");
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	return finish();
}

/* SPDX-License-Identifier: ISC */
/*
 * Calls that programs link and that belong nowhere else: MPI_Alloc_mem
 * and MPI_Free_mem.
 */
#include <stdlib.h>

#include "op.h"

/* Addresses that MPI_Alloc_mem handed out and MPI_Free_mem takes. */
static struct ft_mpi_hset allocs;

/*
 * Plain heap memory: ft has no memory that communicates faster.
 * Replicated, whether the allocation failed is the master's outcome: a
 * replica that could allocate gives the memory back, and one that
 * could not when the master could ends the job, since it cannot follow.
 */
int
MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	uint64_t v[3] = { 0, 0, 0 };
	void *p;
	int nd;

	FT_MPI_CHECK_INIT("MPI_Alloc_mem");
	if (size < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Alloc_mem",
		    "negative size %td", size);
	if (info != MPI_INFO_NULL && !ft__mpi_info_ok(info))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_INFO,
		    "MPI_Alloc_mem", "invalid info object");
	if (baseptr == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Alloc_mem",
		    "NULL baseptr");
	if ((nd = ft_pt_nondet_on(ft__mpi.pt)))
		(void)ft_pt_decides(ft__mpi.pt);
	if ((p = malloc(size > 0 ? (size_t)size : 1)) != NULL &&
	    ft__mpi_hset_add(&allocs, p) != 0) {
		free(p);
		p = NULL;
	}
	if (nd) {
		v[0] = p != NULL;
		ft__mpi_decide(FT_ND_FLAG, v);
		if (v[0] == 0 && p != NULL) {
			ft__mpi_hset_del(&allocs, p);
			free(p);
			p = NULL;
		} else if (v[0] != 0 && p == NULL)
			ft__mpi_abort(FT_EXIT_TEMP, "MPI_Alloc_mem: out of "
			    "memory in this replica only");
	}
	if (p == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
		    "MPI_Alloc_mem", "unable to allocate %td bytes", size);
	*(void **)baseptr = p;
	return MPI_SUCCESS;
}

int
MPI_Free_mem(void *base)
{
	FT_MPI_CHECK_INIT("MPI_Free_mem");
	if (!ft__mpi_hset_has(&allocs, base))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Free_mem",
		    "not memory from MPI_Alloc_mem");
	ft__mpi_hset_del(&allocs, base);
	free(base);
	return MPI_SUCCESS;
}

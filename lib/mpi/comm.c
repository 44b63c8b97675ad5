/* SPDX-License-Identifier: ISC */
/*
 * Communicators: the predefined ones, handle checks, rank, size and
 * attributes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpi_impl.h"

/* Context ids: even ones carry point-to-point, odd ones collectives. */
struct ft_mpi_comm ft_mpi_comm_world = {
	.ctx = 0, .errh = &ft_mpi_errors_are_fatal, .name = "MPI_COMM_WORLD",
	.predefined = 1,
};
struct ft_mpi_comm ft_mpi_comm_self = {
	.ctx = 2, .errh = &ft_mpi_errors_are_fatal, .name = "MPI_COMM_SELF",
	.predefined = 1,
};

int
ft__mpi_comm_ok(MPI_Comm c)
{
	if (c == MPI_COMM_NULL)
		return 0;
	return c == MPI_COMM_WORLD || c == MPI_COMM_SELF;
}

int
MPI_Comm_rank(MPI_Comm comm, int *rank)
{
	FT_MPI_CHECK_INIT("MPI_Comm_rank");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_rank",
		    "invalid communicator");
	if (rank == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_rank",
		    "NULL argument");
	*rank = comm->rank;
	return MPI_SUCCESS;
}

int
MPI_Comm_size(MPI_Comm comm, int *size)
{
	FT_MPI_CHECK_INIT("MPI_Comm_size");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_size",
		    "invalid communicator");
	if (size == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_size",
		    "NULL argument");
	*size = comm->size;
	return MPI_SUCCESS;
}

int
MPI_Comm_get_attr(MPI_Comm comm, int key, void *val, int *flag)
{
	static int tag_ub = INT32_MAX, host = MPI_PROC_NULL,
	    io = MPI_ANY_SOURCE, wtime_global = 0, appnum = 0,
	    lastused = MPI_ERR_LASTCODE;
	static int universe;

	FT_MPI_CHECK_INIT("MPI_Comm_get_attr");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Comm_get_attr",
		    "invalid communicator");
	if (val == NULL || flag == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_attr",
		    "NULL argument");
	*flag = 1;
	universe = (int)ft__mpi.env.size;
	switch (key) {
	case MPI_TAG_UB:
		*(int **)val = &tag_ub;
		break;
	case MPI_HOST:
		*(int **)val = &host;
		break;
	case MPI_IO:
		*(int **)val = &io;
		break;
	case MPI_WTIME_IS_GLOBAL:
		*(int **)val = &wtime_global;
		break;
	case MPI_UNIVERSE_SIZE:
		*(int **)val = &universe;
		break;
	case MPI_APPNUM:
		*(int **)val = &appnum;
		break;
	case MPI_LASTUSEDCODE:
		*(int **)val = &lastused;
		break;
	default:
		*flag = 0;
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_attr",
		    "unknown attribute key %d", key);
	}
	return MPI_SUCCESS;
}

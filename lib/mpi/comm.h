/* SPDX-License-Identifier: ISC */
/*
 * Communicators inside the MPI layer.  Each communicator owns a pair of
 * context ids: ctx for point-to-point, ctx + 1 for collectives, so the
 * two never match each other's messages.
 */
#ifndef FT_MPI_COMM_H
#define FT_MPI_COMM_H

#include "../include/mpi.h"

struct ft_mpi_comm {
	uint32_t		 ctx;		/* point-to-point context */
	int			 rank, size;
	uint32_t		*world;		/* comm rank -> world rank */
	MPI_Errhandler		 errh;
	char			 name[MPI_MAX_OBJECT_NAME];
	int			 predefined;
};

/* Is comm a valid communicator? */
int	 ft__mpi_comm_ok(MPI_Comm);

#endif

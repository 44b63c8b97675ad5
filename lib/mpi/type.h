/* SPDX-License-Identifier: ISC */
/*
 * Datatypes inside the MPI layer, and the hooks point-to-point uses to
 * move data that is not one dense block.
 */
#ifndef FT_MPI_TYPE_H
#define FT_MPI_TYPE_H

#include <stddef.h>

#include "../include/mpi.h"

struct ft_mpi_type {
	size_t		 size;		/* bytes of data */
	MPI_Aint	 lb, extent;
	int		 predefined;
	int		 committed;
	int		 contiguous;	/* data is size bytes at buf + lb */
	const char	*name;
};

/* Is type a valid, committed datatype? */
int	 ft__mpi_type_ok(MPI_Datatype);

/*
 * Is the data of count elements of type one dense block?  If so, it is
 * count * size bytes at buf + *offset.
 */
int	 ft__mpi_type_dense(MPI_Datatype, int count, MPI_Aint *offset);
/* Pack count elements at in into out (count * size bytes). */
void	 ft__mpi_pack(const void *in, int count, MPI_Datatype, void *out);
/*
 * Unpack bytes packed bytes (possibly fewer than count elements, when a
 * shorter message arrived) from in into count elements at out.
 */
void	 ft__mpi_unpack(const void *in, size_t bytes, void *out, int count,
	    MPI_Datatype);

#endif

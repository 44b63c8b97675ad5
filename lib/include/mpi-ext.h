/* SPDX-License-Identifier: ISC */
/*
 * ft's MPI extensions, as Open MPI's <mpi-ext.h>: ULFM's MPIX_ calls
 * and error classes (ft-ulfm(3)), declared in <mpi.h> (MPICH's
 * convention), so that a program written for either compiles with
 * ftcc unchanged.  MPIX_FT says the fault-tolerance extension is
 * there; OMPI_HAVE_MPI_EXT_FTMPI is the name Open MPI's programs test.
 */
#ifndef FT_MPI_EXT_H
#define FT_MPI_EXT_H

#include "mpi.h"

#define MPIX_FT				1
#define OMPI_HAVE_MPI_EXT_FTMPI		1

#endif

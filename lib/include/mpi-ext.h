/* SPDX-License-Identifier: ISC */
/*
 * ft's MPI extensions, as Open MPI's <mpi-ext.h>: ULFM's MPIX_ calls
 * and error classes (ft-ulfm(3)), declared in <mpi.h> (MPICH's
 * convention), so that a program written for either compiles with
 * ftcc unchanged.  MPIX_FT says the fault-tolerance extension is
 * there (and is the attribute key whose value says failures are
 * returned, as Open MPI's); OMPI_HAVE_MPI_EXT_FTMPI is the name Open MPI's programs test.
 */
#ifndef FT_MPI_EXT_H
#define FT_MPI_EXT_H

#include "mpi.h"

#define MPIX_FT				MPI_FT
#define OMPI_HAVE_MPI_EXT_FTMPI		1
/* What Open MPI 5 says it has, which programs test with #if/#ifdef. */
#define OMPI_HAVE_MPIX_COMM_GET_FAILED	1
#define OMPI_HAVE_MPIX_COMM_ACK_FAILED	1
#define OMPI_HAVE_MPIX_COMM_ISHRINK	1

/*
 * Open MPI's test aid, which ULFM's detection benchmarks call: the
 * calling process dies (SIGKILL).  notify is accepted and ignored: ft
 * learns of the death from waitpid(2) at once.
 */
#include <stdbool.h>
#ifdef __cplusplus
extern "C" {
#endif
FT_MPI_API int	OMPI_Comm_failure_inject(MPI_Comm, bool);
#ifdef __cplusplus
}
#endif

#endif

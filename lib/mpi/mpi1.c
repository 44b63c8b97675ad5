/* SPDX-License-Identifier: ISC */
/*
 * The MPI-1 calls removed in MPI 3.0 that real code still uses, each
 * the call that replaced it under its old name and old argument types:
 * MPI_Address, MPI_Type_extent, MPI_Type_lb, MPI_Type_ub,
 * MPI_Type_hvector, MPI_Type_hindexed, MPI_Type_struct, and the error
 * handler calls MPI_Errhandler_create, _set and _get.  mpi.h declares
 * them deprecated.  The markers MPI_LB and MPI_UB are in type.c.
 */
#include "mpi_impl.h"

/* Defining them is no use of them. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* MPI_Get_address. */
int
PMPI_Address(void *location, MPI_Aint *address)
{
	return MPI_Get_address(location, address);
}

/* The extent of type, MPI_LB and MPI_UB markers included. */
int
PMPI_Type_extent(MPI_Datatype type, MPI_Aint *extent)
{
	MPI_Aint lb;

	if (extent == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Type_extent", "NULL argument");
	return MPI_Type_get_extent(type, &lb, extent);
}

/* The lower bound of type. */
int
PMPI_Type_lb(MPI_Datatype type, MPI_Aint *lb)
{
	MPI_Aint extent;

	if (lb == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Type_lb",
		    "NULL argument");
	return MPI_Type_get_extent(type, lb, &extent);
}

/* The upper bound of type: its lower bound plus its extent. */
int
PMPI_Type_ub(MPI_Datatype type, MPI_Aint *ub)
{
	MPI_Aint lb, extent;
	int rc;

	if (ub == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Type_ub",
		    "NULL argument");
	if ((rc = MPI_Type_get_extent(type, &lb, &extent)) == MPI_SUCCESS)
		*ub = lb + extent;
	return rc;
}

/* MPI_Type_create_hvector. */
int
PMPI_Type_hvector(int count, int blen, MPI_Aint stride, MPI_Datatype old,
    MPI_Datatype *newtype)
{
	return MPI_Type_create_hvector(count, blen, stride, old, newtype);
}

/* MPI_Type_create_hindexed. */
int
PMPI_Type_hindexed(int count, int blens[], MPI_Aint disps[],
    MPI_Datatype old, MPI_Datatype *newtype)
{
	return MPI_Type_create_hindexed(count, blens, disps, old, newtype);
}

/* MPI_Type_create_struct; blocks of MPI_LB and MPI_UB set the bounds. */
int
PMPI_Type_struct(int count, int blens[], MPI_Aint disps[],
    MPI_Datatype types[], MPI_Datatype *newtype)
{
	return MPI_Type_create_struct(count, blens, disps, types, newtype);
}

/*
 * MPI_Comm_create_errhandler: fn is called as fn(&comm, &code, name of
 * the call) for an error on a communicator it is set on, and the call
 * then returns the code.  MPI_Errhandler_free frees only the handle.
 */
int
PMPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *eh)
{
	return ft__mpi_errh_create("MPI_Errhandler_create", fn, eh);
}

/* MPI_Comm_set_errhandler. */
int
PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler eh)
{
	return MPI_Comm_set_errhandler(comm, eh);
}

/* MPI_Comm_get_errhandler. */
int
PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *eh)
{
	return MPI_Comm_get_errhandler(comm, eh);
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Address = PMPI_Address
#pragma weak MPI_Type_extent = PMPI_Type_extent
#pragma weak MPI_Type_lb = PMPI_Type_lb
#pragma weak MPI_Type_ub = PMPI_Type_ub
#pragma weak MPI_Type_hvector = PMPI_Type_hvector
#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed
#pragma weak MPI_Type_struct = PMPI_Type_struct
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create
#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get

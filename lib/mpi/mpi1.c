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
MPI_Address(void *location, MPI_Aint *address)
{
	return MPI_Get_address(location, address);
}

/* The extent of type, MPI_LB and MPI_UB markers included. */
int
MPI_Type_extent(MPI_Datatype type, MPI_Aint *extent)
{
	MPI_Aint lb;

	if (extent == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Type_extent", "NULL argument");
	return MPI_Type_get_extent(type, &lb, extent);
}

/* The lower bound of type. */
int
MPI_Type_lb(MPI_Datatype type, MPI_Aint *lb)
{
	MPI_Aint extent;

	if (lb == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Type_lb",
		    "NULL argument");
	return MPI_Type_get_extent(type, lb, &extent);
}

/* The upper bound of type: its lower bound plus its extent. */
int
MPI_Type_ub(MPI_Datatype type, MPI_Aint *ub)
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
MPI_Type_hvector(int count, int blen, MPI_Aint stride, MPI_Datatype old,
    MPI_Datatype *newtype)
{
	return MPI_Type_create_hvector(count, blen, stride, old, newtype);
}

/* MPI_Type_create_hindexed. */
int
MPI_Type_hindexed(int count, int blens[], MPI_Aint disps[],
    MPI_Datatype old, MPI_Datatype *newtype)
{
	return MPI_Type_create_hindexed(count, blens, disps, old, newtype);
}

/* MPI_Type_create_struct; blocks of MPI_LB and MPI_UB set the bounds. */
int
MPI_Type_struct(int count, int blens[], MPI_Aint disps[],
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
MPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *eh)
{
	return ft__mpi_errh_create("MPI_Errhandler_create", fn, eh);
}

/* MPI_Comm_set_errhandler. */
int
MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler eh)
{
	return MPI_Comm_set_errhandler(comm, eh);
}

/* MPI_Comm_get_errhandler. */
int
MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *eh)
{
	return MPI_Comm_get_errhandler(comm, eh);
}

/* SPDX-License-Identifier: ISC */
/*
 * Datatypes: the predefined ones, handle checks, sizes and counts, and
 * the packing hooks point-to-point uses for data that is not one dense
 * block.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpi_impl.h"

#define BASIC(var, ctype, mpiname)					\
	struct ft_mpi_type var = { sizeof(ctype), 0, sizeof(ctype), 1, 1, 1, \
	    mpiname }

BASIC(ft_mpi_char, char, "MPI_CHAR");
BASIC(ft_mpi_signed_char, signed char, "MPI_SIGNED_CHAR");
BASIC(ft_mpi_unsigned_char, unsigned char, "MPI_UNSIGNED_CHAR");
BASIC(ft_mpi_byte, unsigned char, "MPI_BYTE");
BASIC(ft_mpi_wchar, wchar_t, "MPI_WCHAR");
BASIC(ft_mpi_short, short, "MPI_SHORT");
BASIC(ft_mpi_unsigned_short, unsigned short, "MPI_UNSIGNED_SHORT");
BASIC(ft_mpi_int, int, "MPI_INT");
BASIC(ft_mpi_unsigned, unsigned, "MPI_UNSIGNED");
BASIC(ft_mpi_long, long, "MPI_LONG");
BASIC(ft_mpi_unsigned_long, unsigned long, "MPI_UNSIGNED_LONG");
BASIC(ft_mpi_long_long, long long, "MPI_LONG_LONG");
BASIC(ft_mpi_unsigned_long_long, unsigned long long,
    "MPI_UNSIGNED_LONG_LONG");
BASIC(ft_mpi_float, float, "MPI_FLOAT");
BASIC(ft_mpi_double, double, "MPI_DOUBLE");
BASIC(ft_mpi_long_double, long double, "MPI_LONG_DOUBLE");
BASIC(ft_mpi_c_bool, _Bool, "MPI_C_BOOL");
BASIC(ft_mpi_int8_t, int8_t, "MPI_INT8_T");
BASIC(ft_mpi_int16_t, int16_t, "MPI_INT16_T");
BASIC(ft_mpi_int32_t, int32_t, "MPI_INT32_T");
BASIC(ft_mpi_int64_t, int64_t, "MPI_INT64_T");
BASIC(ft_mpi_uint8_t, uint8_t, "MPI_UINT8_T");
BASIC(ft_mpi_uint16_t, uint16_t, "MPI_UINT16_T");
BASIC(ft_mpi_uint32_t, uint32_t, "MPI_UINT32_T");
BASIC(ft_mpi_uint64_t, uint64_t, "MPI_UINT64_T");
BASIC(ft_mpi_c_float_complex, float _Complex, "MPI_C_FLOAT_COMPLEX");
BASIC(ft_mpi_c_double_complex, double _Complex, "MPI_C_DOUBLE_COMPLEX");
BASIC(ft_mpi_c_long_double_complex, long double _Complex,
    "MPI_C_LONG_DOUBLE_COMPLEX");
BASIC(ft_mpi_aint, MPI_Aint, "MPI_AINT");
BASIC(ft_mpi_offset, MPI_Offset, "MPI_OFFSET");
BASIC(ft_mpi_count, MPI_Count, "MPI_COUNT");

int
ft__mpi_type_ok(MPI_Datatype t)
{
	return t != MPI_DATATYPE_NULL && t->committed;
}

int
MPI_Type_size(MPI_Datatype type, int *size)
{
	FT_MPI_CHECK_INIT("MPI_Type_size");
	if (type == MPI_DATATYPE_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE,
		    "MPI_Type_size", "invalid datatype");
	if (size == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Type_size", "NULL argument");
	*size = type->size > INT32_MAX ? MPI_UNDEFINED : (int)type->size;
	return MPI_SUCCESS;
}

int
MPI_Get_count(const MPI_Status *st, MPI_Datatype type, int *count)
{
	if (st == NULL || count == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_count",
		    "NULL argument");
	if (type == MPI_DATATYPE_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE,
		    "MPI_Get_count", "invalid datatype");
	if (type->size == 0)
		*count = st->ft_bytes == 0 ? 0 : MPI_UNDEFINED;
	else if (st->ft_bytes % type->size != 0 ||
	    st->ft_bytes / type->size > INT32_MAX)
		*count = MPI_UNDEFINED;
	else
		*count = (int)(st->ft_bytes / type->size);
	return MPI_SUCCESS;
}

int
ft__mpi_type_dense(MPI_Datatype type, int count, MPI_Aint *offset)
{
	(void)count;
	*offset = 0;
	return type->contiguous && type->extent == (MPI_Aint)type->size;
}

void
ft__mpi_pack(const void *in, int count, MPI_Datatype type, void *out)
{
	memcpy(out, in, (size_t)count * type->size);
}

void
ft__mpi_unpack(const void *in, size_t bytes, void *out, int count,
    MPI_Datatype type)
{
	size_t max = (size_t)count * type->size;

	memcpy(out, in, bytes < max ? bytes : max);
}

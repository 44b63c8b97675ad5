/* SPDX-License-Identifier: ISC */
/*
 * ft's MPI: the subset of the MPI standard that ft implements, and
 * nothing else.  A call that is not here is not implemented; ft-mpi(3)
 * lists what is.  Handles are pointers to opaque objects, as in Open
 * MPI, so predefined handles are address constants.
 */
#ifndef FT_MPI_H
#define FT_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_MPI_API	__attribute__((visibility("default")))

#define MPI_VERSION	3
#define MPI_SUBVERSION	1

typedef struct ft_mpi_comm	*MPI_Comm;
typedef struct ft_mpi_type	*MPI_Datatype;
typedef struct ft_mpi_req	*MPI_Request;
typedef struct ft_mpi_errh	*MPI_Errhandler;
typedef ptrdiff_t		 MPI_Aint;
typedef long long		 MPI_Offset;
typedef long long		 MPI_Count;
typedef int			 MPI_Fint;

typedef struct MPI_Status {
	int		MPI_SOURCE;
	int		MPI_TAG;
	int		MPI_ERROR;
	/* ft's own fields: not for applications. */
	int		ft_cancelled;
	size_t		ft_bytes;
} MPI_Status;

#define MPI_STATUS_IGNORE	((MPI_Status *)0)
#define MPI_STATUSES_IGNORE	((MPI_Status *)0)

/* Error classes (each error code is its own class). */
#define MPI_SUCCESS		0
#define MPI_ERR_BUFFER		1
#define MPI_ERR_COUNT		2
#define MPI_ERR_TYPE		3
#define MPI_ERR_TAG		4
#define MPI_ERR_COMM		5
#define MPI_ERR_RANK		6
#define MPI_ERR_REQUEST		7
#define MPI_ERR_ROOT		8
#define MPI_ERR_GROUP		9
#define MPI_ERR_OP		10
#define MPI_ERR_TOPOLOGY	11
#define MPI_ERR_DIMS		12
#define MPI_ERR_ARG		13
#define MPI_ERR_UNKNOWN		14
#define MPI_ERR_TRUNCATE	15
#define MPI_ERR_OTHER		16
#define MPI_ERR_INTERN		17
#define MPI_ERR_IN_STATUS	18
#define MPI_ERR_PENDING		19
#define MPI_ERR_NO_MEM		20
#define MPI_ERR_LASTCODE	20

/* Wildcards and special ranks. */
#define MPI_ANY_SOURCE		(-1)
#define MPI_ANY_TAG		(-1)
#define MPI_PROC_NULL		(-2)
#define MPI_ROOT		(-3)
#define MPI_UNDEFINED		(-32766)

/* Predefined attribute keys (MPI_Comm_get_attr). */
#define MPI_TAG_UB		1
#define MPI_HOST		2
#define MPI_IO			3
#define MPI_WTIME_IS_GLOBAL	4
#define MPI_UNIVERSE_SIZE	5
#define MPI_APPNUM		6
#define MPI_LASTUSEDCODE	7

#define MPI_THREAD_SINGLE	0
#define MPI_THREAD_FUNNELED	1
#define MPI_THREAD_SERIALIZED	2
#define MPI_THREAD_MULTIPLE	3

#define MPI_MAX_PROCESSOR_NAME		256
#define MPI_MAX_ERROR_STRING		256
#define MPI_MAX_LIBRARY_VERSION_STRING	256
#define MPI_MAX_OBJECT_NAME		64
#define MPI_BSEND_OVERHEAD		64

/* Null handles. */
#define MPI_COMM_NULL		((MPI_Comm)0)
#define MPI_DATATYPE_NULL	((MPI_Datatype)0)
#define MPI_REQUEST_NULL	((MPI_Request)0)
#define MPI_ERRHANDLER_NULL	((MPI_Errhandler)0)

/* Predefined objects. */
extern FT_MPI_API struct ft_mpi_comm ft_mpi_comm_world, ft_mpi_comm_self;
#define MPI_COMM_WORLD		(&ft_mpi_comm_world)
#define MPI_COMM_SELF		(&ft_mpi_comm_self)

extern FT_MPI_API struct ft_mpi_errh ft_mpi_errors_are_fatal,
    ft_mpi_errors_return, ft_mpi_errors_abort;
#define MPI_ERRORS_ARE_FATAL	(&ft_mpi_errors_are_fatal)
#define MPI_ERRORS_RETURN	(&ft_mpi_errors_return)
#define MPI_ERRORS_ABORT	(&ft_mpi_errors_abort)

#define FT_MPI_TYPE(name)	extern FT_MPI_API struct ft_mpi_type name;
FT_MPI_TYPE(ft_mpi_char)
FT_MPI_TYPE(ft_mpi_signed_char)
FT_MPI_TYPE(ft_mpi_unsigned_char)
FT_MPI_TYPE(ft_mpi_byte)
FT_MPI_TYPE(ft_mpi_wchar)
FT_MPI_TYPE(ft_mpi_short)
FT_MPI_TYPE(ft_mpi_unsigned_short)
FT_MPI_TYPE(ft_mpi_int)
FT_MPI_TYPE(ft_mpi_unsigned)
FT_MPI_TYPE(ft_mpi_long)
FT_MPI_TYPE(ft_mpi_unsigned_long)
FT_MPI_TYPE(ft_mpi_long_long)
FT_MPI_TYPE(ft_mpi_unsigned_long_long)
FT_MPI_TYPE(ft_mpi_float)
FT_MPI_TYPE(ft_mpi_double)
FT_MPI_TYPE(ft_mpi_long_double)
FT_MPI_TYPE(ft_mpi_c_bool)
FT_MPI_TYPE(ft_mpi_int8_t)
FT_MPI_TYPE(ft_mpi_int16_t)
FT_MPI_TYPE(ft_mpi_int32_t)
FT_MPI_TYPE(ft_mpi_int64_t)
FT_MPI_TYPE(ft_mpi_uint8_t)
FT_MPI_TYPE(ft_mpi_uint16_t)
FT_MPI_TYPE(ft_mpi_uint32_t)
FT_MPI_TYPE(ft_mpi_uint64_t)
FT_MPI_TYPE(ft_mpi_c_float_complex)
FT_MPI_TYPE(ft_mpi_c_double_complex)
FT_MPI_TYPE(ft_mpi_c_long_double_complex)
FT_MPI_TYPE(ft_mpi_aint)
FT_MPI_TYPE(ft_mpi_offset)
FT_MPI_TYPE(ft_mpi_count)
#undef FT_MPI_TYPE

#define MPI_CHAR		(&ft_mpi_char)
#define MPI_SIGNED_CHAR		(&ft_mpi_signed_char)
#define MPI_UNSIGNED_CHAR	(&ft_mpi_unsigned_char)
#define MPI_BYTE		(&ft_mpi_byte)
#define MPI_WCHAR		(&ft_mpi_wchar)
#define MPI_SHORT		(&ft_mpi_short)
#define MPI_UNSIGNED_SHORT	(&ft_mpi_unsigned_short)
#define MPI_INT			(&ft_mpi_int)
#define MPI_UNSIGNED		(&ft_mpi_unsigned)
#define MPI_LONG		(&ft_mpi_long)
#define MPI_UNSIGNED_LONG	(&ft_mpi_unsigned_long)
#define MPI_LONG_LONG_INT	(&ft_mpi_long_long)
#define MPI_LONG_LONG		(&ft_mpi_long_long)
#define MPI_UNSIGNED_LONG_LONG	(&ft_mpi_unsigned_long_long)
#define MPI_FLOAT		(&ft_mpi_float)
#define MPI_DOUBLE		(&ft_mpi_double)
#define MPI_LONG_DOUBLE		(&ft_mpi_long_double)
#define MPI_C_BOOL		(&ft_mpi_c_bool)
#define MPI_INT8_T		(&ft_mpi_int8_t)
#define MPI_INT16_T		(&ft_mpi_int16_t)
#define MPI_INT32_T		(&ft_mpi_int32_t)
#define MPI_INT64_T		(&ft_mpi_int64_t)
#define MPI_UINT8_T		(&ft_mpi_uint8_t)
#define MPI_UINT16_T		(&ft_mpi_uint16_t)
#define MPI_UINT32_T		(&ft_mpi_uint32_t)
#define MPI_UINT64_T		(&ft_mpi_uint64_t)
#define MPI_C_FLOAT_COMPLEX	(&ft_mpi_c_float_complex)
#define MPI_C_COMPLEX		(&ft_mpi_c_float_complex)
#define MPI_C_DOUBLE_COMPLEX	(&ft_mpi_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX (&ft_mpi_c_long_double_complex)
#define MPI_AINT		(&ft_mpi_aint)
#define MPI_OFFSET		(&ft_mpi_offset)
#define MPI_COUNT		(&ft_mpi_count)

/* Environment. */
FT_MPI_API int	MPI_Init(int *, char ***);
FT_MPI_API int	MPI_Init_thread(int *, char ***, int, int *);
FT_MPI_API int	MPI_Finalize(void);
FT_MPI_API int	MPI_Initialized(int *);
FT_MPI_API int	MPI_Finalized(int *);
FT_MPI_API int	MPI_Query_thread(int *);
FT_MPI_API int	MPI_Is_thread_main(int *);
FT_MPI_API int	MPI_Abort(MPI_Comm, int);
FT_MPI_API double MPI_Wtime(void);
FT_MPI_API double MPI_Wtick(void);
FT_MPI_API int	MPI_Get_processor_name(char *, int *);
FT_MPI_API int	MPI_Get_version(int *, int *);
FT_MPI_API int	MPI_Get_library_version(char *, int *);

/* Errors. */
FT_MPI_API int	MPI_Error_string(int, char *, int *);
FT_MPI_API int	MPI_Error_class(int, int *);
FT_MPI_API int	MPI_Comm_set_errhandler(MPI_Comm, MPI_Errhandler);
FT_MPI_API int	MPI_Comm_get_errhandler(MPI_Comm, MPI_Errhandler *);
FT_MPI_API int	MPI_Errhandler_free(MPI_Errhandler *);

/* Communicators. */
FT_MPI_API int	MPI_Comm_rank(MPI_Comm, int *);
FT_MPI_API int	MPI_Comm_size(MPI_Comm, int *);
FT_MPI_API int	MPI_Comm_get_attr(MPI_Comm, int, void *, int *);

/* Datatypes. */
FT_MPI_API int	MPI_Type_size(MPI_Datatype, int *);
FT_MPI_API int	MPI_Get_count(const MPI_Status *, MPI_Datatype, int *);

/* Point to point. */
FT_MPI_API int	MPI_Send(const void *, int, MPI_Datatype, int, int, MPI_Comm);
FT_MPI_API int	MPI_Ssend(const void *, int, MPI_Datatype, int, int, MPI_Comm);
FT_MPI_API int	MPI_Rsend(const void *, int, MPI_Datatype, int, int, MPI_Comm);
FT_MPI_API int	MPI_Bsend(const void *, int, MPI_Datatype, int, int, MPI_Comm);
FT_MPI_API int	MPI_Buffer_attach(void *, int);
FT_MPI_API int	MPI_Buffer_detach(void *, int *);
FT_MPI_API int	MPI_Recv(void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Status *);
FT_MPI_API int	MPI_Isend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Issend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Irsend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Irecv(void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Sendrecv(const void *, int, MPI_Datatype, int, int,
		    void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Status *);
FT_MPI_API int	MPI_Sendrecv_replace(void *, int, MPI_Datatype, int, int,
		    int, int, MPI_Comm, MPI_Status *);
FT_MPI_API int	MPI_Probe(int, int, MPI_Comm, MPI_Status *);
FT_MPI_API int	MPI_Iprobe(int, int, MPI_Comm, int *, MPI_Status *);
FT_MPI_API int	MPI_Wait(MPI_Request *, MPI_Status *);
FT_MPI_API int	MPI_Waitall(int, MPI_Request *, MPI_Status *);
FT_MPI_API int	MPI_Waitany(int, MPI_Request *, int *, MPI_Status *);
FT_MPI_API int	MPI_Waitsome(int, MPI_Request *, int *, int *, MPI_Status *);
FT_MPI_API int	MPI_Test(MPI_Request *, int *, MPI_Status *);
FT_MPI_API int	MPI_Testall(int, MPI_Request *, int *, MPI_Status *);
FT_MPI_API int	MPI_Testany(int, MPI_Request *, int *, int *, MPI_Status *);
FT_MPI_API int	MPI_Testsome(int, MPI_Request *, int *, int *, MPI_Status *);
FT_MPI_API int	MPI_Request_free(MPI_Request *);
FT_MPI_API int	MPI_Cancel(MPI_Request *);
FT_MPI_API int	MPI_Test_cancelled(const MPI_Status *, int *);

/* BEGIN datatypes: derived types, packing (owner: lib/mpi/type.c) */
/* END datatypes */

/* BEGIN collectives and operations (owner: lib/mpi/coll.c, op.c) */
/* END collectives and operations */

/* BEGIN communicators, groups, topologies, info (owner: lib/mpi/comm.c) */
/* END communicators, groups, topologies, info */

#ifdef __cplusplus
}
#endif

#endif

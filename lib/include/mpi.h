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
/* Windows (one-sided communication); files: handles only, no I/O. */
typedef struct ft_mpi_win	*MPI_Win;
typedef struct ft_mpi_file	*MPI_File;
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
#define MPI_ERR_KEYVAL		21
#define MPI_ERR_INFO		22
#define MPI_ERR_INFO_KEY	23
#define MPI_ERR_INFO_VALUE	24
#define MPI_ERR_INFO_NOKEY	25
#define MPI_ERR_SPAWN		26
#define MPI_ERR_PORT		27
#define MPI_ERR_NAME		28
#define MPI_ERR_SERVICE		29
#define MPI_ERR_WIN		30
#define MPI_ERR_FILE		31
/*
 * ULFM's classes (ft-ulfm(3)): predefined, so below MPI_ERR_LASTCODE as
 * the standard asks of every predefined class (Open MPI also keeps them
 * below it); the MPIX_ names are MPICH's and Open MPI's.
 */
#define MPIX_ERR_PROC_FAILED		32
#define MPIX_ERR_PROC_FAILED_PENDING	33
#define MPIX_ERR_REVOKED		34
/* The names without X, as Open MPI 5's <mpi.h> (and the MPI Forum's
 * fault-tolerance chapter) give them. */
#define MPI_ERR_PROC_FAILED		MPIX_ERR_PROC_FAILED
#define MPI_ERR_PROC_FAILED_PENDING	MPIX_ERR_PROC_FAILED_PENDING
#define MPI_ERR_REVOKED			MPIX_ERR_REVOKED
/* One-sided communication's classes (MPI-3.1 8.4, chapter 11). */
#define MPI_ERR_BASE		35
#define MPI_ERR_LOCKTYPE	36
#define MPI_ERR_RMA_CONFLICT	37
#define MPI_ERR_RMA_SYNC	38
#define MPI_ERR_RMA_RANGE	39
#define MPI_ERR_RMA_ATTACH	40
#define MPI_ERR_RMA_SHARED	41
#define MPI_ERR_RMA_FLAVOR	42
#define MPI_ERR_SIZE		43
#define MPI_ERR_DISP		44
#define MPI_ERR_ASSERT		45
#define MPI_ERR_LASTCODE	45

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
/* ULFM (ft-ulfm(3)): true on MPI_COMM_WORLD when failures are returned
 * (ftrun --ft ulfm or ftmpi), as Open MPI's MPIX_FT. */
#define MPI_FT			8

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
#define MPI_WIN_NULL		((MPI_Win)0)
#define MPI_FILE_NULL		((MPI_File)0)

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
/*
 * MPI_PACKED, and the pair types of MPI_MAXLOC and MPI_MINLOC, laid out
 * as the C structs { float v; int i; } and so on (MPI_DOUBLE_INT has
 * size 12 and extent 16).
 */
extern FT_MPI_API struct ft_mpi_type ft_mpi_packed, ft_mpi_2int,
    ft_mpi_float_int, ft_mpi_double_int, ft_mpi_long_int, ft_mpi_short_int,
    ft_mpi_long_double_int;
#define MPI_PACKED		(&ft_mpi_packed)
#define MPI_2INT		(&ft_mpi_2int)
#define MPI_FLOAT_INT		(&ft_mpi_float_int)
#define MPI_DOUBLE_INT		(&ft_mpi_double_int)
#define MPI_LONG_INT		(&ft_mpi_long_int)
#define MPI_SHORT_INT		(&ft_mpi_short_int)
#define MPI_LONG_DOUBLE_INT	(&ft_mpi_long_double_int)

/* Absolute addresses (MPI_Get_address) count from MPI_BOTTOM. */
#define MPI_BOTTOM		((void *)0)

FT_MPI_API int	MPI_Type_contiguous(int, MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Type_vector(int, int, int, MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_hvector(int, int, MPI_Aint, MPI_Datatype,
		    MPI_Datatype *);
FT_MPI_API int	MPI_Type_indexed(int, const int [], const int [],
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_hindexed(int, const int [], const MPI_Aint [],
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_indexed_block(int, int, const int [],
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_hindexed_block(int, int, const MPI_Aint [],
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_struct(int, const int [], const MPI_Aint [],
		    const MPI_Datatype [], MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_resized(MPI_Datatype, MPI_Aint, MPI_Aint,
		    MPI_Datatype *);
FT_MPI_API int	MPI_Type_dup(MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Type_commit(MPI_Datatype *);
FT_MPI_API int	MPI_Type_free(MPI_Datatype *);
FT_MPI_API int	MPI_Type_size_x(MPI_Datatype, MPI_Count *);
FT_MPI_API int	MPI_Type_get_extent(MPI_Datatype, MPI_Aint *, MPI_Aint *);
FT_MPI_API int	MPI_Type_get_extent_x(MPI_Datatype, MPI_Count *, MPI_Count *);
FT_MPI_API int	MPI_Type_get_true_extent(MPI_Datatype, MPI_Aint *,
		    MPI_Aint *);
FT_MPI_API int	MPI_Type_get_true_extent_x(MPI_Datatype, MPI_Count *,
		    MPI_Count *);
FT_MPI_API int	MPI_Type_set_name(MPI_Datatype, const char *);
FT_MPI_API int	MPI_Type_get_name(MPI_Datatype, char *, int *);
FT_MPI_API int	MPI_Get_elements(const MPI_Status *, MPI_Datatype, int *);
FT_MPI_API int	MPI_Get_elements_x(const MPI_Status *, MPI_Datatype,
		    MPI_Count *);
FT_MPI_API int	MPI_Pack(const void *, int, MPI_Datatype, void *, int, int *,
		    MPI_Comm);
FT_MPI_API int	MPI_Unpack(const void *, int, int *, void *, int,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Pack_size(int, MPI_Datatype, MPI_Comm, int *);
FT_MPI_API int	MPI_Get_address(const void *, MPI_Aint *);
FT_MPI_API MPI_Aint MPI_Aint_add(MPI_Aint, MPI_Aint);
FT_MPI_API MPI_Aint MPI_Aint_diff(MPI_Aint, MPI_Aint);
/* END datatypes */

/* BEGIN collectives and operations (owner: lib/mpi/coll.c, op.c) */
typedef struct ft_mpi_op	*MPI_Op;
typedef void	MPI_User_function(void *, void *, int *, MPI_Datatype *);

#define MPI_OP_NULL		((MPI_Op)0)
/* The send buffer argument that says "the data is in the receive buffer". */
#define MPI_IN_PLACE		((void *)1)

extern FT_MPI_API struct ft_mpi_op ft_mpi_op_max, ft_mpi_op_min,
    ft_mpi_op_sum, ft_mpi_op_prod, ft_mpi_op_land, ft_mpi_op_band,
    ft_mpi_op_lor, ft_mpi_op_bor, ft_mpi_op_lxor, ft_mpi_op_bxor,
    ft_mpi_op_maxloc, ft_mpi_op_minloc, ft_mpi_op_replace, ft_mpi_op_no_op;
#define MPI_MAX			(&ft_mpi_op_max)
#define MPI_MIN			(&ft_mpi_op_min)
#define MPI_SUM			(&ft_mpi_op_sum)
#define MPI_PROD		(&ft_mpi_op_prod)
#define MPI_LAND		(&ft_mpi_op_land)
#define MPI_BAND		(&ft_mpi_op_band)
#define MPI_LOR			(&ft_mpi_op_lor)
#define MPI_BOR			(&ft_mpi_op_bor)
#define MPI_LXOR		(&ft_mpi_op_lxor)
#define MPI_BXOR		(&ft_mpi_op_bxor)
#define MPI_MAXLOC		(&ft_mpi_op_maxloc)
#define MPI_MINLOC		(&ft_mpi_op_minloc)
#define MPI_REPLACE		(&ft_mpi_op_replace)
#define MPI_NO_OP		(&ft_mpi_op_no_op)

/* Operations. */
FT_MPI_API int	MPI_Op_create(MPI_User_function *, int, MPI_Op *);
FT_MPI_API int	MPI_Op_free(MPI_Op *);
FT_MPI_API int	MPI_Op_commutative(MPI_Op, int *);
FT_MPI_API int	MPI_Reduce_local(const void *, void *, int, MPI_Datatype,
		    MPI_Op);

/* Collectives. */
FT_MPI_API int	MPI_Barrier(MPI_Comm);
FT_MPI_API int	MPI_Bcast(void *, int, MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	MPI_Reduce(const void *, void *, int, MPI_Datatype, MPI_Op,
		    int, MPI_Comm);
FT_MPI_API int	MPI_Allreduce(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm);
FT_MPI_API int	MPI_Gather(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	MPI_Gatherv(const void *, int, MPI_Datatype, void *,
		    const int *, const int *, MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	MPI_Scatter(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	MPI_Scatterv(const void *, const int *, const int *,
		    MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	MPI_Allgather(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Allgatherv(const void *, int, MPI_Datatype, void *,
		    const int *, const int *, MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Alltoall(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Alltoallv(const void *, const int *, const int *,
		    MPI_Datatype, void *, const int *, const int *,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Alltoallw(const void *, const int *, const int *,
		    const MPI_Datatype *, void *, const int *, const int *,
		    const MPI_Datatype *, MPI_Comm);
FT_MPI_API int	MPI_Reduce_scatter(const void *, void *, const int *,
		    MPI_Datatype, MPI_Op, MPI_Comm);
FT_MPI_API int	MPI_Reduce_scatter_block(const void *, void *, int,
		    MPI_Datatype, MPI_Op, MPI_Comm);
FT_MPI_API int	MPI_Scan(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm);
FT_MPI_API int	MPI_Exscan(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm);

/* Nonblocking collectives: completed by MPI_Wait, MPI_Test and kin. */
FT_MPI_API int	MPI_Ibarrier(MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ibcast(void *, int, MPI_Datatype, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Ireduce(const void *, void *, int, MPI_Datatype, MPI_Op,
		    int, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Iallreduce(const void *, void *, int, MPI_Datatype,
		    MPI_Op, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Igather(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, int, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Igatherv(const void *, int, MPI_Datatype, void *,
		    const int *, const int *, MPI_Datatype, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Iscatter(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, int, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Iscatterv(const void *, const int *, const int *,
		    MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Iallgather(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Iallgatherv(const void *, int, MPI_Datatype, void *,
		    const int *, const int *, MPI_Datatype, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Ialltoall(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ialltoallv(const void *, const int *, const int *,
		    MPI_Datatype, void *, const int *, const int *,
		    MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ialltoallw(const void *, const int *, const int *,
		    const MPI_Datatype *, void *, const int *, const int *,
		    const MPI_Datatype *, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ireduce_scatter(const void *, void *, const int *,
		    MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ireduce_scatter_block(const void *, void *, int,
		    MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Iscan(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Iexscan(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm, MPI_Request *);

/* Persistent point-to-point requests. */
FT_MPI_API int	MPI_Send_init(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ssend_init(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Rsend_init(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Bsend_init(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Recv_init(void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Start(MPI_Request *);
FT_MPI_API int	MPI_Startall(int, MPI_Request *);
/* END collectives and operations */

/* BEGIN communicators, groups, topologies, info (owner: lib/mpi/comm.c) */
typedef struct ft_mpi_group	*MPI_Group;
typedef struct ft_mpi_info	*MPI_Info;

typedef int	MPI_Comm_copy_attr_function(MPI_Comm, int, void *, void *,
		    void *, int *);
typedef int	MPI_Comm_delete_attr_function(MPI_Comm, int, void *, void *);
/* MPI-1 names of the same callbacks (deprecated). */
typedef MPI_Comm_copy_attr_function	MPI_Copy_function;
typedef MPI_Comm_delete_attr_function	MPI_Delete_function;

#define MPI_GROUP_NULL		((MPI_Group)0)
#define MPI_INFO_NULL		((MPI_Info)0)
extern FT_MPI_API struct ft_mpi_group ft_mpi_group_empty;
#define MPI_GROUP_EMPTY		(&ft_mpi_group_empty)

/* Results of MPI_Comm_compare and MPI_Group_compare. */
#define MPI_IDENT		0
#define MPI_CONGRUENT		1
#define MPI_SIMILAR		2
#define MPI_UNEQUAL		3

/* Topologies (MPI_Topo_test). */
#define MPI_GRAPH		1
#define MPI_CART		2
#define MPI_DIST_GRAPH		3

#define MPI_COMM_TYPE_SHARED	1

#define MPI_KEYVAL_INVALID	(-1)
#define MPI_MAX_INFO_KEY	255
#define MPI_MAX_INFO_VAL	1024

/* Attribute callbacks: none, or copy the value on MPI_Comm_dup. */
FT_MPI_API int	ft_mpi_comm_dup_fn(MPI_Comm, int, void *, void *, void *,
		    int *);
#define MPI_COMM_NULL_COPY_FN	((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN	((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN		(ft_mpi_comm_dup_fn)
#define MPI_NULL_COPY_FN	((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN	((MPI_Delete_function *)0)
#define MPI_DUP_FN		(ft_mpi_comm_dup_fn)

/* Communicators (MPI_Comm_rank, _size, _get_attr are declared above). */
FT_MPI_API int	MPI_Comm_dup(MPI_Comm, MPI_Comm *);
FT_MPI_API int	MPI_Comm_dup_with_info(MPI_Comm, MPI_Info, MPI_Comm *);
FT_MPI_API int	MPI_Comm_split(MPI_Comm, int, int, MPI_Comm *);
FT_MPI_API int	MPI_Comm_split_type(MPI_Comm, int, int, MPI_Info,
		    MPI_Comm *);
FT_MPI_API int	MPI_Comm_create(MPI_Comm, MPI_Group, MPI_Comm *);
FT_MPI_API int	MPI_Comm_create_group(MPI_Comm, MPI_Group, int, MPI_Comm *);
FT_MPI_API int	MPI_Comm_free(MPI_Comm *);
FT_MPI_API int	MPI_Comm_compare(MPI_Comm, MPI_Comm, int *);
FT_MPI_API int	MPI_Comm_test_inter(MPI_Comm, int *);
FT_MPI_API int	MPI_Comm_group(MPI_Comm, MPI_Group *);
FT_MPI_API int	MPI_Comm_set_name(MPI_Comm, const char *);
FT_MPI_API int	MPI_Comm_get_name(MPI_Comm, char *, int *);
FT_MPI_API int	MPI_Comm_set_info(MPI_Comm, MPI_Info);
FT_MPI_API int	MPI_Comm_get_info(MPI_Comm, MPI_Info *);

/* Attributes. */
FT_MPI_API int	MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *,
		    MPI_Comm_delete_attr_function *, int *, void *);
FT_MPI_API int	MPI_Comm_free_keyval(int *);
FT_MPI_API int	MPI_Comm_set_attr(MPI_Comm, int, void *);
FT_MPI_API int	MPI_Comm_delete_attr(MPI_Comm, int);
FT_MPI_API int	MPI_Keyval_create(MPI_Copy_function *, MPI_Delete_function *,
		    int *, void *);
FT_MPI_API int	MPI_Keyval_free(int *);
FT_MPI_API int	MPI_Attr_put(MPI_Comm, int, void *);
FT_MPI_API int	MPI_Attr_get(MPI_Comm, int, void *, int *);
FT_MPI_API int	MPI_Attr_delete(MPI_Comm, int);

/* Groups. */
FT_MPI_API int	MPI_Group_size(MPI_Group, int *);
FT_MPI_API int	MPI_Group_rank(MPI_Group, int *);
FT_MPI_API int	MPI_Group_translate_ranks(MPI_Group, int, const int *,
		    MPI_Group, int *);
FT_MPI_API int	MPI_Group_compare(MPI_Group, MPI_Group, int *);
FT_MPI_API int	MPI_Group_union(MPI_Group, MPI_Group, MPI_Group *);
FT_MPI_API int	MPI_Group_intersection(MPI_Group, MPI_Group, MPI_Group *);
FT_MPI_API int	MPI_Group_difference(MPI_Group, MPI_Group, MPI_Group *);
FT_MPI_API int	MPI_Group_incl(MPI_Group, int, const int *, MPI_Group *);
FT_MPI_API int	MPI_Group_excl(MPI_Group, int, const int *, MPI_Group *);
FT_MPI_API int	MPI_Group_range_incl(MPI_Group, int, int [][3], MPI_Group *);
FT_MPI_API int	MPI_Group_range_excl(MPI_Group, int, int [][3], MPI_Group *);
FT_MPI_API int	MPI_Group_free(MPI_Group *);

/* Cartesian topologies. */
FT_MPI_API int	MPI_Dims_create(int, int, int *);
FT_MPI_API int	MPI_Cart_create(MPI_Comm, int, const int *, const int *, int,
		    MPI_Comm *);
FT_MPI_API int	MPI_Cart_get(MPI_Comm, int, int *, int *, int *);
FT_MPI_API int	MPI_Cart_rank(MPI_Comm, const int *, int *);
FT_MPI_API int	MPI_Cart_coords(MPI_Comm, int, int, int *);
FT_MPI_API int	MPI_Cart_shift(MPI_Comm, int, int, int *, int *);
FT_MPI_API int	MPI_Cart_sub(MPI_Comm, const int *, MPI_Comm *);
FT_MPI_API int	MPI_Cart_map(MPI_Comm, int, const int *, const int *, int *);
FT_MPI_API int	MPI_Cartdim_get(MPI_Comm, int *);
FT_MPI_API int	MPI_Topo_test(MPI_Comm, int *);

/* Info objects: hints are accepted and ignored. */
FT_MPI_API int	MPI_Info_create(MPI_Info *);
FT_MPI_API int	MPI_Info_set(MPI_Info, const char *, const char *);
FT_MPI_API int	MPI_Info_get(MPI_Info, const char *, int, char *, int *);
FT_MPI_API int	MPI_Info_get_valuelen(MPI_Info, const char *, int *, int *);
FT_MPI_API int	MPI_Info_get_nkeys(MPI_Info, int *);
FT_MPI_API int	MPI_Info_get_nthkey(MPI_Info, int, char *);
FT_MPI_API int	MPI_Info_delete(MPI_Info, const char *);
FT_MPI_API int	MPI_Info_dup(MPI_Info, MPI_Info *);
FT_MPI_API int	MPI_Info_free(MPI_Info *);
/* END communicators, groups, topologies, info */

/* --- topologies, neighbourhood collectives, misc (issue 14) --- */
/*
 * Graph and distributed-graph topologies.  MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY stand for whole weight arrays, and are never read.
 */
#define MPI_UNWEIGHTED		((int *)2)
#define MPI_WEIGHTS_EMPTY	((int *)3)

FT_MPI_API int	MPI_Graph_create(MPI_Comm, int, const int *, const int *, int,
		    MPI_Comm *);
FT_MPI_API int	MPI_Graphdims_get(MPI_Comm, int *, int *);
FT_MPI_API int	MPI_Graph_get(MPI_Comm, int, int, int *, int *);
FT_MPI_API int	MPI_Graph_neighbors_count(MPI_Comm, int, int *);
FT_MPI_API int	MPI_Graph_neighbors(MPI_Comm, int, int, int *);
FT_MPI_API int	MPI_Graph_map(MPI_Comm, int, const int *, const int *, int *);
FT_MPI_API int	MPI_Dist_graph_create_adjacent(MPI_Comm, int, const int *,
		    const int *, int, const int *, const int *, MPI_Info, int,
		    MPI_Comm *);
FT_MPI_API int	MPI_Dist_graph_create(MPI_Comm, int, const int *, const int *,
		    const int *, const int *, MPI_Info, int, MPI_Comm *);
FT_MPI_API int	MPI_Dist_graph_neighbors_count(MPI_Comm, int *, int *, int *);
FT_MPI_API int	MPI_Dist_graph_neighbors(MPI_Comm, int, int *, int *, int,
		    int *, int *);

/* Neighbourhood collectives, on Cartesian and graph communicators. */
FT_MPI_API int	MPI_Neighbor_allgather(const void *, int, MPI_Datatype, void *,
		    int, MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Neighbor_allgatherv(const void *, int, MPI_Datatype,
		    void *, const int *, const int *, MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Neighbor_alltoall(const void *, int, MPI_Datatype, void *,
		    int, MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Neighbor_alltoallv(const void *, const int *, const int *,
		    MPI_Datatype, void *, const int *, const int *,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	MPI_Neighbor_alltoallw(const void *, const int *,
		    const MPI_Aint *, const MPI_Datatype *, void *, const int *,
		    const MPI_Aint *, const MPI_Datatype *, MPI_Comm);
FT_MPI_API int	MPI_Ineighbor_allgather(const void *, int, MPI_Datatype,
		    void *, int, MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ineighbor_allgatherv(const void *, int, MPI_Datatype,
		    void *, const int *, const int *, MPI_Datatype, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	MPI_Ineighbor_alltoall(const void *, int, MPI_Datatype,
		    void *, int, MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ineighbor_alltoallv(const void *, const int *,
		    const int *, MPI_Datatype, void *, const int *, const int *,
		    MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Ineighbor_alltoallw(const void *, const int *,
		    const MPI_Aint *, const MPI_Datatype *, void *, const int *,
		    const MPI_Aint *, const MPI_Datatype *, MPI_Comm,
		    MPI_Request *);

/* A nonblocking MPI_Comm_dup, and more kinds of request. */
FT_MPI_API int	MPI_Comm_idup(MPI_Comm, MPI_Comm *, MPI_Request *);
FT_MPI_API int	MPI_Ibsend(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	MPI_Request_get_status(MPI_Request, int *, MPI_Status *);

typedef int	MPI_Grequest_query_function(void *, MPI_Status *);
typedef int	MPI_Grequest_free_function(void *);
typedef int	MPI_Grequest_cancel_function(void *, int);
FT_MPI_API int	MPI_Grequest_start(MPI_Grequest_query_function *,
		    MPI_Grequest_free_function *,
		    MPI_Grequest_cancel_function *, void *, MPI_Request *);
FT_MPI_API int	MPI_Grequest_complete(MPI_Request);
FT_MPI_API int	MPI_Status_set_elements(MPI_Status *, MPI_Datatype, int);
FT_MPI_API int	MPI_Status_set_elements_x(MPI_Status *, MPI_Datatype,
		    MPI_Count);
FT_MPI_API int	MPI_Status_set_cancelled(MPI_Status *, int);

/* User error handlers, error classes and codes. */
typedef void	MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
/* The MPI-2 name of the same (deprecated). */
typedef MPI_Comm_errhandler_function	MPI_Comm_errhandler_fn;
FT_MPI_API int	MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *,
		    MPI_Errhandler *);
FT_MPI_API int	MPI_Comm_call_errhandler(MPI_Comm, int);
/*
 * Error handlers of windows and files (MPI-3.1 8.3.2, 8.3.3): each kind
 * takes only handlers made for it, or predefined ones.  No window or
 * file exists yet, so every MPI_Win is invalid (MPI_ERR_WIN), and the
 * only valid MPI_File is MPI_FILE_NULL, which stands for the default
 * file error handler (MPI-3.1 13.7), MPI_ERRORS_RETURN at first.
 */
typedef void	MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef void	MPI_File_errhandler_function(MPI_File *, int *, ...);
/* The MPI-2 names of the same (deprecated). */
typedef MPI_Win_errhandler_function	MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function	MPI_File_errhandler_fn;
FT_MPI_API int	MPI_Win_create_errhandler(MPI_Win_errhandler_function *,
		    MPI_Errhandler *);
FT_MPI_API int	MPI_Win_set_errhandler(MPI_Win, MPI_Errhandler);
FT_MPI_API int	MPI_Win_get_errhandler(MPI_Win, MPI_Errhandler *);
FT_MPI_API int	MPI_Win_call_errhandler(MPI_Win, int);
FT_MPI_API int	MPI_File_create_errhandler(MPI_File_errhandler_function *,
		    MPI_Errhandler *);
FT_MPI_API int	MPI_File_set_errhandler(MPI_File, MPI_Errhandler);
FT_MPI_API int	MPI_File_get_errhandler(MPI_File, MPI_Errhandler *);
FT_MPI_API int	MPI_File_call_errhandler(MPI_File, int);
FT_MPI_API int	MPI_Add_error_class(int *);
FT_MPI_API int	MPI_Add_error_code(int, int *);
FT_MPI_API int	MPI_Add_error_string(int, const char *);

/* The environment the program was started in, and memory. */
extern FT_MPI_API struct ft_mpi_info ft_mpi_info_env;
#define MPI_INFO_ENV		(&ft_mpi_info_env)
FT_MPI_API int	MPI_Alloc_mem(MPI_Aint, MPI_Info, void *);
FT_MPI_API int	MPI_Free_mem(void *);
/* --- end of issue 14 --- */

/* --- datatypes extras, matched probe (issue 14) --- */

/* Matched probes (lib/mpi/mprobe.c). */
typedef struct ft_mpi_message	*MPI_Message;

#define MPI_MESSAGE_NULL	((MPI_Message)0)
/* The message a matched probe of MPI_PROC_NULL finds. */
extern FT_MPI_API struct ft_mpi_message ft_mpi_message_no_proc;
#define MPI_MESSAGE_NO_PROC	(&ft_mpi_message_no_proc)

FT_MPI_API int	MPI_Mprobe(int, int, MPI_Comm, MPI_Message *, MPI_Status *);
FT_MPI_API int	MPI_Improbe(int, int, MPI_Comm, int *, MPI_Message *,
		    MPI_Status *);
FT_MPI_API int	MPI_Mrecv(void *, int, MPI_Datatype, MPI_Message *,
		    MPI_Status *);
FT_MPI_API int	MPI_Imrecv(void *, int, MPI_Datatype, MPI_Message *,
		    MPI_Request *);

/* Datatype extras (lib/mpi/typex.c, mpi1.c). */

/* How a datatype was made (MPI_Type_get_envelope). */
#define MPI_COMBINER_NAMED		1
#define MPI_COMBINER_DUP		2
#define MPI_COMBINER_CONTIGUOUS		3
#define MPI_COMBINER_VECTOR		4
#define MPI_COMBINER_HVECTOR_INTEGER	5	/* Fortran only: never */
#define MPI_COMBINER_HVECTOR		6
#define MPI_COMBINER_INDEXED		7
#define MPI_COMBINER_HINDEXED_INTEGER	8	/* Fortran only: never */
#define MPI_COMBINER_HINDEXED		9
#define MPI_COMBINER_INDEXED_BLOCK	10
#define MPI_COMBINER_STRUCT_INTEGER	11	/* Fortran only: never */
#define MPI_COMBINER_STRUCT		12
#define MPI_COMBINER_SUBARRAY		13
#define MPI_COMBINER_DARRAY		14
#define MPI_COMBINER_F90_REAL		15	/* not made by ft */
#define MPI_COMBINER_F90_COMPLEX	16	/* not made by ft */
#define MPI_COMBINER_F90_INTEGER	17	/* not made by ft */
#define MPI_COMBINER_RESIZED		18
#define MPI_COMBINER_HINDEXED_BLOCK	19

/* Array orders and distributions (subarray and darray types). */
#define MPI_ORDER_C			56
#define MPI_ORDER_FORTRAN		57
#define MPI_DISTRIBUTE_BLOCK		121
#define MPI_DISTRIBUTE_CYCLIC		122
#define MPI_DISTRIBUTE_NONE		123
#define MPI_DISTRIBUTE_DFLT_DARG	(-49767)

/* MPI_Type_match_size. */
#define MPI_TYPECLASS_REAL		1
#define MPI_TYPECLASS_INTEGER		2
#define MPI_TYPECLASS_COMPLEX		3

/*
 * The Fortran named types, with gfortran's default sizes: INTEGER,
 * REAL and LOGICAL 4 bytes, DOUBLE PRECISION 8, COMPLEX 8, DOUBLE
 * COMPLEX 16, CHARACTER 1; REAL16 and COMPLEX32 are IEEE binary128.
 * The pairs of MPI_MAXLOC and MPI_MINLOC have an index of the value's
 * own type.
 */
extern FT_MPI_API struct ft_mpi_type ft_mpi_character, ft_mpi_logical,
    ft_mpi_integer, ft_mpi_real, ft_mpi_double_precision, ft_mpi_complex,
    ft_mpi_double_complex, ft_mpi_integer1, ft_mpi_integer2,
    ft_mpi_integer4, ft_mpi_integer8, ft_mpi_real4, ft_mpi_real8,
    ft_mpi_real16, ft_mpi_complex8, ft_mpi_complex16, ft_mpi_complex32,
    ft_mpi_2integer, ft_mpi_2real, ft_mpi_2double_precision;
#define MPI_CHARACTER		(&ft_mpi_character)
#define MPI_LOGICAL		(&ft_mpi_logical)
#define MPI_INTEGER		(&ft_mpi_integer)
#define MPI_REAL		(&ft_mpi_real)
#define MPI_DOUBLE_PRECISION	(&ft_mpi_double_precision)
#define MPI_COMPLEX		(&ft_mpi_complex)
#define MPI_DOUBLE_COMPLEX	(&ft_mpi_double_complex)
#define MPI_INTEGER1		(&ft_mpi_integer1)
#define MPI_INTEGER2		(&ft_mpi_integer2)
#define MPI_INTEGER4		(&ft_mpi_integer4)
#define MPI_INTEGER8		(&ft_mpi_integer8)
#define MPI_REAL4		(&ft_mpi_real4)
#define MPI_REAL8		(&ft_mpi_real8)
#define MPI_REAL16		(&ft_mpi_real16)
#define MPI_COMPLEX8		(&ft_mpi_complex8)
#define MPI_COMPLEX16		(&ft_mpi_complex16)
#define MPI_COMPLEX32		(&ft_mpi_complex32)
#define MPI_2INTEGER		(&ft_mpi_2integer)
#define MPI_2REAL		(&ft_mpi_2real)
#define MPI_2DOUBLE_PRECISION	(&ft_mpi_2double_precision)

/* Datatype attributes. */
typedef int	MPI_Type_copy_attr_function(MPI_Datatype, int, void *, void *,
		    void *, int *);
typedef int	MPI_Type_delete_attr_function(MPI_Datatype, int, void *,
		    void *);
FT_MPI_API int	ft_mpi_type_dup_fn(MPI_Datatype, int, void *, void *,
		    void *, int *);
#define MPI_TYPE_NULL_COPY_FN	((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN	((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN		(ft_mpi_type_dup_fn)

FT_MPI_API int	MPI_Type_get_envelope(MPI_Datatype, int *, int *, int *,
		    int *);
FT_MPI_API int	MPI_Type_get_contents(MPI_Datatype, int, int, int, int [],
		    MPI_Aint [], MPI_Datatype []);
FT_MPI_API int	MPI_Type_create_subarray(int, const int [], const int [],
		    const int [], int, MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_darray(int, int, int, const int [],
		    const int [], const int [], const int [], int,
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	MPI_Pack_external(const char [], const void *, int,
		    MPI_Datatype, void *, MPI_Aint, MPI_Aint *);
FT_MPI_API int	MPI_Unpack_external(const char [], const void *, MPI_Aint,
		    MPI_Aint *, void *, int, MPI_Datatype);
FT_MPI_API int	MPI_Pack_external_size(const char [], int, MPI_Datatype,
		    MPI_Aint *);
FT_MPI_API int	MPI_Type_create_keyval(MPI_Type_copy_attr_function *,
		    MPI_Type_delete_attr_function *, int *, void *);
FT_MPI_API int	MPI_Type_free_keyval(int *);
FT_MPI_API int	MPI_Type_set_attr(MPI_Datatype, int, void *);
FT_MPI_API int	MPI_Type_get_attr(MPI_Datatype, int, void *, int *);
FT_MPI_API int	MPI_Type_delete_attr(MPI_Datatype, int);
FT_MPI_API int	MPI_Type_match_size(int, int, MPI_Datatype *);

/*
 * The MPI-1 names removed in MPI 3.0, for the code that still uses
 * them: deprecated, so that the compiler says so (silence it with
 * -Wno-deprecated-declarations).  MPI_LB and MPI_UB set explicit bounds
 * in the struct types of any constructor.
 */
#define FT_MPI_DEPRECATED	__attribute__((deprecated))
/* MPI_Comm_errhandler_function under its MPI-1 name. */
typedef MPI_Comm_errhandler_function	MPI_Handler_function;
extern FT_MPI_API FT_MPI_DEPRECATED struct ft_mpi_type ft_mpi_lb, ft_mpi_ub;
#define MPI_LB			(&ft_mpi_lb)
#define MPI_UB			(&ft_mpi_ub)
FT_MPI_API FT_MPI_DEPRECATED int MPI_Address(void *, MPI_Aint *);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Type_extent(MPI_Datatype, MPI_Aint *);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Type_lb(MPI_Datatype, MPI_Aint *);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Type_ub(MPI_Datatype, MPI_Aint *);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Type_hvector(int, int, MPI_Aint,
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Type_hindexed(int, int *, MPI_Aint *,
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Type_struct(int, int *, MPI_Aint *,
		    MPI_Datatype *, MPI_Datatype *);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Errhandler_create(MPI_Handler_function *,
		    MPI_Errhandler *);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Errhandler_set(MPI_Comm,
		    MPI_Errhandler);
FT_MPI_API FT_MPI_DEPRECATED int MPI_Errhandler_get(MPI_Comm,
		    MPI_Errhandler *);
/* --- end of datatypes extras, matched probe --- */

/* --- intercommunicators (issue 14) --- */
/*
 * MPI_Comm_test_inter, MPI_Comm_dup, _split, _create, _compare,
 * _group, _rank, _size, _free, point-to-point and the collectives also
 * take intercommunicators (see above).
 */
FT_MPI_API int	MPI_Intercomm_create(MPI_Comm, int, MPI_Comm, int, int,
		    MPI_Comm *);
FT_MPI_API int	MPI_Intercomm_merge(MPI_Comm, int, MPI_Comm *);
FT_MPI_API int	MPI_Comm_remote_size(MPI_Comm, int *);
FT_MPI_API int	MPI_Comm_remote_group(MPI_Comm, MPI_Group *);

/* --- dynamic processes (issue 14, MPI-3.1 chapter 10) --- */
#define MPI_ARGV_NULL		((char **)0)
#define MPI_ARGVS_NULL		((char ***)0)
#define MPI_ERRCODES_IGNORE	((int *)0)
#define MPI_MAX_PORT_NAME	256
FT_MPI_API int	MPI_Comm_spawn(const char *, char *[], int, MPI_Info, int,
		    MPI_Comm, MPI_Comm *, int[]);
FT_MPI_API int	MPI_Comm_spawn_multiple(int, char *[], char **[],
		    const int[], const MPI_Info[], int, MPI_Comm, MPI_Comm *,
		    int[]);
FT_MPI_API int	MPI_Comm_get_parent(MPI_Comm *);
FT_MPI_API int	MPI_Comm_disconnect(MPI_Comm *);
FT_MPI_API int	MPI_Open_port(MPI_Info, char *);
FT_MPI_API int	MPI_Close_port(const char *);
FT_MPI_API int	MPI_Comm_accept(const char *, MPI_Info, int, MPI_Comm,
		    MPI_Comm *);
FT_MPI_API int	MPI_Comm_connect(const char *, MPI_Info, int, MPI_Comm,
		    MPI_Comm *);
FT_MPI_API int	MPI_Publish_name(const char *, MPI_Info, const char *);
FT_MPI_API int	MPI_Unpublish_name(const char *, MPI_Info, const char *);
FT_MPI_API int	MPI_Lookup_name(const char *, MPI_Info, char *);
FT_MPI_API int	MPI_Comm_join(int, MPI_Comm *);

/* --- language interoperability, profiling control (issue 14) --- */
/*
 * Handles to and from Fortran integers (MPI-3.1 17.2.4).  Each kind
 * numbers its handles on its own: the null handle is 0, the predefined
 * handles are fixed small integers, the same in every process and run,
 * and a handle the application made gets an integer on its first
 * conversion, which stays while the handle lives.  Once the handle is
 * freed, its integer converts to the null handle; so does any integer
 * that is not a handle's.
 */
FT_MPI_API MPI_Fint	MPI_Comm_c2f(MPI_Comm);
FT_MPI_API MPI_Comm	MPI_Comm_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	MPI_Errhandler_c2f(MPI_Errhandler);
FT_MPI_API MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	MPI_Group_c2f(MPI_Group);
FT_MPI_API MPI_Group	MPI_Group_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	MPI_Info_c2f(MPI_Info);
FT_MPI_API MPI_Info	MPI_Info_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	MPI_Message_c2f(MPI_Message);
FT_MPI_API MPI_Message	MPI_Message_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	MPI_Win_c2f(MPI_Win);
FT_MPI_API MPI_Win	MPI_Win_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	MPI_Op_c2f(MPI_Op);
FT_MPI_API MPI_Op	MPI_Op_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	MPI_Request_c2f(MPI_Request);
FT_MPI_API MPI_Request	MPI_Request_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	MPI_Type_c2f(MPI_Datatype);
FT_MPI_API MPI_Datatype	MPI_Type_f2c(MPI_Fint);

/*
 * A Fortran status is MPI_STATUS_SIZE integers: MPI_SOURCE, MPI_TAG
 * and MPI_ERROR at the C indices MPI_F_SOURCE, MPI_F_TAG and
 * MPI_F_ERROR (MPI 4.0's names), then ft's own fields: whether the
 * request was cancelled, and the byte count in two halves, low first.
 */
#define MPI_STATUS_SIZE		6
#define MPI_F_STATUS_SIZE	MPI_STATUS_SIZE
#define MPI_F_SOURCE		0
#define MPI_F_TAG		1
#define MPI_F_ERROR		2
extern FT_MPI_API MPI_Fint ft_mpi_f_status_ignore[MPI_STATUS_SIZE],
    ft_mpi_f_statuses_ignore[MPI_STATUS_SIZE];
#define MPI_F_STATUS_IGNORE	(ft_mpi_f_status_ignore)
#define MPI_F_STATUSES_IGNORE	(ft_mpi_f_statuses_ignore)
FT_MPI_API int	MPI_Status_c2f(const MPI_Status *, MPI_Fint *);
FT_MPI_API int	MPI_Status_f2c(const MPI_Fint *, MPI_Status *);

/*
 * The predefined type of the Fortran kind SELECTED_INT_KIND(r) or
 * SELECTED_REAL_KIND(p, r) (MPI-3.1 17.1.9): MPI_INTEGER1 to 8,
 * MPI_REAL4, 8, 16 and MPI_COMPLEX8, 16, 32 (MPI_LONG_DOUBLE and
 * MPI_C_LONG_DOUBLE_COMPLEX for gfortran's kind 10, where long double
 * is the x87 format).  p or r may be MPI_UNDEFINED, not both.
 */
FT_MPI_API int	MPI_Type_create_f90_integer(int, MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_f90_real(int, int, MPI_Datatype *);
FT_MPI_API int	MPI_Type_create_f90_complex(int, int, MPI_Datatype *);

/* Profiling control (MPI-3.1 14.2.4): ft has no profiler to control. */
FT_MPI_API int	MPI_Pcontrol(const int, ...);
/* --- end of language interoperability --- */

/*
 * The profiling interface (MPI-3.1 14.2): every MPI_X function is also
 * PMPI_X; MPI_X is a weak alias, so a tool may define its own MPI_X and
 * call PMPI_X.  Generated from the declarations above.
 */
FT_MPI_API int	PMPI_Init(int *, char ***);
FT_MPI_API int	PMPI_Init_thread(int *, char ***, int, int *);
FT_MPI_API int	PMPI_Finalize(void);
FT_MPI_API int	PMPI_Initialized(int *);
FT_MPI_API int	PMPI_Finalized(int *);
FT_MPI_API int	PMPI_Query_thread(int *);
FT_MPI_API int	PMPI_Is_thread_main(int *);
FT_MPI_API int	PMPI_Abort(MPI_Comm, int);
FT_MPI_API double PMPI_Wtime(void);
FT_MPI_API double PMPI_Wtick(void);
FT_MPI_API int	PMPI_Get_processor_name(char *, int *);
FT_MPI_API int	PMPI_Get_version(int *, int *);
FT_MPI_API int	PMPI_Get_library_version(char *, int *);
FT_MPI_API int	PMPI_Error_string(int, char *, int *);
FT_MPI_API int	PMPI_Error_class(int, int *);
FT_MPI_API int	PMPI_Comm_set_errhandler(MPI_Comm, MPI_Errhandler);
FT_MPI_API int	PMPI_Comm_get_errhandler(MPI_Comm, MPI_Errhandler *);
FT_MPI_API int	PMPI_Errhandler_free(MPI_Errhandler *);
FT_MPI_API int	PMPI_Comm_rank(MPI_Comm, int *);
FT_MPI_API int	PMPI_Comm_size(MPI_Comm, int *);
FT_MPI_API int	PMPI_Comm_get_attr(MPI_Comm, int, void *, int *);
FT_MPI_API int	PMPI_Type_size(MPI_Datatype, int *);
FT_MPI_API int	PMPI_Get_count(const MPI_Status *, MPI_Datatype, int *);
FT_MPI_API int	PMPI_Send(const void *, int, MPI_Datatype, int, int, MPI_Comm);
FT_MPI_API int	PMPI_Ssend(const void *, int, MPI_Datatype, int, int, MPI_Comm);
FT_MPI_API int	PMPI_Rsend(const void *, int, MPI_Datatype, int, int, MPI_Comm);
FT_MPI_API int	PMPI_Bsend(const void *, int, MPI_Datatype, int, int, MPI_Comm);
FT_MPI_API int	PMPI_Buffer_attach(void *, int);
FT_MPI_API int	PMPI_Buffer_detach(void *, int *);
FT_MPI_API int	PMPI_Recv(void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Status *);
FT_MPI_API int	PMPI_Isend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Issend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Irsend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Irecv(void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Sendrecv(const void *, int, MPI_Datatype, int, int,
		    void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Status *);
FT_MPI_API int	PMPI_Sendrecv_replace(void *, int, MPI_Datatype, int, int,
		    int, int, MPI_Comm, MPI_Status *);
FT_MPI_API int	PMPI_Probe(int, int, MPI_Comm, MPI_Status *);
FT_MPI_API int	PMPI_Iprobe(int, int, MPI_Comm, int *, MPI_Status *);
FT_MPI_API int	PMPI_Wait(MPI_Request *, MPI_Status *);
FT_MPI_API int	PMPI_Waitall(int, MPI_Request *, MPI_Status *);
FT_MPI_API int	PMPI_Waitany(int, MPI_Request *, int *, MPI_Status *);
FT_MPI_API int	PMPI_Waitsome(int, MPI_Request *, int *, int *, MPI_Status *);
FT_MPI_API int	PMPI_Test(MPI_Request *, int *, MPI_Status *);
FT_MPI_API int	PMPI_Testall(int, MPI_Request *, int *, MPI_Status *);
FT_MPI_API int	PMPI_Testany(int, MPI_Request *, int *, int *, MPI_Status *);
FT_MPI_API int	PMPI_Testsome(int, MPI_Request *, int *, int *, MPI_Status *);
FT_MPI_API int	PMPI_Request_free(MPI_Request *);
FT_MPI_API int	PMPI_Cancel(MPI_Request *);
FT_MPI_API int	PMPI_Test_cancelled(const MPI_Status *, int *);
FT_MPI_API int	PMPI_Type_contiguous(int, MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_vector(int, int, int, MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_hvector(int, int, MPI_Aint, MPI_Datatype,
		    MPI_Datatype *);
FT_MPI_API int	PMPI_Type_indexed(int, const int [], const int [],
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_hindexed(int, const int [], const MPI_Aint [],
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_indexed_block(int, int, const int [],
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_hindexed_block(int, int, const MPI_Aint [],
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_struct(int, const int [], const MPI_Aint [],
		    const MPI_Datatype [], MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_resized(MPI_Datatype, MPI_Aint, MPI_Aint,
		    MPI_Datatype *);
FT_MPI_API int	PMPI_Type_dup(MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_commit(MPI_Datatype *);
FT_MPI_API int	PMPI_Type_free(MPI_Datatype *);
FT_MPI_API int	PMPI_Type_size_x(MPI_Datatype, MPI_Count *);
FT_MPI_API int	PMPI_Type_get_extent(MPI_Datatype, MPI_Aint *, MPI_Aint *);
FT_MPI_API int	PMPI_Type_get_extent_x(MPI_Datatype, MPI_Count *, MPI_Count *);
FT_MPI_API int	PMPI_Type_get_true_extent(MPI_Datatype, MPI_Aint *,
		    MPI_Aint *);
FT_MPI_API int	PMPI_Type_get_true_extent_x(MPI_Datatype, MPI_Count *,
		    MPI_Count *);
FT_MPI_API int	PMPI_Type_set_name(MPI_Datatype, const char *);
FT_MPI_API int	PMPI_Type_get_name(MPI_Datatype, char *, int *);
FT_MPI_API int	PMPI_Get_elements(const MPI_Status *, MPI_Datatype, int *);
FT_MPI_API int	PMPI_Get_elements_x(const MPI_Status *, MPI_Datatype,
		    MPI_Count *);
FT_MPI_API int	PMPI_Pack(const void *, int, MPI_Datatype, void *, int, int *,
		    MPI_Comm);
FT_MPI_API int	PMPI_Unpack(const void *, int, int *, void *, int,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Pack_size(int, MPI_Datatype, MPI_Comm, int *);
FT_MPI_API int	PMPI_Get_address(const void *, MPI_Aint *);
FT_MPI_API MPI_Aint PMPI_Aint_add(MPI_Aint, MPI_Aint);
FT_MPI_API MPI_Aint PMPI_Aint_diff(MPI_Aint, MPI_Aint);
FT_MPI_API int	PMPI_Op_create(MPI_User_function *, int, MPI_Op *);
FT_MPI_API int	PMPI_Op_free(MPI_Op *);
FT_MPI_API int	PMPI_Op_commutative(MPI_Op, int *);
FT_MPI_API int	PMPI_Reduce_local(const void *, void *, int, MPI_Datatype,
		    MPI_Op);
FT_MPI_API int	PMPI_Barrier(MPI_Comm);
FT_MPI_API int	PMPI_Bcast(void *, int, MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	PMPI_Reduce(const void *, void *, int, MPI_Datatype, MPI_Op,
		    int, MPI_Comm);
FT_MPI_API int	PMPI_Allreduce(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm);
FT_MPI_API int	PMPI_Gather(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	PMPI_Gatherv(const void *, int, MPI_Datatype, void *,
		    const int *, const int *, MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	PMPI_Scatter(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	PMPI_Scatterv(const void *, const int *, const int *,
		    MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
FT_MPI_API int	PMPI_Allgather(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Allgatherv(const void *, int, MPI_Datatype, void *,
		    const int *, const int *, MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Alltoall(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Alltoallv(const void *, const int *, const int *,
		    MPI_Datatype, void *, const int *, const int *,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Alltoallw(const void *, const int *, const int *,
		    const MPI_Datatype *, void *, const int *, const int *,
		    const MPI_Datatype *, MPI_Comm);
FT_MPI_API int	PMPI_Reduce_scatter(const void *, void *, const int *,
		    MPI_Datatype, MPI_Op, MPI_Comm);
FT_MPI_API int	PMPI_Reduce_scatter_block(const void *, void *, int,
		    MPI_Datatype, MPI_Op, MPI_Comm);
FT_MPI_API int	PMPI_Scan(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm);
FT_MPI_API int	PMPI_Exscan(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm);
FT_MPI_API int	PMPI_Ibarrier(MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ibcast(void *, int, MPI_Datatype, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Ireduce(const void *, void *, int, MPI_Datatype, MPI_Op,
		    int, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Iallreduce(const void *, void *, int, MPI_Datatype,
		    MPI_Op, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Igather(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, int, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Igatherv(const void *, int, MPI_Datatype, void *,
		    const int *, const int *, MPI_Datatype, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Iscatter(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, int, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Iscatterv(const void *, const int *, const int *,
		    MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Iallgather(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Iallgatherv(const void *, int, MPI_Datatype, void *,
		    const int *, const int *, MPI_Datatype, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Ialltoall(const void *, int, MPI_Datatype, void *, int,
		    MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ialltoallv(const void *, const int *, const int *,
		    MPI_Datatype, void *, const int *, const int *,
		    MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ialltoallw(const void *, const int *, const int *,
		    const MPI_Datatype *, void *, const int *, const int *,
		    const MPI_Datatype *, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ireduce_scatter(const void *, void *, const int *,
		    MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ireduce_scatter_block(const void *, void *, int,
		    MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Iscan(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Iexscan(const void *, void *, int, MPI_Datatype, MPI_Op,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Send_init(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ssend_init(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Rsend_init(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Bsend_init(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Recv_init(void *, int, MPI_Datatype, int, int, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Start(MPI_Request *);
FT_MPI_API int	PMPI_Startall(int, MPI_Request *);
FT_MPI_API int	PMPI_Comm_dup(MPI_Comm, MPI_Comm *);
FT_MPI_API int	PMPI_Comm_dup_with_info(MPI_Comm, MPI_Info, MPI_Comm *);
FT_MPI_API int	PMPI_Comm_split(MPI_Comm, int, int, MPI_Comm *);
FT_MPI_API int	PMPI_Comm_split_type(MPI_Comm, int, int, MPI_Info,
		    MPI_Comm *);
FT_MPI_API int	PMPI_Comm_create(MPI_Comm, MPI_Group, MPI_Comm *);
FT_MPI_API int	PMPI_Comm_create_group(MPI_Comm, MPI_Group, int, MPI_Comm *);
FT_MPI_API int	PMPI_Comm_free(MPI_Comm *);
FT_MPI_API int	PMPI_Comm_compare(MPI_Comm, MPI_Comm, int *);
FT_MPI_API int	PMPI_Comm_test_inter(MPI_Comm, int *);
FT_MPI_API int	PMPI_Comm_group(MPI_Comm, MPI_Group *);
FT_MPI_API int	PMPI_Comm_set_name(MPI_Comm, const char *);
FT_MPI_API int	PMPI_Comm_get_name(MPI_Comm, char *, int *);
FT_MPI_API int	PMPI_Comm_set_info(MPI_Comm, MPI_Info);
FT_MPI_API int	PMPI_Comm_get_info(MPI_Comm, MPI_Info *);
FT_MPI_API int	PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *,
		    MPI_Comm_delete_attr_function *, int *, void *);
FT_MPI_API int	PMPI_Comm_free_keyval(int *);
FT_MPI_API int	PMPI_Comm_set_attr(MPI_Comm, int, void *);
FT_MPI_API int	PMPI_Comm_delete_attr(MPI_Comm, int);
FT_MPI_API int	PMPI_Keyval_create(MPI_Copy_function *, MPI_Delete_function *,
		    int *, void *);
FT_MPI_API int	PMPI_Keyval_free(int *);
FT_MPI_API int	PMPI_Attr_put(MPI_Comm, int, void *);
FT_MPI_API int	PMPI_Attr_get(MPI_Comm, int, void *, int *);
FT_MPI_API int	PMPI_Attr_delete(MPI_Comm, int);
FT_MPI_API int	PMPI_Group_size(MPI_Group, int *);
FT_MPI_API int	PMPI_Group_rank(MPI_Group, int *);
FT_MPI_API int	PMPI_Group_translate_ranks(MPI_Group, int, const int *,
		    MPI_Group, int *);
FT_MPI_API int	PMPI_Group_compare(MPI_Group, MPI_Group, int *);
FT_MPI_API int	PMPI_Group_union(MPI_Group, MPI_Group, MPI_Group *);
FT_MPI_API int	PMPI_Group_intersection(MPI_Group, MPI_Group, MPI_Group *);
FT_MPI_API int	PMPI_Group_difference(MPI_Group, MPI_Group, MPI_Group *);
FT_MPI_API int	PMPI_Group_incl(MPI_Group, int, const int *, MPI_Group *);
FT_MPI_API int	PMPI_Group_excl(MPI_Group, int, const int *, MPI_Group *);
FT_MPI_API int	PMPI_Group_range_incl(MPI_Group, int, int [][3], MPI_Group *);
FT_MPI_API int	PMPI_Group_range_excl(MPI_Group, int, int [][3], MPI_Group *);
FT_MPI_API int	PMPI_Group_free(MPI_Group *);
FT_MPI_API int	PMPI_Dims_create(int, int, int *);
FT_MPI_API int	PMPI_Cart_create(MPI_Comm, int, const int *, const int *, int,
		    MPI_Comm *);
FT_MPI_API int	PMPI_Cart_get(MPI_Comm, int, int *, int *, int *);
FT_MPI_API int	PMPI_Cart_rank(MPI_Comm, const int *, int *);
FT_MPI_API int	PMPI_Cart_coords(MPI_Comm, int, int, int *);
FT_MPI_API int	PMPI_Cart_shift(MPI_Comm, int, int, int *, int *);
FT_MPI_API int	PMPI_Cart_sub(MPI_Comm, const int *, MPI_Comm *);
FT_MPI_API int	PMPI_Cart_map(MPI_Comm, int, const int *, const int *, int *);
FT_MPI_API int	PMPI_Cartdim_get(MPI_Comm, int *);
FT_MPI_API int	PMPI_Topo_test(MPI_Comm, int *);
FT_MPI_API int	PMPI_Info_create(MPI_Info *);
FT_MPI_API int	PMPI_Info_set(MPI_Info, const char *, const char *);
FT_MPI_API int	PMPI_Info_get(MPI_Info, const char *, int, char *, int *);
FT_MPI_API int	PMPI_Info_get_valuelen(MPI_Info, const char *, int *, int *);
FT_MPI_API int	PMPI_Info_get_nkeys(MPI_Info, int *);
FT_MPI_API int	PMPI_Info_get_nthkey(MPI_Info, int, char *);
FT_MPI_API int	PMPI_Info_delete(MPI_Info, const char *);
FT_MPI_API int	PMPI_Info_dup(MPI_Info, MPI_Info *);
FT_MPI_API int	PMPI_Info_free(MPI_Info *);
FT_MPI_API int	PMPI_Graph_create(MPI_Comm, int, const int *, const int *, int,
		    MPI_Comm *);
FT_MPI_API int	PMPI_Graphdims_get(MPI_Comm, int *, int *);
FT_MPI_API int	PMPI_Graph_get(MPI_Comm, int, int, int *, int *);
FT_MPI_API int	PMPI_Graph_neighbors_count(MPI_Comm, int, int *);
FT_MPI_API int	PMPI_Graph_neighbors(MPI_Comm, int, int, int *);
FT_MPI_API int	PMPI_Graph_map(MPI_Comm, int, const int *, const int *, int *);
FT_MPI_API int	PMPI_Dist_graph_create_adjacent(MPI_Comm, int, const int *,
		    const int *, int, const int *, const int *, MPI_Info, int,
		    MPI_Comm *);
FT_MPI_API int	PMPI_Dist_graph_create(MPI_Comm, int, const int *, const int *,
		    const int *, const int *, MPI_Info, int, MPI_Comm *);
FT_MPI_API int	PMPI_Dist_graph_neighbors_count(MPI_Comm, int *, int *, int *);
FT_MPI_API int	PMPI_Dist_graph_neighbors(MPI_Comm, int, int *, int *, int,
		    int *, int *);
FT_MPI_API int	PMPI_Neighbor_allgather(const void *, int, MPI_Datatype, void *,
		    int, MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Neighbor_allgatherv(const void *, int, MPI_Datatype,
		    void *, const int *, const int *, MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Neighbor_alltoall(const void *, int, MPI_Datatype, void *,
		    int, MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Neighbor_alltoallv(const void *, const int *, const int *,
		    MPI_Datatype, void *, const int *, const int *,
		    MPI_Datatype, MPI_Comm);
FT_MPI_API int	PMPI_Neighbor_alltoallw(const void *, const int *,
		    const MPI_Aint *, const MPI_Datatype *, void *, const int *,
		    const MPI_Aint *, const MPI_Datatype *, MPI_Comm);
FT_MPI_API int	PMPI_Ineighbor_allgather(const void *, int, MPI_Datatype,
		    void *, int, MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ineighbor_allgatherv(const void *, int, MPI_Datatype,
		    void *, const int *, const int *, MPI_Datatype, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Ineighbor_alltoall(const void *, int, MPI_Datatype,
		    void *, int, MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ineighbor_alltoallv(const void *, const int *,
		    const int *, MPI_Datatype, void *, const int *, const int *,
		    MPI_Datatype, MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Ineighbor_alltoallw(const void *, const int *,
		    const MPI_Aint *, const MPI_Datatype *, void *, const int *,
		    const MPI_Aint *, const MPI_Datatype *, MPI_Comm,
		    MPI_Request *);
FT_MPI_API int	PMPI_Comm_idup(MPI_Comm, MPI_Comm *, MPI_Request *);
FT_MPI_API int	PMPI_Ibsend(const void *, int, MPI_Datatype, int, int,
		    MPI_Comm, MPI_Request *);
FT_MPI_API int	PMPI_Request_get_status(MPI_Request, int *, MPI_Status *);
FT_MPI_API int	PMPI_Grequest_start(MPI_Grequest_query_function *,
		    MPI_Grequest_free_function *,
		    MPI_Grequest_cancel_function *, void *, MPI_Request *);
FT_MPI_API int	PMPI_Grequest_complete(MPI_Request);
FT_MPI_API int	PMPI_Status_set_elements(MPI_Status *, MPI_Datatype, int);
FT_MPI_API int	PMPI_Status_set_elements_x(MPI_Status *, MPI_Datatype,
		    MPI_Count);
FT_MPI_API int	PMPI_Status_set_cancelled(MPI_Status *, int);
FT_MPI_API int	PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *,
		    MPI_Errhandler *);
FT_MPI_API int	PMPI_Comm_call_errhandler(MPI_Comm, int);
FT_MPI_API int	PMPI_Win_create_errhandler(MPI_Win_errhandler_function *,
		    MPI_Errhandler *);
FT_MPI_API int	PMPI_Win_set_errhandler(MPI_Win, MPI_Errhandler);
FT_MPI_API int	PMPI_Win_get_errhandler(MPI_Win, MPI_Errhandler *);
FT_MPI_API int	PMPI_Win_call_errhandler(MPI_Win, int);
FT_MPI_API int	PMPI_File_create_errhandler(MPI_File_errhandler_function *,
		    MPI_Errhandler *);
FT_MPI_API int	PMPI_File_set_errhandler(MPI_File, MPI_Errhandler);
FT_MPI_API int	PMPI_File_get_errhandler(MPI_File, MPI_Errhandler *);
FT_MPI_API int	PMPI_File_call_errhandler(MPI_File, int);
FT_MPI_API int	PMPI_Add_error_class(int *);
FT_MPI_API int	PMPI_Add_error_code(int, int *);
FT_MPI_API int	PMPI_Add_error_string(int, const char *);
FT_MPI_API int	PMPI_Alloc_mem(MPI_Aint, MPI_Info, void *);
FT_MPI_API int	PMPI_Free_mem(void *);
FT_MPI_API int	PMPI_Mprobe(int, int, MPI_Comm, MPI_Message *, MPI_Status *);
FT_MPI_API int	PMPI_Improbe(int, int, MPI_Comm, int *, MPI_Message *,
		    MPI_Status *);
FT_MPI_API int	PMPI_Mrecv(void *, int, MPI_Datatype, MPI_Message *,
		    MPI_Status *);
FT_MPI_API int	PMPI_Imrecv(void *, int, MPI_Datatype, MPI_Message *,
		    MPI_Request *);
FT_MPI_API int	PMPI_Type_get_envelope(MPI_Datatype, int *, int *, int *,
		    int *);
FT_MPI_API int	PMPI_Type_get_contents(MPI_Datatype, int, int, int, int [],
		    MPI_Aint [], MPI_Datatype []);
FT_MPI_API int	PMPI_Type_create_subarray(int, const int [], const int [],
		    const int [], int, MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_darray(int, int, int, const int [],
		    const int [], const int [], const int [], int,
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API int	PMPI_Pack_external(const char [], const void *, int,
		    MPI_Datatype, void *, MPI_Aint, MPI_Aint *);
FT_MPI_API int	PMPI_Unpack_external(const char [], const void *, MPI_Aint,
		    MPI_Aint *, void *, int, MPI_Datatype);
FT_MPI_API int	PMPI_Pack_external_size(const char [], int, MPI_Datatype,
		    MPI_Aint *);
FT_MPI_API int	PMPI_Type_create_keyval(MPI_Type_copy_attr_function *,
		    MPI_Type_delete_attr_function *, int *, void *);
FT_MPI_API int	PMPI_Type_free_keyval(int *);
FT_MPI_API int	PMPI_Type_set_attr(MPI_Datatype, int, void *);
FT_MPI_API int	PMPI_Type_get_attr(MPI_Datatype, int, void *, int *);
FT_MPI_API int	PMPI_Type_delete_attr(MPI_Datatype, int);
FT_MPI_API int	PMPI_Type_match_size(int, int, MPI_Datatype *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Address(void *, MPI_Aint *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Type_extent(MPI_Datatype, MPI_Aint *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Type_lb(MPI_Datatype, MPI_Aint *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Type_ub(MPI_Datatype, MPI_Aint *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Type_hvector(int, int, MPI_Aint,
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Type_hindexed(int, int *, MPI_Aint *,
		    MPI_Datatype, MPI_Datatype *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Type_struct(int, int *, MPI_Aint *,
		    MPI_Datatype *, MPI_Datatype *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Errhandler_create(MPI_Handler_function *,
		    MPI_Errhandler *);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Errhandler_set(MPI_Comm,
		    MPI_Errhandler);
FT_MPI_API FT_MPI_DEPRECATED int PMPI_Errhandler_get(MPI_Comm,
		    MPI_Errhandler *);
FT_MPI_API int	PMPI_Intercomm_create(MPI_Comm, int, MPI_Comm, int, int,
		    MPI_Comm *);
FT_MPI_API int	PMPI_Intercomm_merge(MPI_Comm, int, MPI_Comm *);
FT_MPI_API int	PMPI_Comm_remote_size(MPI_Comm, int *);
FT_MPI_API int	PMPI_Comm_remote_group(MPI_Comm, MPI_Group *);
FT_MPI_API int	PMPI_Comm_spawn(const char *, char *[], int, MPI_Info, int,
		    MPI_Comm, MPI_Comm *, int[]);
FT_MPI_API int	PMPI_Comm_spawn_multiple(int, char *[], char **[],
		    const int[], const MPI_Info[], int, MPI_Comm, MPI_Comm *,
		    int[]);
FT_MPI_API int	PMPI_Comm_get_parent(MPI_Comm *);
FT_MPI_API int	PMPI_Comm_disconnect(MPI_Comm *);
FT_MPI_API int	PMPI_Open_port(MPI_Info, char *);
FT_MPI_API int	PMPI_Close_port(const char *);
FT_MPI_API int	PMPI_Comm_accept(const char *, MPI_Info, int, MPI_Comm,
		    MPI_Comm *);
FT_MPI_API int	PMPI_Comm_connect(const char *, MPI_Info, int, MPI_Comm,
		    MPI_Comm *);
FT_MPI_API int	PMPI_Publish_name(const char *, MPI_Info, const char *);
FT_MPI_API int	PMPI_Unpublish_name(const char *, MPI_Info, const char *);
FT_MPI_API int	PMPI_Lookup_name(const char *, MPI_Info, char *);
FT_MPI_API int	PMPI_Comm_join(int, MPI_Comm *);
FT_MPI_API MPI_Fint	PMPI_Comm_c2f(MPI_Comm);
FT_MPI_API MPI_Comm	PMPI_Comm_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	PMPI_Errhandler_c2f(MPI_Errhandler);
FT_MPI_API MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	PMPI_Group_c2f(MPI_Group);
FT_MPI_API MPI_Group	PMPI_Group_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	PMPI_Info_c2f(MPI_Info);
FT_MPI_API MPI_Info	PMPI_Info_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	PMPI_Message_c2f(MPI_Message);
FT_MPI_API MPI_Message	PMPI_Message_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	PMPI_Win_c2f(MPI_Win);
FT_MPI_API MPI_Win	PMPI_Win_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	PMPI_Op_c2f(MPI_Op);
FT_MPI_API MPI_Op	PMPI_Op_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	PMPI_Request_c2f(MPI_Request);
FT_MPI_API MPI_Request	PMPI_Request_f2c(MPI_Fint);
FT_MPI_API MPI_Fint	PMPI_Type_c2f(MPI_Datatype);
FT_MPI_API MPI_Datatype	PMPI_Type_f2c(MPI_Fint);
FT_MPI_API int	PMPI_Status_c2f(const MPI_Status *, MPI_Fint *);
FT_MPI_API int	PMPI_Status_f2c(const MPI_Fint *, MPI_Status *);
FT_MPI_API int	PMPI_Type_create_f90_integer(int, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_f90_real(int, int, MPI_Datatype *);
FT_MPI_API int	PMPI_Type_create_f90_complex(int, int, MPI_Datatype *);
FT_MPI_API int	PMPI_Pcontrol(const int, ...);

/*
 * ULFM (User-Level Failure Mitigation, ft-ulfm(3)), under ftrun --ft
 * ulfm.  The names are MPICH's (in mpi.h) and Open MPI's (mpi-ext.h,
 * which includes this header and defines MPIX_FT).
 */
FT_MPI_API int	MPIX_Comm_revoke(MPI_Comm);
FT_MPI_API int	MPIX_Comm_is_revoked(MPI_Comm, int *);
FT_MPI_API int	MPIX_Comm_shrink(MPI_Comm, MPI_Comm *);
FT_MPI_API int	MPIX_Comm_ishrink(MPI_Comm, MPI_Comm *, MPI_Request *);
FT_MPI_API int	MPIX_Comm_agree(MPI_Comm, int *);
FT_MPI_API int	MPIX_Comm_iagree(MPI_Comm, int *, MPI_Request *);
FT_MPI_API int	MPIX_Comm_get_failed(MPI_Comm, MPI_Group *);
FT_MPI_API int	MPIX_Comm_ack_failed(MPI_Comm, int, int *);
FT_MPI_API int	MPIX_Comm_failure_ack(MPI_Comm);
FT_MPI_API int	MPIX_Comm_failure_get_acked(MPI_Comm, MPI_Group *);
FT_MPI_API int	PMPIX_Comm_revoke(MPI_Comm);
FT_MPI_API int	PMPIX_Comm_is_revoked(MPI_Comm, int *);
FT_MPI_API int	PMPIX_Comm_shrink(MPI_Comm, MPI_Comm *);
FT_MPI_API int	PMPIX_Comm_ishrink(MPI_Comm, MPI_Comm *, MPI_Request *);
FT_MPI_API int	PMPIX_Comm_agree(MPI_Comm, int *);
FT_MPI_API int	PMPIX_Comm_iagree(MPI_Comm, int *, MPI_Request *);
FT_MPI_API int	PMPIX_Comm_get_failed(MPI_Comm, MPI_Group *);
FT_MPI_API int	PMPIX_Comm_ack_failed(MPI_Comm, int, int *);
FT_MPI_API int	PMPIX_Comm_failure_ack(MPI_Comm);
FT_MPI_API int	PMPIX_Comm_failure_get_acked(MPI_Comm, MPI_Group *);

/* --- one-sided communication (MPI-3.1 chapter 11; lib/mpi/win.c, rma.c) --- */

/* Window attributes (MPI_Win_get_attr). */
#define MPI_WIN_BASE		10
#define MPI_WIN_SIZE		11
#define MPI_WIN_DISP_UNIT	12
#define MPI_WIN_CREATE_FLAVOR	13
#define MPI_WIN_MODEL		14

#define MPI_WIN_FLAVOR_CREATE	1
#define MPI_WIN_FLAVOR_ALLOCATE	2
#define MPI_WIN_FLAVOR_DYNAMIC	3
#define MPI_WIN_FLAVOR_SHARED	4

#define MPI_WIN_SEPARATE	1
#define MPI_WIN_UNIFIED		2

#define MPI_LOCK_EXCLUSIVE	234
#define MPI_LOCK_SHARED		235

/* Assertions of the synchronization calls. */
#define MPI_MODE_NOCHECK	1024
#define MPI_MODE_NOSTORE	2048
#define MPI_MODE_NOPUT		4096
#define MPI_MODE_NOPRECEDE	8192
#define MPI_MODE_NOSUCCEED	16384

typedef int	MPI_Win_copy_attr_function(MPI_Win, int, void *, void *,
		    void *, int *);
typedef int	MPI_Win_delete_attr_function(MPI_Win, int, void *, void *);
FT_MPI_API int	ft_mpi_win_dup_fn(MPI_Win, int, void *, void *, void *,
		    int *);
#define MPI_WIN_NULL_COPY_FN	((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN	((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN		(ft_mpi_win_dup_fn)

FT_MPI_API int	MPI_Win_create(void *, MPI_Aint, int, MPI_Info, MPI_Comm,
		    MPI_Win *);
FT_MPI_API int	MPI_Win_allocate(MPI_Aint, int, MPI_Info, MPI_Comm, void *,
		    MPI_Win *);
FT_MPI_API int	MPI_Win_allocate_shared(MPI_Aint, int, MPI_Info, MPI_Comm,
		    void *, MPI_Win *);
FT_MPI_API int	MPI_Win_shared_query(MPI_Win, int, MPI_Aint *, int *, void *);
FT_MPI_API int	MPI_Win_create_dynamic(MPI_Info, MPI_Comm, MPI_Win *);
FT_MPI_API int	MPI_Win_attach(MPI_Win, void *, MPI_Aint);
FT_MPI_API int	MPI_Win_detach(MPI_Win, const void *);
FT_MPI_API int	MPI_Win_free(MPI_Win *);
FT_MPI_API int	MPI_Win_get_group(MPI_Win, MPI_Group *);
FT_MPI_API int	MPI_Win_set_info(MPI_Win, MPI_Info);
FT_MPI_API int	MPI_Win_get_info(MPI_Win, MPI_Info *);
FT_MPI_API int	MPI_Win_set_name(MPI_Win, const char *);
FT_MPI_API int	MPI_Win_get_name(MPI_Win, char *, int *);
FT_MPI_API int	MPI_Win_create_keyval(MPI_Win_copy_attr_function *,
		    MPI_Win_delete_attr_function *, int *, void *);
FT_MPI_API int	MPI_Win_free_keyval(int *);
FT_MPI_API int	MPI_Win_set_attr(MPI_Win, int, void *);
FT_MPI_API int	MPI_Win_get_attr(MPI_Win, int, void *, int *);
FT_MPI_API int	MPI_Win_delete_attr(MPI_Win, int);
FT_MPI_API int	MPI_Put(const void *, int, MPI_Datatype, int, MPI_Aint, int,
		    MPI_Datatype, MPI_Win);
FT_MPI_API int	MPI_Get(void *, int, MPI_Datatype, int, MPI_Aint, int,
		    MPI_Datatype, MPI_Win);
FT_MPI_API int	MPI_Accumulate(const void *, int, MPI_Datatype, int, MPI_Aint,
		    int, MPI_Datatype, MPI_Op, MPI_Win);
FT_MPI_API int	MPI_Get_accumulate(const void *, int, MPI_Datatype, void *,
		    int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype,
		    MPI_Op, MPI_Win);
FT_MPI_API int	MPI_Fetch_and_op(const void *, void *, MPI_Datatype, int,
		    MPI_Aint, MPI_Op, MPI_Win);
FT_MPI_API int	MPI_Compare_and_swap(const void *, const void *, void *,
		    MPI_Datatype, int, MPI_Aint, MPI_Win);
FT_MPI_API int	MPI_Rput(const void *, int, MPI_Datatype, int, MPI_Aint, int,
		    MPI_Datatype, MPI_Win, MPI_Request *);
FT_MPI_API int	MPI_Rget(void *, int, MPI_Datatype, int, MPI_Aint, int,
		    MPI_Datatype, MPI_Win, MPI_Request *);
FT_MPI_API int	MPI_Raccumulate(const void *, int, MPI_Datatype, int, MPI_Aint,
		    int, MPI_Datatype, MPI_Op, MPI_Win, MPI_Request *);
FT_MPI_API int	MPI_Rget_accumulate(const void *, int, MPI_Datatype, void *,
		    int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype,
		    MPI_Op, MPI_Win, MPI_Request *);
FT_MPI_API int	MPI_Win_fence(int, MPI_Win);
FT_MPI_API int	MPI_Win_start(MPI_Group, int, MPI_Win);
FT_MPI_API int	MPI_Win_complete(MPI_Win);
FT_MPI_API int	MPI_Win_post(MPI_Group, int, MPI_Win);
FT_MPI_API int	MPI_Win_wait(MPI_Win);
FT_MPI_API int	MPI_Win_test(MPI_Win, int *);
FT_MPI_API int	MPI_Win_lock(int, int, int, MPI_Win);
FT_MPI_API int	MPI_Win_unlock(int, MPI_Win);
FT_MPI_API int	MPI_Win_lock_all(int, MPI_Win);
FT_MPI_API int	MPI_Win_unlock_all(MPI_Win);
FT_MPI_API int	MPI_Win_flush(int, MPI_Win);
FT_MPI_API int	MPI_Win_flush_all(MPI_Win);
FT_MPI_API int	MPI_Win_flush_local(int, MPI_Win);
FT_MPI_API int	MPI_Win_flush_local_all(MPI_Win);
FT_MPI_API int	MPI_Win_sync(MPI_Win);
FT_MPI_API int	PMPI_Win_create(void *, MPI_Aint, int, MPI_Info, MPI_Comm,
		    MPI_Win *);
FT_MPI_API int	PMPI_Win_allocate(MPI_Aint, int, MPI_Info, MPI_Comm, void *,
		    MPI_Win *);
FT_MPI_API int	PMPI_Win_allocate_shared(MPI_Aint, int, MPI_Info, MPI_Comm,
		    void *, MPI_Win *);
FT_MPI_API int	PMPI_Win_shared_query(MPI_Win, int, MPI_Aint *, int *, void *);
FT_MPI_API int	PMPI_Win_create_dynamic(MPI_Info, MPI_Comm, MPI_Win *);
FT_MPI_API int	PMPI_Win_attach(MPI_Win, void *, MPI_Aint);
FT_MPI_API int	PMPI_Win_detach(MPI_Win, const void *);
FT_MPI_API int	PMPI_Win_free(MPI_Win *);
FT_MPI_API int	PMPI_Win_get_group(MPI_Win, MPI_Group *);
FT_MPI_API int	PMPI_Win_set_info(MPI_Win, MPI_Info);
FT_MPI_API int	PMPI_Win_get_info(MPI_Win, MPI_Info *);
FT_MPI_API int	PMPI_Win_set_name(MPI_Win, const char *);
FT_MPI_API int	PMPI_Win_get_name(MPI_Win, char *, int *);
FT_MPI_API int	PMPI_Win_create_keyval(MPI_Win_copy_attr_function *,
		    MPI_Win_delete_attr_function *, int *, void *);
FT_MPI_API int	PMPI_Win_free_keyval(int *);
FT_MPI_API int	PMPI_Win_set_attr(MPI_Win, int, void *);
FT_MPI_API int	PMPI_Win_get_attr(MPI_Win, int, void *, int *);
FT_MPI_API int	PMPI_Win_delete_attr(MPI_Win, int);
FT_MPI_API int	PMPI_Put(const void *, int, MPI_Datatype, int, MPI_Aint, int,
		    MPI_Datatype, MPI_Win);
FT_MPI_API int	PMPI_Get(void *, int, MPI_Datatype, int, MPI_Aint, int,
		    MPI_Datatype, MPI_Win);
FT_MPI_API int	PMPI_Accumulate(const void *, int, MPI_Datatype, int, MPI_Aint,
		    int, MPI_Datatype, MPI_Op, MPI_Win);
FT_MPI_API int	PMPI_Get_accumulate(const void *, int, MPI_Datatype, void *,
		    int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype,
		    MPI_Op, MPI_Win);
FT_MPI_API int	PMPI_Fetch_and_op(const void *, void *, MPI_Datatype, int,
		    MPI_Aint, MPI_Op, MPI_Win);
FT_MPI_API int	PMPI_Compare_and_swap(const void *, const void *, void *,
		    MPI_Datatype, int, MPI_Aint, MPI_Win);
FT_MPI_API int	PMPI_Rput(const void *, int, MPI_Datatype, int, MPI_Aint, int,
		    MPI_Datatype, MPI_Win, MPI_Request *);
FT_MPI_API int	PMPI_Rget(void *, int, MPI_Datatype, int, MPI_Aint, int,
		    MPI_Datatype, MPI_Win, MPI_Request *);
FT_MPI_API int	PMPI_Raccumulate(const void *, int, MPI_Datatype, int,
		    MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win, MPI_Request
		    *);
FT_MPI_API int	PMPI_Rget_accumulate(const void *, int, MPI_Datatype, void *,
		    int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype,
		    MPI_Op, MPI_Win, MPI_Request *);
FT_MPI_API int	PMPI_Win_fence(int, MPI_Win);
FT_MPI_API int	PMPI_Win_start(MPI_Group, int, MPI_Win);
FT_MPI_API int	PMPI_Win_complete(MPI_Win);
FT_MPI_API int	PMPI_Win_post(MPI_Group, int, MPI_Win);
FT_MPI_API int	PMPI_Win_wait(MPI_Win);
FT_MPI_API int	PMPI_Win_test(MPI_Win, int *);
FT_MPI_API int	PMPI_Win_lock(int, int, int, MPI_Win);
FT_MPI_API int	PMPI_Win_unlock(int, MPI_Win);
FT_MPI_API int	PMPI_Win_lock_all(int, MPI_Win);
FT_MPI_API int	PMPI_Win_unlock_all(MPI_Win);
FT_MPI_API int	PMPI_Win_flush(int, MPI_Win);
FT_MPI_API int	PMPI_Win_flush_all(MPI_Win);
FT_MPI_API int	PMPI_Win_flush_local(int, MPI_Win);
FT_MPI_API int	PMPI_Win_flush_local_all(MPI_Win);
FT_MPI_API int	PMPI_Win_sync(MPI_Win);

#ifdef __cplusplus
}
#endif

#endif

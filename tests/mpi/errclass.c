/* SPDX-License-Identifier: ISC */
/*
 * errclass: argument errors under MPI_ERRORS_RETURN.  Invalid ranks,
 * tags, counts, communicators, datatypes and buffers must come back as
 * error codes of class MPI_ERR_RANK, MPI_ERR_TAG, MPI_ERR_COUNT,
 * MPI_ERR_COMM, MPI_ERR_TYPE and MPI_ERR_BUFFER from the blocking,
 * nonblocking, combined and probe calls, without sending anything, and
 * communication must work afterwards.  Error handlers are per
 * communicator and MPI_Comm_get_errhandler returns what was set.
 * MPI_Error_class and MPI_Error_string are checked for every class used.
 * The standard does not oblige an implementation to detect every
 * erroneous argument; these are the checks any MPI library makes.
 */

#include <mpi.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"errclass"
#define MINPROCS	1
#define TAG_ERRS	32000

static int	errs;	/* failures seen by this rank */
static int	myrank;

static void
fail(const char *fmt, ...)
{
	va_list	ap;

	if (++errs > 40)
		return;
	fprintf(stderr, "%s: rank %d: ", NAME, myrank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
finish(void)
{
	int	i, size, e, total = errs;

	/* Not before every rank is done: a wildcard receive still
	 * running on another rank must not catch an error count. */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (myrank == 0) {
		for (i = 1; i < size; i++) {
			MPI_Recv(&e, 1, MPI_INT, i, TAG_ERRS, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			total += e;
		}
		if (total == 0)
			printf("No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	} else
		MPI_Send(&errs, 1, MPI_INT, 0, TAG_ERRS, MPI_COMM_WORLD);
	MPI_Finalize();
	return total != 0;
}

static const struct {
	int		 class;
	const char	*name;
} classes[] = {
	{ MPI_SUCCESS,		"MPI_SUCCESS" },
	{ MPI_ERR_BUFFER,	"MPI_ERR_BUFFER" },
	{ MPI_ERR_COUNT,	"MPI_ERR_COUNT" },
	{ MPI_ERR_TYPE,		"MPI_ERR_TYPE" },
	{ MPI_ERR_TAG,		"MPI_ERR_TAG" },
	{ MPI_ERR_COMM,		"MPI_ERR_COMM" },
	{ MPI_ERR_RANK,		"MPI_ERR_RANK" },
	{ MPI_ERR_REQUEST,	"MPI_ERR_REQUEST" },
	{ MPI_ERR_ARG,		"MPI_ERR_ARG" },
	{ MPI_ERR_UNKNOWN,	"MPI_ERR_UNKNOWN" },
	{ MPI_ERR_TRUNCATE,	"MPI_ERR_TRUNCATE" },
	{ MPI_ERR_OTHER,	"MPI_ERR_OTHER" },
	{ MPI_ERR_INTERN,	"MPI_ERR_INTERN" },
	{ MPI_ERR_IN_STATUS,	"MPI_ERR_IN_STATUS" },
	{ MPI_ERR_PENDING,	"MPI_ERR_PENDING" },
};
#define NCLASSES	(int)(sizeof(classes) / sizeof(classes[0]))

static const char *
classname(int class)
{
	int	i;

	for (i = 0; i < NCLASSES; i++)
		if (classes[i].class == class)
			return classes[i].name;
	return "another class";
}

static void
expect(int rc, int want, const char *what)
{
	char	str[MPI_MAX_ERROR_STRING];
	int	class, len;

	if (rc == MPI_SUCCESS) {
		fail("%s: returned MPI_SUCCESS, expected %s", what,
		    classname(want));
		return;
	}
	class = -1;
	MPI_Error_class(rc, &class);
	if (class != want) {
		str[0] = '\0';
		MPI_Error_string(rc, str, &len);
		fail("%s: returned class %d (%s: \"%s\"), expected %s", what,
		    class, classname(class), str, classname(want));
		return;
	}
	str[0] = '\0';
	len = -1;
	MPI_Error_string(rc, str, &len);
	if (len <= 0 || str[0] == '\0' || (size_t)len != strlen(str))
		fail("%s: Error_string of code %d gave length %d, \"%s\"",
		    what, rc, len, str);
}

static void
checkhandler(MPI_Comm comm, MPI_Errhandler want, const char *what)
{
	MPI_Errhandler	eh;

	eh = MPI_ERRHANDLER_NULL;
	MPI_Comm_get_errhandler(comm, &eh);
	if (eh != want)
		fail("%s: Comm_get_errhandler returned another handler",
		    what);
}

static void
strings(void)
{
	char	str[MPI_MAX_ERROR_STRING];
	int	i, j, len, class;

	for (i = 0; i < NCLASSES; i++) {
		class = -1;
		MPI_Error_class(classes[i].class, &class);
		if (class != classes[i].class)
			fail("Error_class(%s) is %d, expected %d",
			    classes[i].name, class, classes[i].class);
		memset(str, 0, sizeof(str));
		len = -1;
		MPI_Error_string(classes[i].class, str, &len);
		if (len <= 0 || len >= MPI_MAX_ERROR_STRING ||
		    (size_t)len != strlen(str))
			fail("Error_string(%s): length %d, strlen %zu",
			    classes[i].name, len, strlen(str));
		if (i > 0 && (classes[i].class <= MPI_SUCCESS ||
		    classes[i].class > MPI_ERR_LASTCODE))
			fail("%s is %d, not in 1..MPI_ERR_LASTCODE (%d)",
			    classes[i].name, classes[i].class,
			    MPI_ERR_LASTCODE);
		for (j = 0; j < i; j++)
			if (classes[j].class == classes[i].class)
				fail("%s and %s are both %d", classes[j].name,
				    classes[i].name, classes[i].class);
	}
}

static void
arguments(int size, int tagub)
{
	MPI_Request	req;
	MPI_Status	st;
	int		buf[4] = { 0, 0, 0, 0 }, rc, flag, badrank, badtag;

	/* A negative rank that is neither a wildcard nor MPI_PROC_NULL. */
	for (badrank = -3; badrank == MPI_PROC_NULL ||
	    badrank == MPI_ANY_SOURCE; badrank--)
		continue;
	for (badtag = -2; badtag == MPI_ANY_TAG; badtag--)
		continue;

	rc = MPI_Send(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_RANK, "Send to rank size");
	rc = MPI_Send(buf, 1, MPI_INT, badrank, 1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_RANK, "Send to a negative rank");
	rc = MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_RANK, "Send to MPI_ANY_SOURCE");
	rc = MPI_Ssend(buf, 1, MPI_INT, size + 5, 1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_RANK, "Ssend to rank size + 5");
	rc = MPI_Recv(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD, &st);
	expect(rc, MPI_ERR_RANK, "Recv from rank size");
	req = MPI_REQUEST_NULL;
	rc = MPI_Isend(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD, &req);
	expect(rc, MPI_ERR_RANK, "Isend to rank size");
	rc = MPI_Irecv(buf, 1, MPI_INT, badrank, 1, MPI_COMM_WORLD, &req);
	expect(rc, MPI_ERR_RANK, "Irecv from a negative rank");
	rc = MPI_Sendrecv(buf, 1, MPI_INT, size, 1, buf + 1, 1, MPI_INT,
	    myrank, 1, MPI_COMM_WORLD, &st);
	expect(rc, MPI_ERR_RANK, "Sendrecv to rank size");
	rc = MPI_Probe(size, 1, MPI_COMM_WORLD, &st);
	expect(rc, MPI_ERR_RANK, "Probe of rank size");
	rc = MPI_Iprobe(size, 1, MPI_COMM_WORLD, &flag, &st);
	expect(rc, MPI_ERR_RANK, "Iprobe of rank size");
	rc = MPI_Send(buf, 1, MPI_INT, 1, 1, MPI_COMM_SELF);
	expect(rc, MPI_ERR_RANK, "Send to rank 1 of MPI_COMM_SELF");

	rc = MPI_Send(buf, 1, MPI_INT, myrank, -1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_TAG, "Send with tag -1");
	rc = MPI_Send(buf, 1, MPI_INT, myrank, MPI_ANY_TAG, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_TAG, "Send with tag MPI_ANY_TAG");
	if (tagub < INT_MAX) {
		rc = MPI_Send(buf, 1, MPI_INT, myrank, tagub + 1,
		    MPI_COMM_WORLD);
		expect(rc, MPI_ERR_TAG, "Send with tag MPI_TAG_UB + 1");
		rc = MPI_Isend(buf, 1, MPI_INT, myrank, tagub + 1,
		    MPI_COMM_WORLD, &req);
		expect(rc, MPI_ERR_TAG, "Isend with tag MPI_TAG_UB + 1");
	}
	rc = MPI_Recv(buf, 1, MPI_INT, myrank, badtag, MPI_COMM_WORLD, &st);
	expect(rc, MPI_ERR_TAG, "Recv with a negative tag");
	rc = MPI_Irecv(buf, 1, MPI_INT, myrank, badtag, MPI_COMM_WORLD, &req);
	expect(rc, MPI_ERR_TAG, "Irecv with a negative tag");
	rc = MPI_Isend(buf, 1, MPI_INT, myrank, -1, MPI_COMM_WORLD, &req);
	expect(rc, MPI_ERR_TAG, "Isend with tag -1");
	rc = MPI_Iprobe(myrank, badtag, MPI_COMM_WORLD, &flag, &st);
	expect(rc, MPI_ERR_TAG, "Iprobe with a negative tag");

	rc = MPI_Send(buf, -1, MPI_INT, myrank, 1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_COUNT, "Send with count -1");
	rc = MPI_Recv(buf, -1, MPI_INT, myrank, 1, MPI_COMM_WORLD, &st);
	expect(rc, MPI_ERR_COUNT, "Recv with count -1");
	rc = MPI_Isend(buf, -1, MPI_INT, myrank, 1, MPI_COMM_WORLD, &req);
	expect(rc, MPI_ERR_COUNT, "Isend with count -1");
	rc = MPI_Irecv(buf, -1, MPI_INT, myrank, 1, MPI_COMM_WORLD, &req);
	expect(rc, MPI_ERR_COUNT, "Irecv with count -1");

	/* NULL output arguments of the environment queries. */
	expect(MPI_Initialized(NULL), MPI_ERR_ARG, "Initialized(NULL)");
	expect(MPI_Finalized(NULL), MPI_ERR_ARG, "Finalized(NULL)");
	expect(MPI_Query_thread(NULL), MPI_ERR_ARG, "Query_thread(NULL)");
	expect(MPI_Is_thread_main(NULL), MPI_ERR_ARG,
	    "Is_thread_main(NULL)");
	expect(MPI_Get_version(NULL, &rc), MPI_ERR_ARG,
	    "Get_version(NULL, ...)");
	expect(MPI_Get_library_version(NULL, &rc), MPI_ERR_ARG,
	    "Get_library_version(NULL, ...)");

	rc = MPI_Send(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL);
	expect(rc, MPI_ERR_COMM, "Send on MPI_COMM_NULL");
	rc = MPI_Recv(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL, &st);
	expect(rc, MPI_ERR_COMM, "Recv on MPI_COMM_NULL");
	rc = MPI_Isend(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL, &req);
	expect(rc, MPI_ERR_COMM, "Isend on MPI_COMM_NULL");
	rc = MPI_Comm_rank(MPI_COMM_NULL, &flag);
	expect(rc, MPI_ERR_COMM, "Comm_rank of MPI_COMM_NULL");
	rc = MPI_Comm_size(MPI_COMM_NULL, &flag);
	expect(rc, MPI_ERR_COMM, "Comm_size of MPI_COMM_NULL");

	rc = MPI_Send(buf, 1, MPI_DATATYPE_NULL, myrank, 1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_TYPE, "Send of MPI_DATATYPE_NULL");
	rc = MPI_Recv(buf, 1, MPI_DATATYPE_NULL, myrank, 1, MPI_COMM_WORLD,
	    &st);
	expect(rc, MPI_ERR_TYPE, "Recv of MPI_DATATYPE_NULL");
	rc = MPI_Isend(buf, 1, MPI_DATATYPE_NULL, myrank, 1, MPI_COMM_WORLD,
	    &req);
	expect(rc, MPI_ERR_TYPE, "Isend of MPI_DATATYPE_NULL");

	rc = MPI_Send(NULL, 1, MPI_INT, myrank, 1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_BUFFER, "Send of 1 int from NULL");
	rc = MPI_Isend(NULL, 4, MPI_INT, myrank, 1, MPI_COMM_WORLD, &req);
	expect(rc, MPI_ERR_BUFFER, "Isend of 4 ints from NULL");
	rc = MPI_Recv(NULL, 1, MPI_INT, myrank, 1, MPI_COMM_WORLD, &st);
	expect(rc, MPI_ERR_BUFFER, "Recv of 1 int into NULL");

	/*
	 * None of the failed calls may have sent anything: a probe of
	 * our own rank finds nothing.  Then a real exchange works.
	 */
	flag = 1;
	rc = MPI_Iprobe(myrank, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
	if (rc != MPI_SUCCESS || flag)
		fail("a failed call left a message behind (rc %d, tag %d)",
		    rc, flag ? st.MPI_TAG : -1);
	buf[0] = 5;
	buf[1] = 0;
	rc = MPI_Sendrecv(buf, 1, MPI_INT, myrank, 2, buf + 1, 1, MPI_INT,
	    myrank, 2, MPI_COMM_WORLD, &st);
	if (rc != MPI_SUCCESS || buf[1] != 5)
		fail("Sendrecv after errors: rc %d, value %d", rc, buf[1]);
}

int
main(int argc, char *argv[])
{
	int	 size, flag, tagub, rc, buf = 0;
	int	*attr;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < MINPROCS) {
		if (myrank == 0)
			fprintf(stderr, "%s: needs at least %d ranks\n",
			    NAME, MINPROCS);
		MPI_Finalize();
		return 1;
	}
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
	tagub = flag ? *attr : 32767;

	checkhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
	    "MPI_COMM_WORLD at start");
	checkhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL,
	    "MPI_COMM_SELF at start");

	strings();

	/*
	 * Errors that concern no valid communicator, such as
	 * MPI_COMM_NULL, go to MPI_COMM_WORLD's handler in MPI-3.1 and to
	 * MPI_COMM_SELF's in MPI-4; set both.
	 */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	checkhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "MPI_COMM_WORLD");
	checkhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, "MPI_COMM_SELF");
	arguments(size, tagub);

	/* Handlers are per communicator. */
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	checkhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL,
	    "MPI_COMM_SELF set back");
	checkhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
	    "MPI_COMM_WORLD after changing MPI_COMM_SELF");
	rc = MPI_Send(&buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD);
	expect(rc, MPI_ERR_RANK, "Send to rank size, MPI_COMM_SELF fatal");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	rc = MPI_Send(&buf, 1, MPI_INT, 1, 1, MPI_COMM_SELF);
	expect(rc, MPI_ERR_RANK,
	    "Send to rank 1 of MPI_COMM_SELF, MPI_COMM_WORLD fatal");
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	checkhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
	    "MPI_COMM_WORLD set back");

	return finish();
}

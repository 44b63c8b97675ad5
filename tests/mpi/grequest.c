/* SPDX-License-Identifier: ISC */
/*
 * grequest: generalized requests.  The callbacks run as the standard
 * says: query_fn each time a completed request is waited for, tested
 * or asked about (MPI_Request_get_status), even with
 * MPI_STATUS_IGNORE, and its status is the caller's; free_fn once,
 * after the last query_fn, when the request goes (in the completion
 * call, in MPI_Request_free of a complete request, or in
 * MPI_Grequest_complete of one freed before); cancel_fn in MPI_Cancel,
 * told whether the request is complete.  Errors that query_fn and
 * free_fn return come back from the calls (MPI_ERR_IN_STATUS for the
 * calls on many requests).  Generalized requests mix with
 * point-to-point ones in MPI_Waitany, _Waitsome and _Testall, and a
 * thread may complete one while the main thread waits.
 */

#include <pthread.h>

#define NAME		"grequest"
#include "mtest.h"

/* What the callbacks of one request saw and do. */
struct op {
	int	queries, frees, cancels, cancel_complete;
	int	query_rc, free_rc;
	int	cancelled;	/* what query_fn reports */
	int	bytes;		/* the count query_fn sets */
	int	freed_after_query;	/* free_fn came after a query_fn */
};

static int
query_fn(void *extra, MPI_Status *st)
{
	struct op *o = extra;

	o->queries++;
	if (o->frees > 0)
		fail("query_fn after free_fn");
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = 77;
	MPI_Status_set_elements(st, MPI_BYTE, o->bytes);
	MPI_Status_set_cancelled(st, o->cancelled);
	return o->query_rc;
}

static int
free_fn(void *extra)
{
	struct op *o = extra;

	o->frees++;
	o->freed_after_query = o->queries > 0;
	return o->free_rc;
}

static int
cancel_fn(void *extra, int complete)
{
	struct op *o = extra;

	o->cancels++;
	o->cancel_complete = complete;
	o->cancelled = 1;
	return MPI_SUCCESS;
}

static void
start(struct op *o, MPI_Request *req, int bytes)
{
	memset(o, 0, sizeof(*o));
	o->bytes = bytes;
	ok(MPI_Grequest_start(query_fn, free_fn, cancel_fn, o, req),
	    "Grequest_start");
}

static void
counts(const struct op *o, int q, int f, int c, const char *what)
{
	if (o->queries != q || o->frees != f || o->cancels != c)
		fail("%s: %d queries, %d frees, %d cancels; expected %d %d %d",
		    what, o->queries, o->frees, o->cancels, q, f, c);
}

static void
lifecycle(void)
{
	MPI_Request	req, keep;
	MPI_Status	st;
	struct op	o;
	int		flag, n;

	/* Complete, then wait: one query into our status, then free. */
	start(&o, &req, 42);
	counts(&o, 0, 0, 0, "after start");
	ok(MPI_Test(&req, &flag, &st), "Test, incomplete");
	if (flag)
		fail("an incomplete request tested complete");
	ok(MPI_Request_get_status(req, &flag, &st), "get_status");
	if (flag)
		fail("get_status said an incomplete request is complete");
	counts(&o, 0, 0, 0, "after tests of an incomplete request");
	ok(MPI_Grequest_complete(req), "Grequest_complete");
	counts(&o, 0, 0, 0, "after Grequest_complete");
	ok(MPI_Request_get_status(req, &flag, &st), "get_status");
	if (!flag || req == MPI_REQUEST_NULL)
		fail("get_status of a complete request: flag %d", flag);
	counts(&o, 1, 0, 0, "after get_status");
	ok(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE),
	    "get_status, status ignored");
	counts(&o, 2, 0, 0, "after get_status, status ignored");
	memset(&st, 0, sizeof(st));
	ok(MPI_Wait(&req, &st), "Wait");
	counts(&o, 3, 1, 0, "after Wait");
	if (!o.freed_after_query)
		fail("free_fn did not come after query_fn");
	if (req != MPI_REQUEST_NULL)
		fail("Wait left the request");
	MPI_Get_count(&st, MPI_BYTE, &n);
	if (st.MPI_TAG != 77 || st.MPI_SOURCE != MPI_UNDEFINED || n != 42)
		fail("the status is not query_fn's: tag %d source %d count %d",
		    st.MPI_TAG, st.MPI_SOURCE, n);
	MPI_Test_cancelled(&st, &flag);
	if (flag)
		fail("the status says cancelled");

	/* Test that completes it, with the status ignored. */
	start(&o, &req, 1);
	MPI_Grequest_complete(req);
	ok(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), "Test");
	if (!flag || req != MPI_REQUEST_NULL)
		fail("Test of a complete request: flag %d", flag);
	counts(&o, 1, 1, 0, "after Test");

	/* Freed before completing: free_fn runs in Grequest_complete. */
	start(&o, &req, 0);
	keep = req;
	ok(MPI_Request_free(&req), "Request_free, incomplete");
	counts(&o, 0, 0, 0, "after Request_free of an incomplete request");
	ok(MPI_Grequest_complete(keep), "Grequest_complete after free");
	counts(&o, 0, 1, 0, "after Grequest_complete of a freed request");

	/* Freed after completing: free_fn runs in Request_free. */
	start(&o, &req, 0);
	MPI_Grequest_complete(req);
	ok(MPI_Request_free(&req), "Request_free, complete");
	counts(&o, 0, 1, 0, "after Request_free of a complete request");

	/* Cancel before and after completing. */
	start(&o, &req, 0);
	ok(MPI_Cancel(&req), "Cancel, incomplete");
	counts(&o, 0, 0, 1, "after Cancel");
	if (o.cancel_complete)
		fail("cancel_fn was told the request is complete");
	MPI_Grequest_complete(req);
	ok(MPI_Cancel(&req), "Cancel, complete");
	if (o.cancels != 2 || !o.cancel_complete)
		fail("cancel_fn: %d calls, complete %d", o.cancels,
		    o.cancel_complete);
	MPI_Wait(&req, &st);
	MPI_Test_cancelled(&st, &flag);
	if (!flag)
		fail("query_fn's cancelled status was lost");
	counts(&o, 1, 1, 2, "after Wait of a cancelled request");
}

/* Errors from query_fn and free_fn, alone and among other requests. */
static void
errors_from_callbacks(void)
{
	MPI_Request	reqs[2], req;
	MPI_Status	sts[2];
	struct op	o, p;
	int		cls, code, rc, v = 5, got = 0;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Add_error_class(&cls);
	MPI_Add_error_code(cls, &code);

	start(&o, &req, 0);
	o.query_rc = code;
	MPI_Grequest_complete(req);
	rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (rc != code)
		fail("Wait returned %d, query_fn's code is %d", rc, code);
	counts(&o, 1, 1, 0, "after a failed query");

	start(&o, &req, 0);
	o.free_rc = MPI_ERR_OTHER;
	MPI_Grequest_complete(req);
	expect(MPI_Request_free(&req), MPI_ERR_OTHER,
	    "Request_free with a failing free_fn");

	/* With a point-to-point request that succeeds. */
	start(&p, &reqs[1], 0);
	p.query_rc = MPI_ERR_OTHER;
	MPI_Irecv(&got, 1, MPI_INT, myrank, 8, MPI_COMM_WORLD, &reqs[0]);
	MPI_Send(&v, 1, MPI_INT, myrank, 8, MPI_COMM_WORLD);
	MPI_Grequest_complete(reqs[1]);
	rc = MPI_Waitall(2, reqs, sts);
	expect(rc, MPI_ERR_IN_STATUS, "Waitall with a failing query_fn");
	if (sts[0].MPI_ERROR != MPI_SUCCESS ||
	    sts[1].MPI_ERROR != MPI_ERR_OTHER || got != v)
		fail("Waitall statuses: %d %d, got %d", sts[0].MPI_ERROR,
		    sts[1].MPI_ERROR, got);
	counts(&p, 1, 1, 0, "after Waitall");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Generalized and point-to-point requests in one array. */
static void
mixed(void)
{
	MPI_Request	reqs[3];
	MPI_Status	sts[3];
	struct op	o, p;
	int		idx, flag, n, got = -1, v = 9, ind[3];

	start(&o, &reqs[0], 3);
	start(&p, &reqs[2], 4);
	MPI_Irecv(&got, 1, MPI_INT, myrank, 6, MPI_COMM_WORLD, &reqs[1]);
	MPI_Grequest_complete(reqs[2]);
	ok(MPI_Waitany(3, reqs, &idx, &sts[0]), "Waitany");
	if (idx != 2 || reqs[2] != MPI_REQUEST_NULL)
		fail("Waitany chose %d, the only complete one is 2", idx);
	counts(&p, 1, 1, 0, "the request Waitany completed");
	counts(&o, 0, 0, 0, "a request Waitany did not complete");
	ok(MPI_Testall(3, reqs, &flag, sts), "Testall");
	if (flag)
		fail("Testall with incomplete requests said complete");
	MPI_Send(&v, 1, MPI_INT, myrank, 6, MPI_COMM_WORLD);
	MPI_Grequest_complete(reqs[0]);
	ok(MPI_Waitsome(3, reqs, &n, ind, sts), "Waitsome");
	while (reqs[0] != MPI_REQUEST_NULL || reqs[1] != MPI_REQUEST_NULL)
		MPI_Waitsome(3, reqs, &n, ind, sts);
	if (got != v)
		fail("received %d", got);
	counts(&o, 1, 1, 0, "the request Waitsome completed");
}

static void *
completer(void *arg)
{
	MPI_Grequest_complete(*(MPI_Request *)arg);
	return NULL;
}

/* Another thread completes the request the main thread waits on. */
static void
threaded(void)
{
	MPI_Request	req, copy;
	pthread_t	t;
	struct op	o;

	start(&o, &req, 0);
	copy = req;
	if (pthread_create(&t, NULL, completer, &copy) != 0) {
		fail("pthread_create failed");
		return;
	}
	ok(MPI_Wait(&req, MPI_STATUS_IGNORE), "Wait for another thread");
	pthread_join(t, NULL);
	counts(&o, 1, 1, 0, "after another thread completed it");
}

static void
bad_arguments(void)
{
	MPI_Request	req;
	struct op	o;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST,
	    "Grequest_complete of MPI_REQUEST_NULL");
	MPI_Irecv(&o, 0, MPI_INT, myrank, 4, MPI_COMM_WORLD, &req);
	expect(MPI_Grequest_complete(req), MPI_ERR_REQUEST,
	    "Grequest_complete of a receive");
	MPI_Send(&o, 0, MPI_INT, myrank, 4, MPI_COMM_WORLD);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	start(&o, &req, 0);
	MPI_Grequest_complete(req);
	expect(MPI_Grequest_complete(req), MPI_ERR_REQUEST,
	    "Grequest_complete twice");
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	expect(MPI_Grequest_start(NULL, free_fn, cancel_fn, &o, &req),
	    MPI_ERR_ARG, "Grequest_start without query_fn");
	expect(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &o, NULL),
	    ANY_ERROR, "Grequest_start without a request");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	lifecycle();
	errors_from_callbacks();
	mixed();
	threaded();
	bad_arguments();
	/* Every rank did the same, alongside the others. */
	MPI_Barrier(MPI_COMM_WORLD);
	return finish();
}

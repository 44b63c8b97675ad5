/* SPDX-License-Identifier: ISC */
/*
 * Matched probes: MPI_Mprobe and MPI_Improbe claim the message they
 * find in the engine (ft_pt_improbe), so that no other receive or probe
 * can take it, and hand the application a message handle; MPI_Mrecv
 * and MPI_Imrecv receive exactly that message (ft_pt_mrecv).  The
 * probing itself, and following the master under replication, is
 * ft__mpi_probe in p2p.c, shared with MPI_Probe and MPI_Iprobe.
 *
 * Message handles are checked against the list of those probed and not
 * yet received before they are used, so a stale or garbage handle is an
 * error, not a crash.
 */
#include <stdlib.h>

#include "mpi_impl.h"

struct ft_mpi_message {
	MPI_Comm		 comm;	/* held until the message is received */
	void			*claim;	/* the engine's handle */
	struct ft_mpi_message	*next;
};

/* A message from MPI_PROC_NULL: it claims nothing. */
struct ft_mpi_message ft_mpi_message_no_proc;

/* The messages probed and not yet received, newest first. */
static struct ft_mpi_message *live;

/* Take m off the live list; 0 if it was not on it. */
static int
msg_take(MPI_Message m)
{
	struct ft_mpi_message **pp;

	for (pp = &live; *pp != NULL; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			return 1;
		}
	return 0;
}

int
ft__mpi_message_ok(MPI_Message m)
{
	const struct ft_mpi_message *l;

	if (m == MPI_MESSAGE_NO_PROC)
		return 1;
	for (l = live; l != NULL; l = l->next)
		if (l == m)
			return 1;
	return 0;
}

static int
mprobe(const char *call, int src, int tag, MPI_Comm comm, int block,
    int *flag, MPI_Message *message, MPI_Status *st)
{
	struct ft_mpi_message *m;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if ((rc = ft__mpi_check_p2p(call, NULL, 0, MPI_BYTE, src, tag, comm,
	    1)) != MPI_SUCCESS)
		return rc;
	if (message == NULL || (!block && flag == NULL))
		return ft__mpi_err(comm, MPI_ERR_ARG, call, "NULL argument");
	if (src == MPI_PROC_NULL) {
		if (!block)
			*flag = 1;
		*message = MPI_MESSAGE_NO_PROC;
		ft__mpi_status_set(st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
		return MPI_SUCCESS;
	}
	/* Before the probe: a message claimed must get its handle. */
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	if ((rc = ft__mpi_probe(src, tag, comm, block, &m->claim, st)) <=
	    0) {
		free(m);
		if (rc < 0)
			return ft__mpi_err(comm, MPIX_ERR_PROC_FAILED, call,
			    "a process that could send the message has "
			    "failed");
		*flag = 0;
		return MPI_SUCCESS;
	}
	m->comm = comm;
	ft__mpi_comm_hold(comm);
	m->next = live;
	live = m;
	if (!block)
		*flag = 1;
	*message = m;
	return MPI_SUCCESS;
}

/*
 * Wait for a message from src (or MPI_ANY_SOURCE) with tag (or
 * MPI_ANY_TAG) on comm and claim it: *message, to receive with
 * MPI_Mrecv or MPI_Imrecv, and st as MPI_Probe fills it.  From
 * MPI_PROC_NULL, at once MPI_MESSAGE_NO_PROC.  Errors as MPI_Probe's,
 * and MPI_ERR_ARG for a NULL message.
 */
int
PMPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *message,
    MPI_Status *st)
{
	return mprobe("MPI_Mprobe", src, tag, comm, 1, NULL, message, st);
}

/*
 * MPI_Mprobe without waiting: *flag says whether a message was found;
 * if not, *message and st are left alone.  Replicated, the master's
 * outcome is followed, as for MPI_Iprobe.
 */
int
PMPI_Improbe(int src, int tag, MPI_Comm comm, int *flag,
    MPI_Message *message, MPI_Status *st)
{
	return mprobe("MPI_Improbe", src, tag, comm, 0, flag, message, st);
}

/*
 * Start receiving the message *message into count elements of type at
 * buf, and set *message to MPI_MESSAGE_NULL.  Errors go to the handler
 * of the communicator probed: MPI_ERR_COUNT, MPI_ERR_TYPE and
 * MPI_ERR_BUFFER as for MPI_Irecv.  MPI_MESSAGE_NULL, or a handle that
 * is not a message probed and not yet received, is MPI_ERR_REQUEST on
 * MPI_COMM_WORLD's handler.
 */
int
PMPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
    MPI_Request *req)
{
	const char *call = "MPI_Imrecv";
	struct ft_mpi_req *r;
	MPI_Message m;
	MPI_Comm comm;
	int rc, noproc;

	FT_MPI_CHECK_INIT(call);
	if (message == NULL || req == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "NULL argument");
	m = *message;
	noproc = m == MPI_MESSAGE_NO_PROC;
	if (m == MPI_MESSAGE_NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
		    "MPI_MESSAGE_NULL");
	if (!noproc && !msg_take(m))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, call,
		    "invalid message");
	comm = noproc ? MPI_COMM_WORLD : m->comm;
	rc = ft__mpi_check_p2p(call, buf, count, type, MPI_PROC_NULL, 0, comm,
	    1);
	if (rc == MPI_SUCCESS && (r = ft__mpi_req_new(noproc ?
	    FT_MPI_REQ_NULLPROC : FT_MPI_REQ_RECV, comm)) == NULL)
		rc = ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	if (rc != MPI_SUCCESS) {
		/* The message is not received: it stays the application's. */
		if (!noproc) {
			m->next = live;
			live = m;
		}
		return rc;
	}
	*message = MPI_MESSAGE_NULL;
	if (noproc) {
		*req = r;
		return MPI_SUCCESS;
	}
	rc = ft__mpi_mrecv_start(call, buf, count, type, comm, m->claim, r);
	ft__mpi_comm_release(m->comm);
	ft__mpi_fint_forget(FT_FINT_MESSAGE, m);
	free(m);
	if (rc != MPI_SUCCESS) {
		/* Nothing was started: free the request as a done one. */
		r->pt.done = 1;
		(void)MPI_Request_free(&r);
		return rc;
	}
	*req = r;
	return MPI_SUCCESS;
}

/*
 * Receive the message *message into count elements of type at buf,
 * and set *message to MPI_MESSAGE_NULL; st as MPI_Recv fills it.
 * Errors as MPI_Imrecv's, and MPI_ERR_TRUNCATE for a message longer
 * than the buffer.
 */
int
PMPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
    MPI_Status *st)
{
	MPI_Request r;
	int rc;

	if ((rc = MPI_Imrecv(buf, count, type, message, &r)) != MPI_SUCCESS)
		return rc;
	return ft__mpi_wait_one("MPI_Mrecv", &r, st);
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Mprobe = PMPI_Mprobe
#pragma weak MPI_Improbe = PMPI_Improbe
#pragma weak MPI_Imrecv = PMPI_Imrecv
#pragma weak MPI_Mrecv = PMPI_Mrecv

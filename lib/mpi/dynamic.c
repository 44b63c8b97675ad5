/* SPDX-License-Identifier: ISC */
/*
 * Process creation and management (MPI-3.1 chapter 10): spawning new
 * worlds, the parent intercommunicator, ports, service names,
 * MPI_Comm_join and MPI_Comm_disconnect, within one ftrun job.
 *
 * The root of a collective call asks the launcher (SPAWN or PORT
 * frames, answered by a REPLY: lib/job/spawn.c), then broadcasts the
 * answer over the communicator: the error, the context id the
 * launcher chose (unique in the job, so that it collides with no
 * context of either side), and the remote group's process ids.  Every
 * process then makes the intercommunicator locally.
 *
 * Under replication (ftrun -r R > 1) every call here but
 * MPI_Comm_get_parent fails with MPI_ERR_SPAWN or MPI_ERR_PORT: a
 * replicated rank would ask the launcher once per replica, and the new
 * processes would need replicas of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_impl.h"

/* The launcher's answer to the request in flight (one at a time). */
static struct {
	uint32_t		 next_reqid;
	uint32_t		 want;
	int			 have;
	struct ft_msg_reply	 rep;
	MPI_Comm		 parent;	/* or MPI_COMM_NULL */
	uint32_t		 parent_ctx;
	struct ft_msg_reply	 init;		/* the parents, at MPI_Init */
} dyn;

/* What the root broadcasts: the header, then nids ids. */
enum { H_ERR, H_CTX, H_NIDS, H_TOTAL, H_LEN };

void
ft__mpi_dyn_ctl(const struct ft_hdr *h, const uint8_t *body)
{
	size_t blen = h->len - FT_WIRE_HDRLEN;
	struct ft_msg_procs pr;
	struct ft_msg_reply r;

	if (h->type == FT_MSG_PROCS) {
		if (ft_msg_procs_decode(body, blen, &pr) != 0) {
			ft_warnx("ignored a malformed PROCS frame from the "
			    "launcher");
			return;
		}
		if (ft_pt_grow(ft__mpi.pt, pr.first, pr.t.ranks, pr.t.n) != 0)
			ft__mpi_abort(FT_EXIT_TEMP, "unable to add processes "
			    "to the table");
		ft_msg_table_free(&pr.t);
		return;
	}
	if (ft_msg_reply_decode(body, blen, &r) != 0) {
		ft_warnx("ignored a malformed REPLY frame from the launcher");
		return;
	}
	if (dyn.have || r.reqid != dyn.want || r.reqid == 0) {
		ft_warnx("ignored an unexpected REPLY from the launcher");
		ft_msg_reply_free(&r);
		return;
	}
	dyn.rep = r;
	dyn.have = 1;
}

int
ft__mpi_dyn_init_read(struct ft_conn *ctl)
{
	const uint8_t *body;
	struct ft_hdr h;

	if (ft_job_await(ctl, FT_MSG_REPLY, &h, &body, INT32_MAX) != 0 ||
	    ft_msg_reply_decode(body, h.len - FT_WIRE_HDRLEN, &dyn.init) !=
	    0 || dyn.init.reqid != 0 || dyn.init.err != FT_REPLY_OK ||
	    dyn.init.nids == 0)
		return -1;
	return 0;
}

int
ft__mpi_dyn_init(void)
{
	if (!ft__mpi.env.spawned)
		return MPI_SUCCESS;
	dyn.parent = ft__mpi_comm_new_inter(MPI_COMM_WORLD, dyn.init.ctx,
	    ft_mpi_comm_world.world, ft_mpi_comm_world.size,
	    ft_mpi_comm_world.rank, dyn.init.ids, (int)dyn.init.nids);
	dyn.parent_ctx = dyn.init.ctx;
	ft_msg_reply_free(&dyn.init);
	if (dyn.parent == MPI_COMM_NULL)
		return ft__mpi_err(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Init",
		    "out of memory");
	snprintf(dyn.parent->name, sizeof(dyn.parent->name), "%s",
	    "MPI_COMM_PARENT");
	return MPI_SUCCESS;
}

static int
reply_in(void *arg)
{
	(void)arg;
	return dyn.have;
}

/*
 * Send the request in wb (of reqid) to the launcher and wait for its
 * REPLY, into *out (free with ft_msg_reply_free).  Returns 0, or -1
 * when there is no launcher to ask.
 */
static int
ask(const struct ft_wbuf *wb, uint32_t reqid, struct ft_msg_reply *out)
{
	struct ft_conn *ctl;

	if (ft__mpi.singleton || (ctl = ft_pt_ctl(ft__mpi.pt)) == NULL ||
	    ft_conn_queue_copy(ctl, wb->p, wb->len) != 0)
		return -1;
	dyn.want = reqid;
	dyn.have = 0;
	ft__mpi_wait(reply_in, NULL);
	*out = dyn.rep;
	dyn.have = 0;
	dyn.want = 0;
	return 0;
}

static uint32_t
reqid_new(void)
{
	if (++dyn.next_reqid == 0)
		dyn.next_reqid = 1;
	return dyn.next_reqid;
}

static uint32_t
self_id(void)
{
	return ft_job_self(&ft__mpi.env);
}

/* Why the launcher said no, as the MPI class of call's family. */
static int
reply_class(uint32_t err, int family)
{
	switch (err) {
	case FT_REPLY_OK:
		return MPI_SUCCESS;
	case FT_REPLY_NOMEM:
		return MPI_ERR_NO_MEM;
	case FT_REPLY_NAME:
		return MPI_ERR_NAME;
	case FT_REPLY_SERVICE:
		return MPI_ERR_SERVICE;
	case FT_REPLY_PORT:
		return MPI_ERR_PORT;
	default:
		return family;
	}
}

/*
 * The end of a collective call that made an intercommunicator on comm:
 * the root broadcasts hdr (H_ERR an MPI class) and the remote group's
 * ids; then everyone makes the intercommunicator, or fails with what
 * the root said (why, at the root).  errcodes, when given, get
 * hdr[H_TOTAL] codes.
 */
static int
finish(const char *call, MPI_Comm comm, int root, int hdr[H_LEN],
    uint32_t **ids, const char *why, int *errcodes, MPI_Comm *newcomm)
{
	int rc, i, me = comm->rank;

	if ((rc = PMPI_Bcast(hdr, H_LEN, MPI_INT, root, comm)) != MPI_SUCCESS)
		return rc;
	if (me != root && hdr[H_ERR] == MPI_SUCCESS &&
	    (*ids = calloc((size_t)hdr[H_NIDS], sizeof(**ids))) == NULL)
		ft__mpi_abort(FT_EXIT_TEMP, "out of memory");
	if (hdr[H_ERR] == MPI_SUCCESS && (rc = PMPI_Bcast(*ids, hdr[H_NIDS],
	    MPI_UINT32_T, root, comm)) != MPI_SUCCESS)
		return rc;
	if (errcodes != MPI_ERRCODES_IGNORE)
		for (i = 0; i < hdr[H_TOTAL]; i++)
			errcodes[i] = hdr[H_ERR] == MPI_SUCCESS ? MPI_SUCCESS :
			    hdr[H_ERR];
	*newcomm = MPI_COMM_NULL;
	if (hdr[H_ERR] != MPI_SUCCESS)
		return ft__mpi_err(comm, hdr[H_ERR], call, "%s", me == root ?
		    why : "the root's request failed");
	*newcomm = ft__mpi_comm_new_inter(comm, (uint32_t)hdr[H_CTX],
	    comm->world, comm->size, comm->rank, *ids, hdr[H_NIDS]);
	if (*newcomm == MPI_COMM_NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	return MPI_SUCCESS;
}

/* The checks every rank makes of a collective call's common arguments. */
static int
check_coll(const char *call, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
	int rc;

	if ((rc = ft__mpi_comm_intra(comm, call)) != MPI_SUCCESS)
		return rc;
	if (newcomm == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, call, "NULL argument");
	if (root < 0 || root >= comm->size)
		return ft__mpi_err(comm, MPI_ERR_ROOT, call, "root %d is not "
		    "a rank of a communicator of %d", root, comm->size);
	return MPI_SUCCESS;
}

/* Spawning ---------------------------------------------------------- */

/* Copy an info object's pairs into cmd (keys and values on the heap). */
static int
info_pairs(MPI_Info info, struct ft_spawn_cmd *c, const char **why)
{
	char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
	int n, k, flag;

	if (info == MPI_INFO_NULL)
		return MPI_SUCCESS;
	if (PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS) {
		*why = "an invalid info object";
		return MPI_ERR_INFO;
	}
	if (n > FT_SPAWN_INFO_MAX) {
		*why = "an info object with too many keys";
		return MPI_ERR_INFO;
	}
	if (n == 0)
		return MPI_SUCCESS;
	if ((c->keys = calloc((size_t)n, sizeof(*c->keys))) == NULL ||
	    (c->vals = calloc((size_t)n, sizeof(*c->vals))) == NULL)
		return MPI_ERR_NO_MEM;
	for (k = 0; k < n; k++) {
		if (PMPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS ||
		    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag) !=
		    MPI_SUCCESS || !flag) {
			*why = "an unreadable info object";
			return MPI_ERR_INFO;
		}
		if ((c->keys[k] = strdup(key)) == NULL ||
		    (c->vals[k] = strdup(val)) == NULL)
			return MPI_ERR_NO_MEM;
		c->ninfo++;
	}
	return MPI_SUCCESS;
}

/*
 * The root's side of a spawn: check the arguments, ask the launcher.
 * Returns an MPI class (hdr[H_ERR]), with the reason in why.
 */
static int
spawn_root(int count, char *cmds[], char **argvs[], const int maxprocs[],
    const MPI_Info infos[], MPI_Comm comm, int hdr[H_LEN], uint32_t **ids,
    char *why, size_t whysize)
{
	struct ft_msg_spawn m;
	struct ft_msg_reply r;
	struct ft_wbuf wb;
	const char *w = NULL;
	uint64_t total = 0;
	int i, rc = MPI_SUCCESS;
	uint32_t a;

	memset(&m, 0, sizeof(m));
	if (count <= 0 || count > FT_SPAWN_CMDS_MAX || cmds == NULL ||
	    maxprocs == NULL) {
		snprintf(why, whysize, "count %d, or a NULL array", count);
		return MPI_ERR_ARG;
	}
	if (ft__mpi.env.nrep > 1) {
		snprintf(why, whysize, "dynamic processes are not supported "
		    "with replicas (ftrun -r %u)", ft__mpi.env.nrep);
		return MPI_ERR_SPAWN;
	}
	if ((m.cmds = calloc((size_t)count, sizeof(*m.cmds))) == NULL)
		return MPI_ERR_NO_MEM;
	m.ncmds = (uint32_t)count;
	for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
		struct ft_spawn_cmd *c = &m.cmds[i];
		char **av = argvs != MPI_ARGVS_NULL ? argvs[i] : MPI_ARGV_NULL;

		if (cmds[i] == NULL || cmds[i][0] == '\0' ||
		    strlen(cmds[i]) >= FT_SPAWN_STR_MAX) {
			snprintf(why, whysize, "command %d is empty or too "
			    "long", i);
			rc = MPI_ERR_ARG;
			break;
		}
		if (maxprocs[i] <= 0 || maxprocs[i] > (int)FT_WIRE_MAX_RANKS) {
			snprintf(why, whysize, "maxprocs %d of command %d",
			    maxprocs[i], i);
			rc = MPI_ERR_ARG;
			break;
		}
		c->command = cmds[i];
		c->maxprocs = (uint32_t)maxprocs[i];
		total += c->maxprocs;
		for (a = 0; av != NULL && av[a] != NULL; a++)
			if (a == FT_SPAWN_ARGS_MAX ||
			    strlen(av[a]) >= FT_SPAWN_STR_MAX) {
				snprintf(why, whysize, "the arguments of "
				    "command %d are too many or too long", i);
				rc = MPI_ERR_ARG;
				break;
			}
		c->argc = av != NULL ? a : 0;
		c->argv = av;
		if (rc == MPI_SUCCESS && infos != NULL &&
		    (rc = info_pairs(infos[i], c, &w)) != MPI_SUCCESS)
			snprintf(why, whysize, "command %d: %s", i, w != NULL ?
			    w : "out of memory");
	}
	hdr[H_TOTAL] = total > INT32_MAX ? INT32_MAX : (int)total;
	if (rc == MPI_SUCCESS) {
		m.reqid = reqid_new();
		m.parents = comm->world;
		m.nparents = (uint32_t)comm->size;
		ft_wbuf_init(&wb);
		if (ft_msg_spawn_encode(&wb, self_id(), &m) != 0) {
			snprintf(why, whysize, "the request is too large");
			rc = MPI_ERR_ARG;
		} else if (ask(&wb, m.reqid, &r) != 0) {
			snprintf(why, whysize, "not run by ftrun: no launcher "
			    "to start processes");
			rc = MPI_ERR_SPAWN;
		} else {
			rc = reply_class(r.err, MPI_ERR_SPAWN);
			snprintf(why, whysize, "%s", r.text);
			hdr[H_CTX] = (int)r.ctx;
			hdr[H_NIDS] = (int)r.nids;
			*ids = r.ids;
			r.ids = NULL;
			ft_msg_reply_free(&r);
		}
		ft_wbuf_release(&wb);
	}
	for (i = 0; i < count; i++) {
		for (a = 0; m.cmds[i].keys != NULL && a < m.cmds[i].ninfo;
		    a++) {
			free(m.cmds[i].keys[a]);
			free(m.cmds[i].vals[a]);
		}
		free(m.cmds[i].keys);
		free(m.cmds[i].vals);
	}
	free(m.cmds);
	return rc;
}

int
PMPI_Comm_spawn_multiple(int count, char *cmds[], char **argvs[],
    const int maxprocs[], const MPI_Info infos[], int root, MPI_Comm comm,
    MPI_Comm *intercomm, int errcodes[])
{
	static const char call[] = "MPI_Comm_spawn_multiple";
	char why[FT_WIRE_TEXT_MAX] = "";
	int hdr[H_LEN] = { 0 }, rc;
	uint32_t *ids = NULL;

	FT_MPI_CHECK_INIT(call);
	ft__mpi_replay_refuse(call);
	if ((rc = check_coll(call, root, comm, intercomm)) != MPI_SUCCESS)
		return rc;
	if (comm->rank == root)
		hdr[H_ERR] = spawn_root(count, cmds, argvs, maxprocs, infos,
		    comm, hdr, &ids, why, sizeof(why));
	rc = finish(call, comm, root, hdr, &ids, why, errcodes, intercomm);
	free(ids);
	return rc;
}

int
PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
    MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm,
    int errcodes[])
{
	char *cmds[1] = { (char *)(uintptr_t)command };
	char **argvs[1] = { argv };

	return PMPI_Comm_spawn_multiple(1, cmds, argvs, &maxprocs, &info,
	    root, comm, intercomm, errcodes);
}

int
PMPI_Comm_get_parent(MPI_Comm *parent)
{
	FT_MPI_CHECK_INIT("MPI_Comm_get_parent");
	if (parent == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Comm_get_parent", "NULL argument");
	/* Once freed or disconnected, there is no parent any more. */
	if (dyn.parent != MPI_COMM_NULL && (!ft__mpi_comm_ok(dyn.parent) ||
	    dyn.parent->ctx != dyn.parent_ctx))
		dyn.parent = MPI_COMM_NULL;
	*parent = dyn.parent;
	return MPI_SUCCESS;
}

static int
not_busy(void *arg)
{
	(void)arg;
	return !ft_pt_busy(ft__mpi.pt);
}

int
PMPI_Comm_disconnect(MPI_Comm *comm)
{
	static const char call[] = "MPI_Comm_disconnect";
	struct ft_msg_port m;
	struct ft_conn *ctl;
	struct ft_wbuf wb;
	MPI_Comm c;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if (comm == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, call,
		    "NULL argument");
	c = *comm;
	if (!ft__mpi_comm_ok(c))
		return ft__mpi_err(c, MPI_ERR_COMM, call,
		    "invalid communicator");
	if (c->predefined)
		return ft__mpi_err(c, MPI_ERR_COMM, call, "%s cannot be "
		    "disconnected", c->name);
	/*
	 * Every message this process started is out, then everyone is
	 * here: what was sent on c before the call has left on both sides.
	 */
	ft__mpi_wait(not_busy, NULL);
	if ((rc = PMPI_Barrier(c)) != MPI_SUCCESS)
		return rc;
	/* An intercommunicator between worlds: the link is left. */
	if (FT_MPI_INTER(c) && c->ctx >= FT_WIRE_CTX_JOB &&
	    c->ctx < FT_WIRE_CTX_JOB_END && !ft__mpi.singleton &&
	    (ctl = ft_pt_ctl(ft__mpi.pt)) != NULL) {
		memset(&m, 0, sizeof(m));
		m.op = FT_PORT_DISCONNECT;
		m.ctx = c->ctx;
		ft_wbuf_init(&wb);
		if (ft_msg_port_encode(&wb, self_id(), &m) == 0)
			(void)ft_conn_queue_copy(ctl, wb.p, wb.len);
		ft_wbuf_release(&wb);
	}
	if (c == dyn.parent)
		dyn.parent = MPI_COMM_NULL;
	return PMPI_Comm_free(comm);
}

/* Ports and names --------------------------------------------------- */

/*
 * Ask the launcher a PORT question op about name (and value, ids),
 * into *r.  Returns an MPI class of family, with the reason in why.
 */
static int
port_ask(uint32_t op, const char *name, const char *value,
    const uint32_t *ids, uint32_t nids, int family, struct ft_msg_reply *r,
    char *why, size_t whysize)
{
	struct ft_msg_port m;
	struct ft_wbuf wb;
	int rc;

	memset(r, 0, sizeof(*r));
	if (ft__mpi.env.nrep > 1) {
		snprintf(why, whysize, "ports and names are not supported "
		    "with replicas (ftrun -r %u)", ft__mpi.env.nrep);
		return family;
	}
	if (name != NULL && strlen(name) >= FT_PORT_NAME_MAX) {
		snprintf(why, whysize, "a name longer than %d bytes",
		    FT_PORT_NAME_MAX - 1);
		return family;
	}
	if (value != NULL && strlen(value) >= FT_PORT_NAME_MAX) {
		snprintf(why, whysize, "a port name longer than %d bytes",
		    FT_PORT_NAME_MAX - 1);
		return MPI_ERR_PORT;
	}
	memset(&m, 0, sizeof(m));
	m.op = op;
	m.reqid = reqid_new();
	snprintf(m.name, sizeof(m.name), "%s", name != NULL ? name : "");
	snprintf(m.value, sizeof(m.value), "%s", value != NULL ? value : "");
	m.ids = (uint32_t *)(uintptr_t)ids;
	m.nids = nids;
	ft_wbuf_init(&wb);
	if (ft_msg_port_encode(&wb, self_id(), &m) != 0)
		rc = MPI_ERR_ARG;
	else if (ask(&wb, m.reqid, r) != 0) {
		snprintf(why, whysize, "not run by ftrun: no launcher to ask");
		rc = family;
	} else {
		rc = reply_class(r->err, family);
		snprintf(why, whysize, "%s", r->text);
	}
	ft_wbuf_release(&wb);
	return rc;
}

/*
 * A call of one process that asks the launcher op about name and value
 * (NULL: not used), answered with a text that goes to out (when not
 * NULL, MPI_MAX_PORT_NAME bytes).  Errors are reported as call, on
 * MPI_COMM_WORLD, of family's class unless the launcher says better.
 */
static int
local_op(const char *call, uint32_t op, const char *name, const char *value,
    int family, char *out)
{
	char why[FT_WIRE_TEXT_MAX];
	struct ft_msg_reply r;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if ((op != FT_PORT_OPEN && name == NULL) ||
	    ((op == FT_PORT_PUBLISH || op == FT_PORT_UNPUBLISH) &&
	    value == NULL) ||
	    ((op == FT_PORT_OPEN || op == FT_PORT_LOOKUP) && out == NULL))
		return ft__mpi_err(MPI_COMM_WORLD, MPI_ERR_ARG, call,
		    "NULL argument");
	rc = port_ask(op, name, value, NULL, 0, family, &r, why, sizeof(why));
	if (rc == MPI_SUCCESS && out != NULL)
		snprintf(out, MPI_MAX_PORT_NAME, "%.*s", MPI_MAX_PORT_NAME - 1,
		    r.text);
	ft_msg_reply_free(&r);
	if (rc != MPI_SUCCESS)
		return ft__mpi_err(MPI_COMM_WORLD, rc, call, "'%s': %s",
		    name != NULL ? name : "", why);
	return MPI_SUCCESS;
}

int
PMPI_Open_port(MPI_Info info, char *port_name)
{
	(void)info;
	return local_op("MPI_Open_port", FT_PORT_OPEN, NULL, NULL,
	    MPI_ERR_PORT, port_name);
}

int
PMPI_Close_port(const char *port_name)
{
	return local_op("MPI_Close_port", FT_PORT_CLOSE, port_name, NULL,
	    MPI_ERR_PORT, NULL);
}

/* MPI_Comm_accept and MPI_Comm_connect: op is FT_PORT_ACCEPT or _CONNECT. */
static int
accept_connect(const char *call, uint32_t op, const char *port_name,
    int root, MPI_Comm comm, MPI_Comm *newcomm)
{
	char why[FT_WIRE_TEXT_MAX] = "";
	struct ft_msg_reply r;
	int hdr[H_LEN] = { 0 }, rc;
	uint32_t *ids = NULL;

	FT_MPI_CHECK_INIT(call);
	if ((rc = check_coll(call, root, comm, newcomm)) != MPI_SUCCESS)
		return rc;
	if (comm->rank == root) {
		if (port_name == NULL) {
			hdr[H_ERR] = MPI_ERR_PORT;
			snprintf(why, sizeof(why), "NULL port name");
		} else {
			hdr[H_ERR] = port_ask(op, port_name, NULL, comm->world,
			    (uint32_t)comm->size, MPI_ERR_PORT, &r, why,
			    sizeof(why));
			hdr[H_CTX] = (int)r.ctx;
			hdr[H_NIDS] = (int)r.nids;
			ids = r.ids;
			r.ids = NULL;
			ft_msg_reply_free(&r);
		}
	}
	rc = finish(call, comm, root, hdr, &ids, why, MPI_ERRCODES_IGNORE,
	    newcomm);
	free(ids);
	return rc;
}

int
PMPI_Comm_accept(const char *port_name, MPI_Info info, int root,
    MPI_Comm comm, MPI_Comm *newcomm)
{
	(void)info;
	ft__mpi_replay_refuse("MPI_Comm_accept");
	return accept_connect("MPI_Comm_accept", FT_PORT_ACCEPT, port_name,
	    root, comm, newcomm);
}

int
PMPI_Comm_connect(const char *port_name, MPI_Info info, int root,
    MPI_Comm comm, MPI_Comm *newcomm)
{
	(void)info;
	ft__mpi_replay_refuse("MPI_Comm_connect");
	return accept_connect("MPI_Comm_connect", FT_PORT_CONNECT, port_name,
	    root, comm, newcomm);
}

int
PMPI_Publish_name(const char *service, MPI_Info info, const char *port_name)
{
	(void)info;
	return local_op("MPI_Publish_name", FT_PORT_PUBLISH, service,
	    port_name, MPI_ERR_SERVICE, NULL);
}

int
PMPI_Unpublish_name(const char *service, MPI_Info info,
    const char *port_name)
{
	(void)info;
	return local_op("MPI_Unpublish_name", FT_PORT_UNPUBLISH, service,
	    port_name, MPI_ERR_SERVICE, NULL);
}

int
PMPI_Lookup_name(const char *service, MPI_Info info, char *port_name)
{
	(void)info;
	return local_op("MPI_Lookup_name", FT_PORT_LOOKUP, service, NULL,
	    MPI_ERR_NAME, port_name);
}

/* All of n bytes over fd, either way; 0, or -1. */
static int
fd_io(int fd, void *buf, size_t n, int out)
{
	uint8_t *p = buf;
	ssize_t got;

	while (n > 0) {
		got = out ? write(fd, p, n) : read(fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

/*
 * MPI_Comm_join: both sides send their process id over the socket; the
 * lower one opens a port, sends its name, and accepts; the other
 * connects.  Both must be processes of the same ftrun job.
 */
int
PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
	static const char call[] = "MPI_Comm_join";
	char port[MPI_MAX_PORT_NAME];
	uint8_t word[4];
	uint32_t mine = self_id(), theirs, len;
	int rc;

	FT_MPI_CHECK_INIT(call);
	ft__mpi_replay_refuse(call);
	if (intercomm == NULL)
		return ft__mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, call,
		    "NULL argument");
	ft_be32(word, mine);
	if (fd_io(fd, word, 4, 1) != 0 || fd_io(fd, word, 4, 0) != 0)
		return ft__mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, call, "unable "
		    "to talk over descriptor %d: %s", fd, strerror(errno));
	theirs = ft_rd32(word);
	if (theirs == mine || theirs >= FT_WIRE_MAX_RANKS)
		return ft__mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, call, "the "
		    "other side is not another process of this job");
	if (mine < theirs) {
		if ((rc = PMPI_Open_port(MPI_INFO_NULL, port)) != MPI_SUCCESS)
			return rc;
		len = (uint32_t)strlen(port);
		ft_be32(word, len);
		if (fd_io(fd, word, 4, 1) != 0 ||
		    fd_io(fd, port, len, 1) != 0) {
			(void)PMPI_Close_port(port);
			return ft__mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, call,
			    "unable to send the port over descriptor %d", fd);
		}
		rc = PMPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF,
		    intercomm);
		(void)PMPI_Close_port(port);
		return rc;
	}
	if (fd_io(fd, word, 4, 0) != 0 ||
	    (len = ft_rd32(word)) >= sizeof(port) ||
	    fd_io(fd, port, len, 0) != 0)
		return ft__mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, call, "no port "
		    "name came over descriptor %d", fd);
	port[len] = '\0';
	return PMPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF,
	    intercomm);
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
#pragma weak MPI_Open_port = PMPI_Open_port
#pragma weak MPI_Close_port = PMPI_Close_port
#pragma weak MPI_Comm_accept = PMPI_Comm_accept
#pragma weak MPI_Comm_connect = PMPI_Comm_connect
#pragma weak MPI_Publish_name = PMPI_Publish_name
#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
#pragma weak MPI_Lookup_name = PMPI_Lookup_name
#pragma weak MPI_Comm_join = PMPI_Comm_join

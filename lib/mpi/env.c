/* SPDX-License-Identifier: ISC */
/*
 * MPI's environment: start-up (join the job through the launcher),
 * finalize (a barrier through the launcher, so no rank leaves while
 * another may still talk to it), abort, time, names and versions.
 * MPI_Init is the one place in libft that reads the environment: the
 * launcher's contract with its ranks is made of variables.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "mpi_impl.h"
#include "win.h"

struct ft_mpi_state ft__mpi = { .spin_us = 50 };

static const char *
env_get(const char *name)
{
	return getenv(name);
}

/* Tell the launcher something; best effort, as stderr would be. */
static void
to_launcher(uint32_t kind, const char *text)
{
	struct ft_msg_note n;
	struct ft_conn *ctl;
	struct ft_wbuf wb;

	if (ft__mpi.pt == NULL || (ctl = ft_pt_ctl(ft__mpi.pt)) == NULL) {
		(void)!write(STDERR_FILENO, text, strlen(text));
		return;
	}
	n.kind = kind;
	snprintf(n.text, sizeof(n.text), "%s", text);
	ft_wbuf_init(&wb);
	if (ft_msg_note_encode(&wb, ft_job_self(&ft__mpi.env), &n) == 0)
		(void)ft_conn_queue_copy(ctl, wb.p, wb.len);
	ft_wbuf_release(&wb);
}

void
ft__mpi_note(uint32_t kind, const char *text)
{
	to_launcher(kind, text);
}

static void
diag_to_launcher(const char *line, size_t len)
{
	char text[FT_WIRE_TEXT_MAX];

	snprintf(text, sizeof(text), "%.*s", (int)len, line);
	to_launcher(FT_NOTE_WARNING, text);
}

static void
notify_launcher(void *arg, uint32_t kind, const char *text)
{
	(void)arg;
	if (kind == FT_NOTE_FATAL)
		ft__mpi_abort(FT_EXIT_USAGE, text);
	to_launcher(kind, text);
}

static void
on_view(const struct ft_hdr *h, const uint8_t *body)
{
	struct ft_msg_view v;
	/*
	 * The dead are named by process id across the whole job, spawned
	 * worlds included, so this world's size is no bound: the frame's
	 * length is (the decoder checks the count against it).
	 */
	size_t n = (h->len - FT_WIRE_HDRLEN) / sizeof(*v.dead) + 1;

	if ((v.dead = calloc(n, sizeof(*v.dead))) == NULL)
		ft__mpi_abort(FT_EXIT_TEMP, "out of memory");
	if (ft_msg_view_decode(body, h->len - FT_WIRE_HDRLEN, &v,
	    n > UINT32_MAX ? UINT32_MAX : (uint32_t)n) != 0)
		ft_warnx("ignored a malformed view from the launcher");
	else if (ft_pt_view(ft__mpi.pt, v.dead, v.ndead) != 0)
		/* The launcher ends the job: every copy of a rank is gone. */
		ft_info("a rank has no replica left");
	ft__mpi.views++;
	free(v.dead);
}

/* --ft vlog: a restarted process's new address. */
static void
on_revive(const struct ft_hdr *h, const uint8_t *body)
{
	struct ft_msg_revive rv;

	if (ft_msg_revive_decode(body, h->len - FT_WIRE_HDRLEN, &rv) != 0 ||
	    ft_pt_revive(ft__mpi.pt, rv.proc, &rv.addr) != 0)
		ft_warnx("ignored a malformed REVIVE from the launcher");
	else
		ft__mpi_ftmpi_revived(rv.proc, rv.inc, &rv.addr);
}

/* --ft coord: the newest complete global checkpoint. */
static void
on_complete(const struct ft_hdr *h, const uint8_t *body)
{
	uint64_t epoch;

	if (ft_msg_complete_decode(body, h->len - FT_WIRE_HDRLEN, &epoch) != 0)
		ft_warnx("ignored a malformed COMPLETE from the launcher");
	else
		ft__ckpt_complete(epoch);
}

/* --ft coord with a checkpoint server: the epoch to push (coordsrv). */
static void
on_push(const struct ft_hdr *h, const uint8_t *body)
{
	uint64_t epoch;

	if (ft_msg_push_decode(body, h->len - FT_WIRE_HDRLEN, &epoch) != 0)
		ft_warnx("ignored a malformed PUSH from the launcher");
	else
		ft__ckpt_push(epoch);
}

/* --ft coord: ftrun's checkpoint scheduler. */
static void
on_due(const struct ft_hdr *h, const uint8_t *body)
{
	struct ft_msg_due d;

	if (ft_msg_due_decode(body, h->len - FT_WIRE_HDRLEN, &d) != 0)
		ft_warnx("ignored a malformed DUE from the launcher");
	else
		ft__ckpt_due(d.epoch, d.call);
}

static void
on_ctl(void *arg, const struct ft_hdr *h, const uint8_t *body)
{
	(void)arg;
	if (h == NULL) {
		if (ft__mpi.finalize_ok)
			return;
		/* The launcher is gone: no rank may outlive it. */
		ft_warnx("rank %u: lost the launcher; exiting", ft__mpi.env.rank);
		_exit(FT_EXIT_TEMP);
	}
	if (h->type == FT_MSG_FINALIZE_OK)
		ft__mpi.finalize_ok = 1;
	else if (h->type == FT_MSG_VIEW)
		on_view(h, body);
	else if (h->type == FT_MSG_REVIVE)
		on_revive(h, body);
	else if (h->type == FT_MSG_COORD_COMPLETE)
		on_complete(h, body);
	else if (h->type == FT_MSG_COORD_DUE)
		on_due(h, body);
	else if (h->type == FT_MSG_COORD_PUSH)
		on_push(h, body);
	else if (h->type == FT_MSG_REPLY || h->type == FT_MSG_PROCS)
		ft__mpi_dyn_ctl(h, body);
	else
		ft_warnx("rank %u: ignored a %s frame from the launcher",
		    ft__mpi.env.rank, ft_msg_name(h->type));
}

/* Tell the heartbeat thread where the main thread is. */
static void
hb_publish(unsigned int flags)
{
	if (ft__mpi.heartbeat)
		ft_hb_state(flags, ft__mpi.pt != NULL ?
		    ft_pt_ncompleted(ft__mpi.pt) : 0);
}

/*
 * Beat from now to exit when the launcher watches for hangs: a rank
 * that hangs before the table arrives must be caught too.  A launcher
 * that does not watch sets no descriptor.
 */
static void
start_heartbeat(void)
{
	const char *fd_s = getenv(FT_ENV_HB_FD), *ms_s = getenv(FT_ENV_HB_PERIOD);
	char *end;
	long fd, ms;

	if (fd_s == NULL || ms_s == NULL)
		return;
	fd = strtol(fd_s, &end, 10);
	if (*fd_s == '\0' || *end != '\0' || fd < 0 || fd > 65535)
		goto bad;
	ms = strtol(ms_s, &end, 10);
	if (*ms_s == '\0' || *end != '\0' || ms < 1 || ms > 3600000)
		goto bad;
	if (ft_hb_start((int)fd, ft_job_self(&ft__mpi.env),
	    (uint64_t)ms * 1000000) != 0) {
		/* Without beats the launcher would kill us as hung. */
		ft_warn("MPI_Init: unable to start the heartbeat thread");
		_exit(FT_EXIT_TEMP);
	}
	ft__mpi.heartbeat = 1;
	return;
bad:
	ft_warnx("MPI_Init: the launcher's variables %s and %s are "
	    "malformed; run the program with ftrun", FT_ENV_HB_FD,
	    FT_ENV_HB_PERIOD);
	_exit(FT_EXIT_USAGE);
}

/* --log-server: the logger's key, 32 bytes on an inherited pipe. */
static uint8_t log_key[FT_WIRE_KEYLEN];

static int
read_log_key(const char *fd_s)
{
	char *end;
	long fd;

	fd = strtol(fd_s, &end, 10);
	if (*fd_s == '\0' || *end != '\0' || fd < 0 || fd > 65535)
		return -1;
	return ft_job_key_read((int)fd, log_key);
}

static int
init_common(void)
{
	struct ft_pt_conf pc;
	struct ft_rank_addr self;
	struct ft_msg_table table;
	struct ft_conn ctl;
	const struct ft_proto_ops *proto;
	const char *why, *s;
	char role[32], why_buf[160];
	int rc;

	if (ft__mpi.initialized || ft__mpi.finalized)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "MPI_Init",
		    "MPI is already %s", ft__mpi.finalized ? "finalized" :
		    "initialized");
	ft_diag_init(getenv("FT_PROGNAME") != NULL ? getenv("FT_PROGNAME") :
	    program_invocation_short_name);
	rc = ft_job_env_read(&ft__mpi.env, env_get, &why);
	if (rc < 0) {
		ft_warnx("MPI_Init: the launcher's variable %s is missing or "
		    "malformed; run the program with ftrun", why);
		ft__mpi_abort(FT_EXIT_USAGE, NULL);
	}
	ft__mpi.singleton = rc == 0;
	if (ft__mpi.singleton)
		ft_random(ft__mpi.env.key, sizeof(ft__mpi.env.key));
	else
		start_heartbeat();
	if (ft__mpi.env.nrep > 1)
		snprintf(role, sizeof(role), "rank %u.%u", ft__mpi.env.rank,
		    ft__mpi.env.replica);
	else if (ft__mpi.env.world > 0)
		snprintf(role, sizeof(role), "rank %u:%u", ft__mpi.env.world,
		    ft__mpi.env.rank);
	else
		snprintf(role, sizeof(role), "rank %u", ft__mpi.env.rank);
	ft_diag_setrole(role);
	/* Spinning buys latency when every rank has a core; when ranks
	 * outnumber cores it steals the core the sender needs, so yield. */
	ft__mpi.oversubscribed = (long)ft__mpi.env.base +
	    (long)ft__mpi.env.size * (long)ft__mpi.env.nrep >
	    sysconf(_SC_NPROCESSORS_ONLN);
	if ((s = getenv(FT_ENV_KILL_AFTER)) != NULL) {
		ft__mpi.kill_after = strtoull(s, NULL, 10);
		s = getenv(FT_ENV_KILL_SIGNAL);
		ft__mpi.kill_signal = s != NULL ? (int)strtol(s, NULL, 10) :
		    SIGKILL;
		if (ft__mpi.kill_signal < 1 || ft__mpi.kill_signal > 64)
			ft__mpi.kill_signal = SIGKILL;
	}
	if ((s = getenv("FT_SPIN_US")) != NULL) {
		long v = strtol(s, NULL, 10);

		ft__mpi.spin_us = v < 0 ? 0 : v > 1000000 ? 1000000 : (int)v;
	}
	if ((proto = ft_proto_find(ft__mpi.singleton ? "none" :
	    ft__mpi.env.proto)) == NULL)
		ft__mpi_abort(FT_EXIT_USAGE, "unknown fault-tolerance protocol");
	ft__mpi.ulfm = strcmp(proto->name, "ulfm") == 0 ||
	    strcmp(proto->name, "ftmpi") == 0;
	/* Where processes die on purpose, a line printed is not lost with
	 * its process: stdout is line-buffered, as Open MPI's ranks have
	 * it (their stdout is a pseudo-terminal). */
	if (ft__mpi.ulfm) {
		fflush(stdout);
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	ft__mpi_ftmpi_init();
	/* ftrun --initial-errhandler, as Open MPI's mpiexec (MPI-4.0
	 * mpi_initial_errhandler); ftrun checked the name. */
	if ((s = getenv("FT_INITIAL_ERRHANDLER")) != NULL) {
		if (strcasecmp(s, "mpi_errors_return") == 0)
			ft_mpi_comm_world.errh = ft_mpi_comm_self.errh =
			    MPI_ERRORS_RETURN;
		else if (strcasecmp(s, "mpi_errors_abort") == 0)
			ft_mpi_comm_world.errh = ft_mpi_comm_self.errh =
			    MPI_ERRORS_ABORT;
	}
	memset(&pc, 0, sizeof(pc));
	/* The engine counts every process of the job: spawned worlds
	 * come after the ids of the worlds before them. */
	pc.rank = ft__mpi.env.base + ft__mpi.env.rank;
	pc.size = ft__mpi.env.base + ft__mpi.env.size;
	/* The layout of replication: R processes a rank. */
	pc.ppr = ft__mpi.env.nrep;
	pc.index = ft__mpi.env.replica;
	pc.check_divergence = ft__mpi.env.check_divergence;
	pc.key = ft__mpi.env.key;
	pc.proto = proto;
	pc.force_tcp = ft__mpi.env.force_tcp;
	pc.unix_dir = ft__mpi.env.dir[0] != '\0' ? ft__mpi.env.dir : NULL;
	pc.node = ft__mpi.env.node;
	/* Across hosts, the others reach us on TCP at this address. */
	pc.tcp_host = ft__mpi.env.tcp_host[0] != '\0' ?
	    ft__mpi.env.tcp_host : NULL;
	/* Message logging: the logger, the job's id, our incarnation. */
	if ((s = getenv(FT_ENV_LOG_ADDR)) != NULL && s[0] != '\0') {
		pc.log_addr = s;
		if ((s = getenv(FT_ENV_JOB_ID)) != NULL)
			pc.job = strtoull(s, NULL, 16);
		if ((s = getenv(FT_ENV_INCARNATION)) != NULL)
			pc.incarnation = (uint32_t)strtoul(s, NULL, 10);
		if ((s = getenv(FT_ENV_LOG_MEM)) != NULL)
			pc.log_mem = strtoull(s, NULL, 10);
		s = getenv(FT_ENV_VLOG_STRICT);
		pc.strict = s != NULL && strcmp(s, "1") == 0;
		if ((s = getenv(FT_ENV_LOG_KEYFD)) != NULL &&
		    read_log_key(s) == 0)
			pc.log_key = log_key;
		/* For the tests of divergence: replay nothing. */
		pc.replay_off = getenv("FT_VLOG_TEST_BREAK") != NULL;
	}
	/* ftrun --record, ftreplay run (issue 16). */
	(void)ft__mpi_record_setup(&pc);
	if (ft__mpi.replay) {
		snprintf(role, sizeof(role), "rank %u (replay)",
		    ft__mpi.env.rank);
		ft_diag_setrole(role);
		proto = pc.proto;
	}
	if ((ft__mpi.pt = ft_pt_new(&pc)) == NULL) {
		/* The listeners, or the protocol's init, said why. */
		snprintf(why_buf, sizeof(why_buf), "MPI_Init: unable to start "
		    "the engine with the %s protocol: %s", proto->name,
		    strerror(errno));
		ft__mpi_abort(FT_EXIT_TEMP, why_buf);
	}
	ft_pt_addr(ft__mpi.pt, &self);
	if (ft__mpi.singleton) {
		if ((ft__mpi.replay ? ft__mpi_record_table(ft__mpi.pt,
		    &self) : ft_pt_set_table(ft__mpi.pt, &self, 1)) != 0)
			ft__mpi_abort(FT_EXIT_TEMP, "out of memory");
	} else {
		/* No deadline of our own: the launcher ends the job if a
		 * rank never comes, and ranks may start late. */
		if (ft_job_join(&ft__mpi.env, &self, &ctl, &table,
		    INT32_MAX) != 0) {
			ft_warn("unable to join the job at '%s'",
			    ft__mpi.env.launcher);
			_exit(FT_EXIT_TEMP);
		}
		if (ft_pt_set_table(ft__mpi.pt, table.ranks, table.n) != 0)
			ft__mpi_abort(FT_EXIT_TEMP, "bad rank table");
		ft__mpi_ftmpi_table(table.ranks, table.n);
		ft_msg_table_free(&table);
		/* A spawned world learns of its parents next. */
		if (ft__mpi.env.spawned && ft__mpi_dyn_init_read(&ctl) != 0) {
			ft_warn("unable to learn the parents from '%s'",
			    ft__mpi.env.launcher);
			_exit(FT_EXIT_TEMP);
		}
		ft_pt_set_ctl(ft__mpi.pt, &ctl, on_ctl, NULL);
		if (ft__mpi.env.nrep > 1 || pc.log_addr != NULL) {
			ft_pt_set_notify(ft__mpi.pt, notify_launcher, NULL);
			ft_diag_setsink(diag_to_launcher);
		}
		/* --ft vlog: from an image, before any progress pass. */
		if (pc.log_addr != NULL && pc.incarnation > 0)
			ft__ckpt_vlog_restore(pc.incarnation);
	}
	ft_mpi_comm_world.rank = (int)ft__mpi.env.rank;
	ft_mpi_comm_world.size = (int)ft__mpi.env.size;
	if ((ft_mpi_comm_world.world = calloc(ft__mpi.env.size,
	    sizeof(uint32_t))) == NULL ||
	    (ft_mpi_comm_self.world = calloc(1, sizeof(uint32_t))) == NULL)
		ft__mpi_abort(FT_EXIT_TEMP, "out of memory");
	for (uint32_t i = 0; i < ft__mpi.env.size; i++)
		ft_mpi_comm_world.world[i] = ft__mpi.env.base + i;
	ft_mpi_comm_self.rank = 0;
	ft_mpi_comm_self.size = 1;
	ft_mpi_comm_self.world[0] = ft__mpi_self_rank();
	ft__mpi.initialized = 1;
	return ft__mpi_dyn_init();
}

int
PMPI_Init(int *argc, char ***argv)
{
	int rc;

	ft__mpi.thread_level = MPI_THREAD_SINGLE;
	if ((rc = init_common()) != MPI_SUCCESS)
		return rc;
	return ft__mpi_info_env_init(argc, argv, MPI_THREAD_SINGLE);
}

int
PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc;

	if (provided == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Init_thread", "provided is NULL");
	ft__mpi.thread_level = required < MPI_THREAD_SINGLE ?
	    MPI_THREAD_SINGLE : required > MPI_THREAD_FUNNELED ?
	    MPI_THREAD_FUNNELED : required;
	*provided = ft__mpi.thread_level;
	if ((rc = init_common()) != MPI_SUCCESS)
		return rc;
	return ft__mpi_info_env_init(argc, argv, required);
}

int
PMPI_Query_thread(int *provided)
{
	FT_MPI_CHECK_INIT("MPI_Query_thread");
	if (provided == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Query_thread", "NULL argument");
	*provided = ft__mpi.thread_level;
	return MPI_SUCCESS;
}

int
PMPI_Is_thread_main(int *flag)
{
	FT_MPI_CHECK_INIT("MPI_Is_thread_main");
	if (flag == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Is_thread_main", "NULL argument");
	/* Under FUNNELED only the main thread may call MPI at all. */
	*flag = 1;
	return MPI_SUCCESS;
}

static int
not_busy_and_ok(void *arg)
{
	(void)arg;
	return !ft_pt_busy(ft__mpi.pt) &&
	    (ft__mpi.singleton || ft__mpi.finalize_ok);
}

static int
not_busy(void *arg)
{
	(void)arg;
	return !ft_pt_busy(ft__mpi.pt);
}

int
PMPI_Finalize(void)
{
	struct ft_wbuf wb;
	struct ft_conn *ctl;

	FT_MPI_CHECK_INIT("MPI_Finalize");
	ft__ckpt_finalize();
	ft__mpi_comm_fini_begin();
	/* Every message we started must be out before we say we are done. */
	ft__mpi_wait(not_busy, NULL);
	if (!ft__mpi.singleton && (ctl = ft_pt_ctl(ft__mpi.pt)) != NULL) {
		ft_wbuf_init(&wb);
		if (ft_msg_empty_encode(&wb, ft_job_self(&ft__mpi.env),
		    FT_MSG_FINALIZE) != 0 ||
		    ft_conn_queue_copy(ctl, wb.p, wb.len) != 0)
			ft__mpi_abort(FT_EXIT_TEMP, "unable to tell the launcher");
		ft_wbuf_release(&wb);
	}
	ft__mpi_wait(not_busy_and_ok, NULL);
	ft_diag_setsink(NULL);
	hb_publish(FT_HB_FINALIZED);
	ft_pt_free(ft__mpi.pt);
	ft__mpi.pt = NULL;
	ft__mpi_replay_say("finished");
	ft__mpi_comm_fini_end();
	ft__mpi_errors_fini();
	ft__mpi_fint_fini();
	ft__mpi.finalized = 1;
	return MPI_SUCCESS;
}

int
PMPI_Initialized(int *flag)
{
	if (flag == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Initialized", "NULL argument");
	*flag = ft__mpi.initialized;
	return MPI_SUCCESS;
}

int
PMPI_Finalized(int *flag)
{
	if (flag == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Finalized", "NULL argument");
	*flag = ft__mpi.finalized;
	return MPI_SUCCESS;
}

int
ft__mpi_abort_tell(int code, const char *why)
{
	struct ft_msg_abort ab;
	struct ft_conn *ctl;
	struct ft_wbuf wb;
	uint64_t deadline;
	int rc = -1;

	if (ft__mpi.pt == NULL || ft__mpi.singleton ||
	    (ctl = ft_pt_ctl(ft__mpi.pt)) == NULL)
		return -1;
	ab.code = code;
	/* An empty reason tells the launcher it was MPI_Abort. */
	snprintf(ab.reason, sizeof(ab.reason), "%s",
	    why != NULL ? why : "fatal error");
	ft_wbuf_init(&wb);
	if (ft_msg_abort_encode(&wb, ft_job_self(&ft__mpi.env), &ab) == 0 &&
	    ft_conn_queue_copy(ctl, wb.p, wb.len) == 0) {
		/* Give the launcher a moment to hear it; it kills us
		 * anyway once it has. */
		deadline = ft_now_ns() + 2000000000u;
		while (ft_conn_want_write(ctl) && ft_now_ns() < deadline)
			(void)ft_pt_progress(ft__mpi.pt, 10);
		rc = 0;
	}
	ft_wbuf_release(&wb);
	return rc;
}

void
ft__mpi_abort(int code, const char *why)
{
	if (ft__mpi_abort_tell(code, why) != 0 && why != NULL &&
	    why[0] != '\0' && (ft__mpi.pt == NULL || ft__mpi.singleton ||
	    ft_pt_ctl(ft__mpi.pt) == NULL))
		ft_warnx("aborting: %s", why);
	/* What the rank printed before the error must not be lost. */
	fflush(NULL);
	_exit((code & 0xff) != 0 ? code & 0xff : 1);
}

int
PMPI_Abort(MPI_Comm comm, int code)
{
	(void)comm;
	if (!ft__mpi.initialized || ft__mpi.finalized) {
		fflush(NULL);
		_exit(code & 0xff);
	}
	ft__mpi_abort(code, "");
}

uint32_t
ft__mpi_nprocs(void)
{
	return ft__mpi.pt != NULL ? ft_pt_size(ft__mpi.pt) : 1;
}

uint32_t
ft__mpi_self_rank(void)
{
	return ft__mpi.env.base + ft__mpi.env.rank;
}

void
ft__mpi_poll(void)
{
	(void)ft_pt_progress(ft__mpi.pt, 0);
	ft__mpi_ftmpi_tick();
	ft__mpi_rma_tick();
	hb_publish(0);
}

void
ft__mpi_wait(int (*done)(void *), void *arg)
{
	uint64_t spin_until;

	if (done(arg)) {
		hb_publish(0);
		return;
	}
	hb_publish(FT_HB_IN_MPI);
	spin_until = ft_now_ns() + (uint64_t)ft__mpi.spin_us * 1000;
	while (!done(arg)) {
		/* Spin briefly for latency, then sleep in poll. */
		int spin = ft_now_ns() < spin_until;

		if (ft_pt_progress(ft__mpi.pt, spin ? 0 : 100) != 0)
			ft__mpi_abort(FT_EXIT_TEMP, "progress failed");
		ft__mpi.waits++;
		ft__mpi_ftmpi_tick();
		/* One-sided requests for our windows (rma.c). */
		ft__mpi_rma_tick();
		if (spin && ft__mpi.oversubscribed)
			sched_yield();
	}
	hb_publish(0);
}

void
ft__mpi_decide(uint32_t kind, uint64_t v[3])
{
	ft__mpi_decide_ctx(kind, 0, v);
}

void
ft__mpi_decide_ctx(uint32_t kind, uint32_t ctx, uint64_t v[3])
{
	if (ft_pt_decide_ctx(ft__mpi.pt, kind, ctx, v) != 0)
		ft__mpi_abort(FT_EXIT_TEMP, "the replicas of this rank diverged");
}

double
PMPI_Wtime(void)
{
	uint64_t v[3] = { 0, 0, 0 };
	double t;

	/* Replicas read the master's clock, so they branch alike on it. */
	if (ft__mpi.pt == NULL || !ft_pt_nondet_on(ft__mpi.pt))
		return ft_now();
	/* A replica that becomes master while waiting reads the clock
	 * then, not before. */
	(void)ft_pt_decides(ft__mpi.pt);
	t = ft_now();
	memcpy(&v[0], &t, sizeof(t));
	ft__mpi_decide(FT_ND_CLOCK, v);
	memcpy(&t, &v[0], sizeof(t));
	return t;
}

double
PMPI_Wtick(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
		return 1e-9;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
PMPI_Get_processor_name(char *name, int *len)
{
	char host[MPI_MAX_PROCESSOR_NAME];

	if (name == NULL || len == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Get_processor_name", "NULL argument");
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
	*len = (int)strlen(name);
	return MPI_SUCCESS;
}

int
PMPI_Get_version(int *version, int *subversion)
{
	if (version == NULL || subversion == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Get_version", "NULL argument");
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}

int
PMPI_Get_library_version(char *version, int *len)
{
	if (version == NULL || len == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Get_library_version", "NULL argument");
	snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
	    "ft 0.1 (MPI %d.%d subset, wire protocol %d)", MPI_VERSION,
	    MPI_SUBVERSION, FT_WIRE_VERSION);
	*len = (int)strlen(version);
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Init = PMPI_Init
#pragma weak MPI_Init_thread = PMPI_Init_thread
#pragma weak MPI_Query_thread = PMPI_Query_thread
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
#pragma weak MPI_Finalize = PMPI_Finalize
#pragma weak MPI_Initialized = PMPI_Initialized
#pragma weak MPI_Finalized = PMPI_Finalized
#pragma weak MPI_Abort = PMPI_Abort
#pragma weak MPI_Wtime = PMPI_Wtime
#pragma weak MPI_Wtick = PMPI_Wtick
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
#pragma weak MPI_Get_version = PMPI_Get_version
#pragma weak MPI_Get_library_version = PMPI_Get_library_version

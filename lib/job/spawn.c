/* SPDX-License-Identifier: ISC */
/*
 * Dynamic processes on the launcher's side (MPI chapter 10): spawns,
 * ports and service names, and the links they make between worlds.
 *
 * A world is a set of processes started together, with its own
 * MPI_COMM_WORLD: world 0 is the job's first, world k the k-th spawn.
 * New processes get the process ids after every id given so far (ids
 * are never reused, so that no frame, view, failed group or table can
 * take a new process for a dead one).  The universe size bounds the
 * processes alive at once, not the ids: a job that replaces its dead
 * goes past it, up to FT_JOB_IDS_PAST_UNIVERSE more ids, each with a
 * block of context ids of its own (lib/mpi/misc.c).  A spawn
 * answers its root once every new process has joined (REGISTER): the
 * launcher then tells every process that is running of the new ones
 * (PROCS), sends the new ones the TABLE of everyone and their parents
 * (REPLY of reqid 0), and answers the root.  No process can learn of
 * a new id before its PROCS frame is on its way, so a process that
 * meets an id it does not know waits for that frame (ft_pt_grow).
 *
 * A spawn, or an accept meeting a connect, makes a link between the
 * processes of both sides, with a context id unique in the job.  The
 * barrier of MPI_Finalize covers the processes connected through live
 * links: a link dies when each of its processes has disconnected it
 * (MPI_Comm_disconnect) or ended.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "spawn.h"

#define PORTS_MAX	4096	/* open ports and published names, each */

struct world {
	uint32_t		 base, n, nreg;
	int			 tabled, failed;
	/* The spawn that made it, answered when every process joined. */
	uint32_t		 root, reqid, ctx;
	struct ft_launch_proc	*procs;		/* n, owned */
};

struct link {
	uint32_t	 ctx;
	uint32_t	 n;
	uint32_t	*procs;
	uint8_t		*left;		/* disconnected */
};

/* A root waiting in MPI_Comm_accept or MPI_Comm_connect. */
struct waiter {
	uint32_t	 root, reqid, n;
	uint32_t	*ids;		/* its group */
};

struct port {
	char		 name[FT_PORT_NAME_MAX];
	uint32_t	 owner;
	struct waiter	*acc, *con;
	size_t		 nacc, ncon;
};

struct service {
	char		 name[FT_PORT_NAME_MAX];
	char		 port[FT_PORT_NAME_MAX];
};

struct ft_spawner {
	struct launcher		*l;
	uint32_t		 n0, universe;
	uint32_t		 next_ctx;
	struct world		*worlds;
	uint32_t		 nworlds;
	struct link		*links;
	size_t			 nlinks;
	struct port		*ports;
	size_t			 nports;
	struct service		*svcs;
	size_t			 nsvcs;
	uint32_t		 port_seq;
	uint8_t			*released;	/* FINALIZE_OK sent */
	size_t			 nreleased;
};

struct ft_spawner *
ft__spawn_new(struct launcher *l, uint32_t n0, uint32_t universe)
{
	struct ft_spawner *sp;

	if ((sp = calloc(1, sizeof(*sp))) == NULL ||
	    (sp->worlds = calloc(1, sizeof(*sp->worlds))) == NULL) {
		free(sp);
		return NULL;
	}
	sp->l = l;
	sp->n0 = n0;
	sp->universe = universe > n0 ? universe : n0;
	sp->next_ctx = FT_WIRE_CTX_JOB;
	sp->worlds[0].n = n0;
	sp->worlds[0].tabled = 1;
	sp->nworlds = 1;
	return sp;
}

static void
proc_free(struct ft_launch_proc *p)
{
	size_t k;

	free(p->prog);
	free(p->wdir);
	for (k = 0; p->argv != NULL && p->argv[k] != NULL; k++)
		free(p->argv[k]);
	free(p->argv);
	for (k = 0; p->env != NULL && p->env[k] != NULL; k++)
		free(p->env[k]);
	free(p->env);
}

static void
waiters_free(struct waiter *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i].ids);
	free(w);
}

void
ft__spawn_free(struct ft_spawner *sp)
{
	uint32_t i, k;
	size_t j;

	if (sp == NULL)
		return;
	for (i = 0; i < sp->nworlds; i++) {
		for (k = 0; sp->worlds[i].procs != NULL && k < sp->worlds[i].n;
		    k++)
			proc_free(&sp->worlds[i].procs[k]);
		free(sp->worlds[i].procs);
	}
	for (j = 0; j < sp->nlinks; j++) {
		free(sp->links[j].procs);
		free(sp->links[j].left);
	}
	for (j = 0; j < sp->nports; j++) {
		waiters_free(sp->ports[j].acc, sp->ports[j].nacc);
		waiters_free(sp->ports[j].con, sp->ports[j].ncon);
	}
	free(sp->worlds);
	free(sp->links);
	free(sp->ports);
	free(sp->svcs);
	free(sp->released);
	free(sp);
}

int
ft__spawn_worlds(const struct ft_spawner *sp)
{
	return sp != NULL && sp->nworlds > 1;
}

/* The world of process id. */
static struct world *
world_of(struct ft_spawner *sp, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < sp->nworlds; i++)
		if (id >= sp->worlds[i].base &&
		    id - sp->worlds[i].base < sp->worlds[i].n)
			return &sp->worlds[i];
	return NULL;
}

static void
send_empty(struct ft_spawner *sp, uint32_t to, unsigned int type)
{
	struct ft_wbuf wb;

	ft_wbuf_init(&wb);
	if (ft_msg_empty_encode(&wb, FT_WIRE_LAUNCHER, type) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode %s", ft_msg_name(type));
	ft__launch_send(sp->l, to, &wb);
	ft_wbuf_release(&wb);
}

/*
 * Send process to a REPLY; with_codes, one FT_REPLY_OK a process of ids
 * (a spawn that started them all).  A failure to encode ends ftrun.
 */
static void
reply_codes(struct ft_spawner *sp, uint32_t to, uint32_t reqid, uint32_t err,
    uint32_t ctx, const char *text, const uint32_t *ids, uint32_t nids,
    int with_codes)
{
	struct ft_msg_reply r;
	struct ft_wbuf wb;
	uint32_t *codes = NULL, i;

	memset(&r, 0, sizeof(r));
	r.reqid = reqid;
	r.err = err;
	r.ctx = ctx;
	snprintf(r.text, sizeof(r.text), "%s", text != NULL ? text : "");
	r.ids = (uint32_t *)(uintptr_t)ids;
	r.nids = nids;
	if (with_codes && (codes = calloc(nids, sizeof(*codes))) != NULL) {
		for (i = 0; i < nids; i++)
			codes[i] = FT_REPLY_OK;
		r.codes = codes;
		r.ncodes = nids;
	}
	ft_wbuf_init(&wb);
	if (ft_msg_reply_encode(&wb, FT_WIRE_LAUNCHER, &r) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode a REPLY");
	ft__launch_send(sp->l, to, &wb);
	ft_wbuf_release(&wb);
	free(codes);
}

static void
reply(struct ft_spawner *sp, uint32_t to, uint32_t reqid, uint32_t err,
    uint32_t ctx, const char *text, const uint32_t *ids, uint32_t nids)
{
	reply_codes(sp, to, reqid, err, ctx, text, ids, nids, 0);
}

/* A new context id, 4 wide (an intercommunicator and its local one). */
static int
ctx_new(struct ft_spawner *sp, uint32_t *ctx)
{
	if (sp->next_ctx > FT_WIRE_CTX_JOB_END - 4)
		return -1;
	*ctx = sp->next_ctx;
	sp->next_ctx += 4;
	return 0;
}

/* Link the n1 processes a with the n2 processes b, on ctx. */
static int
link_add(struct ft_spawner *sp, uint32_t ctx, const uint32_t *a, uint32_t n1,
    const uint32_t *b, uint32_t n2)
{
	struct link *nl, *k;

	if ((nl = reallocarray(sp->links, sp->nlinks + 1, sizeof(*nl))) ==
	    NULL)
		return -1;
	sp->links = nl;
	k = &sp->links[sp->nlinks];
	memset(k, 0, sizeof(*k));
	k->ctx = ctx;
	k->n = n1 + n2;
	if ((k->procs = calloc(k->n, sizeof(*k->procs))) == NULL ||
	    (k->left = calloc(k->n, 1)) == NULL) {
		free(k->procs);
		return -1;
	}
	memcpy(k->procs, a, n1 * sizeof(*a));
	memcpy(k->procs + n1, b, n2 * sizeof(*b));
	sp->nlinks++;
	return 0;
}

/*
 * Are the n ids a group the sender may name: each a process that
 * joined, the sender among them?
 */
static int
group_ok(struct ft_spawner *sp, uint32_t from, const uint32_t *ids,
    uint32_t n)
{
	uint32_t i, np = ft__launch_nprocs(sp->l);
	int self = 0;

	if (n == 0 || n > np)
		return 0;
	for (i = 0; i < n; i++) {
		if (ids[i] >= np || !(ft__launch_state(sp->l, ids[i]) &
		    FT_LS_REGISTERED))
			return 0;
		self |= ids[i] == from;
	}
	return self;
}

/* Spawning ---------------------------------------------------------- */

static const char *
info_get(const struct ft_spawn_cmd *c, const char *key)
{
	uint32_t k;

	for (k = 0; k < c->ninfo; k++)
		if (strcmp(c->keys[k], key) == 0)
			return c->vals[k];
	return NULL;
}

/* Make the relative path in p (size bytes), which exists, absolute. */
static int
absolute(char *p, size_t size)
{
	char *abs;
	int n;

	if ((abs = realpath(p, NULL)) == NULL)
		return -1;
	n = snprintf(p, size, "%s", abs);
	free(abs);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Find command c's program as the process will run it: a relative name
 * with a slash from its working directory (info "wdir"), a name without
 * one in the directories of info "path", then in ftrun's PATH.
 * Returns 0, or -1 with errno as ft_find_program.
 */
static int
resolve(const struct ft_spawn_cmd *c, const char *path, char *out,
    size_t size)
{
	const char *wdir = info_get(c, "wdir"), *ipath = info_get(c, "path");
	char name[FT_SPAWN_STR_MAX + 1024], *both = NULL;
	int rc;

	if (strchr(c->command, '/') != NULL && c->command[0] != '/' &&
	    wdir != NULL && wdir[0] != '\0') {
		if ((size_t)snprintf(name, sizeof(name), "%s/%s", wdir,
		    c->command) >= sizeof(name)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		return ft_find_program(name, NULL, out, size);
	}
	if (ipath != NULL && ipath[0] != '\0' &&
	    asprintf(&both, "%s:%s", ipath, path != NULL && path[0] != '\0' ?
	    path : "/usr/local/bin:/usr/bin:/bin") < 0)
		return -1;
	rc = ft_find_program(c->command, both != NULL ? both : path, out,
	    size);
	free(both);
	/* Found through a relative directory: the process runs it from
	 * its own working directory ("wdir"), not ours. */
	if (rc == 0 && out[0] != '/' && absolute(out, size) != 0)
		return -1;
	return rc;
}

/* Fill the spec of process rank of world k from command c (index ci). */
static int
proc_spec(struct ft_launch_proc *p, const struct ft_spawn_cmd *c,
    uint32_t ci, const char *prog, uint32_t k, uint32_t base,
    uint32_t rank, uint32_t size)
{
	const char *wdir = info_get(c, "wdir"), *slash;
	uint32_t a;

	memset(p, 0, sizeof(*p));
	p->rank = rank;
	p->size = size;
	snprintf(p->label, sizeof(p->label), "%u:%u", k, rank);
	slash = strrchr(c->command, '/');
	if ((p->prog = strdup(prog)) == NULL ||
	    (wdir != NULL && wdir[0] != '\0' &&
	    (p->wdir = strdup(wdir)) == NULL) ||
	    (p->argv = calloc((size_t)c->argc + 2, sizeof(*p->argv))) ==
	    NULL || (p->env = calloc(6, sizeof(*p->env))) == NULL ||
	    (p->argv[0] = strdup(c->command)) == NULL)
		return -1;
	for (a = 0; a < c->argc; a++)
		if ((p->argv[a + 1] = strdup(c->argv[a])) == NULL)
			return -1;
	if (asprintf(&p->env[0], "%s=%u", FT_ENV_WORLD_BASE, base) < 0 ||
	    asprintf(&p->env[1], "%s=%u", FT_ENV_WORLD, k) < 0 ||
	    asprintf(&p->env[2], "%s=%u", FT_ENV_APPNUM, ci) < 0 ||
	    asprintf(&p->env[3], "%s=1", FT_ENV_PARENT) < 0 ||
	    asprintf(&p->env[4], "FT_PROGNAME=%s", slash != NULL ? slash + 1 :
	    c->command) < 0)
		return -1;
	return 0;
}

static void
spawn_fail(struct ft_spawner *sp, uint32_t from, uint32_t reqid,
    uint32_t err, const char *fmt, ...) FT_PRINTF(5, 6);

/* Answer a spawn that started nothing. */
static void
spawn_fail(struct ft_spawner *sp, uint32_t from, uint32_t reqid,
    uint32_t err, const char *fmt, ...)
{
	char text[FT_WIRE_TEXT_MAX], shown[2 * FT_WIRE_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ft__launch_json(text, shown, sizeof(shown));
	ft__launch_event(sp->l, "\"event\":\"spawn-failed\",\"by\":%u,"
	    "\"reason\":\"%s\"", from, shown);
	reply(sp, from, reqid, err, 0, text, NULL, 0);
}

/* The processes not yet ended, failed or cancelled. */
static uint32_t
nlive(struct ft_spawner *sp)
{
	uint32_t id, n = 0, nprocs = ft__launch_nprocs(sp->l);

	for (id = 0; id < nprocs; id++)
		if (!(ft__launch_state(sp->l, id) & FT_LS_EXITED))
			n++;
	return n;
}

/* The process ids the job may give over its life. */
static uint32_t
ids_max(const struct ft_spawner *sp)
{
	uint64_t n = (uint64_t)sp->universe + FT_JOB_IDS_PAST_UNIVERSE;

	return n < FT_WIRE_MAX_RANKS ? (uint32_t)n : FT_WIRE_MAX_RANKS;
}

static int
on_spawn(struct ft_spawner *sp, uint32_t from, const uint8_t *body,
    size_t blen)
{
	const struct ft_launch *cf = ft__launch_conf(sp->l);
	struct ft_msg_spawn m;
	struct ft_launch_proc *procs = NULL;
	struct world *w, *nw;
	uint32_t *ids = NULL, first, failed, i, k, r, at, ctx, wk, live;
	uint64_t total = 0;
	char prog[4096];

	if (ft_msg_spawn_decode(body, blen, &m) != 0)
		return -1;
	if (!group_ok(sp, from, m.parents, m.nparents)) {
		ft_msg_spawn_free(&m);
		errno = EPROTO;
		return -1;
	}
	for (i = 0; i < m.ncmds; i++)
		total += m.cmds[i].maxprocs;
	if (ft__launch_nrep(sp->l) > 1) {
		spawn_fail(sp, from, m.reqid, FT_REPLY_REFUSED, "dynamic "
		    "processes are not supported with replicas (ftrun -r %u)",
		    ft__launch_nrep(sp->l));
		goto done;
	}
	if (total > sp->universe - (live = nlive(sp))) {
		spawn_fail(sp, from, m.reqid, FT_REPLY_UNIVERSE, "%llu more "
		    "processes would exceed the universe size of %u, of "
		    "which %u are alive (ftrun --universe-size)",
		    (unsigned long long)total, sp->universe, live);
		goto done;
	}
	if (total > ids_max(sp) - ft__launch_nprocs(sp->l)) {
		spawn_fail(sp, from, m.reqid, FT_REPLY_UNIVERSE, "%llu more "
		    "processes would exceed the %u process ids a job with a "
		    "universe size of %u gives over its life, of which %u "
		    "are given", (unsigned long long)total, ids_max(sp),
		    sp->universe, ft__launch_nprocs(sp->l));
		goto done;
	}
	for (i = 0; i < m.ncmds; i++)
		if (resolve(&m.cmds[i], cf->path, prog, sizeof(prog)) != 0) {
			spawn_fail(sp, from, m.reqid, errno == ENOENT ?
			    FT_REPLY_NOPROG : FT_REPLY_EXEC, "unable to run "
			    "'%s': %s", m.cmds[i].command, strerror(errno));
			goto done;
		}
	if ((nw = reallocarray(sp->worlds, sp->nworlds + 1,
	    sizeof(*nw))) == NULL)
		goto nomem;
	sp->worlds = nw;
	if (ctx_new(sp, &ctx) != 0 ||
	    (procs = calloc(total, sizeof(*procs))) == NULL ||
	    (ids = calloc(total, sizeof(*ids))) == NULL)
		goto nomem;
	wk = sp->nworlds;
	first = ft__launch_nprocs(sp->l);
	for (i = 0, at = 0; i < m.ncmds; i++) {
		(void)resolve(&m.cmds[i], cf->path, prog, sizeof(prog));
		for (r = 0; r < m.cmds[i].maxprocs; r++, at++)
			if (proc_spec(&procs[at], &m.cmds[i], i, prog, wk,
			    first, at, (uint32_t)total) != 0)
				goto nomem;
	}
	for (i = 0; i < total; i++)
		ids[i] = first + i;
	if (link_add(sp, ctx, m.parents, m.nparents, ids,
	    (uint32_t)total) != 0)
		goto nomem;
	if (ft__launch_add(sp->l, procs, (uint32_t)total, &first,
	    &failed) != 0) {
		/* The link is left dead: its processes are gone. */
		for (k = 0; k < sp->links[sp->nlinks - 1].n; k++)
			sp->links[sp->nlinks - 1].left[k] = 1;
		w = &sp->worlds[sp->nworlds++];
		memset(w, 0, sizeof(*w));
		w->base = first;
		w->n = failed + 1;
		w->failed = 1;
		w->procs = procs;
		for (k = w->n; k < total; k++)
			proc_free(&procs[k]);
		spawn_fail(sp, from, m.reqid, FT_REPLY_EXEC, "unable to run "
		    "'%s': %s", procs[failed].argv[0], strerror(errno));
		free(ids);
		goto done;
	}
	w = &sp->worlds[sp->nworlds++];
	memset(w, 0, sizeof(*w));
	w->base = first;
	w->n = (uint32_t)total;
	w->root = from;
	w->reqid = m.reqid;
	w->ctx = ctx;
	w->procs = procs;
	ft__launch_event(sp->l, "\"event\":\"spawn-world\",\"world\":%u,"
	    "\"first\":%u,\"n\":%u,\"by\":%u,\"commands\":%u", wk, first,
	    w->n, from, m.ncmds);
	free(ids);
	ft_msg_spawn_free(&m);
	return 0;
nomem:
	for (i = 0; procs != NULL && i < total; i++)
		proc_free(&procs[i]);
	free(procs);
	free(ids);
	spawn_fail(sp, from, m.reqid, FT_REPLY_NOMEM, "out of memory");
done:
	ft_msg_spawn_free(&m);
	return 0;
}

/* Is process id one whose TABLE went out, and still running? */
static int
tabled(struct ft_spawner *sp, uint32_t id)
{
	unsigned int st = ft__launch_state(sp->l, id);
	struct world *w;

	if ((st & FT_LS_EXITED) || !(st & FT_LS_REGISTERED))
		return 0;
	if (id < sp->n0)
		return (st & FT_LS_TABLED) != 0;
	return (w = world_of(sp, id)) != NULL && w->tabled;
}

/* Every process of world w joined: tell everyone, and answer. */
static void
world_ready(struct ft_spawner *sp, struct world *w)
{
	uint32_t np = ft__launch_nprocs(sp->l), i, *parents = NULL, *kids;
	struct ft_msg_procs pr;
	struct ft_msg_table t;
	struct ft_wbuf wb;
	struct link *k = NULL;
	size_t j;

	for (j = 0; j < sp->nlinks; j++)
		if (sp->links[j].ctx == w->ctx)
			k = &sp->links[j];
	if (k == NULL)
		FT_BUG();
	parents = k->procs;
	kids = k->procs + (k->n - w->n);
	if ((t.ranks = calloc(np, sizeof(*t.ranks))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	t.n = np;
	for (i = 0; i < np; i++)
		if (ft__launch_state(sp->l, i) & FT_LS_REGISTERED)
			t.ranks[i] = *ft__launch_addr(sp->l, i);
	/* First the news, to every process that can meet the new ones. */
	pr.first = w->base;
	pr.t.n = w->n;
	pr.t.ranks = t.ranks + w->base;
	ft_wbuf_init(&wb);
	if (ft_msg_procs_encode(&wb, FT_WIRE_LAUNCHER, &pr) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode PROCS");
	for (i = 0; i < np; i++)
		if ((i < w->base || i - w->base >= w->n) && tabled(sp, i))
			ft__launch_send(sp->l, i, &wb);
	ft_wbuf_reset(&wb);
	if (ft_msg_table_encode(&wb, FT_WIRE_LAUNCHER, &t) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode the rank table");
	for (i = 0; i < w->n; i++)
		ft__launch_send(sp->l, w->base + i, &wb);
	ft_wbuf_release(&wb);
	free(t.ranks);
	w->tabled = 1;
	for (i = 0; i < w->n; i++)
		reply(sp, w->base + i, 0, FT_REPLY_OK, w->ctx, NULL, parents,
		    k->n - w->n);
	reply_codes(sp, w->root, w->reqid, FT_REPLY_OK, w->ctx, NULL, kids,
	    w->n, 1);
	ft__launch_event(sp->l, "\"event\":\"spawn-ready\",\"world\":%u,"
	    "\"ctx\":%u", (uint32_t)(w - sp->worlds), w->ctx);
}

void
ft__spawn_registered(struct ft_spawner *sp, uint32_t id)
{
	struct world *w = world_of(sp, id);

	if (w == NULL || w->failed || w->tabled)
		return;
	if (++w->nreg == w->n)
		world_ready(sp, w);
}

int
ft__spawn_exited(struct ft_spawner *sp, uint32_t id)
{
	struct world *w = world_of(sp, id);
	struct link *k;
	uint32_t i;
	size_t j;

	if (w == NULL || w->tabled)
		return 0;
	if (w->failed)
		return 1;
	/* It ended before the spawn was done: the spawn fails. */
	w->failed = 1;
	for (i = 0; i < w->n; i++)
		ft__launch_cancel(sp->l, w->base + i, w->base + i != id);
	for (j = 0; j < sp->nlinks; j++) {
		k = &sp->links[j];
		if (k->ctx == w->ctx)
			memset(k->left, 1, k->n);
	}
	spawn_fail(sp, w->root, w->reqid, FT_REPLY_UNJOINED, "process %s of "
	    "'%s' ended before calling MPI_Init", w->procs[id - w->base].label,
	    w->procs[id - w->base].argv[0]);
	return 1;
}

/* Ports and names --------------------------------------------------- */

static struct port *
port_find(struct ft_spawner *sp, const char *name)
{
	size_t i;

	for (i = 0; i < sp->nports; i++)
		if (strcmp(sp->ports[i].name, name) == 0)
			return &sp->ports[i];
	return NULL;
}

static struct service *
service_find(struct ft_spawner *sp, const char *name)
{
	size_t i;

	for (i = 0; i < sp->nsvcs; i++)
		if (strcmp(sp->svcs[i].name, name) == 0)
			return &sp->svcs[i];
	return NULL;
}

/* Pair the first waiting accept of port p with its first connect. */
static void
port_match(struct ft_spawner *sp, struct port *p)
{
	struct waiter a, c;
	uint32_t ctx;

	while (p->nacc > 0 && p->ncon > 0) {
		a = p->acc[0];
		c = p->con[0];
		memmove(p->acc, p->acc + 1, --p->nacc * sizeof(*p->acc));
		memmove(p->con, p->con + 1, --p->ncon * sizeof(*p->con));
		if (ctx_new(sp, &ctx) != 0 ||
		    link_add(sp, ctx, a.ids, a.n, c.ids, c.n) != 0) {
			reply(sp, a.root, a.reqid, FT_REPLY_NOMEM, 0,
			    "out of context ids or memory", NULL, 0);
			reply(sp, c.root, c.reqid, FT_REPLY_NOMEM, 0,
			    "out of context ids or memory", NULL, 0);
		} else {
			reply(sp, a.root, a.reqid, FT_REPLY_OK, ctx, NULL,
			    c.ids, c.n);
			reply(sp, c.root, c.reqid, FT_REPLY_OK, ctx, NULL,
			    a.ids, a.n);
			ft__launch_event(sp->l, "\"event\":\"connect\","
			    "\"accept\":%u,\"connect\":%u,\"ctx\":%u", a.root,
			    c.root, ctx);
		}
		free(a.ids);
		free(c.ids);
	}
}

/* Answer every root waiting on port p: it is gone. */
static void
port_drop(struct ft_spawner *sp, struct port *p)
{
	size_t i;

	for (i = 0; i < p->nacc; i++)
		reply(sp, p->acc[i].root, p->acc[i].reqid, FT_REPLY_PORT, 0,
		    "the port was closed", NULL, 0);
	for (i = 0; i < p->ncon; i++)
		reply(sp, p->con[i].root, p->con[i].reqid, FT_REPLY_PORT, 0,
		    "the port was closed", NULL, 0);
	waiters_free(p->acc, p->nacc);
	waiters_free(p->con, p->ncon);
	*p = sp->ports[--sp->nports];
}

static void
disconnect(struct ft_spawner *sp, uint32_t from, uint32_t ctx)
{
	struct link *k;
	uint32_t i;
	size_t j;

	for (j = 0; j < sp->nlinks; j++) {
		k = &sp->links[j];
		if (k->ctx != ctx)
			continue;
		for (i = 0; i < k->n; i++)
			if (k->procs[i] == from)
				k->left[i] = 1;
	}
	ft__spawn_finalize(sp);
}

static int
on_port(struct ft_spawner *sp, uint32_t from, const uint8_t *body,
    size_t blen)
{
	struct ft_msg_port m;
	struct waiter *nw, **list;
	struct service *sv;
	struct port *p, *np;
	size_t *count;
	char text[FT_WIRE_TEXT_MAX];

	if (ft_msg_port_decode(body, blen, &m) != 0)
		return -1;
	switch (m.op) {
	case FT_PORT_OPEN:
		if (sp->nports >= PORTS_MAX || (np = reallocarray(sp->ports,
		    sp->nports + 1, sizeof(*np))) == NULL) {
			reply(sp, from, m.reqid, FT_REPLY_NOMEM, 0,
			    "too many open ports", NULL, 0);
			break;
		}
		sp->ports = np;
		p = &sp->ports[sp->nports++];
		memset(p, 0, sizeof(*p));
		p->owner = from;
		snprintf(p->name, sizeof(p->name), "ft-port:%u:%u", from,
		    ++sp->port_seq);
		reply(sp, from, m.reqid, FT_REPLY_OK, 0, p->name, NULL, 0);
		break;
	case FT_PORT_CLOSE:
		if ((p = port_find(sp, m.name)) == NULL || p->owner != from) {
			reply(sp, from, m.reqid, FT_REPLY_PORT, 0,
			    "no such port of this process", NULL, 0);
			break;
		}
		port_drop(sp, p);
		reply(sp, from, m.reqid, FT_REPLY_OK, 0, NULL, NULL, 0);
		break;
	case FT_PORT_ACCEPT:
	case FT_PORT_CONNECT:
		if (!group_ok(sp, from, m.ids, m.nids)) {
			ft_msg_port_free(&m);
			errno = EPROTO;
			return -1;
		}
		if ((p = port_find(sp, m.name)) == NULL) {
			snprintf(text, sizeof(text), "no such port '%s'",
			    m.name);
			reply(sp, from, m.reqid, FT_REPLY_PORT, 0, text, NULL,
			    0);
			break;
		}
		list = m.op == FT_PORT_ACCEPT ? &p->acc : &p->con;
		count = m.op == FT_PORT_ACCEPT ? &p->nacc : &p->ncon;
		if ((nw = reallocarray(*list, *count + 1, sizeof(*nw))) ==
		    NULL) {
			reply(sp, from, m.reqid, FT_REPLY_NOMEM, 0,
			    "out of memory", NULL, 0);
			break;
		}
		*list = nw;
		nw[*count] = (struct waiter){ from, m.reqid, m.nids, m.ids };
		(*count)++;
		m.ids = NULL;
		m.nids = 0;
		port_match(sp, p);
		break;
	case FT_PORT_PUBLISH:
		if (service_find(sp, m.name) != NULL) {
			reply(sp, from, m.reqid, FT_REPLY_SERVICE, 0,
			    "the service name is already published", NULL, 0);
			break;
		}
		if (sp->nsvcs >= PORTS_MAX || (sv = reallocarray(sp->svcs,
		    sp->nsvcs + 1, sizeof(*sv))) == NULL) {
			reply(sp, from, m.reqid, FT_REPLY_NOMEM, 0,
			    "too many published names", NULL, 0);
			break;
		}
		sp->svcs = sv;
		sv = &sp->svcs[sp->nsvcs++];
		snprintf(sv->name, sizeof(sv->name), "%s", m.name);
		snprintf(sv->port, sizeof(sv->port), "%s", m.value);
		reply(sp, from, m.reqid, FT_REPLY_OK, 0, NULL, NULL, 0);
		break;
	case FT_PORT_UNPUBLISH:
		if ((sv = service_find(sp, m.name)) == NULL ||
		    strcmp(sv->port, m.value) != 0) {
			reply(sp, from, m.reqid, FT_REPLY_SERVICE, 0,
			    "the service name is not published with this port",
			    NULL, 0);
			break;
		}
		*sv = sp->svcs[--sp->nsvcs];
		reply(sp, from, m.reqid, FT_REPLY_OK, 0, NULL, NULL, 0);
		break;
	case FT_PORT_LOOKUP:
		if ((sv = service_find(sp, m.name)) == NULL)
			reply(sp, from, m.reqid, FT_REPLY_NAME, 0,
			    "no such service name", NULL, 0);
		else
			reply(sp, from, m.reqid, FT_REPLY_OK, 0, sv->port,
			    NULL, 0);
		break;
	case FT_PORT_DISCONNECT:
		disconnect(sp, from, m.ctx);
		break;
	}
	ft_msg_port_free(&m);
	return 0;
}

int
ft__spawn_frame(struct ft_spawner *sp, uint32_t id, const struct ft_hdr *h,
    const uint8_t *body)
{
	size_t blen = h->len - FT_WIRE_HDRLEN;

	/* Only a process that runs MPI asks. */
	if (!tabled(sp, id)) {
		errno = EPROTO;
		return -1;
	}
	if (h->type == FT_MSG_SPAWN)
		return on_spawn(sp, id, body, blen);
	return on_port(sp, id, body, blen);
}

/* MPI_Finalize ------------------------------------------------------ */

static uint32_t
uf_find(uint32_t *up, uint32_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

void
ft__spawn_finalize(struct ft_spawner *sp)
{
	uint32_t np = ft__launch_nprocs(sp->l), *up, i, p, a, b;
	unsigned int st;
	uint8_t *done, *nr;
	struct world *w;
	struct link *k;
	int live;
	size_t j;

	if (sp->nreleased < np) {
		if ((nr = realloc(sp->released, np)) == NULL)
			return;
		memset(nr + sp->nreleased, 0, np - sp->nreleased);
		sp->released = nr;
		sp->nreleased = np;
	}
	if ((up = calloc(sp->nworlds, sizeof(*up))) == NULL ||
	    (done = calloc(sp->nworlds, 1)) == NULL) {
		free(up);
		return;
	}
	for (i = 0; i < sp->nworlds; i++)
		up[i] = i;
	/* Worlds are connected through the links still alive. */
	for (j = 0; j < sp->nlinks; j++) {
		k = &sp->links[j];
		for (i = 0, live = 0; i < k->n && !live; i++)
			live = !k->left[i] && !(ft__launch_state(sp->l,
			    k->procs[i]) & FT_LS_EXITED);
		if (!live)
			continue;
		a = uf_find(up, (uint32_t)(world_of(sp, k->procs[0]) -
		    sp->worlds));
		for (i = 1; i < k->n; i++) {
			b = uf_find(up, (uint32_t)(world_of(sp, k->procs[i]) -
			    sp->worlds));
			up[b] = a;
		}
	}
	/* done[root]: every process of the component has finalized. */
	for (i = 0; i < sp->nworlds; i++)
		done[i] = 1;
	for (i = 0; i < sp->nworlds; i++) {
		w = &sp->worlds[i];
		if (w->failed)
			continue;
		a = uf_find(up, i);
		if (!w->tabled)
			done[a] = 0;
		for (p = w->base; p < w->base + w->n && done[a]; p++) {
			st = ft__launch_state(sp->l, p);
			if (!(st & (FT_LS_FINALIZED | FT_LS_EXITED)))
				done[a] = 0;
		}
	}
	for (i = 0; i < sp->nworlds; i++) {
		w = &sp->worlds[i];
		if (w->failed || !done[uf_find(up, i)])
			continue;
		for (p = w->base; p < w->base + w->n; p++) {
			st = ft__launch_state(sp->l, p);
			if (sp->released[p] || !(st & FT_LS_FINALIZED) ||
			    (st & FT_LS_EXITED))
				continue;
			sp->released[p] = 1;
			send_empty(sp, p, FT_MSG_FINALIZE_OK);
		}
	}
	free(up);
	free(done);
}

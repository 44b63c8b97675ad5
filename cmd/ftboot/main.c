/* SPDX-License-Identifier: ISC */
/*
 * ftboot: the user's peer daemon on this host (start, stop, status),
 * its peer cache (peers), the supernode, the cluster key (keygen), and
 * a debugging client of the reservation service (reserve).  Options
 * and wiring only; lib/peer does the work.
 *
 *	ftboot keygen [--key-file F] [--force]
 *	ftboot start [--supernode ADDR] [--listen ADDR] [--slots P]
 *	    [--jobs J] [--key-file F] [--state-dir DIR] [--foreground] ...
 *	ftboot stop|status|peers [--state-dir DIR] [--json]
 *	ftboot supernode --listen ADDR [--key-file F] [--addr-file F]
 *	ftboot reserve -n N [-r R] [-a spread|concentrate]
 *	    [--boot ADDR | --host LIST | --hostfile F] [--keep] [--json]
 */
#include <sys/stat.h>

#include <bsd/stdlib.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/job/agent.h"
#include "../../lib/peer/peer.h"

#define EXIT_NOT_RUNNING	3	/* status, as LSB init scripts */
#define STOP_WAIT_NS		(10ull * 1000000000u)

static void
usage(void) FT_NORETURN;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ftboot keygen [--key-file F] [--force]\n"
	    "       ftboot start [--supernode ADDR] [--listen ADDR] "
	    "[--slots P] [--jobs J]\n"
	    "                [--key-file F] [--state-dir DIR] [--foreground] "
	    "[--config F]\n"
	    "                [--advertise ADDR] [--name HOST] [--allow LIST] "
	    "[--deny LIST]\n"
	    "                [--refresh D] [--reserve-ttl D] [--allow-root] "
	    "[-v]\n"
	    "       ftboot stop|status|peers [--state-dir DIR] [--json]\n"
	    "       ftboot supernode --listen ADDR [--key-file F] "
	    "[--addr-file F] [--allow-root] [-v]\n"
	    "       ftboot reserve -n N [-r R] [-a spread|concentrate] "
	    "[--boot ADDR | --host LIST |\n"
	    "                --hostfile F] [--key-file F] [--state-dir DIR] "
	    "[--keep] [--json]\n");
	exit(FT_EXIT_USAGE);
}

enum {
	OPT_SUPERNODE = 256,
	OPT_LISTEN,
	OPT_ADVERTISE,
	OPT_NAME,
	OPT_SLOTS,
	OPT_JOBS,
	OPT_KEYFILE,
	OPT_STATEDIR,
	OPT_CONFIG,
	OPT_FOREGROUND,
	OPT_ALLOW,
	OPT_DENY,
	OPT_REFRESH,
	OPT_TTL,
	OPT_ALLOWROOT,
	OPT_JSON,
	OPT_FORCE,
	OPT_ADDRFILE,
	OPT_BOOT,
	OPT_HOST,
	OPT_HOSTFILE,
	OPT_KEEP,
};

static const struct option longopts[] = {
	{ "supernode", required_argument, NULL, OPT_SUPERNODE },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "advertise", required_argument, NULL, OPT_ADVERTISE },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "slots", required_argument, NULL, OPT_SLOTS },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "key-file", required_argument, NULL, OPT_KEYFILE },
	{ "state-dir", required_argument, NULL, OPT_STATEDIR },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "foreground", no_argument, NULL, OPT_FOREGROUND },
	{ "allow", required_argument, NULL, OPT_ALLOW },
	{ "deny", required_argument, NULL, OPT_DENY },
	{ "refresh", required_argument, NULL, OPT_REFRESH },
	{ "reserve-ttl", required_argument, NULL, OPT_TTL },
	{ "allow-root", no_argument, NULL, OPT_ALLOWROOT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "addr-file", required_argument, NULL, OPT_ADDRFILE },
	{ "boot", required_argument, NULL, OPT_BOOT },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "hostfile", required_argument, NULL, OPT_HOSTFILE },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	const char		*cmd;
	struct ft_boot_conf	 flags;		/* what the flags set */
	const char		*config;
	const char		*addr_file;
	const char		*boot, *hostlist, *hostfile;
	uint32_t		 nranks, nrep;
	enum ft_alloc		 alloc;
	int			 foreground, allow_root, json, force, keep;
	int			 verbose;
};

static volatile sig_atomic_t stop_flag, child_flag;

static void
on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void
on_child(int sig)
{
	(void)sig;
	child_flag = 1;
}

/* Daemon log lines start with the UTC time. */
static void
log_sink(const char *line, size_t len)
{
	char buf[1200], ts[32];
	struct tm tm;
	time_t now = time(NULL);
	int n;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(buf, sizeof(buf), "%s %.*s", ts, (int)len, line);
	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	(void)!write(STDERR_FILENO, buf, (size_t)n);
}

static void
copy_opt(char *dst, size_t size, const char *v, const char *name)
{
	if (strlen(v) >= size)
		ft_diex(FT_EXIT_USAGE, "--%s '%.40s...' is too long", name, v);
	memcpy(dst, v, strlen(v) + 1);
}

/* tcp:HOST:PORT, or HOST[:PORT] (port 7707 when missing). */
static void
addr_opt(char *dst, const char *v, const char *name)
{
	if (ft_host_addr(v, dst, FT_WIRE_ADDR_MAX) != 0)
		ft_diex(FT_EXIT_USAGE, "--%s '%s' is not tcp:HOST:PORT or "
		    "HOST[:PORT]", name, v);
}

static void
refuse_root(const struct opts *o)
{
	const char *env = getenv("FT_ALLOW_ROOT");

	if (geteuid() != 0 || o->allow_root ||
	    (env != NULL && strcmp(env, "1") == 0))
		return;
	ft_diex(FT_EXIT_USAGE, "refusing to run as root: ftboot runs programs "
	    "that others send; run it as an ordinary user, or give "
	    "--allow-root (or FT_ALLOW_ROOT=1)");
}

/* The configuration file, then the flags over it. */
static void
settings(const struct opts *o, struct ft_boot_conf *c)
{
	const struct ft_boot_conf *f = &o->flags;
	char path[PATH_MAX], why[FT_WIRE_TEXT_MAX];
	size_t i;

	if (o->config != NULL) {
		if (ft_boot_conf_load(o->config, 1, c, why, sizeof(why)) != 0)
			ft_diex(FT_EXIT_USAGE, "configuration %s", why);
	} else if (ft_boot_conf_path(path, sizeof(path)) == 0) {
		if (ft_boot_conf_load(path, 0, c, why, sizeof(why)) != 0)
			ft_diex(FT_EXIT_USAGE, "configuration %s", why);
	} else
		memset(c, 0, sizeof(*c));
	if (f->has & FT_CONF_SUPERNODE)
		memcpy(c->supernode, f->supernode, sizeof(c->supernode));
	if (f->has & FT_CONF_LISTEN)
		memcpy(c->listen, f->listen, sizeof(c->listen));
	if (f->has & FT_CONF_ADVERTISE)
		memcpy(c->advertise, f->advertise, sizeof(c->advertise));
	if (f->has & FT_CONF_NAME)
		memcpy(c->name, f->name, sizeof(c->name));
	if (f->has & FT_CONF_KEYFILE)
		memcpy(c->key_file, f->key_file, sizeof(c->key_file));
	if (f->has & FT_CONF_STATEDIR)
		memcpy(c->state_dir, f->state_dir, sizeof(c->state_dir));
	if (f->has & FT_CONF_SLOTS)
		c->slots = f->slots;
	if (f->has & FT_CONF_JOBS)
		c->jobs = f->jobs;
	if (f->has & FT_CONF_REFRESH)
		c->refresh_ns = f->refresh_ns;
	if (f->has & FT_CONF_TTL)
		c->ttl_ns = f->ttl_ns;
	c->has |= f->has;
	/* Lists given as flags replace the file's. */
	if (f->allow.n > 0)
		c->allow = f->allow;
	if (f->deny.n > 0)
		c->deny = f->deny;
	if (!(c->has & FT_CONF_LISTEN))
		snprintf(c->listen, sizeof(c->listen), "tcp:127.0.0.1:%d",
		    FT_BOOT_PORT);
	if (!(c->has & FT_CONF_SLOTS)) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		c->slots = n > 0 && n <= FT_PEER_SLOTS_MAX ? (uint32_t)n : 1;
	}
	if (!(c->has & FT_CONF_JOBS))
		c->jobs = 1;
	if (!(c->has & FT_CONF_REFRESH))
		c->refresh_ns = FT_PEER_REFRESH_NS;
	if (!(c->has & FT_CONF_TTL))
		c->ttl_ns = FT_PEER_TTL_NS;
	if (!(c->has & FT_CONF_VERBOSE))
		c->verbose = 1;
	if (!(c->has & FT_CONF_NAME)) {
		if (gethostname(c->name, sizeof(c->name)) != 0)
			snprintf(c->name, sizeof(c->name), "localhost");
		c->name[sizeof(c->name) - 1] = '\0';
	}
	for (i = 0; c->name[i] != '\0'; i++)
		if ((unsigned char)c->name[i] <= ' ' || c->name[i] == '#')
			ft_diex(FT_EXIT_USAGE, "host name '%s' holds a blank, a "
			    "control character or '#'", c->name);
}

static void
load_key(const struct ft_boot_conf *c, uint8_t key[FT_WIRE_KEYLEN])
{
	char path[PATH_MAX], why[FT_WIRE_TEXT_MAX];

	if (c->key_file[0] != '\0')
		snprintf(path, sizeof(path), "%s", c->key_file);
	else if (ft_cluster_key_path(path, sizeof(path)) != 0)
		ft_diex(FT_EXIT_USAGE, "no --key-file and no default path "
		    "(HOME is not set)");
	if (ft_cluster_key_load(path, key, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_USAGE, "%s", why);
}

static void
statedir(const struct ft_boot_conf *c, char *dir, size_t size)
{
	if (ft_boot_statedir(c->state_dir[0] != '\0' ? c->state_dir : NULL,
	    dir, size) != 0)
		ft_die(FT_EXIT_USAGE, "state directory");
}

static int
cmd_keygen(const struct opts *o)
{
	struct ft_boot_conf c;
	char path[PATH_MAX], why[FT_WIRE_TEXT_MAX];

	settings(o, &c);
	if (c.key_file[0] != '\0')
		snprintf(path, sizeof(path), "%s", c.key_file);
	else if (ft_cluster_key_path(path, sizeof(path)) != 0)
		ft_diex(FT_EXIT_USAGE, "no --key-file and no default path "
		    "(HOME is not set)");
	if (ft_cluster_key_write(path, o->force, why, sizeof(why)) != 0)
		ft_diex(errno == EEXIST ? FT_EXIT_NO : FT_EXIT_TEMP, "%s", why);
	printf("ftboot: wrote a new cluster key to %s (mode 0600); copy it to "
	    "every host of the cluster\n", path);
	return ft_exit(FT_EXIT_OK);
}

/* What a job's child needs of the daemon. */
struct jobsrv {
	const struct ft_boot_cfg *cfg;
	const char		*statedir;
	const char		*name;
};

/*
 * A SUBMITTER's first frame is JOB_START: claim its token (or, with
 * none, slots now, as the gatekeeper allows), then serve the job in a
 * child (the host agent, lib/job/agent.c), which owns the connection.
 * Returns 0 with the child and the claim, or -1 with why.
 */
static int
job_frame(void *arg, struct ft_gate *gate, struct ft_conn *c,
    const struct ft_hdr *h, const uint8_t *body, const char *peer_ip,
    pid_t *child, int *job, char *why, size_t whysize)
{
	const struct jobsrv *js = arg;
	struct ft_msg_job_start m;
	struct ft_agent_opts o;
	pid_t pid;
	int claim;

	*child = -1;
	*job = -1;
	if (ft_msg_job_start_decode(body, h->len - FT_WIRE_HDRLEN, &m) != 0) {
		ft_msg_job_start_free(&m);
		snprintf(why, whysize, "malformed JOB_START");
		return -1;
	}
	claim = ft_gate_claim(gate, m.token, m.nprocs, peer_ip, why, whysize);
	ft_msg_job_start_free(&m);
	if (claim < 0)
		return -1;
	fflush(NULL);
	if ((pid = fork()) == -1) {
		ft_gate_job_done(gate, claim);
		snprintf(why, whysize, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		ft_boot_child_init(js->cfg, c);
		memset(&o, 0, sizeof(o));
		o.statedir = js->statedir;
		o.cluster_key = js->cfg->key;
		o.node_name = js->name;
		o.log = stderr;
		_exit(ft_agent_serve(c, h, body, &o));
	}
	*child = pid;
	*job = claim;
	return 0;
}

/* The address others reach us at: the bound one, or with our name. */
static void
advertised(const struct ft_boot_conf *c, const char *bound, char *out,
    size_t size)
{
	const char *port = strrchr(bound, ':');

	if (c->advertise[0] != '\0')
		snprintf(out, size, "%s", c->advertise);
	else if (strncmp(bound, "tcp:0.0.0.0:", 12) == 0 ||
	    strncmp(bound, "tcp:[::]:", 9) == 0)
		snprintf(out, size, "tcp:%s%s", c->name, port);
	else
		snprintf(out, size, "%s", bound);
}

static void
signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Become a daemon: fork, setsid, fork again, stdio to the log.  The
 * first process waits until the daemon says it is ready on a pipe, and
 * exits with the outcome.  Returns in the daemon with the pipe's write
 * end.
 */
static int
daemonize(const char *log, const char *addr, const char *dir)
{
	char buf[16];
	ssize_t n;
	pid_t pid;
	int p[2], fd;

	if (pipe2(p, O_CLOEXEC) != 0)
		ft_die(FT_EXIT_TEMP, "pipe");
	fflush(stdout);
	if ((pid = fork()) < 0)
		ft_die(FT_EXIT_TEMP, "fork");
	if (pid > 0) {
		close(p[1]);
		do
			n = read(p[0], buf, sizeof(buf) - 1);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			ft_diex(FT_EXIT_NO, "the daemon did not start; see %s",
			    log);
		buf[n] = '\0';
		printf("ftboot: started (pid %s), listening on %s; state in "
		    "%s, log %s\n", buf, addr, dir, log);
		exit(ft_exit(FT_EXIT_OK));
	}
	close(p[0]);
	if (setsid() < 0)
		_exit(FT_EXIT_TEMP);
	if ((pid = fork()) < 0)
		_exit(FT_EXIT_TEMP);
	if (pid > 0)
		_exit(0);
	if (chdir("/") != 0)
		_exit(FT_EXIT_TEMP);
	if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		dup2(fd, STDIN_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0600)) < 0)
		_exit(FT_EXIT_TEMP);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
	ft_diag_setsink(log_sink);
	return p[1];
}

static int
cmd_start(const struct opts *o)
{
	struct ft_boot_conf c;
	struct ft_boot_cfg cfg;
	struct jobsrv js;
	uint8_t key[FT_WIRE_KEYLEN];
	char dir[PATH_MAX], path[PATH_MAX], logp[PATH_MAX], cache[PATH_MAX];
	char bound[FT_WIRE_ADDR_MAX], addr[FT_WIRE_ADDR_MAX], why[FT_WIRE_TEXT_MAX];
	char line[FT_WIRE_ADDR_MAX + 1], pidbuf[32];
	pid_t holder;
	int lockfd, lfd, ready = -1, rc;

	refuse_root(o);
	settings(o, &c);
	ft_diag_setlevel(o->verbose > 0 ? o->verbose : c.verbose);
	load_key(&c, key);
	statedir(&c, dir, sizeof(dir));
	if ((lockfd = ft_boot_lock(dir, &holder, why, sizeof(why))) < 0) {
		if (errno == EWOULDBLOCK)
			ft_diex(FT_EXIT_NO, "%s (pid %ld); stop it first: "
			    "ftboot stop --state-dir %s", why, (long)holder,
			    dir);
		ft_diex(FT_EXIT_TEMP, "%s", why);
	}
	if ((lfd = ft_net_listen(c.listen, bound, sizeof(bound))) < 0)
		ft_die(errno == EINVAL ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "listening on %s", c.listen);
	/* Ours alone now (the lock): what killed agents left goes. */
	ft_agent_sweep(dir, stderr);
	advertised(&c, bound, addr, sizeof(addr));
	if (ft_boot_path(dir, "ftboot.log", logp, sizeof(logp)) != 0 ||
	    ft_boot_path(dir, "peers", cache, sizeof(cache)) != 0)
		ft_diex(FT_EXIT_USAGE, "state directory '%s': name too long",
		    dir);
	if (!o->foreground)
		ready = daemonize(logp, addr, dir);
	signals();
	if (ft_boot_write_pid(lockfd, getpid()) != 0)
		ft_die(FT_EXIT_TEMP, "writing the pid file");
	snprintf(line, sizeof(line), "%s\n", addr);
	if (ft_boot_path(dir, "ftboot.addr", path, sizeof(path)) != 0 ||
	    ft_boot_write_file(path, line, strlen(line), 0600) != 0)
		ft_die(FT_EXIT_TEMP, "writing the address file");
	ft_diag_setrole("daemon");
	ft_info("started (pid %ld) on %s as %s: P=%u slots, J=%u jobs, "
	    "supernode %s", (long)getpid(), addr, c.name, c.slots, c.jobs,
	    c.supernode[0] != '\0' ? c.supernode : "none");
	memset(&cfg, 0, sizeof(cfg));
	cfg.lfd = lfd;
	cfg.lockfd = lockfd;
	cfg.key = key;
	cfg.addr = addr;
	cfg.host = c.name;
	cfg.supernode = c.supernode[0] != '\0' ? c.supernode : NULL;
	cfg.cache_path = cache;
	cfg.slots = c.slots;
	cfg.jobs = c.jobs;
	cfg.ttl_ns = c.ttl_ns;
	cfg.refresh_ns = c.refresh_ns;
	cfg.allow = &c.allow;
	cfg.deny = &c.deny;
	js = (struct jobsrv){ &cfg, dir, c.name };
	cfg.job_frame = job_frame;
	cfg.job_arg = &js;
	cfg.stop = &stop_flag;
	if (ready >= 0) {
		int n = snprintf(pidbuf, sizeof(pidbuf), "%ld",
		    (long)getpid());

		(void)!write(ready, pidbuf, (size_t)n);
		close(ready);
	}
	rc = ft_boot_serve(&cfg);
	if (rc != 0)
		ft_error("the daemon loop failed");
	(void)unlink(path);
	if (ft_boot_path(dir, "ftboot.pid", path, sizeof(path)) == 0)
		(void)unlink(path);
	close(lfd);
	explicit_bzero(key, sizeof(key));
	ft_info("stopped");
	/* The lock goes with the process: "ftboot stop" returns when the
	 * daemon is gone, not before. */
	return rc == 0 ? FT_EXIT_OK : FT_EXIT_TEMP;
}

static int
cmd_supernode(const struct opts *o)
{
	struct ft_supernode_cfg cfg;
	struct ft_boot_conf c;
	uint8_t key[FT_WIRE_KEYLEN];
	char bound[FT_WIRE_ADDR_MAX], line[FT_WIRE_ADDR_MAX + 1];
	int lfd, rc;

	refuse_root(o);
	settings(o, &c);
	ft_diag_setlevel(o->verbose > 0 ? o->verbose : c.verbose);
	if (!(o->flags.has & FT_CONF_LISTEN))
		ft_diex(FT_EXIT_USAGE, "--listen is missing");
	load_key(&c, key);
	if ((lfd = ft_net_listen(c.listen, bound, sizeof(bound))) < 0)
		ft_die(errno == EINVAL ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "listening on %s", c.listen);
	signals();
	ft_diag_setrole("supernode");
	if (o->addr_file != NULL) {
		snprintf(line, sizeof(line), "%s\n", bound);
		if (ft_boot_write_file(o->addr_file, line, strlen(line),
		    0644) != 0)
			ft_die(FT_EXIT_TEMP, "writing '%s'", o->addr_file);
	}
	ft_info("listening on %s", bound);
	memset(&cfg, 0, sizeof(cfg));
	cfg.lfd = lfd;
	cfg.key = key;
	cfg.stop = &stop_flag;
	rc = ft_supernode_serve(&cfg);
	close(lfd);
	explicit_bzero(key, sizeof(key));
	ft_info("stopped");
	return rc == 0 ? FT_EXIT_OK : FT_EXIT_TEMP;
}

static int
cmd_stop(const struct opts *o)
{
	struct ft_boot_conf c;
	char dir[PATH_MAX], addr[FT_WIRE_ADDR_MAX];
	uint64_t deadline;
	pid_t pid;
	int rc;

	settings(o, &c);
	statedir(&c, dir, sizeof(dir));
	if ((rc = ft_boot_running(dir, &pid, addr, sizeof(addr))) < 0)
		ft_die(FT_EXIT_TEMP, "state directory '%s'", dir);
	if (rc == 0) {
		printf("ftboot: not running (state directory %s)\n", dir);
		return ft_exit(FT_EXIT_OK);
	}
	if (pid <= 0 || kill(pid, SIGTERM) != 0)
		ft_die(FT_EXIT_TEMP, "signalling the daemon (pid %ld)",
		    (long)pid);
	deadline = ft_now_ns() + STOP_WAIT_NS;
	while (ft_boot_running(dir, &pid, NULL, 0) == 1) {
		if (ft_now_ns() >= deadline)
			ft_diex(FT_EXIT_TEMP, "the daemon (pid %ld) did not "
			    "stop within 10s", (long)pid);
		(void)poll(NULL, 0, 20);
	}
	printf("ftboot: stopped (state directory %s)\n", dir);
	return ft_exit(FT_EXIT_OK);
}

/* A JSON string: printable ASCII as is, the rest escaped. */
static void
json_str(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static int
cmd_status(const struct opts *o)
{
	struct ft_msg_boot_state st;
	struct ft_boot_conf c;
	uint8_t key[FT_WIRE_KEYLEN];
	char dir[PATH_MAX], addr[FT_WIRE_ADDR_MAX], why[FT_WIRE_TEXT_MAX];
	char path[PATH_MAX];
	pid_t pid;
	int rc, have = 0;

	settings(o, &c);
	statedir(&c, dir, sizeof(dir));
	if ((rc = ft_boot_running(dir, &pid, addr, sizeof(addr))) < 0)
		ft_die(FT_EXIT_TEMP, "state directory '%s'", dir);
	if (rc == 0) {
		if (o->json) {
			printf("{\"running\":false,\"state_dir\":");
			json_str(dir);
			printf("}\n");
		} else
			printf("ftboot: not running (state directory %s)\n",
			    dir);
		return ft_exit(EXIT_NOT_RUNNING);
	}
	/* The details need the key; without it, say what we know. */
	if (c.key_file[0] != '\0')
		snprintf(path, sizeof(path), "%s", c.key_file);
	else if (ft_cluster_key_path(path, sizeof(path)) != 0)
		path[0] = '\0';
	if (addr[0] != '\0' && path[0] != '\0' &&
	    ft_cluster_key_load(path, key, why, sizeof(why)) == 0) {
		have = ft_peer_state(addr, key, &st, why, sizeof(why)) == 0;
		explicit_bzero(key, sizeof(key));
	}
	if (o->json) {
		printf("{\"running\":true,\"pid\":%ld,\"addr\":", (long)pid);
		json_str(addr);
		printf(",\"state_dir\":");
		json_str(dir);
		if (have) {
			printf(",\"host\":");
			json_str(st.host);
			printf(",\"slots\":%u,\"jobs\":%u,\"reserved\":%u,"
			    "\"running_jobs\":%u,\"peers\":%u,\"uptime_ms\":"
			    "%llu", st.slots, st.jobs, st.reserved, st.running,
			    st.peers, (unsigned long long)st.uptime_ms);
		}
		printf("}\n");
	} else {
		printf("ftboot: running, pid %ld, address %s, state directory "
		    "%s\n", (long)pid, addr, dir);
		if (have)
			printf("ftboot: host %s, P=%u slots, J=%u jobs: %u "
			    "reserved, %u running; %u peers in the cache\n",
			    st.host, st.slots, st.jobs, st.reserved, st.running,
			    st.peers);
		else
			printf("ftboot: no details (%s)\n", why[0] != '\0' ?
			    why : "no key");
	}
	return ft_exit(FT_EXIT_OK);
}

static int
cmd_peers(const struct opts *o)
{
	struct ft_boot_conf c;
	struct ft_peer *p;
	char dir[PATH_MAX], path[PATH_MAX], why[FT_WIRE_TEXT_MAX];
	char rtt[32], seen[32];
	time_t now = time(NULL);
	size_t n, i;

	settings(o, &c);
	statedir(&c, dir, sizeof(dir));
	if (ft_boot_path(dir, "peers", path, sizeof(path)) != 0)
		ft_diex(FT_EXIT_USAGE, "state directory '%s': name too long",
		    dir);
	if (ft_peer_cache_load(path, &p, &n, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_NO, "%s", why);
	ft_peer_sort(p, n);
	if (!o->json)
		printf("%-20s %-28s %10s %10s %5s %4s\n", "HOST", "ADDRESS",
		    "RTT", "LAST SEEN", "SLOTS", "JOBS");
	else
		printf("[\n");
	for (i = 0; i < n; i++) {
		if (o->json) {
			printf("{\"host\":");
			json_str(p[i].host);
			printf(",\"addr\":");
			json_str(p[i].addr);
			printf(",\"rtt_us\":%llu,\"seen\":%lld,\"slots\":%u,"
			    "\"jobs\":%u}%s\n", (unsigned long long)p[i].rtt_us,
			    (long long)p[i].seen, p[i].slots, p[i].jobs,
			    i + 1 < n ? "," : "");
			continue;
		}
		if (p[i].rtt_us == 0)
			snprintf(rtt, sizeof(rtt), "-");
		else
			snprintf(rtt, sizeof(rtt), "%.3fms",
			    (double)p[i].rtt_us / 1000);
		if (p[i].seen == 0)
			snprintf(seen, sizeof(seen), "never");
		else
			snprintf(seen, sizeof(seen), "%llds ago",
			    (long long)(now > p[i].seen ? now - p[i].seen : 0));
		printf("%-20s %-28s %10s %10s %5u %4u\n", p[i].host, p[i].addr,
		    rtt, seen, p[i].slots, p[i].jobs);
	}
	if (o->json)
		printf("]\n");
	free(p);
	return ft_exit(FT_EXIT_OK);
}

static int
cmd_reserve(const struct opts *o)
{
	struct ft_boot_conf c;
	struct ft_hostspec *hs = NULL;
	struct ft_grant *g = NULL;
	uint8_t key[FT_WIRE_KEYLEN];
	char dir[PATH_MAX], boot[FT_WIRE_ADDR_MAX], why[FT_WIRE_TEXT_MAX];
	char tok[2 * FT_PEER_TOKEN + 1], warn[FT_WIRE_TEXT_MAX];
	uint32_t *of, *count;
	size_t n = 0, nhs = 0, i;
	int rc, placed;

	settings(o, &c);
	if (o->nranks == 0)
		ft_diex(FT_EXIT_USAGE, "-n is missing");
	if ((o->boot != NULL) + (o->hostlist != NULL) +
	    (o->hostfile != NULL) > 1)
		ft_diex(FT_EXIT_USAGE, "--boot, --host and --hostfile exclude "
		    "each other");
	load_key(&c, key);
	if (o->hostlist != NULL || o->hostfile != NULL) {
		if ((o->hostlist != NULL ? ft_hostlist_parse(o->hostlist, &hs,
		    &nhs, why, sizeof(why)) : ft_hostfile_parse(o->hostfile,
		    &hs, &nhs, why, sizeof(why))) != 0)
			ft_diex(FT_EXIT_USAGE, "%s", why);
		rc = ft_peer_reserve_hosts(hs, nhs, key, o->nranks, o->nrep,
		    o->alloc, &g, &n, why, sizeof(why));
		free(hs);
	} else {
		if (o->boot != NULL)
			copy_opt(boot, sizeof(boot), o->boot, "boot");
		else {
			statedir(&c, dir, sizeof(dir));
			if (ft_boot_local_addr(dir, boot, sizeof(boot)) != 0)
				ft_diex(FT_EXIT_NO, "no daemon runs with state "
				    "directory %s (ftboot start)", dir);
		}
		rc = ft_peer_allocate(boot, key, o->nranks, o->nrep, o->alloc,
		    &g, &n, why, sizeof(why));
	}
	if (rc != 0)
		ft_diex(FT_EXIT_NO, "%s", why);
	of = calloc((size_t)o->nranks * o->nrep, sizeof(*of));
	count = calloc(n, sizeof(*count));
	if (of == NULL || count == NULL)
		ft_die(FT_EXIT_TEMP, "calloc");
	placed = ft_alloc_place(g, n, o->nranks, o->nrep, o->alloc, of, warn,
	    sizeof(warn));
	if (placed < 0)
		ft_diex(FT_EXIT_NO, "placement: %s", warn);
	if (placed == 1)
		ft_warnx("%s", warn);
	for (i = 0; i < (size_t)o->nranks * o->nrep; i++)
		count[of[i]]++;
	for (i = 0; i < n; i++) {
		ft_hex_encode(g[i].token, FT_PEER_TOKEN, tok);
		if (o->json) {
			printf("{\"addr\":");
			json_str(g[i].addr);
			printf(",\"host\":");
			json_str(g[i].host);
			printf(",\"slots\":%u,\"procs\":%u,\"rtt_us\":%llu,"
			    "\"token\":\"%s\"}\n", g[i].slots, count[i],
			    (unsigned long long)g[i].rtt_us, tok);
		} else
			printf("grant addr=%s host=%s slots=%u procs=%u "
			    "rtt_us=%llu token=%s\n", g[i].addr, g[i].host,
			    g[i].slots, count[i],
			    (unsigned long long)g[i].rtt_us, tok);
	}
	if (!o->json)
		for (i = 0; i < (size_t)o->nranks * o->nrep; i++)
			printf("place proc=%zu rank=%zu replica=%zu host=%s\n",
			    i, i / o->nrep, i % o->nrep, g[of[i]].host);
	if (!o->keep)
		ft_peer_release(key, g, n);
	explicit_bzero(key, sizeof(key));
	free(of);
	free(count);
	free(g);
	return ft_exit(FT_EXIT_OK);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *errstr;
	char getopt_prog[80], why[FT_WIRE_TEXT_MAX];
	int ch;

	ft_diag_init(argv[0]);
	snprintf(getopt_prog, sizeof(getopt_prog), "%s: fatal",
	    ft_diag_prog());
	argv[0] = getopt_prog;
	if (argc < 2)
		usage();
	memset(&o, 0, sizeof(o));
	o.cmd = argv[1];
	o.nrep = 1;
	o.alloc = FT_ALLOC_SPREAD;
	if (strcmp(o.cmd, "keygen") != 0 && strcmp(o.cmd, "start") != 0 &&
	    strcmp(o.cmd, "stop") != 0 && strcmp(o.cmd, "status") != 0 &&
	    strcmp(o.cmd, "peers") != 0 && strcmp(o.cmd, "supernode") != 0 &&
	    strcmp(o.cmd, "reserve") != 0) {
		fprintf(stderr, "%s: unknown command '%s'\n", getopt_prog,
		    o.cmd);
		usage();
	}
	optind = 2;
	while ((ch = getopt_long(argc, argv, "a:n:r:v", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case OPT_SUPERNODE:
			addr_opt(o.flags.supernode, optarg, "supernode");
			o.flags.has |= FT_CONF_SUPERNODE;
			break;
		case OPT_LISTEN:
			addr_opt(o.flags.listen, optarg, "listen");
			o.flags.has |= FT_CONF_LISTEN;
			break;
		case OPT_ADVERTISE:
			addr_opt(o.flags.advertise, optarg, "advertise");
			o.flags.has |= FT_CONF_ADVERTISE;
			break;
		case OPT_NAME:
			copy_opt(o.flags.name, sizeof(o.flags.name), optarg,
			    "name");
			o.flags.has |= FT_CONF_NAME;
			break;
		case OPT_SLOTS:
		case OPT_JOBS:
			*(ch == OPT_SLOTS ? &o.flags.slots : &o.flags.jobs) =
			    (uint32_t)strtonum(optarg, 1, ch == OPT_SLOTS ?
			    FT_PEER_SLOTS_MAX : FT_PEER_JOBS_MAX, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--%s '%s' is %s",
				    ch == OPT_SLOTS ? "slots" : "jobs", optarg,
				    errstr);
			o.flags.has |= ch == OPT_SLOTS ? FT_CONF_SLOTS :
			    FT_CONF_JOBS;
			break;
		case OPT_KEYFILE:
			copy_opt(o.flags.key_file, sizeof(o.flags.key_file),
			    optarg, "key-file");
			o.flags.has |= FT_CONF_KEYFILE;
			break;
		case OPT_STATEDIR:
			copy_opt(o.flags.state_dir, sizeof(o.flags.state_dir),
			    optarg, "state-dir");
			o.flags.has |= FT_CONF_STATEDIR;
			break;
		case OPT_CONFIG:
			o.config = optarg;
			break;
		case OPT_FOREGROUND:
			o.foreground = 1;
			break;
		case OPT_ALLOW:
		case OPT_DENY:
			if (ft_acl_add(ch == OPT_ALLOW ? &o.flags.allow :
			    &o.flags.deny, optarg, why, sizeof(why)) != 0)
				ft_diex(FT_EXIT_USAGE, "--%s: %s", ch ==
				    OPT_ALLOW ? "allow" : "deny", why);
			break;
		case OPT_REFRESH:
		case OPT_TTL:
			if (ft_parse_duration(optarg, ch == OPT_REFRESH ?
			    &o.flags.refresh_ns : &o.flags.ttl_ns) != 0 ||
			    (ch == OPT_REFRESH ? o.flags.refresh_ns :
			    o.flags.ttl_ns) == 0)
				ft_diex(FT_EXIT_USAGE, "'%s' is not a positive "
				    "duration", optarg);
			o.flags.has |= ch == OPT_REFRESH ? FT_CONF_REFRESH :
			    FT_CONF_TTL;
			break;
		case OPT_ALLOWROOT:
			o.allow_root = 1;
			break;
		case OPT_JSON:
			o.json = 1;
			break;
		case OPT_FORCE:
			o.force = 1;
			break;
		case OPT_ADDRFILE:
			o.addr_file = optarg;
			break;
		case OPT_BOOT:
			o.boot = optarg;
			break;
		case OPT_HOST:
			o.hostlist = optarg;
			break;
		case OPT_HOSTFILE:
			o.hostfile = optarg;
			break;
		case OPT_KEEP:
			o.keep = 1;
			break;
		case 'a':
			if (ft_alloc_parse(optarg, &o.alloc) != 0)
				ft_diex(FT_EXIT_USAGE, "-a '%s' is not spread "
				    "or concentrate", optarg);
			break;
		case 'n':
		case 'r':
			*(ch == 'n' ? &o.nranks : &o.nrep) = (uint32_t)strtonum(
			    optarg, 1, FT_WIRE_MAX_RANKS, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "-%c '%s' is %s", ch,
				    optarg, errstr);
			break;
		case 'v':
			o.verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if ((uint64_t)o.nranks * o.nrep > FT_WIRE_MAX_RANKS)
		ft_diex(FT_EXIT_USAGE, "-n %u -r %u is more than %u processes",
		    o.nranks, o.nrep, FT_WIRE_MAX_RANKS);
	ft_diag_setlevel(o.verbose);
	if (strcmp(o.cmd, "keygen") == 0)
		return cmd_keygen(&o);
	if (strcmp(o.cmd, "start") == 0)
		return ft_exit(cmd_start(&o));
	if (strcmp(o.cmd, "stop") == 0)
		return cmd_stop(&o);
	if (strcmp(o.cmd, "status") == 0)
		return cmd_status(&o);
	if (strcmp(o.cmd, "peers") == 0)
		return cmd_peers(&o);
	if (strcmp(o.cmd, "supernode") == 0)
		return ft_exit(cmd_supernode(&o));
	return cmd_reserve(&o);
}

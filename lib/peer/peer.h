/* SPDX-License-Identifier: ISC */
/*
 * The peer layer (P2P-MPI's infrastructure): the cluster key that
 * daemons, the supernode and submitters share; the state directory of
 * a daemon (pid file with its lock, address file, log, peer cache);
 * the peer cache file and the configuration file (ft-boot(5)); the
 * gatekeeper that reserves slots under the limits J (jobs at once) and
 * P (processes per job) and the allow/deny lists; the placement of a
 * job's processes on granted slots (spread or concentrate, replicas of
 * a rank on distinct hosts); the client calls a submitter makes
 * (allocate, reserve on named hosts, release); and the two servers,
 * the daemon and the supernode, that cmd/ftboot wires up.
 *
 * Every connection is authenticated with the cluster key (lib/net);
 * daemons connect with role FT_ROLE_DAEMON, submitters with
 * FT_ROLE_SUBMITTER.  Client calls block, each bounded by a deadline.
 */
#ifndef FT_PEER_H
#define FT_PEER_H

#include <sys/types.h>

#include <limits.h>
#include <signal.h>

#include "../net/net.h"

#define FT_PEER_TOKEN		16
#define FT_BOOT_PORT		7707	/* a daemon's port when "host" has none */
#define FT_PEER_TTL_NS		(60ull * 1000000000u)	/* unclaimed token */
#define FT_PEER_REFRESH_NS	(30ull * 1000000000u)	/* supernode, pings */
#define FT_PEER_CALL_NS		(5ull * 1000000000u)	/* one request */
#define FT_PEER_ALLOC_NS	(120ull * 1000000000u)	/* a whole ALLOC */
#define FT_PEER_JOBS_MAX	1024	/* J */
#define FT_PEER_SLOTS_MAX	65536	/* P */
#define FT_PEER_OVERBOOK	1	/* extra hosts reserved, then cancelled */
#define FT_PEER_FORGET		3	/* supernode: refresh periods unseen */
#define FT_ACL_MAX		64	/* entries in an allow or deny list */

_Static_assert(FT_PEER_TOKEN == FT_WIRE_TOKEN, "one token size");

/*
 * Cluster key.  The file holds 64 lowercase hex digits and a newline.
 * ft_cluster_key_path writes the default path,
 * $XDG_CONFIG_HOME/ft/cluster.key (else ~/.config/ft/cluster.key):
 * 0, or -1 with ENAMETOOLONG or ENOENT (no HOME).  ft_cluster_key_load
 * refuses a file that group or others may read or write, one that is
 * not a regular file, and any other content: -1 with errno and a
 * sentence in why naming the file.  ft_cluster_key_write makes a fresh
 * key, mode 0600, creating the directory (0700); it refuses an existing
 * file unless force: -1 EEXIST.
 */
int	 ft_cluster_key_path(char *buf, size_t size);
int	 ft_cluster_key_load(const char *path, uint8_t key[FT_WIRE_KEYLEN],
	    char *why, size_t whysize);
int	 ft_cluster_key_write(const char *path, int force, char *why,
	    size_t whysize);

/*
 * State directory: given, or $XDG_STATE_HOME/ft (else
 * ~/.local/state/ft).  It holds ftboot.pid (locked with flock by the
 * running daemon), ftboot.addr (one line), ftboot.log and peers.
 * ft_boot_statedir resolves it (0, or -1 ENAMETOOLONG/ENOENT);
 * ft_boot_path joins a file name to it.
 */
int	 ft_boot_statedir(const char *given, char *buf, size_t size);
int	 ft_boot_path(const char *statedir, const char *file, char *buf,
	    size_t size);
/*
 * The running daemon of statedir (NULL: the default): 1 and its pid
 * and address if one holds the lock, 0 if none runs, -1 with errno on
 * another error.  Never blocks.
 */
int	 ft_boot_running(const char *statedir, pid_t *pid, char *addr,
	    size_t size);
/* Its address, or -1 with ENOENT when none runs. */
int	 ft_boot_local_addr(const char *statedir, char *addr, size_t size);
/*
 * Create statedir (0700) and take the lock of its pid file.  Returns
 * the locked fd (close-on-exec; the lock lives as long as the open
 * file, across fork), or -1: EWOULDBLOCK when a daemon runs (*holder
 * its pid), another errno with why.
 */
int	 ft_boot_lock(const char *statedir, pid_t *holder, char *why,
	    size_t whysize);
/* Write "pid\n" into the locked file; 0 or -1 with errno. */
int	 ft_boot_write_pid(int lockfd, pid_t pid);
/* Write a small file atomically (tmp, fsync, rename); 0 or -1, errno. */
int	 ft_boot_write_file(const char *path, const void *, size_t, int mode);

/*
 * Submitter lists (--allow, --deny): IPv4 or IPv6 addresses, with an
 * optional /prefix ("10.1.0.0/16", "::1"), comma or blank separated.
 * An IPv4 peer seen as ::ffff:a.b.c.d matches its IPv4 form.
 */
struct ft_acl_entry {
	uint8_t		v6;		/* 0: IPv4 (4 bytes of addr) */
	uint8_t		bits;
	uint8_t		addr[16];
};

struct ft_acl {
	size_t			n;
	struct ft_acl_entry	e[FT_ACL_MAX];
};

/* Append the entries of list; 0, or -1 EINVAL/ENOSPC with why. */
int	 ft_acl_add(struct ft_acl *, const char *list, char *why,
	    size_t whysize);
/* 1 if ip (numeric) matches an entry, 0 if not (or not an address). */
int	 ft_acl_match(const struct ft_acl *, const char *ip);

/*
 * The configuration file (ft-boot(5)): "key value" lines, '#'
 * comments.  Keys: supernode, listen, advertise, name, slots, jobs,
 * key-file, state-dir, allow, deny (both repeatable), refresh,
 * reserve-ttl, log-level.  Each has_* says a key was given, so that
 * flags can override the file and the file the defaults.
 */
struct ft_boot_conf {
	char		supernode[FT_WIRE_ADDR_MAX];
	char		listen[FT_WIRE_ADDR_MAX];
	char		advertise[FT_WIRE_ADDR_MAX];
	char		name[FT_WIRE_NODE_MAX];
	char		key_file[PATH_MAX];
	char		state_dir[PATH_MAX];
	uint32_t	slots, jobs;
	uint64_t	refresh_ns, ttl_ns;
	int		verbose;
	struct ft_acl	allow, deny;
	unsigned int	has;		/* FT_CONF_* bits */
};

#define FT_CONF_SUPERNODE	0x001u
#define FT_CONF_LISTEN		0x002u
#define FT_CONF_ADVERTISE	0x004u
#define FT_CONF_NAME		0x008u
#define FT_CONF_KEYFILE		0x010u
#define FT_CONF_STATEDIR	0x020u
#define FT_CONF_SLOTS		0x040u
#define FT_CONF_JOBS		0x080u
#define FT_CONF_REFRESH		0x100u
#define FT_CONF_TTL		0x200u
#define FT_CONF_VERBOSE		0x400u

/*
 * Parse len bytes of configuration text into *c (zeroed first).
 * Returns 0, or -1 with EINVAL and why ("line 3: unknown key 'x'").
 * The default path is $XDG_CONFIG_HOME/ft/ftboot.conf (ft_boot_conf_path).
 */
int	 ft_boot_conf_parse(const char *text, size_t len,
	    struct ft_boot_conf *, char *why, size_t whysize);
int	 ft_boot_conf_path(char *buf, size_t size);
/* Read and parse path; a missing file is an error only if must. */
int	 ft_boot_conf_load(const char *path, int must, struct ft_boot_conf *,
	    char *why, size_t whysize);
/* Is addr "tcp:HOST:PORT" with a port 0 .. 65535?  (1 yes, 0 no.) */
int	 ft_boot_addr_ok(const char *addr);

/*
 * The peer cache (STATEDIR/peers, ft-boot(5)): a first line
 * "# ft-peers 1", then one peer a line:
 *	ADDR host=H slots=P jobs=J rtt_us=N seen=UNIXTIME
 * rtt_us 0 is not measured, seen 0 never answered.
 */
#define FT_PEER_CACHE_MAX	FT_WIRE_PEERS_MAX
struct ft_peer {
	char		addr[FT_WIRE_ADDR_MAX];
	char		host[FT_WIRE_NODE_MAX];
	uint32_t	slots, jobs;
	uint64_t	rtt_us;
	int64_t		seen;
};

/*
 * ft_peer_cache_parse: 0 with a heap array (free it) of *n peers, or
 * -1 with EINVAL and why naming the line.  ft_peer_cache_format
 * appends the text.  ft_peer_cache_load reads a file (missing: 0
 * peers); ft_peer_cache_save writes it atomically, mode 0600.
 */
int	 ft_peer_cache_parse(const char *text, size_t len,
	    struct ft_peer **out, size_t *n, char *why, size_t whysize);
int	 ft_peer_cache_format(struct ft_wbuf *, const struct ft_peer *,
	    size_t n);
int	 ft_peer_cache_load(const char *path, struct ft_peer **out, size_t *n,
	    char *why, size_t whysize);
int	 ft_peer_cache_save(const char *path, const struct ft_peer *, size_t);
/* Sort nearest first: measured RTTs ascending, unmeasured last. */
void	 ft_peer_sort(struct ft_peer *, size_t);

/*
 * Gatekeeper: the reservation service of one daemon.  A reservation
 * takes one of J places and grants min(want, P) slots under a random
 * token, which expires ttl after it was made unless claimed; a claim
 * makes it a running job until ft_gate_job_done.  allow (if not empty)
 * and deny (always) are checked against the submitter's address on
 * reserve and on claim.  now (NULL: ft_now_ns) is the clock, so that
 * tests can move time.  The lists must outlive the gate.
 */
struct ft_gate;

struct ft_gate_cfg {
	uint32_t		 slots;		/* P */
	uint32_t		 jobs;		/* J */
	uint64_t		 ttl_ns;
	const struct ft_acl	*allow, *deny;
	uint64_t		(*now)(void *);
	void			*now_arg;
};

/* NULL with errno EINVAL (a limit 0 or too large) or ENOMEM. */
struct ft_gate *ft_gate_new(const struct ft_gate_cfg *);
void	 ft_gate_free(struct ft_gate *);
/* 1 if peer_ip may submit; 0 with why. */
int	 ft_gate_allowed(const struct ft_gate *, const char *peer_ip,
	    char *why, size_t whysize);
/*
 * Reserve up to want slots for a submitter at peer_ip.  Returns
 * FT_BOOT_OK with the token and *slots, or the refusal's status
 * (FT_BOOT_BUSY, FT_BOOT_DENIED, FT_BOOT_INVALID) with why.
 */
int	 ft_gate_reserve(struct ft_gate *, uint32_t want, const char *peer_ip,
	    uint8_t token[FT_PEER_TOKEN], uint32_t *slots, char *why,
	    size_t whysize);
/* Cancel an unclaimed reservation: 0, or -1 with ENOENT. */
int	 ft_gate_cancel(struct ft_gate *, const uint8_t token[FT_PEER_TOKEN]);
/*
 * Claim: the token is valid, unexpired, for at least nprocs slots ->
 * the reservation becomes a running job (counted against J) until
 * ft_gate_job_done.  Returns a job handle >= 0 or -1 with a reason in
 * why.
 */
int	 ft_gate_claim(struct ft_gate *, const uint8_t token[FT_PEER_TOKEN],
	    uint32_t nprocs, const char *peer_ip, char *why, size_t whysize);
void	 ft_gate_job_done(struct ft_gate *, int job);
/*
 * Forget expired reservations; returns how many, and sets *next to
 * the next expiry (0: none).
 */
size_t	 ft_gate_expire(struct ft_gate *, uint64_t *next);
void	 ft_gate_counts(const struct ft_gate *, uint32_t *reserved,
	    uint32_t *running);
uint64_t ft_gate_ttl(const struct ft_gate *);

/*
 * Grants: what a submitter receives.  rtt_us is the RTT measured from
 * the submitter's daemon (for --host, from the submitter), 0 unknown.
 */
enum ft_alloc { FT_ALLOC_SPREAD, FT_ALLOC_CONCENTRATE };

struct ft_grant {
	char	 addr[FT_WIRE_ADDR_MAX];	/* the daemon, "tcp:host:port" */
	char	 host[FT_WIRE_NODE_MAX];	/* its host name (as the daemon reports it) */
	uint32_t slots;				/* processes granted there */
	uint64_t rtt_us;			/* measured RTT from the submitter's daemon, 0 unknown */
	uint8_t	 token[FT_PEER_TOKEN];		/* presented when the job starts there */
};

/* "spread" or "concentrate": 0, or -1 with EINVAL. */
int	 ft_alloc_parse(const char *, enum ft_alloc *);
const char *ft_alloc_name(enum ft_alloc);

/*
 * Ask the daemon at boot_addr for nprocs slots (nranks * nrep) chosen
 * from its peer cache (and itself), reserving on each peer's
 * gatekeeper, overbooking and cancelling the extra, asking the
 * supernode for more peers when the cache is short.  On failure why
 * names what was missing ("asked for 64 slots, found 40 on 5 peers; 2
 * peers refused: ...").  0 with *out (heap, free it) and *nout, or -1
 * with errno and why.  Blocks up to FT_PEER_ALLOC_NS.
 */
int	 ft_peer_allocate(const char *boot_addr, const uint8_t *key,
	    uint32_t nranks, uint32_t nrep, enum ft_alloc, struct ft_grant **out,
	    size_t *nout, char *why, size_t whysize);
/*
 * --host / --hostfile: reserve directly on the named daemons
 * ("host[:port]" with slots, 0 = its capacity).
 */
struct ft_hostspec { char addr[FT_WIRE_ADDR_MAX]; uint32_t slots; };
/*
 * A hostfile: "ADDR [slots=N]" lines, '#' comments; ADDR is
 * host[:port] (port FT_BOOT_PORT when missing), [v6]:port, or
 * tcp:host:port.  A list: ADDR entries separated by commas.  0 with a
 * heap array, or -1 with EINVAL and why.
 */
int	 ft_hostfile_parse(const char *path, struct ft_hostspec **out,
	    size_t *n, char *why, size_t whysize);
int	 ft_hostfile_parse_text(const char *text, size_t len,
	    struct ft_hostspec **out, size_t *n, char *why, size_t whysize);
int	 ft_hostlist_parse(const char *list, struct ft_hostspec **out,
	    size_t *n, char *why, size_t whysize);
/* "host[:port]" to "tcp:host:port": 0, or -1 EINVAL. */
int	 ft_host_addr(const char *spec, char *addr, size_t size);
int	 ft_peer_reserve_hosts(const struct ft_hostspec *, size_t,
	    const uint8_t *key, uint32_t nranks, uint32_t nrep, enum ft_alloc,
	    struct ft_grant **out, size_t *nout, char *why, size_t whysize);
/* Cancel reservations not used (best effort). */
void	 ft_peer_release(const uint8_t *key, const struct ft_grant *, size_t);

/*
 * Placement, pure: which grant hosts process id p = rank*nrep +
 * replica.  Replicas of one rank never share a host (grants with the
 * same host name are one host) when there are at least nrep hosts with
 * room; otherwise returns 1 and writes a warning naming the shortfall.
 * spread: round-robin over grants sorted by RTT; concentrate: fill the
 * nearest first.  Grants are taken nearest first (rtt_us ascending,
 * 0 = unknown last, ties in array order).  Returns 0, 1, or -1 with
 * ENOSPC (fewer slots than processes; warn says so) or EINVAL.
 */
int	 ft_alloc_place(const struct ft_grant *, size_t, uint32_t nranks,
	    uint32_t nrep, enum ft_alloc, uint32_t *grant_of_proc, char *warn,
	    size_t warnsize);

/*
 * One request over a fresh authenticated connection: connect to addr
 * as role, send the frame in req, wait for a frame of type want and
 * hand its body to take (which returns 0, or -1 with errno).  An
 * ABORT frame from the peer is an error whose reason goes into why.
 * *rtt_ns (if not NULL) gets the time from sending the request to the
 * answer.  0, or -1 with errno and why ("tcp:h:7707: connection
 * refused").  Blocks until timeout_ns.
 */
int	 ft_peer_call(const char *addr, const uint8_t *key, uint8_t role,
	    const struct ft_wbuf *req, unsigned int want, uint64_t timeout_ns,
	    int (*take)(void *, const uint8_t *, size_t), void *arg,
	    uint64_t *rtt_ns, char *why, size_t whysize);
/* Reserve want slots on addr; FT_BOOT_* status, or -1 (unreachable). */
int	 ft_peer_reserve(const char *addr, const uint8_t *key, uint8_t role,
	    uint32_t want, struct ft_grant *g, char *why, size_t whysize);
/* Cancel one reservation: 0 or -1 with why. */
int	 ft_peer_cancel(const char *addr, const uint8_t *key, uint8_t role,
	    const uint8_t token[FT_PEER_TOKEN], char *why, size_t whysize);
/* Ask a daemon for its state: 0 or -1 with why. */
int	 ft_peer_state(const char *addr, const uint8_t *key,
	    struct ft_msg_boot_state *, char *why, size_t whysize);
/* Application-level ping: 0 and the RTT in µs, or -1 with why. */
int	 ft_peer_ping(const char *addr, const uint8_t *key, uint64_t *rtt_us,
	    char *why, size_t whysize);
/* Register with the supernode and get its peers (free them). */
int	 ft_peer_register(const char *supernode, const uint8_t *key,
	    const struct ft_msg_boot_register *, struct ft_msg_boot_peers *,
	    char *why, size_t whysize);

/*
 * The daemon.  ft_boot_serve runs its loop on the listening socket lfd
 * until *stop: the gatekeeper, PING, STATUS, ALLOC (served in a child
 * process, which reserves on peers and on this daemon), a refresher
 * child every refresh period (register with the supernode, ping the
 * peers, rewrite the cache), and jobs.  A SUBMITTER connection whose
 * first frame is FT_MSG_JOB_START (80) goes to job_frame, which claims
 * the token (ft_gate_claim), forks the job's child and returns its pid
 * and job handle, or -1 with why (sent back as ABORT).  The daemon
 * reaps the child and calls ft_gate_job_done.  Returns 0 when stopped,
 * -1 with errno on a fatal error.
 */
#define FT_MSG_JOB_START_TYPE	80	/* the remote-execution frame */

struct ft_boot_cfg {
	int		 lfd;
	int		 lockfd;	/* the pid file's, -1 if none */
	const uint8_t	*key;
	const char	*addr;		/* advertised, "tcp:host:port" */
	const char	*host;		/* reported host name */
	const char	*supernode;	/* NULL: none */
	const char	*cache_path;
	uint32_t	 slots, jobs;
	uint64_t	 ttl_ns, refresh_ns;
	const struct ft_acl *allow, *deny;
	int		(*job_frame)(void *arg, struct ft_gate *,
			    struct ft_conn *, const struct ft_hdr *,
			    const uint8_t *body, const char *peer_ip,
			    pid_t *child, int *job, char *why, size_t whysize);
	void		*job_arg;
	volatile sig_atomic_t *stop;
};

int	 ft_boot_serve(const struct ft_boot_cfg *);
/*
 * In a child the daemon forks (a job's, in job_frame): default signal
 * dispositions, nothing blocked, and every descriptor above standard
 * error closed but keep's connection (moved to descriptor 3, keep->fd
 * updated; keep may be NULL): the listening socket, the pid file (so
 * that the lock dies with the daemon, not its jobs) and the other
 * clients' connections (so that their end of file is not delayed).
 */
void	 ft_boot_child_init(const struct ft_boot_cfg *, struct ft_conn *keep);

/*
 * The supernode: daemons REGISTER and get the others; it forgets a
 * daemon not heard from for FT_PEER_FORGET of its refresh periods.
 */
struct ft_supernode_cfg {
	int		 lfd;
	const uint8_t	*key;
	volatile sig_atomic_t *stop;
};

int	 ft_supernode_serve(const struct ft_supernode_cfg *);

/*
 * Cross-file internals.  A daemon's ALLOC, served in a child process:
 * reserve on itself and the peers of its cache (asking the supernode
 * for more when short), overbook, place, cancel what is not used.
 * Fills out (GRANTS, status and why set); returns 0, -1 on ENOMEM.
 */
struct ft__alloc_ctx {
	const uint8_t	*key;
	const char	*self_addr;
	const char	*cache_path;
	const char	*supernode;		/* NULL: none */
	const struct ft_msg_boot_register *reg;	/* to ask the supernode */
};

int	 ft__peer_alloc_serve(const struct ft__alloc_ctx *,
	    const struct ft_msg_boot_alloc *, struct ft_msg_boot_grants *out);
/*
 * ft_peer_call with the request encoded in req by the caller (encoded
 * is the encoder's return value: on -1 nothing is sent and why says
 * so); req is released either way.
 */
int	 ft__peer_request(const char *addr, const uint8_t *key, uint8_t role,
	    struct ft_wbuf *req, int encoded, unsigned int want,
	    uint64_t timeout_ns, int (*take)(void *, const uint8_t *, size_t),
	    void *arg, uint64_t *rtt_ns, char *why, size_t whysize);

#endif

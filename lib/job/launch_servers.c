/* SPDX-License-Identifier: ISC */
/*
 * The servers a job may run beside its ranks: the event logger
 * (--ft vlog, `ftlog serve`) and the checkpoint server
 * (--ckpt-server auto, `ftckpt serve`).
 */
#include "launch_impl.h"

/*
 * --ft vlog: start the event logger (ftlog serve) for the job, in the
 * directory --log-dir names, else in one made for the job; or use the
 * one --log-server names.
 */
int
ft__l_start_logger(struct launcher *l)
{
	const char *tmp = l->cf->tmpdir != NULL ? l->cf->tmpdir : "/tmp";
	struct ft__logger_cfg lc;
	sigset_t cur;

	ft_random(&l->job_id, sizeof(l->job_id));
	if (l->cf->log_server != NULL) {
		l->log_addr = l->cf->log_server;
		return 0;
	}
	if (l->cf->log_dir != NULL) {
		if (mkdir(l->cf->log_dir, 0700) != 0 && errno != EEXIST) {
			ft_warn("unable to make the log directory '%s'",
			    l->cf->log_dir);
			return -1;
		}
		l->logdir_used = l->cf->log_dir;
	} else {
		if ((size_t)snprintf(l->logdir, sizeof(l->logdir),
		    "%s/ftlog.XXXXXX", tmp) >= sizeof(l->logdir) ||
		    mkdtemp(l->logdir) == NULL) {
			l->logdir[0] = '\0';
			ft_warn("unable to make a log directory in '%s'", tmp);
			return -1;
		}
		l->logdir_used = l->logdir;
	}
	sigprocmask(SIG_SETMASK, NULL, &cur);
	/* Across hosts, where the ranks reach us (ft__remote_connect). */
	lc = (struct ft__logger_cfg){ l->logdir_used, l->rm != NULL ?
	    l->sock : "tcp:127.0.0.1:0", l->cf->log_sync, l->key, &cur,
	    10000000000ull };
	if (ft__logger_start(&l->logger, &lc) != 0) {
		ft_warn("unable to start the event logger (ftlog serve)");
		if (l->logdir[0] != '\0')
			(void)ft__logdir_remove(l->logdir);
		return -1;
	}
	ft__l_watchdog_tell(l, l->logger.pid);
	l->log_addr = l->logger.addr;
	return 0;
}

/*
 * --ft vlog: the logger died.  It is started again on the same address
 * and directory: what it acknowledged is in its files (ft-log(5)), and
 * the ranks send again what it had not.  The job ends if it cannot be.
 */
#define LOGGER_RESTARTS_MAX	8

void
ft__l_logger_died(struct launcher *l, int st)
{
	struct ft__logger_cfg lc;
	char how[128], addr[FT_WIRE_ADDR_MAX];

	l->logger.pid = -1;
	if (l->aborting)
		return;
	ft__l_describe_status(st, how, sizeof(how));
	ft__l_event(l, "\"event\":\"logger\",\"status\":\"%s\"", how);
	if (l->logger_restarts++ >= LOGGER_RESTARTS_MAX) {
		ft_warnx("the event logger %s %u times; aborting the job", how,
		    l->logger_restarts);
		ft__l_abort_job(l, FT_EXIT_TEMP);
		return;
	}
	ft_warnx("the event logger %s; restarting it on %s", how,
	    l->logger.addr);
	snprintf(addr, sizeof(addr), "%s", l->logger.addr);
	lc = (struct ft__logger_cfg){ l->logdir_used, addr, l->cf->log_sync,
	    l->key, l->origmask, 10000000000ull };
	if (ft__logger_start(&l->logger, &lc) != 0) {
		ft_warn("unable to restart the event logger on %s; aborting "
		    "the job", addr);
		ft__l_event(l, "\"event\":\"abort\",\"reason\":\"the event "
		    "logger is gone\"");
		ft__l_abort_job(l, FT_EXIT_TEMP);
		return;
	}
	ft__l_watchdog_tell(l, l->logger.pid);
}

/* --ft vlog, at the end: the logger goes, and its directory if ours. */
void
ft__l_stop_logger(struct launcher *l, int status)
{
	ft__logger_stop(&l->logger);
	if (l->logdir[0] == '\0')
		return;
	if (status == 0)
		(void)ft__logdir_remove(l->logdir);
	else
		ft_warnx("the event log of the job is kept in '%s'",
		    l->logdir);
}

/*
 * --ckpt-server auto: the server died (ckptsrv2).  It is started again
 * on the same address and directory, at most FT__CKSERVER_RESTARTS_MAX
 * times: what it acknowledged is in its directory (an image is renamed
 * into place, fsynced, before its RESULT), and the ranks, whose
 * environment names that address, push again the newest image it
 * lacks (each retries a failed push every second).  If it cannot be
 * restarted, images stay local for the rest of the job (--ft coord: an
 * epoch is complete once local).
 */
#define FT__CKSERVER_RESTARTS_MAX	8

/* It is not restarted: images stay local from now on. */
static void
ckserver_lost(struct launcher *l, const char *how)
{
	ft__l_event(l, "\"event\":\"ckpt_server\",\"status\":\"%s\","
	    "\"restarted\":false", how);
	l->ckserver_gone = 1;
	l->ckserver_down = 1;
	if (l->coord.on)
		ft__l_coord_image(l, UINT32_MAX, 0, 0);
}

void
ft__l_ckserver_died(struct launcher *l, int st)
{
	char how[128], addr[FT_WIRE_ADDR_MAX];

	l->ckserver.pid = -1;
	if (l->aborting)
		return;
	ft__l_describe_status(st, how, sizeof(how));
	snprintf(addr, sizeof(addr), "%s", l->ckserver.addr);
	if (l->ckserver_restarts >= FT__CKSERVER_RESTARTS_MAX) {
		ft_warnx("the checkpoint server %s, %u times: not restarted; "
		    "images are no longer pushed%s", how,
		    l->ckserver_restarts + 1, l->coord.on ? ": the job goes "
		    "on with the ranks' local images" : "");
		ckserver_lost(l, how);
		return;
	}
	l->ckserver_restarts++;
	if (ft__ckserver_start(&l->ckserver, l->cf->ckpt_serve_dir, l->ckkey,
	    addr, l->origmask, 10000000000ull) != 0) {
		ft_warn("the checkpoint server %s; unable to restart it on %s: "
		    "images are no longer pushed%s", how, addr, l->coord.on ?
		    ": the job goes on with the ranks' local images" : "");
		ckserver_lost(l, how);
		return;
	}
	ft_warnx("the checkpoint server %s; restarted on %s (%u of %u)", how,
	    l->ckserver.addr, l->ckserver_restarts, FT__CKSERVER_RESTARTS_MAX);
	ft__l_event(l, "\"event\":\"ckpt_server\",\"status\":\"%s\","
	    "\"restarted\":true,\"addr\":\"%s\",\"pid\":%d,\"restarts\":%u",
	    how, l->ckserver.addr, (int)l->ckserver.pid, l->ckserver_restarts);
}

/* Has a live process other than i said it cannot reach the server? */
static int
ckserver_others_down(const struct launcher *l, uint32_t i)
{
	const struct lrank *r;
	uint32_t k;

	for (k = 0; k < l->n; k++) {
		r = &l->ranks[k];
		if (k != i && r->ck_srvdown == r->incarnation + 1 &&
		    r->state == R_RUNNING && !r->finalized && !r->dead)
			return 1;
	}
	return 0;
}

/*
 * Process i (rank) could not push to the checkpoint server (up 0), or
 * pushed to it again (up 1), ckptsrv2: a server run by hand that died
 * is noticed by the ranks' failing pushes (each retries every second);
 * said once on stderr and in --events, until a rank reaches it again.
 * A rank that says it cannot while others who said so have not said
 * otherwise yet is late news (its retry is still to come): not said
 * again.  --ft coord: the complete epoch follows the local images
 * meanwhile.
 */
void
ft__l_ckserver_reach(struct launcher *l, uint32_t i, uint32_t rank, int up)
{
	int others = ckserver_others_down(l, i);

	l->ranks[i].ck_srvdown = up ? 0 : l->ranks[i].incarnation + 1;
	if (l->aborting || (up != 0) == (l->ckserver_down == 0) ||
	    (!up && others))
		return;
	l->ckserver_down = !up;
	if (!up) {
		ft_warnx("rank %u cannot reach the checkpoint server: images "
		    "stay local until it is back", rank);
		ft__l_event(l, "\"event\":\"ckpt_server\",\"status\":"
		    "\"unreachable\",\"rank\":%u", rank);
		if (l->coord.on)
			ft__l_coord_image(l, UINT32_MAX, 0, 0);
		return;
	}
	ft_warnx("rank %u reached the checkpoint server again: images are "
	    "pushed", rank);
	ft__l_event(l, "\"event\":\"ckpt_server\",\"status\":"
	    "\"reachable\",\"rank\":%u", rank);
	if (l->coord.on)
		ft__l_coord_image(l, UINT32_MAX - 1, 0, 0);
}

/*
 * --ckpt-server auto: start `ftckpt serve` on loopback, storing in
 * cf->ckpt_serve_dir, with the key ftrun made for it.
 */
int
ft__l_start_ckserver(struct launcher *l)
{
	snprintf(l->ckkey, sizeof(l->ckkey), "%s", l->cf->ckpt_serve_key);
	if (mkdir(l->cf->ckpt_serve_dir, 0700) != 0 && errno != EEXIST) {
		ft_warn("checkpoint server directory '%s'",
		    l->cf->ckpt_serve_dir);
		return -1;
	}
	if (ft__ckserver_start(&l->ckserver, l->cf->ckpt_serve_dir, l->ckkey,
	    NULL, l->origmask, 10000000000ull) != 0) {
		ft_warn("unable to start the checkpoint server");
		return -1;
	}
	ft__l_event(l, "\"event\":\"ckpt_server\",\"addr\":\"%s\",\"pid\":%d",
	    l->ckserver.addr, (int)l->ckserver.pid);
	return 0;
}

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
 * --ckpt-server auto: the server died.  It is not started again:
 * images stop being durable, and the job goes on from what it holds.
 */
void
ft__l_ckserver_died(struct launcher *l, int st)
{
	char how[128];

	l->ckserver.pid = -1;
	if (l->aborting)
		return;
	ft__l_describe_status(st, how, sizeof(how));
	ft_warnx("the checkpoint server %s; images are no longer pushed%s",
	    how, l->coord.on ? ": the job goes on with the ranks' local "
	    "images" : "");
	ft__l_event(l, "\"event\":\"ckpt_server\",\"status\":\"%s\"", how);
	if (l->coord.on)
		ft__l_coord_image(l, UINT32_MAX, 0, 0);
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
	    l->origmask, 10000000000ull) != 0) {
		ft_warn("unable to start the checkpoint server");
		return -1;
	}
	ft__l_event(l, "\"event\":\"ckpt_server\",\"addr\":\"%s\",\"pid\":%d",
	    l->ckserver.addr, (int)l->ckserver.pid);
	return 0;
}

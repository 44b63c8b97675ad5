/* SPDX-License-Identifier: ISC */
/*
 * Heartbeats: how a host agent tells a hung process from a busy one.
 *
 * A thread of every rank writes a fixed-size record to a pipe its host
 * agent made, every period, from MPI_Init until the process exits.  A
 * process that is stopped, frozen or swapped out writes nothing; one
 * that computes, or waits in MPI, goes on writing.  The agent declares
 * failed a process silent for longer than the hang timeout.
 *
 * A thread, not the main loop, beats: a rank may compute for hours
 * between two MPI calls, and that is no failure.  The record also says
 * whether the main thread waits inside MPI and how many MPI operations
 * it has completed, so that --timeout can name the processes that made
 * no progress.
 *
 * Writes of at most PIPE_BUF bytes to a pipe are atomic, so the records
 * of all the processes sharing the pipe never interleave.  The pipe is
 * non-blocking: a beat that finds it full is dropped, never waited for.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "job.h"

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

void
ft_hb_encode(uint8_t out[FT_HB_RECLEN], const struct ft_hb_rec *r)
{
	put32(out, FT_HB_MAGIC);
	put32(out + 4, r->id);
	put32(out + 8, r->flags);
	put32(out + 12, r->state_ms);
	put32(out + 16, (uint32_t)(r->completed >> 32));
	put32(out + 20, (uint32_t)r->completed);
}

int
ft_hb_decode(const uint8_t *buf, size_t len, size_t *used,
    struct ft_hb_rec *r)
{
	size_t off = 0;

	/*
	 * Only a process of the job can write to the pipe, but a program
	 * may write to a descriptor it does not own: skip bytes up to the
	 * next record that looks whole, so one stray write costs the beats
	 * it overlaps and no more.
	 */
	for (;;) {
		while (off + 4 <= len && get32(buf + off) != FT_HB_MAGIC)
			off++;
		if (off + FT_HB_RECLEN > len) {
			/* Keep a tail that may start a record. */
			if (off + 4 > len)
				off = len > 3 ? len - 3 : 0;
			*used = off;
			return 0;
		}
		r->id = get32(buf + off + 4);
		r->flags = get32(buf + off + 8);
		r->state_ms = get32(buf + off + 12);
		r->completed = (uint64_t)get32(buf + off + 16) << 32 |
		    get32(buf + off + 20);
		if ((r->flags & ~FT_HB_FLAGS) == 0 &&
		    r->id < FT_WIRE_MAX_RANKS) {
			*used = off + FT_HB_RECLEN;
			return 1;
		}
		off++;
	}
}

/* The beating thread and what the main thread tells it. */
static struct {
	int			 fd;
	pid_t			 pid;		/* a fork's child has no thread */
	uint32_t		 id;
	uint64_t		 period_ns;
	pthread_t		 thread;
	int			 running;
	atomic_int		 stop;
	atomic_uint		 flags;
	atomic_uint_fast64_t	 since_ns;	/* entered the present state */
	atomic_uint_fast64_t	 completed;
} hb = { .fd = -1 };

static void
beat(void)
{
	struct ft_hb_rec r;
	uint8_t rec[FT_HB_RECLEN];
	uint64_t now = ft_now_ns(), since;
	ssize_t n;

	since = atomic_load_explicit(&hb.since_ns, memory_order_relaxed);
	r.id = hb.id;
	r.flags = atomic_load_explicit(&hb.flags, memory_order_relaxed);
	r.state_ms = now > since ? (now - since) / 1000000 > UINT32_MAX ?
	    UINT32_MAX : (uint32_t)((now - since) / 1000000) : 0;
	r.completed = atomic_load_explicit(&hb.completed,
	    memory_order_relaxed);
	ft_hb_encode(rec, &r);
	do
		n = write(hb.fd, rec, sizeof(rec));
	while (n < 0 && errno == EINTR);
}

static void *
beat_loop(void *arg)
{
	struct timespec next;
	uint64_t t;

	(void)arg;
	t = ft_now_ns();
	while (!atomic_load(&hb.stop)) {
		beat();
		/* Absolute deadlines: a late wake-up does not shift every
		 * later beat. */
		t += hb.period_ns;
		if (t < ft_now_ns())
			t = ft_now_ns();
		next.tv_sec = (time_t)(t / 1000000000u);
		next.tv_nsec = (long)(t % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
		    NULL) == EINTR)
			;
	}
	return NULL;
}

static void
hb_stop_at_exit(void)
{
	ft_hb_stop();
}

int
ft_hb_start(int fd, uint32_t id, uint64_t period_ns)
{
	sigset_t all, old;
	int rc;

	if (hb.running || fd < 0 || period_ns == 0) {
		errno = EINVAL;
		return -1;
	}
	/* Programs this one runs do not beat for it. */
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	hb.fd = fd;
	hb.pid = getpid();
	hb.id = id;
	hb.period_ns = period_ns;
	atomic_store(&hb.stop, 0);
	atomic_store(&hb.since_ns, ft_now_ns());
	/* Signals are the main thread's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&hb.thread, NULL, beat_loop, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	if (!hb.running)
		(void)atexit(hb_stop_at_exit);
	hb.running = 1;
	return 0;
}

void
ft_hb_stop(void)
{
	if (!hb.running || hb.pid != getpid())
		return;
	atomic_store(&hb.stop, 1);
	/* Cut the sleep short. */
	(void)pthread_cancel(hb.thread);
	(void)pthread_join(hb.thread, NULL);
	hb.running = 0;
}

void
ft_hb_state(unsigned int flags, uint64_t completed)
{
	unsigned int old = atomic_load_explicit(&hb.flags,
	    memory_order_relaxed);

	if ((old & FT_HB_IN_MPI) != (flags & FT_HB_IN_MPI))
		atomic_store_explicit(&hb.since_ns, ft_now_ns(),
		    memory_order_relaxed);
	atomic_store_explicit(&hb.flags, flags, memory_order_relaxed);
	atomic_store_explicit(&hb.completed, completed,
	    memory_order_relaxed);
}

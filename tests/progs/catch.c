/* SPDX-License-Identifier: ISC */
/*
 * catch: usage: catch [STATUS]
 * Block SIGINT and SIGTERM, print "ready", wait for one of them, then
 * print "rank R got SIGINT" (or SIGTERM) and exit with STATUS (default
 * 3).  Blocking before "ready" means a signal sent once "ready" is out
 * is never lost, whenever it comes.  Needs no MPI: the rank comes from
 * FT_RANK.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	const char *r = getenv("FT_RANK");
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return 111;
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&set, &sig) != 0)
		return 111;
	printf("rank %s got %s\n", r != NULL ? r : "?",
	    sig == SIGINT ? "SIGINT" : "SIGTERM");
	return argc > 1 ? (int)strtol(argv[1], NULL, 10) : 3;
}

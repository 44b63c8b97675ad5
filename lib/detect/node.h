/* SPDX-License-Identifier: ISC */
/*
 * A detector module on the network (ftgossip run; ftrun and ftboot
 * later): gossip, ping of suspects, local death reports and the
 * membership view, until *stop is set or the member is excluded.
 *
 * Events go to cfg->events, one line each (ft-gossip events in
 * ftgossip(1)): t= (wall clock, seconds) self= event= and the event's
 * fields, or a JSON object with the same keys.
 */
#ifndef FT_DETECT_NODE_H
#define FT_DETECT_NODE_H

#include <signal.h>
#include <stdio.h>

#include "detect.h"

/* Up to this many members, each keeps a connection to every other. */
#define FT_GNODE_MESH_MAX	64

struct ft_gnode_cfg {
	uint32_t	 n, self, fanout;
	enum ft_gossip_proto proto;
	uint64_t	 period_ns;	/* Tgossip */
	uint64_t	 cleanup_ns;	/* Tcleanup: silence before suspicion */
	uint64_t	 ping_ns;	/* a suspect's time to answer */
	uint64_t	 startup_ns;	/* a member's time to first appear */
	char		(*addrs)[FT_WIRE_ADDR_MAX];	/* n addresses */
	const uint8_t	*key;		/* FT_WIRE_KEYLEN bytes */
	unsigned int	 join;		/* 0, FT_MB_NEW_NODE, FT_MB_NODE_ALIVE */
	int		 json;
	FILE		*events;
	int		 in_fd;		/* "dead ID" lines, or -1 */
	/* A listener already bound to addrs[self] (taken over, closed at
	 * the end), or -1 to listen there. */
	int		 listen_fd;
	volatile sig_atomic_t *stop;
};

/*
 * Run until *stop (FT_EXIT_OK) or exclusion from the view (FT_EXIT_NO);
 * FT_EXIT_TEMP when it cannot listen or set up, with a message.
 */
int	 ft_gnode_run(const struct ft_gnode_cfg *);

#endif

/* SPDX-License-Identifier: ISC */
/*
 * The event loop of ft's servers (ftboot's daemon and supernode, ftlog):
 * accept, authenticate (lib/net's handshake, strangers bounded by
 * ft_hs_guard), read frames and hand each to the server's callback,
 * write what it queued.  Signals the caller handles (SIGCHLD, SIGTERM,
 * SIGINT, SIGHUP) are blocked except while waiting in ppoll, so a
 * handler's flag is seen at once.
 */
#ifndef FT_NET_SERVE_H
#define FT_NET_SERVE_H

#include <arpa/inet.h>

#include <signal.h>

#include "net.h"

struct ft__srv_conn {
	struct ft_conn	 c;
	char		 ip[INET6_ADDRSTRLEN];	/* "local" for Unix */
	uint32_t	 frames;	/* handled since the handshake */
	int		 closing;	/* close once the queue is sent */
	void		*user;		/* the server's, per connection */
};

struct ft__srv {
	int		 lfd;
	const uint8_t	*key;
	const char	*who;		/* "daemon", "supernode" */
	size_t		 max_conns;	/* authenticated connections */
	/* In the handshake at once (0: FT_HS_STRANGERS), for a server
	 * that whole jobs connect to at the same moment. */
	size_t		 max_hs;
	/* Which HELLO roles this server talks to. */
	int		(*role_ok)(uint8_t role);
	/* A frame after the handshake: 0 to go on, -1 to close now. */
	int		(*frame)(struct ft__srv *, struct ft__srv_conn *,
			    const struct ft_hdr *, const uint8_t *body);
	/* Every turn of the loop: the next deadline (ft_now_ns), or 0. */
	uint64_t	(*tick)(struct ft__srv *);
	/* A connection is about to be freed (may be NULL). */
	void		(*gone)(struct ft__srv *, struct ft__srv_conn *);
	void		*arg;
	volatile sig_atomic_t *stop;
	/* Private to serve.c. */
	struct ft__srv_conn **conn;
	size_t		 n, cap;
	struct ft_ratelim rl;
};

/* Run until *stop; 0, or -1 with errno on a fatal error. */
int	 ft__srv_run(struct ft__srv *);
/* Queue the frames in b on c and empty b: 0, or -1 (c is closing). */
int	 ft__srv_send(struct ft__srv_conn *, struct ft_wbuf *);
/* Send an ABORT with reason and close c once it is sent. */
void	 ft__srv_refuse(struct ft__srv_conn *, const char *reason);
/* Drop c without closing the fd in other processes (after a fork). */
void	 ft__srv_drop(struct ft__srv *, struct ft__srv_conn *);
/* Free every connection (the loop ended, or in a forked child). */
void	 ft__srv_release(struct ft__srv *);

#endif

/* SPDX-License-Identifier: ISC */
/*
 * The fault-tolerance protocol seam (ARCHITECTURE.md section 4).  Every
 * point-to-point message passes through a protocol's hooks: send before
 * it leaves, deliver when it is matched.  A protocol is a const table
 * of hooks chosen by name; hooks other than init may be NULL, which
 * means the core default (do nothing).  Protocols take events in and
 * give effects back: they never do I/O themselves.
 */
#ifndef FT_PROTO_H
#define FT_PROTO_H

#include "../base/base.h"

#define FT_PROTO_ABI	1

/* A message as the protocols see it. */
struct ft_msg {
	uint32_t	 ctx;		/* communicator context */
	uint32_t	 src;		/* world rank of the sender */
	uint32_t	 dst;		/* world rank of the receiver */
	int32_t		 tag;
	uint64_t	 seq;		/* per (src, dst) message number */
	const void	*buf;
	size_t		 len;
};

struct ft_conf {
	uint32_t	 rank, size;	/* world */
};

struct ft_proto;

struct ft_proto_ops {
	unsigned int	 abi;		/* FT_PROTO_ABI at build time */
	const char	*name;
	size_t		 privsize;	/* private state, allocated by core */
	/* ABI 1.  Hooks other than init may be NULL: core default. */
	int	(*init)(struct ft_proto *, const struct ft_conf *);
	void	(*fini)(struct ft_proto *);
	int	(*send)(struct ft_proto *, struct ft_msg *);
	int	(*deliver)(struct ft_proto *, const struct ft_msg *);
	int	(*peer_down)(struct ft_proto *, uint32_t, uint64_t epoch);
	int	(*save)(struct ft_proto *, struct ft_wbuf *);
	int	(*restore)(struct ft_proto *, struct ft_rbuf *);
	/* ABI 2 appends here; never reorder or remove. */
};

struct ft_proto {
	const struct ft_proto_ops	*ops;
	void				*priv;
	struct ft_conf			 conf;
	uint64_t			 sent, delivered;
};

/*
 * Find a protocol by name.  Returns the ops table, or NULL with ENOENT;
 * ft_proto_names gives "none, ..." for the message an unknown name
 * deserves.
 */
const struct ft_proto_ops *ft_proto_find(const char *name);
const char *ft_proto_names(void);

/*
 * Set up p with ops: allocate privsize bytes and call init.  Returns 0,
 * or -1 with errno (ENOMEM, or ENOTSUP from init).  ft_proto_release
 * calls fini and frees the private state.
 */
int	 ft_proto_init(struct ft_proto *, const struct ft_proto_ops *,
	    const struct ft_conf *);
void	 ft_proto_release(struct ft_proto *);

/* Run a hook, or the core default when the protocol has none. */
int	 ft_proto_send(struct ft_proto *, struct ft_msg *);
int	 ft_proto_deliver(struct ft_proto *, const struct ft_msg *);

extern const struct ft_proto_ops ft__proto_none;

#endif

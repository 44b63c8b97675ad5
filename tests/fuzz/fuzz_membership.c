/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the membership state machine with what a peer may send: the
 * input is a sequence of records (sender byte, body length byte, MEMBER
 * body), each decoded and, when accepted, delivered to one member of
 * 16.  Whatever arrives, the member must not crash and must keep its
 * invariants: a sorted view of distinct ids in range that holds itself
 * (unless excluded), and epochs that never go back.
 */
#include "fuzz.h"

#include "detect/detect.h"

#define N	16

static void
drop(void *arg, uint32_t to, const struct ft_msg_member *m)
{
	(void)arg;
	(void)m;
	if (to >= N)
		abort();
}

static const struct ft_mb_ops ops = { drop, NULL };

static void
check(const struct ft_member *m, uint64_t last_epoch)
{
	uint32_t i, self_in = 0;

	if (m->epoch < last_epoch || m->nlive > N)
		abort();
	for (i = 0; i < m->nlive; i++) {
		if (m->live[i] >= N || (i > 0 && m->live[i] <= m->live[i - 1]))
			abort();
		if (m->live[i] == m->self)
			self_in = 1;
	}
	if (!self_in && !m->excluded && !m->joining_self)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint32_t live[N], fail[N], by[N];
	static uint64_t ep[N];
	struct ft_msg_member msg;
	struct ft_member m;
	uint64_t now = 1000000000ull, last;
	size_t len;
	uint8_t from;

	/* The first byte picks the member and how it starts. */
	if (size < 1)
		return 0;
	if (ft_member_init(&m, N, data[0] % N, 2u << (data[0] / N % 3),
	    1000000, data[0] & 0x80 ? FT_MB_NODE_ALIVE : 0, &ops, NULL,
	    now) != 0)
		abort();
	data++;
	size--;
	while (size >= 2) {
		from = data[0];
		len = data[1];
		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		msg.live = live;
		msg.fail = fail;
		msg.by = by;
		msg.ep = ep;
		last = m.epoch;
		if (from == 0xff)
			ft_member_failed(&m, len % N, m.self, now);
		else if (from == 0xfe)
			ft_member_tick(&m, now += 1000000);
		else if (ft_msg_member_decode(data, len, &msg, N) == 0)
			ft_member_recv(&m, from % (N + 1), &msg, now);
		check(&m, last);
		data += len;
		size -= len;
		now += 1000;
	}
	ft_member_release(&m);
	return 0;
}

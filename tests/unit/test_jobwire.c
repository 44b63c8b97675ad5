/* SPDX-License-Identifier: ISC */
/*
 * Remote execution: the JOB_* codecs (round trips, truncation at every
 * offset, refusals), the sealed job key, the --host parser and the
 * round-robin placement.
 */
#include "tap.h"

#include "job/job.h"

static char *s_argv[] = { "./ring", "-v", "", NULL };
static char *s_env[] = { "A=1", "LONG=xyz", NULL };
static struct ft_job_proc s_procs[2] = { { 1, 0, 0 }, { 3, 9, 250 } };
static struct ft_job_file s_files[2] = {
	{ "ring", "", 16392, { 1, 2, 3 }, FT_STAGE_PINNED },
	{ "data.bin", "http://x/y/data.bin", 0, { 0 }, 0 },
};

static void
sample(struct ft_msg_job_start *m)
{
	memset(m, 0, sizeof(*m));
	memset(m->token, 0xa5, sizeof(m->token));
	m->nprocs = 2;
	m->jobid = 0x0102030405060708ull;
	m->node = 3;
	m->nranks = 2;
	m->nrep = 2;
	m->flags = FT_JOB_TCP;
	m->timeout_ms = 60000;
	m->grace_ms = 3000;
	m->hang_ms = 10000;
	m->hb_period_ms = 1000;
	snprintf(m->launcher, sizeof(m->launcher), "tcp:10.0.0.1:4000");
	snprintf(m->proto, sizeof(m->proto), "replicate");
	m->prog = 0;
	m->argc = 3;
	m->argv = s_argv;
	m->nenv = 2;
	m->env = s_env;
	m->procs = s_procs;
	m->nfiles = 2;
	m->files = s_files;
	memset(m->sealed, 0x5a, sizeof(m->sealed));
}

static void
t_job_start(void)
{
	struct ft_msg_job_start m, d;
	struct ft_wbuf wb, wb2;
	size_t cut, body;
	int ok = 1;

	sample(&m);
	ft_wbuf_init(&wb);
	T_OK(ft_msg_job_start_encode(&wb, FT_WIRE_LAUNCHER, &m) == 0,
	    "JOB_START encodes");
	body = wb.len - FT_WIRE_HDRLEN;
	T_OK(ft_msg_job_start_decode(wb.p + FT_WIRE_HDRLEN, body, &d) == 0,
	    "JOB_START decodes");
	T_EQ_UINT(d.argc, 3, "argc");
	T_EQ_STR(d.argv[0], "./ring", "argv[0]");
	T_EQ_STR(d.argv[2], "", "an empty argument");
	T_OK(d.argv[3] == NULL, "argv ends with NULL");
	T_EQ_STR(d.env[1], "LONG=xyz", "environment");
	T_EQ_UINT(d.procs[1].kill_after, 250, "kill_after");
	T_EQ_STR(d.files[1].url, "http://x/y/data.bin", "url");
	T_OK(memcmp(d.files[0].sha256, s_files[0].sha256, 32) == 0, "sha");
	T_EQ_STR(d.launcher, "tcp:10.0.0.1:4000", "launcher");
	ft_wbuf_init(&wb2);
	T_OK(ft_msg_job_start_encode(&wb2, FT_WIRE_LAUNCHER, &d) == 0 &&
	    wb2.len == wb.len && memcmp(wb2.p, wb.p, wb.len) == 0,
	    "JOB_START round trip is byte for byte");
	ft_msg_job_start_free(&d);
	ft_wbuf_release(&wb2);
	for (cut = 0; cut < body; cut++)
		if (ft_msg_job_start_decode(wb.p + FT_WIRE_HDRLEN, cut,
		    &d) == 0 || errno != EPROTO || d.argv != NULL)
			ok = 0;
	T_OK(ok, "JOB_START cut at every offset is refused with EPROTO");
	ft_wbuf_release(&wb);

	/* Refusals by the encoder: what the decoder would refuse. */
	s_files[1].name = "../etc";
	ft_wbuf_init(&wb);
	T_FAILS(ft_msg_job_start_encode(&wb, 0, &m), EINVAL,
	    "a staged name '../etc' is not encoded");
	s_files[1].name = "a/b";
	T_FAILS(ft_msg_job_start_encode(&wb, 0, &m), EINVAL,
	    "a staged name 'a/b' is not encoded");
	s_files[1].name = "..";
	T_FAILS(ft_msg_job_start_encode(&wb, 0, &m), EINVAL,
	    "a staged name '..' is not encoded");
	s_files[1].name = "data.bin";
	m.prog = 2;
	T_FAILS(ft_msg_job_start_encode(&wb, 0, &m), EINVAL,
	    "a program index past the files is not encoded");
	m.prog = 0;
	m.argc = 0;
	T_FAILS(ft_msg_job_start_encode(&wb, 0, &m), EINVAL,
	    "an empty argv is not encoded");
	ft_wbuf_release(&wb);
	T_OK(!ft_job_name_ok("") && !ft_job_name_ok(".") &&
	    !ft_job_name_ok("/abs") && ft_job_name_ok(".hidden") &&
	    ft_job_name_ok("x..y"), "ft_job_name_ok");

	/* A name with a slash, written by hand, is refused by the decoder. */
	m.argc = 3;
	s_files[1].name = "dataXbin";
	ft_wbuf_init(&wb);
	(void)ft_msg_job_start_encode(&wb, 0, &m);
	{
		uint8_t *x = memmem(wb.p, wb.len, "dataXbin", 8);

		x[4] = '/';
		T_FAILS(ft_msg_job_start_decode(wb.p + FT_WIRE_HDRLEN,
		    wb.len - FT_WIRE_HDRLEN, &d), EPROTO,
		    "a staged name 'data/bin' on the wire is refused");
		x[4] = 'X';
		x = memmem(wb.p, wb.len, "A=1", 3);
		x[1] = 'x';
		T_FAILS(ft_msg_job_start_decode(wb.p + FT_WIRE_HDRLEN,
		    wb.len - FT_WIRE_HDRLEN, &d), EPROTO,
		    "an environment entry without '=' is refused");
	}
	s_files[1].name = "data.bin";
	ft_wbuf_release(&wb);
}

/* Encode, decode, re-encode: the same bytes; cut: always refused. */
#define ROUND(name, type, dec, ...) do {				\
	struct ft_wbuf w1, w2;						\
	size_t c_, bl_;							\
	int ok_ = 1;							\
									\
	ft_wbuf_init(&w1);						\
	ft_wbuf_init(&w2);						\
	T_OK(ft_msg_job_##name##_encode(&w1, 7, &in) == 0,		\
	    #name " encodes");						\
	bl_ = w1.len - FT_WIRE_HDRLEN;					\
	T_OK(ft_msg_job_##name##_decode(w1.p + FT_WIRE_HDRLEN, bl_,	\
	    &dec __VA_ARGS__) == 0 && ft_msg_job_##name##_encode(&w2, 7,	\
	    &dec) == 0 && w1.len == w2.len && memcmp(w1.p, w2.p,	\
	    w1.len) == 0 && w1.p[3] == type, #name " round trip");	\
	for (c_ = 0; c_ < bl_; c_++)					\
		if (ft_msg_job_##name##_decode(w1.p + FT_WIRE_HDRLEN, c_,	\
		    &dec __VA_ARGS__) == 0 || errno != EPROTO)		\
			ok_ = 0;					\
	/* FILE, OUTPUT, INPUT end with their payload: a cut there is a	\
	 * shorter payload, not an error. */					\
	T_OK(ok_ || type == FT_MSG_JOB_FILE || type ==			\
	    FT_MSG_JOB_OUTPUT || type == FT_MSG_JOB_INPUT,		\
	    #name " cut at every offset is refused");			\
	ft_wbuf_release(&w1);						\
	ft_wbuf_release(&w2);						\
} while (0)

static void
t_small(void)
{
	{
		struct ft_msg_job_need in = { 3, { 0, 5, 255 } }, out;

		ROUND(need, FT_MSG_JOB_NEED, out);
	}
	{
		struct ft_job_pid p[2] = { { 1, 4242, 0 }, { 3, 0, ENOMEM } },
		    q[2];
		struct ft_msg_job_started in = { 1, 2, 3, 2, p }, out;

		out.p = q;
		ROUND(started, FT_MSG_JOB_STARTED, out, , 2);
		T_EQ_UINT(q[1].err, ENOMEM, "started: an errno");
	}
	{
		struct ft_job_status s[3] = { { 0, FT_JOB_EXITED, 3 },
		    { 1, FT_JOB_SIGNALED, 9 }, { 2, FT_JOB_STOPPED, 19 } },
		    t[3];
		struct ft_msg_job_status in = { 3, s }, out;
		struct ft_wbuf wb;

		out.s = t;
		ROUND(status, FT_MSG_JOB_STATUS, out, , 3);
		s[0].value = 256;
		ft_wbuf_init(&wb);
		T_FAILS(ft_msg_job_status_encode(&wb, 0, &in), EINVAL,
		    "status: an exit code of 256 is not encoded");
		ft_wbuf_release(&wb);
	}
	{
		struct ft_job_beat b[2] = { { 0, 1, 2, 3 },
		    { 5, 2, 0, UINT64_MAX } }, c[2];
		struct ft_msg_job_beats in = { 2, b }, out;

		out.b = c;
		ROUND(beats, FT_MSG_JOB_BEATS, out, , 2);
	}
	{
		uint32_t ids[2] = { 1, 7 }, jd[2];
		struct ft_msg_job_signal in = { 15, 2, ids }, out;

		out.ids = jd;
		ROUND(signal, FT_MSG_JOB_SIGNAL, out, , 2);
	}
	{
		struct ft_msg_job_note in = { FT_JOB_NOTE_ERROR, 1,
		    "host 'a': unable to stage 'x'" }, out;

		ROUND(note, FT_MSG_JOB_NOTE, out);
	}
	{
		struct ft_msg_job_file in = { 2, 1ull << 20,
		    (const uint8_t *)"abc", 3 }, out;

		ROUND(file, FT_MSG_JOB_FILE, out);
	}
	{
		struct ft_msg_job_output in = { 4, FT_JOB_STDERR, FT_JOB_EOF,
		    (const uint8_t *)"line\n", 5 }, out;

		ROUND(output, FT_MSG_JOB_OUTPUT, out);
	}
	{
		struct ft_msg_job_input in = { 0, 0, 0, (const uint8_t *)"ab\n",
		    3 }, out;
		struct ft_wbuf wb;

		ROUND(input, FT_MSG_JOB_INPUT, out);
		in = (struct ft_msg_job_input){ 1, FT_JOB_INPUT_TAKEN, 1u << 20,
		    NULL, 0 };
		ROUND(input, FT_MSG_JOB_INPUT, out);
		in.data = (const uint8_t *)"x";
		in.len = 1;
		ft_wbuf_init(&wb);
		T_FAILS(ft_msg_job_input_encode(&wb, 0, &in), EINVAL,
		    "input: TAKEN with data is not encoded");
		in = (struct ft_msg_job_input){ 1, 0, 0, NULL, 0 };
		T_FAILS(ft_msg_job_input_encode(&wb, 0, &in), EINVAL,
		    "input: nothing, without EOF, is not encoded");
		ft_wbuf_release(&wb);
	}
	{
		struct ft_msg_job_detect in = { "tcp:10.0.0.2:4711" }, out;

		ROUND(detect, FT_MSG_JOB_DETECT, out);
	}
	{
		char a[3][FT_WIRE_ADDR_MAX] = { "tcp:10.0.0.1:1",
		    "tcp:10.0.0.2:2", "tcp:10.0.0.3:3" }, b[3][FT_WIRE_ADDR_MAX];
		struct ft_msg_job_members in = { 2, 3, 3, 50000000, 0,
		    1000000000, a }, out;
		struct ft_wbuf wb;

		out.addrs = b;
		ROUND(members, FT_MSG_JOB_MEMBERS, out, , 3);
		T_FAILS(ft_msg_job_members_decode(NULL, 0, &out, 2), EPROTO,
		    "members: nothing is refused");
		in.self = 3;
		ft_wbuf_init(&wb);
		T_FAILS(ft_msg_job_members_encode(&wb, 0, &in), EINVAL,
		    "members: self out of range is not encoded");
		ft_wbuf_release(&wb);
		in.self = 0;
		ft_wbuf_init(&wb);
		T_OK(ft_msg_job_members_encode(&wb, 0, &in) == 0,
		    "members: encodes");
		T_FAILS(ft_msg_job_members_decode(wb.p + FT_WIRE_HDRLEN,
		    wb.len - FT_WIRE_HDRLEN, &out, 2), EPROTO,
		    "members: more than the cap is refused");
		ft_wbuf_release(&wb);
	}
}

/* Two READY ends of one handshake, without sockets. */
static void
t_seal(void)
{
	struct ft_conn a, b;
	uint8_t cluster[FT_WIRE_KEYLEN], job[FT_WIRE_KEYLEN], out[FT_WIRE_KEYLEN];
	uint8_t sealed[FT_JOB_SEALED];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ft_random(cluster, sizeof(cluster));
	ft_random(job, sizeof(job));
	a.hs = b.hs = FT_HS_READY;
	a.key = b.key = cluster;
	a.role = FT_ROLE_SUBMITTER;	/* a connected, b accepted */
	ft_random(a.nonce_self, FT_WIRE_NONCE);
	ft_random(b.nonce_self, FT_WIRE_NONCE);
	memcpy(a.nonce_peer, b.nonce_self, FT_WIRE_NONCE);
	memcpy(b.nonce_peer, a.nonce_self, FT_WIRE_NONCE);
	T_OK(ft_conn_seal(&a, job, sealed) == 0, "seal");
	T_OK(memmem(sealed, sizeof(sealed), job, 8) == NULL,
	    "the job key is not in clear");
	T_OK(ft_conn_open(&b, sealed, out) == 0 &&
	    memcmp(out, job, sizeof(job)) == 0, "the other end opens it");
	sealed[40] ^= 1;
	T_FAILS(ft_conn_open(&b, sealed, out), EBADMSG, "a damaged seal");
	sealed[40] ^= 1;
	b.nonce_peer[0] ^= 1;
	T_FAILS(ft_conn_open(&b, sealed, out), EBADMSG,
	    "another connection's seal");
	b.hs = FT_HS_WAIT_AUTH;
	T_FAILS(ft_conn_open(&b, sealed, out), EINVAL, "before READY");
}

int
main(void)
{
	t_job_start();
	t_small();
	t_seal();
	return t_done();
}

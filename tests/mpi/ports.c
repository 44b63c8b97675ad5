/* SPDX-License-Identifier: ISC */
/*
 * ports: MPI_COMM_WORLD split in two halves (rank parity); the even
 * half opens a port and publishes it under a service name, the odd
 * half looks the name up and connects, the even half accepts; then
 * point-to-point both ways, an allreduce over the intercommunicator,
 * MPI_Intercomm_merge, and MPI_Comm_disconnect.  Errors: an unknown
 * service is MPI_ERR_NAME, publishing a name twice MPI_ERR_SERVICE,
 * connecting to a closed port MPI_ERR_PORT.  Last, MPI_Comm_join of
 * ranks 0 and 1 over a loopback TCP socket.
 */

#define NAME	"ports"
#include "mtest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define SERVICE	"ft-test-ports"

static void
halves(void)
{
	char		 port[MPI_MAX_PORT_NAME], other[MPI_MAX_PORT_NAME];
	MPI_Comm	 half, inter, merged;
	int		 color = myrank % 2, hrank, hsize, rsize, i, v, sum;
	int		 want, msize, mrank;

	MPI_Comm_split(MPI_COMM_WORLD, color, myrank, &half);
	MPI_Comm_rank(half, &hrank);
	MPI_Comm_size(half, &hsize);
	if (color == 0 && hrank == 0) {
		ok(MPI_Open_port(MPI_INFO_NULL, port), "Open_port");
		ok(MPI_Publish_name(SERVICE, MPI_INFO_NULL, port),
		    "Publish_name");
		expect(MPI_Publish_name(SERVICE, MPI_INFO_NULL, port),
		    MPI_ERR_SERVICE, "Publish_name twice");
	}
	/* The name is published before anyone looks. */
	MPI_Barrier(MPI_COMM_WORLD);
	if (color == 0) {
		MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
	} else {
		if (hrank == 0)
			ok(MPI_Lookup_name(SERVICE, MPI_INFO_NULL, other),
			    "Lookup_name");
		MPI_Comm_connect(other, MPI_INFO_NULL, 0, half, &inter);
	}
	MPI_Comm_remote_size(inter, &rsize);
	if (rsize != nprocs / 2 + (color == 0 ? 0 : nprocs % 2) ||
	    hsize + rsize != nprocs)
		fail("remote size %d, local %d", rsize, hsize);
	for (i = 0; i < rsize; i++)
		MPI_Send(&myrank, 1, MPI_INT, i, 7, inter);
	for (i = 0; i < rsize; i++) {
		MPI_Recv(&v, 1, MPI_INT, i, 7, inter, MPI_STATUS_IGNORE);
		if (v != 2 * i + 1 - color)
			fail("remote rank %d sent %d", i, v);
	}
	v = myrank;
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
	for (want = 0, i = 1 - color; i < nprocs; i += 2)
		want += i;
	if (sum != want)
		fail("allreduce over the intercomm: %d, want %d", sum, want);
	MPI_Intercomm_merge(inter, color, &merged);
	MPI_Comm_size(merged, &msize);
	MPI_Comm_rank(merged, &mrank);
	if (msize != nprocs || mrank != (color == 0 ? hrank : rsize + hrank))
		fail("merged: rank %d of %d", mrank, msize);
	MPI_Comm_free(&merged);
	ok(MPI_Comm_disconnect(&inter), "Comm_disconnect");
	MPI_Barrier(MPI_COMM_WORLD);
	if (color == 0 && hrank == 0) {
		ok(MPI_Unpublish_name(SERVICE, MPI_INFO_NULL, port),
		    "Unpublish_name");
		ok(MPI_Close_port(port), "Close_port");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0) {
		expect(MPI_Lookup_name(SERVICE, MPI_INFO_NULL, other),
		    MPI_ERR_NAME, "Lookup_name after Unpublish_name");
		expect(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF,
		    &inter), MPI_ERR_PORT, "connect to a closed port");
		if (inter != MPI_COMM_NULL)
			fail("a failed connect left a communicator");
	}
	MPI_Comm_free(&half);
}

/* Ranks 0 and 1 join over a TCP connection on the loopback. */
static void
join(void)
{
	struct sockaddr_in	 a;
	socklen_t		 alen = sizeof(a);
	MPI_Comm		 inter;
	int			 lfd = -1, fd = -1, port = 0, v, rs;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (myrank == 0) {
		if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
		    listen(lfd, 1) != 0 ||
		    getsockname(lfd, (struct sockaddr *)&a, &alen) != 0)
			fail("listen on the loopback");
		port = ntohs(a.sin_port);
		MPI_Send(&port, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
		if ((fd = accept(lfd, NULL, NULL)) < 0)
			fail("accept");
	} else {
		MPI_Recv(&port, 1, MPI_INT, 0, 9, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		a.sin_port = htons((uint16_t)port);
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
			fail("connect");
	}
	ok(MPI_Comm_join(fd, &inter), "Comm_join");
	MPI_Comm_remote_size(inter, &rs);
	if (rs != 1)
		fail("join: remote size %d", rs);
	v = myrank;
	MPI_Sendrecv_replace(&v, 1, MPI_INT, 0, 3, 0, 3, inter,
	    MPI_STATUS_IGNORE);
	if (v != 1 - myrank)
		fail("join: the other side sent %d", v);
	MPI_Comm_disconnect(&inter);
	close(fd);
	if (lfd >= 0)
		close(lfd);
}

int
main(int argc, char **argv)
{
	MPI_Comm	split;

	init(&argc, &argv);
	/* Errors of calls without a communicator go to MPI_COMM_WORLD. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	halves();
	MPI_Comm_split(MPI_COMM_WORLD, myrank < 2, 0, &split);
	if (myrank < 2)
		join();
	MPI_Comm_free(&split);
	return finish();
}

#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A TCP echo server and its client, for the multi-host tests (netns.bash,
7900-netns.bats, 7910-relay.bats): reachability across namespaces, and
round trips through `fttest relay`.

usage: tcpecho.py serve HOST [PORT]
           Echo every connection until its end, then close it.  Prints
           "HOST PORT" (PORT 0, the default, picks one) once listening,
           then runs until killed.
       tcpecho.py rtt HOST PORT [ROUNDS [SIZE [BULK]]]
           Connect, then ROUNDS (default 5) times send SIZE (default 1)
           random bytes and read them back: prints "rtt_min=S
           rtt_max=S" in seconds.  Then stream BULK (default 0) random
           bytes while reading the echo, and close our side: the echo
           must be the same bytes, in order, followed by the end of
           stream.  Prints "bulk=N ok".

Exit status: 0, 1 if the echo differed or the stream ended early, 99
if nothing came for 30 seconds, 100 for a usage error, 111 if the
connection could not be made.
"""
import hashlib
import os
import socket
import sys
import threading
import time

TIMEOUT = 30


def usage():
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    sys.exit(100)


def fail(code, msg):
    sys.stderr.write("tcpecho: %s\n" % msg)
    sys.exit(code)


def echo(conn):
    with conn:
        while True:
            b = conn.recv(65536)
            if not b:
                break
            conn.sendall(b)
        conn.shutdown(socket.SHUT_WR)


def serve(host, port):
    ls = socket.create_server((host, port))
    print("%s %d" % ls.getsockname()[:2], flush=True)
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=echo, args=(conn,), daemon=True).start()


def recv_exactly(s, n):
    got = bytearray()
    while len(got) < n:
        b = s.recv(min(65536, n - len(got)))
        if not b:
            fail(1, "the stream ended after %d of %d bytes" % (len(got), n))
        got += b
    return bytes(got)


def rtt(host, port, rounds, size, bulk):
    try:
        s = socket.create_connection((host, port), timeout=TIMEOUT)
    except OSError as e:
        fail(111, "unable to connect to %s:%d: %s" % (host, port, e))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    times = []
    try:
        for _ in range(rounds):
            msg = os.urandom(size)
            t0 = time.monotonic()
            s.sendall(msg)
            back = recv_exactly(s, size)
            times.append(time.monotonic() - t0)
            if back != msg:
                fail(1, "the echo differs from what was sent")
        if rounds > 0:
            print("rtt_min=%.6f rtt_max=%.6f" % (min(times), max(times)),
                  flush=True)
        sent = hashlib.sha256()

        def writer():
            left = bulk
            while left > 0:
                b = os.urandom(min(left, 65536))
                sent.update(b)
                s.sendall(b)
                left -= len(b)
            s.shutdown(socket.SHUT_WR)

        w = threading.Thread(target=writer, daemon=True)
        w.start()
        got = hashlib.sha256()
        n = 0
        while True:
            b = s.recv(65536)
            if not b:
                break
            got.update(b)
            n += len(b)
        w.join()
        if n != bulk or got.digest() != sent.digest():
            fail(1, "the bulk echo differs: %d bytes back of %d" % (n, bulk))
        print("bulk=%d ok" % bulk)
    except socket.timeout:
        fail(99, "nothing came for %d seconds" % TIMEOUT)
    except OSError as e:
        fail(1, "the connection failed: %s" % e)


def number(arg):
    if not arg.isdigit():
        usage()
    return int(arg)


def main(argv):
    if len(argv) >= 2 and argv[0] == "serve" and len(argv) <= 3:
        serve(argv[1], number(argv[2]) if len(argv) == 3 else 0)
    elif len(argv) >= 3 and argv[0] == "rtt" and len(argv) <= 6:
        args = [number(a) for a in argv[2:]] + [None] * 3
        rounds = args[1] if args[1] is not None else 5
        size = args[2] if args[2] is not None else 1
        bulk = args[3] if args[3] is not None else 0
        if size < 1:
            usage()
        rtt(argv[1], args[0], rounds, size, bulk)
    else:
        usage()


if __name__ == "__main__":
    main(sys.argv[1:])

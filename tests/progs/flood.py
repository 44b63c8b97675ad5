#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""flood.py: usage: flood.py ADDR N [READY [CLOSED]]

Play a stranger who opens connections and never says a word: open up to
N connections to ADDR (unix:PATH or tcp:HOST:PORT), one after the
other, and send nothing; give up early after 20 connects in a row fail.
Then write the number opened to the file READY (if given and not "-").
With CLOSED, wait until the other side has closed at least CLOSED of
them (60 s at most), print "flood: closed K of M" and exit 0 if K is at
least CLOSED, else 1.  Without, hold the connections until killed.
"""
import os
import resource
import select
import signal
import socket
import sys
import time


def connect(addr):
    if addr.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        target = addr[5:]
    elif addr.startswith("tcp:"):
        host, port = addr[4:].rsplit(":", 1)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        target = (host, int(port))
    else:
        sys.exit("flood.py: '%s' is not an address" % addr)
    s.settimeout(1)
    try:
        s.connect(target)
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    return s


def closed_by_peer(s):
    try:
        return s.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    addr, n = sys.argv[1], int(sys.argv[2])
    ready = sys.argv[3] if len(sys.argv) > 3 else "-"
    want = int(sys.argv[4]) if len(sys.argv) > 4 else None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < n + 16:
        if hard == resource.RLIM_INFINITY or hard >= n + 16:
            soft = n + 16
        else:
            soft = hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    socks, fails = [], 0
    while len(socks) < n and fails < 20:
        s = connect(addr)
        if s is None:
            fails += 1
            continue
        fails = 0
        socks.append(s)
    if ready != "-":
        with open(ready + ".tmp", "w") as f:
            f.write("%d\n" % len(socks))
        # Whole or absent: the test polls for it.
        os.rename(ready + ".tmp", ready)
    if want is None:
        signal.pause()
        return 0
    byfd = {s.fileno(): s for s in socks}
    p = select.poll()
    for fd in byfd:
        p.register(fd, select.POLLIN)
    gone = 0
    deadline = time.monotonic() + 60
    while gone < want and time.monotonic() < deadline:
        for fd, _ in p.poll(100):
            if closed_by_peer(byfd[fd]):
                p.unregister(fd)
                gone += 1
    print("flood: closed %d of %d" % (gone, len(socks)))
    return 0 if gone >= want else 1


sys.exit(main())

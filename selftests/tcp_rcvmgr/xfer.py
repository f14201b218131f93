#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""TCP transfers from a WAN sender to a LAN receiver, one connection each,
timed at the receiver (the tests' stand-in for downloads), and uploads to
a LAN server, timed at the sender.

  xfer.py serve PORT BYTES[:hold] [PORT BYTES[:hold]]... [--bind ADDR]
        on each PORT, accept connections and send each BYTES bytes, then
        close (with :hold, keep it open, quiet, until the receiver closes);
        Fast Open is allowed on each PORT (net.ipv4.tcp_fastopen decides);
        until killed (one process for every port: a process costs seconds
        on the debug kernel)
  xfer.py sink PORT [--bind ADDR]
        accept connections and read each to EOF; until killed
  xfer.py push HOST PORT BYTES [--limit SECONDS] [--fastopen]
        an upload: connect, send BYTES bytes (the first in the SYN with
        --fastopen, as fetch's), and wait for the receiver to close; print {"connect_s", "transfer_s", "bytes"}; exit 1 if it
        failed or one socket operation waited longer than LIMIT
  xfer.py idle HOST PORT N BYTES SECONDS
        open N connections at once, read BYTES from each (a server's
        BYTES:hold), then hold them all open and quiet for
        SECONDS; print {"open": N} once they are all quiet
  xfer.py fetch HOST PORT [--count N] [--gap SECONDS] [--limit SECONDS]
                [--dscp N] [--clamp BYTES[,BYTES]...] [--sport PORT]
                [--abort-after SECONDS[,SECONDS]...]
                [--together] [--fastopen] [--half-close] [--reset-at-end]
        connect N times (one after the other, GAP apart) and read to EOF;
        --together connects all N before reading any, then reads each in
        turn (N connections open at once, however slow the machine);
        --clamp sets TCP_WINDOW_CLAMP before connecting, which bounds the
        window scale the receiver announces (below 65536: scale 0);
        --sport connects from that port; --abort-after stops reading after
        SECONDS and closes with a reset (SO_LINGER 0), the transfer then
        counting as done (0: not); a list gives the first connections
        their own --clamp and --abort-after, the last one the rest; --fastopen sends a one-byte request in the SYN
        (TCP Fast Open without a cookie: the client's sysctl
        net.ipv4.tcp_fastopen must allow it, the server's accept it), which
        the server reads when it has sent all; --half-close shuts the
        receiver's side (its FIN) once connected; --reset-at-end closes
        with a reset once the sender's FIN was read;
        print one JSON object per transfer: {"connect_s", "transfer_s",
        "bytes"}; exit 1 if one failed or took longer than LIMIT
"""
import argparse
import json
import socket
import struct
import sys
import threading
import time

CHUNK = 65536
# linux/tcp.h: connect() defers the SYN to the first write, which it carries
TCP_FASTOPEN_CONNECT = 30


def listener(bind, port):
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    srv = socket.socket(family, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((bind, port))
    # (a listener's Fast Open queue is set before listen(), the sysctl read
    # when a SYN comes)
    srv.setsockopt(socket.IPPROTO_TCP, socket.TCP_FASTOPEN, 16)
    srv.listen(128)
    return srv


def each_conn(srv, handle):
    """handle(conn) in a thread of its own for each connection, forever"""
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


def serve(args):
    if len(args.spec) % 2:
        sys.exit("xfer.py serve: PORT BYTES pairs expected")
    payload = b"\0" * CHUNK

    def sender(spec):
        size, _, hold = spec.partition(":")
        size = int(size)

        def send(conn):
            left = size
            try:
                while left > 0:
                    left -= conn.send(payload[:min(left, CHUNK)])
                if hold != "hold":
                    conn.shutdown(socket.SHUT_WR)
                conn.recv(1)        # the receiver closes when it has it all
            except OSError:
                pass
            conn.close()
        return send

    # every port listens before any is served
    srvs = [(listener(args.bind, int(p)), sender(b))
            for p, b in zip(args.spec[::2], args.spec[1::2])]
    for srv, send in srvs[1:]:
        threading.Thread(target=each_conn, args=(srv, send), daemon=True).start()
    each_conn(*srvs[0])


def sink(args):
    def drain(conn):
        try:
            while conn.recv(CHUNK):
                pass
        except OSError:
            pass
        conn.close()

    each_conn(listener(args.bind, args.port), drain)


def push(args):
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(args.limit)
    payload = b"\0" * CHUNK
    if args.fastopen:
        s.setsockopt(socket.IPPROTO_TCP, TCP_FASTOPEN_CONNECT, 1)
    t0 = time.monotonic()
    sent = 0
    try:
        s.connect((args.host, args.port))
        t1 = time.monotonic()
        while sent < args.bytes:
            sent += s.send(payload[:min(args.bytes - sent, CHUNK)])
        s.shutdown(socket.SHUT_WR)
        while s.recv(CHUNK):        # the receiver closes once it has it all
            pass
        t2 = time.monotonic()
    except OSError as e:
        print(json.dumps({"error": str(e), "bytes": sent}), flush=True)
        return 1
    finally:
        s.close()
    print(json.dumps({"connect_s": round(t1 - t0, 6), "transfer_s": round(t2 - t0, 6),
                      "bytes": sent}), flush=True)
    return 0


def idle(args):
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    socks = []
    for _ in range(args.n):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(60)
        s.connect((args.host, args.port))
        socks.append(s)
    for s in socks:
        got = 0
        while got < args.bytes:
            # at most what is wanted: the rest stays in the sender's buffer
            b = s.recv(min(CHUNK, args.bytes - got))
            if not b:
                sys.exit("xfer.py idle: the server closed early")
            got += len(b)
    print(json.dumps({"open": len(socks)}), flush=True)
    time.sleep(args.seconds)
    for s in socks:
        s.close()
    return 0


def nth(values, i):
    """the i-th of a --clamp or --abort-after list, its last one beyond"""
    return values[min(i, len(values) - 1)]


def fetch_open(args, family, i):
    """download i's socket, its options set, connected: (socket, the
    time connect began, the time it returned, None), or the connect's
    OSError in place of the second time"""
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(args.limit)
    if args.sport:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", args.sport))
    if nth(args.clamp, i):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, nth(args.clamp, i))
    if args.dscp:
        if family == socket.AF_INET:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, args.dscp << 2)
        else:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, args.dscp << 2)
    if args.fastopen:
        s.setsockopt(socket.IPPROTO_TCP, TCP_FASTOPEN_CONNECT, 1)
    t0 = time.monotonic()
    try:
        s.connect((args.host, args.port))
        # (with Fast Open, connect() returns at once: the SYN carries this)
        if args.fastopen:
            s.sendall(b"?")
        if args.half_close:
            s.shutdown(socket.SHUT_WR)
    except OSError as e:
        return s, t0, e
    return s, t0, time.monotonic()


def fetch(args):
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    ok = True
    # --together: all connected before any is read, open at once however
    # slowly this process runs
    opened = [fetch_open(args, family, i) for i in range(args.count)] if args.together else []
    for i in range(args.count):
        if i and not opened:
            time.sleep(args.gap)
        s, t0, t1 = opened[i] if opened else fetch_open(args, family, i)
        abort = nth(args.abort_after, i)
        got = 0
        try:
            if isinstance(t1, OSError):
                raise t1
            while True:
                b = s.recv(CHUNK)
                if not b:
                    if args.reset_at_end:
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                     struct.pack("ii", 1, 0))
                    break
                got += len(b)
                if abort and time.monotonic() - t1 >= abort:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                 struct.pack("ii", 1, 0))
                    break
            t2 = time.monotonic()
        except OSError as e:
            print(json.dumps({"error": str(e), "bytes": got}), flush=True)
            ok = False
            s.close()
            continue
        s.close()
        print(json.dumps({"connect_s": round(t1 - t0, 6),
                          "transfer_s": round(t2 - t0, 6), "bytes": got}),
              flush=True)
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("spec", nargs="+", metavar="PORT BYTES")
    s.add_argument("--bind", default="::")
    k = sub.add_parser("sink")
    k.add_argument("port", type=int)
    k.add_argument("--bind", default="::")
    u = sub.add_parser("push")
    u.add_argument("host")
    u.add_argument("port", type=int)
    u.add_argument("bytes", type=int)
    u.add_argument("--limit", type=float, default=60.0)
    u.add_argument("--fastopen", action="store_true")
    i = sub.add_parser("idle")
    i.add_argument("host")
    i.add_argument("port", type=int)
    i.add_argument("n", type=int)
    i.add_argument("bytes", type=int)
    i.add_argument("seconds", type=float)
    f = sub.add_parser("fetch")
    f.add_argument("host")
    f.add_argument("port", type=int)
    f.add_argument("--count", type=int, default=1)
    f.add_argument("--gap", type=float, default=0.0)
    f.add_argument("--limit", type=float, default=60.0)
    f.add_argument("--dscp", type=int, default=0)
    f.add_argument("--clamp", type=lambda v: [int(x) for x in v.split(",")], default=[0])
    f.add_argument("--sport", type=int, default=0)
    f.add_argument("--abort-after", type=lambda v: [float(x) for x in v.split(",")],
                   default=[0.0])
    f.add_argument("--together", action="store_true")
    f.add_argument("--fastopen", action="store_true")
    f.add_argument("--half-close", action="store_true")
    f.add_argument("--reset-at-end", action="store_true")
    args = ap.parse_args()
    if args.cmd == "serve":
        serve(args)
    if args.cmd == "sink":
        sink(args)
    if args.cmd == "push":
        sys.exit(push(args))
    if args.cmd == "idle":
        sys.exit(idle(args))
    sys.exit(fetch(args))


if __name__ == "__main__":
    main()

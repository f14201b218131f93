#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""TCP transfers from a WAN sender to a LAN receiver, one connection each,
timed at the receiver (the tests' stand-in for downloads).

  xfer.py serve PORT BYTES [--bind ADDR]
        accept connections and send each BYTES bytes, then close; until killed
  xfer.py fetch HOST PORT [--count N] [--gap SECONDS] [--limit SECONDS]
                [--dscp N]
        connect N times (one after the other, GAP apart) and read to EOF;
        print one JSON object per transfer: {"connect_s", "transfer_s",
        "bytes"}; exit 1 if one failed or took longer than LIMIT
"""
import argparse
import json
import socket
import sys
import threading
import time

CHUNK = 65536


def serve(args):
    family = socket.AF_INET6 if ":" in args.bind else socket.AF_INET
    srv = socket.socket(family, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((args.bind, args.port))
    srv.listen(128)
    payload = b"\0" * CHUNK

    def send(conn):
        left = args.bytes
        try:
            while left > 0:
                n = conn.send(payload[:min(left, CHUNK)])
                left -= n
            conn.shutdown(socket.SHUT_WR)
            conn.recv(1)            # the receiver closes when it has it all
        except OSError:
            pass
        conn.close()

    while True:
        conn, _ = srv.accept()
        threading.Thread(target=send, args=(conn,), daemon=True).start()


def fetch(args):
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    ok = True
    for i in range(args.count):
        if i:
            time.sleep(args.gap)
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(args.limit)
        if args.dscp:
            if family == socket.AF_INET:
                s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, args.dscp << 2)
            else:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, args.dscp << 2)
        t0 = time.monotonic()
        got = 0
        try:
            s.connect((args.host, args.port))
            t1 = time.monotonic()
            while True:
                b = s.recv(CHUNK)
                if not b:
                    break
                got += len(b)
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
    s.add_argument("port", type=int)
    s.add_argument("bytes", type=int)
    s.add_argument("--bind", default="::")
    f = sub.add_parser("fetch")
    f.add_argument("host")
    f.add_argument("port", type=int)
    f.add_argument("--count", type=int, default=1)
    f.add_argument("--gap", type=float, default=0.0)
    f.add_argument("--limit", type=float, default=60.0)
    f.add_argument("--dscp", type=int, default=0)
    args = ap.parse_args()
    if args.cmd == "serve":
        serve(args)
    sys.exit(fetch(args))


if __name__ == "__main__":
    main()

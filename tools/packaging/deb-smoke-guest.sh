#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a guest that has the kernel's headers and nothing of er2bc:
# applies the two Debian packages as deb-image.sh installed them into the
# image (dpkg -i in a chroot, DKMS building for each kernel with headers,
# this one among them), checks what DKMS built, loads the modules, runs a
# short smoke (the shipped tc batch example on a device, traffic through
# its classes, an estimate over generic netlink, the metrics), removes the
# packages and checks that nothing is left loaded or installed.
#
#   deb-smoke-guest.sh DEB_DIR IMAGE_DIR
#
# TAP on stdout and in $ER2BC_OUT/deb-smoke.tap; exits 1 if a check failed.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
debs=${1:?usage: deb-smoke-guest.sh DEB_DIR IMAGE_DIR}
image=${2:?usage: deb-smoke-guest.sh DEB_DIR IMAGE_DIR}
krel=$(uname -r)
out=${ER2BC_OUT:-/tmp}
tap=$out/deb-smoke.tap
: >"$tap"
n=0 failed=0
t() {
	local line
	n=$((n + 1))
	if [ "$1" = 0 ]; then line="ok $n - $2"; else line="not ok $n - $2"; failed=1; fi
	echo "$line" | tee -a "$tap"
	[ -z "${3:-}" ] || echo "# $3" | tr '\n' ' ' | sed 's/ $/\n/' | tee -a "$tap"
}

dkms_deb=$(ls "$debs"/er2bc-dkms_*_all.deb 2>/dev/null | head -n 1)
tools_deb=$(ls "$debs"/er2bc-tools_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$dkms_deb" ] && [ -n "$tools_deb" ] && [ -d "/lib/modules/$krel/build" ]
t $? "the packages and the headers of $krel are here" "$dkms_deb $tools_deb"
ver=$(dpkg-deb -f "$dkms_deb" Version)
ver=${ver%%~deb*}	# DKMS's version is VERSION, without the release's ~debNN

# nothing of er2bc before: not the harness's modules, not an install
! modinfo sch_er2bc >/dev/null 2>&1 && ! modinfo tcp_rcvmgr >/dev/null 2>&1 &&
	! command -v er2bcctl >/dev/null
t $? "a guest without er2bc: no module, no er2bcctl"

# --- install: the packages as installed into the image (deb-image.sh:
# dpkg -i in a chroot of the host's root, DKMS building natively for every
# kernel with headers), applied to this guest's root: what the install
# removed, then what it made
t0=$SECONDS
rc=1
if [ -s "$image/image.tar" ] && [ -f "$image/image.removed" ]; then
	while IFS= read -r p; do rm -rf "/${p:?}"; done <"$image/image.removed"
	tar -xpf "$image/image.tar" --numeric-owner -C /
	rc=$?
fi
t $rc "dpkg -i er2bc-dkms er2bc-tools in the image: DKMS built the modules in $(cat "$image/seconds" 2>/dev/null) s; applied here in $((SECONDS - t0)) s" \
	"$(grep -E '^(Building|Setting up)' "$image/dpkg.log" 2>/dev/null)"
st=$(dkms status er2bc 2>&1)
[[ $st == *"er2bc/$ver, $krel, "*": installed"* ]]
t $? "dkms status: installed for $krel" "$st"
ko=$(modinfo -n sch_er2bc 2>/dev/null) && ko2=$(modinfo -n tcp_rcvmgr 2>/dev/null) &&
	[[ $ko == /lib/modules/$krel/updates/dkms/* ]] && [[ $ko2 == /lib/modules/$krel/updates/dkms/* ]]
t $? "modinfo finds both modules where DKMS put them" "$ko $ko2"
[ -x /usr/sbin/er2bcctl ] && [ -x /usr/sbin/er2bc-abwd ] &&
	[ -f "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/tc/q_er2bc.so" ] &&
	man -w tc-er2bc >/dev/null 2>&1 && getent passwd er2bc >/dev/null
t $? "er2bc-tools: er2bcctl, er2bc-abwd, the tc plugin, the man pages, the user er2bc"

# --- the smoke: the shipped example on a device, packets through classes
modprobe sch_er2bc && modprobe tcp_rcvmgr
t $? "modprobe sch_er2bc tcp_rcvmgr"

# --- an upgrade's notice (the postinst's reload-notice): nothing while the
# modules loaded are those on disk; once sch_er2bc's on disk differs, as
# DKMS's build of newer sources leaves it (here a copy of it whose
# srcversion, the sources' checksum, has one digit changed, put in its
# place for the check and put back), the notice names it, not the other,
# says how to reload or to reboot, and marks a reboot as required
notice=/usr/libexec/er2bc-dkms/reload-notice
note=$("$notice" 2>&1)
[ -x "$notice" ] && [ -z "$note" ] && grep -q "$notice" /var/lib/dpkg/info/er2bc-dkms.postinst
t $? "reload-notice, called by the postinst: silent while the loaded modules are the installed ones" \
	"$note"
rm -f /run/reboot-required /run/reboot-required.pkgs
ko=$(modinfo -n sch_er2bc) && cp -p "$ko" /tmp/sch_er2bc.orig &&
	python3 - "$ko" <<'PY'
import lzma, re, sys
path = sys.argv[1]
raw = open(path, "rb").read()
xz = path.endswith(".xz")
if path.endswith((".zst", ".gz")):
    sys.exit(f"{path}: a compression this check does not rewrite")
data = lzma.decompress(raw) if xz else raw
m = re.search(rb"srcversion=([0-9A-F]{16,32})", data)
if not m:
    sys.exit(f"no srcversion to change in {path}")
d = m.group(1)
new = (b"0" if d[:1] != b"0" else b"1") + d[1:]
data = data[:m.start(1)] + new + data[m.end(1):]
open(path, "wb").write(lzma.compress(data, check=lzma.CHECK_CRC32) if xz else data)
PY
rc=$?
# (the changed copy is what modinfo reads, or the check proves nothing)
[ $rc = 0 ] && [ "$(modinfo -F srcversion sch_er2bc)" != "$(cat /sys/module/sch_er2bc/srcversion)" ]
rc=$?
note=$("$notice" 2>&1)
[ -f /tmp/sch_er2bc.orig ] && cp -p /tmp/sch_er2bc.orig "$ko" && cmp -s /tmp/sch_er2bc.orig "$ko"
restored=$?
[ $rc = 0 ] && [[ $note == *"loaded: sch_er2bc $ver (installed: $ver)."* ]] &&
	[[ $note == *"modprobe -r tcp_rcvmgr sch_er2bc"* ]] && [[ $note == *reboot* ]] &&
	[ -f /run/reboot-required ] && grep -qx er2bc-dkms /run/reboot-required.pkgs &&
	[ $restored = 0 ]
t $? "reload-notice: a module on disk other than the one loaded is named, with how to reload or reboot; a reboot marked required" \
	"$note"
rm -f /run/reboot-required /run/reboot-required.pkgs /tmp/sch_er2bc.orig
ip link add eth1 type dummy && ip link set eth1 up &&
	ip addr add 198.51.100.1/24 dev eth1 &&
	ip neigh add 192.0.2.1 lladdr 02:00:00:00:00:02 dev eth1 &&
	ip route add 192.0.2.0/24 dev eth1
batch=/usr/share/doc/er2bc-tools/tc-DEV.batch.example
[ -f "$batch" ] || batch=$batch.gz
zcat -f "$batch" >/tmp/tc-eth1.batch
out_tc=$(tc -batch /tmp/tc-eth1.batch 2>&1)
t $? "tc -batch tc-DEV.batch.example: the qdisc, 7 classes, 12 filters (6 IPv4, 6 IPv6)" "$out_tc"
# the plugin's printing through this tc's helpers, in JSON, where a
# helper whose ABI moved would break the document or lose its values (a
# class's options and statistics are at its top level, as htb's are;
# iproute2 6.1's tc prints classes as text even with -j: there alone
# text passes, and an empty or cut document fails everywhere)
tcv=$(tc -V 2>&1 | head -n 1)
text_classes=0
[[ $tcv == *iproute2-6.1.* ]] && text_classes=1
out_j=$(set -o pipefail
	{ tc -j -s qdisc show dev eth1 && echo && tc -j -s class show dev eth1; } |
	tee "$out/tc-j.txt" |
	TEXT_CLASSES=$text_classes python3 -c '
import json, os, sys
qd, cl = sys.stdin.read().split("\n", 1)
q = [x for x in json.loads(qd) if x.get("kind") == "er2bc"]
assert len(q) == 1 and q[0]["options"]["mode"] == "er2bc", q
assert q[0]["options"]["stale_us"] == 30000000 and q[0]["stale"] is False, q
print("qdisc mode", q[0]["options"]["mode"], "stale_us", q[0]["options"]["stale_us"])
if os.environ["TEXT_CLASSES"] == "1" and cl.strip().startswith("class er2bc "):
    print("classes: this tc prints them as text only")
    sys.exit(0)
c = [x for x in json.loads(cl) if x.get("class") == "er2bc"]
prio = sorted(x["prio"] for x in c if x["type"] != "scavenger")
assert prio == [1, 2, 3, 4, 5, 6] and len(c) == 7 and c[2]["rate"] == 50000, c
print("classes at prio", prio, "and a scavenger")' 2>&1)
t $? "${tcv:-tc}: the plugin's JSON (tc -j -s qdisc and class show) has the qdisc and its classes" "$out_j"
python3 - <<'EOF'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
end = time.time() + 2
while time.time() < end:
    for port in (5060, 9):
        try:
            s.sendto(b"x" * 1000, ("192.0.2.1", port))
        except OSError:
            pass
    time.sleep(0.002)
EOF
stats=$(tc -s class show dev eth1)
sent() { echo "$stats" | awk -v c="$1" '$2 == "er2bc" && $3 == c { f = 1 } f && /Sent/ { print $2; exit }'; }
b30=$(sent 1:30) b60=$(sent 1:60)
[ "${b30:-0}" -gt 0 ] && [ "${b60:-0}" -gt 0 ]
t $? "UDP to port 5060 went through 1:30, the rest through the default 1:60" "1:30 $b30 B, 1:60 $b60 B"
er2bcctl abw-set dev eth1 handle 1: abw 3mbit recv 3mbit seq 1 &&
	w=$(er2bcctl -j show dev eth1 handle 1: |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["cap_bytes_per_second"])')
[ "${w:-0}" = 375000 ]
t $? "an estimate over generic netlink: W 3 Mbit/s in force" "cap $w bytes/s"
m=$(er2bcctl metrics dev eth1 2>&1)
echo "$m" | grep -q '^er2bc_cap_bytes_per_second{dev="eth1",handle="1:"} 375000$' &&
	echo "$m" | grep -q '^er2bc_class_info{dev="eth1",classid="1:70",prio="64",type="scavenger"} 1$'
t $? "er2bcctl metrics: W and the scavenger class" "$(echo "$m" | grep -c '^er2bc_') samples"
er2bcctl rcvmgr set policy azuma wan eth1 lan 198.51.100.0/24 &&
	er2bcctl rcvmgr show | grep -q "policy azuma"
t $? "tcp_rcvmgr configured with er2bcctl"
# the metrics for node_exporter, as er2bc-metrics.timer has systemd run
# its service: its command, from the installed unit, with no capability
# and no new privileges as the unit has it (systemd does not run here,
# so the rest of its sandbox is not tried); the file whole, no temporary
# left beside it
textdir=/var/lib/prometheus/node-exporter
prom=$textdir/er2bc.prom
mkdir -p "$textdir"
cmd=$(sed -n 's/^ExecStart=//p' /usr/lib/systemd/system/er2bc-metrics.service)
(eval "setpriv --no-new-privs --bounding-set=-all --inh-caps=-all $cmd")
rc=$?
others=$(ls -A "$textdir" | grep -vx er2bc.prom)
[ $rc = 0 ] && [ -z "$others" ] && [ -f /usr/lib/systemd/system/er2bc-metrics.timer ] &&
	grep -q '^er2bc_cap_bytes_per_second{dev="eth1",handle="1:"} 375000$' "$prom" &&
	grep -q '^tcp_rcvmgr_connections ' "$prom" && [ "$(stat -c %a "$prom")" = 644 ]
t $? "er2bc-metrics.service writes $prom: W and tcp_rcvmgr's counts, mode 644" \
	"exit $rc; $(grep -c '^[et]' "$prom" 2>/dev/null) samples; ${others:+left beside it: $others}"
cp "$prom" "$out/metrics-host.prom" 2>/dev/null

tc qdisc del dev eth1 root
ip link del eth1

# --- the README's quick start, step by step, with the packages' files, on
# two gateways in namespaces: A (198.51.100.1 on its eth1) sends toward
# B's site (192.0.2.1 on its eth1) through a router R whose link to B is a
# 3 Mbit/s bottleneck; the example files name exactly these addresses, so
# they are used as shipped. systemd does not run here: each unit's command
# runs as the unit would run it (the daemons as the user er2bc with
# CAP_NET_ADMIN alone). What the health commands print goes to
# $ER2BC_OUT/quickstart/ (the README's samples).
qs=$out/quickstart
mkdir -p "$qs"
doc=/usr/share/doc/er2bc-tools
A=gwA R=gwR B=gwB
for ns in $A $R $B; do ip netns add $ns && ip -n $ns link set lo up; done
ip link add eth1 netns $A type veth peer name r0 netns $R &&
	ip link add r1 netns $R type veth peer name eth1 netns $B &&
	ip -n $A addr add 198.51.100.1/24 dev eth1 && ip -n $A link set eth1 up &&
	ip -n $R addr add 198.51.100.254/24 dev r0 && ip -n $R link set r0 up &&
	ip -n $R addr add 192.0.2.254/24 dev r1 && ip -n $R link set r1 up &&
	ip -n $B addr add 192.0.2.1/24 dev eth1 && ip -n $B link set eth1 up &&
	ip -n $A route add 192.0.2.0/24 via 198.51.100.254 &&
	ip -n $B route add 198.51.100.0/24 via 192.0.2.254 &&
	ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 &&
	tc -n $R qdisc add dev r1 root tbf rate 3mbit burst 16k latency 100ms
t $? "quick start: two gateways and a 3 Mbit/s bottleneck between them"
# 1-2. the packages are installed (above)
# 3. A: the qdisc from the batch file, as er2bc-tc@eth1 applies it
mkdir -p /etc/er2bc &&
	zcat -f $doc/tc-DEV.batch.example* >/etc/er2bc/tc-eth1.batch &&
	ip netns exec $A er2bc-tc-apply eth1 /etc/er2bc/tc-eth1.batch
t $? "quick start 3: A's qdisc and classes from /etc/er2bc/tc-eth1.batch (er2bc-tc-apply)"
# 4. the key both share, readable by the group er2bc
(umask 027 && head -c 32 /dev/urandom >/etc/er2bc/abwd.key) &&
	chgrp er2bc /etc/er2bc/abwd.key && [ "$(stat -c %a /etc/er2bc/abwd.key)" = 640 ]
t $? "quick start 4: the shared key, mode 640, group er2bc"
# 5. B: the firewall lets A's requests in (a drop policy, as a real one
# has, and the site's own services open); the responder from its example
ip netns exec $B nft -f - <<'NFT'
table inet filter {
	chain input {
		type filter hook input priority 0; policy drop;
		ct state established,related accept
		iif lo accept
		icmp type echo-request accept
		tcp dport { 22, 5201 } accept
	}
}
NFT
rc=$?
ip netns exec $B nft add rule inet filter input ip saddr 198.51.100.1 udp dport 4950 accept
[ $rc = 0 ] && [ $? = 0 ]
t $? "quick start 5: B's firewall opens UDP 4950 to A alone"
mkdir -p /run/er2bc /var/lib/er2bc && chown er2bc:er2bc /run/er2bc /var/lib/er2bc
zcat -f $doc/abwd-responder.conf.example* >/etc/er2bc/abwd-responder.conf
zcat -f $doc/abwd-sender.conf.example* >/etc/er2bc/abwd-sender.conf
# as the units run them: the user er2bc, CAP_NET_ADMIN alone
as_unit() {
	exec ip netns exec "$1" setpriv --reuid=er2bc --regid=er2bc --init-groups \
		--inh-caps=-all,+net_admin --ambient-caps=-all,+net_admin --bounding-set=-all,+net_admin \
		/usr/sbin/er2bc-abwd --config "/etc/er2bc/abwd-$2.conf"
}
(as_unit $B responder) 2>"$qs/responder.log" &
resp=$!
# 6. A: the sender from its example file
(as_unit $A sender) 2>"$qs/sender.log" &
snd=$!
# traffic: SSH-like bulk in 1:10 and the rest in the default class
ip netns exec $B iperf3 -s -p 22 -D >/dev/null 2>&1
ip netns exec $B iperf3 -s -p 5201 -D >/dev/null 2>&1
sleep 1
ip netns exec $A iperf3 -c 192.0.2.1 -p 22 -t 25 >/dev/null 2>&1 &
ip netns exec $A iperf3 -c 192.0.2.1 -p 5201 -t 25 >/dev/null 2>&1 &
sleep 20
# 7. is it healthy? what the README shows
ip netns exec $A tc -s class show dev eth1 >"$qs/tc-class.txt" 2>&1
ip netns exec $A tc -s qdisc show dev eth1 >"$qs/tc-qdisc.txt" 2>&1
ip netns exec $A er2bcctl show dev eth1 handle 1: >"$qs/er2bcctl-show.txt" 2>&1
ip netns exec $A er2bcctl metrics >"$qs/metrics.txt" 2>&1
# the shipped dashboard and alert rules against what the gateways export:
# this host's qdisc and tcp_rcvmgr (above), A's qdisc and both daemons
mon=/usr/share/er2bc/monitoring
q=$(python3 "$top/tools/monitoring/check-queries.py" $mon/er2bc-dashboard.json $mon/er2bc-alerts.yml \
	--metrics "$out/metrics-host.prom" "$qs/metrics.txt" 2>&1)
t $? "the shipped dashboard's and alert rules' queries name only metrics the gateways export" "$q"
# er2bc-plot as installed (no Prometheus here: it names the one it could
# not reach, exit 1) and its man page
q=$(er2bc-plot --prometheus http://127.0.0.1:1 --instance gw-a:9100 2>&1)
[ $? = 1 ] && [[ $q == "er2bc-plot: http://127.0.0.1:1: "* ]] && man -w er2bc-plot >/dev/null 2>&1
t $? "er2bc-plot runs from the package and names a Prometheus it cannot reach; man er2bc-plot" "$q"
# (both daemons' files are in /run/er2bc: the namespaces share the filesystem)
ip netns exec $A er2bcctl status >"$qs/er2bcctl-status.txt" 2>&1
status_rc=$?
cp /run/er2bc/abwd-sender.json "$qs/abwd-sender.json" 2>/dev/null
cp /run/er2bc/abwd-responder.json "$qs/abwd-responder.json" 2>/dev/null
st=$(ip netns exec $A er2bcctl -j show dev eth1 handle 1:)
upd=$(echo "$st" | python3 -c 'import json, sys; print(json.load(sys.stdin)["updates"])' 2>/dev/null)
stale=$(echo "$st" | python3 -c 'import json, sys; print(json.load(sys.stdin)["stale"])' 2>/dev/null)
w=$(echo "$st" | python3 -c 'import json, sys; print(json.load(sys.stdin)["cap_bytes_per_second"])' 2>/dev/null)
kill -0 $resp 2>/dev/null && kill -0 $snd 2>/dev/null && [ "${upd:-0}" -ge 10 ] &&
	[ "$stale" = False ] && [ "${w:-0}" -ge 125000 ] && [ "${w:-0}" -le 625000 ]
t $? "quick start 6-7: both daemons up, $upd estimates, not stale, W $w bytes/s under the 3 Mbit/s bottleneck" \
	"$(tail -n 3 "$qs/sender.log")"
[ $status_rc = 0 ] && [ "$(tail -n 1 "$qs/er2bcctl-status.txt")" = ok ]
t $? "quick start 7: er2bcctl status finds the sender, the responder and the qdisc well" \
	"exit $status_rc: $(tail -n 4 "$qs/er2bcctl-status.txt")"
# a sender that dies: with the shipped batch (stale 30s) the qdisc says
# stale 30 s after the last estimate, which came at most an interval (1 s)
# before the kill; er2bcctl status then fails and says why
last=$(ip netns exec $A er2bcctl -j show dev eth1 handle 1: |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["updates"])' 2>/dev/null)
kill $snd 2>/dev/null
wait $snd 2>/dev/null
t0=$(date +%s%N)
ms() { echo $(( ($(date +%s%N) - t0) / 1000000 )); }
stale=
while [ "$(ms)" -le 40000 ]; do
	stale=$(ip netns exec $A er2bcctl -j show dev eth1 handle 1: |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["stale"])' 2>/dev/null)
	[ "$stale" = True ] && break
	sleep 0.5
done
after=$(ms)
st_out=$(ip netns exec $A er2bcctl status 2>&1)
st_rc=$?
# (28-33 s: the last estimate up to an interval before the kill, then a
# poll's python3 under emulation, beside other guests)
[ "$stale" = True ] && [ "$after" -ge 28000 ] && [ "$after" -le 33000 ] && [ $st_rc != 0 ] &&
	echo "$st_out" | grep -q 'stale yes'
t $? "a sender killed: stale after $((after / 1000)).$((after % 1000 / 100)) s with the shipped stale 30s (the last of $last estimates before it), er2bcctl status fails" \
	"exit $st_rc: $(echo "$st_out" | tail -n 4)"
kill $resp 2>/dev/null
pkill iperf3
wait 2>/dev/null
# the qdisc and the meter go with their devices, before the namespaces
ip -n $A link del eth1 2>/dev/null
ip -n $R link del r1 2>/dev/null
for ns in $A $R $B; do ip netns del $ns; done
rm -rf /etc/er2bc

# --- removal: nothing left
# (a namespace's devices go asynchronously: a few tries)
for _ in 1 2 3 4 5; do
	modprobe -r sch_er2bc tcp_rcvmgr 2>/dev/null && break
	sleep 1
done
! grep -qE '^(sch_er2bc|tcp_rcvmgr) ' /proc/modules
t $? "modprobe -r: neither module loaded"
log=$(DEBIAN_FRONTEND=noninteractive dpkg --purge er2bc-tools er2bc-dkms 2>&1)
t $? "dpkg --purge er2bc-tools er2bc-dkms" "$(echo "$log" | tail -n 3)"
left=$(ls -d /usr/src/er2bc-* /var/lib/dkms/er2bc /usr/libexec/er2bc-dkms /usr/sbin/er2bcctl /usr/sbin/er2bc-abwd \
	/usr/lib/systemd/system/er2bc-* /usr/share/doc/er2bc-tools /usr/share/er2bc \
	/var/lib/prometheus/node-exporter/er2bc.prom 2>/dev/null;
	find "/lib/modules/$krel" -name 'sch_er2bc.ko*' -o -name 'tcp_rcvmgr.ko*' 2>/dev/null)
[ -z "$left" ] && ! modinfo sch_er2bc >/dev/null 2>&1 && [ -z "$(dkms status er2bc 2>/dev/null)" ] &&
	! dpkg -s er2bc-dkms >/dev/null 2>&1
t $? "nothing left: sources, DKMS tree, modules, binaries, units, docs, the metrics file" "$left"

echo "1..$n" | tee -a "$tap"
exit $failed

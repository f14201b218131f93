#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# er2bcctl's bash completion (er2bcctl.bash-completion), driven as bash's
# programmable completion drives it: COMP_WORDS and COMP_CWORD set, the
# function called, COMPREPLY read. tc is a shell function here, so that
# the handles of er2bc qdiscs complete without the module.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. "$here/er2bcctl.bash-completion"

n=0 failed=0
# comp WORDS...: the completions of the last word, sorted, on one line
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	_er2bcctl
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | xargs
}
# t DESC WANT WORDS...: the completions are WANT exactly
t() {
	local desc=$1 want=$2 got
	shift 2
	got=$(comp "$@")
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		echo "#   got:  $got"
		echo "#   want: $want"
		failed=1
	fi
}
# has DESC WORD WORDS...: WORD is among the completions
has() {
	local desc=$1 want=$2 got
	shift 2
	got=" $(comp "$@") "
	n=$((n + 1))
	if [[ $got == *" $want "* ]]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		echo "#   got: $got"
		failed=1
	fi
}
# tc: the qdiscs of the device asked (any), as tc prints them
tc() {
	cat <<'END'
qdisc er2bc 1: root refcnt 2 rate 5Mbit mode er2bc
qdisc pfifo 8001: parent 1:1 limit 1000p
qdisc er2bc 10: parent ffff:fff1
END
}

t "the commands and the options" \
	"--help --json --netns --pretty --version -V -batch -force -h -j -n -p -stats abw-set metrics monitor rcvmgr show status" \
	er2bcctl ""
t "a command's start" "show" er2bcctl sh
t "after -j, the commands still" "abw-set" er2bcctl -j ab
t "rcvmgr's subcommands" "conns set show stats" er2bcctl rcvmgr ""
t "show's keywords" "dev handle ifindex" er2bcctl show ""
t "abw-set: the keywords not given yet" \
	"ifindex lost recv scavenger-hold sent seq span" \
	er2bcctl abw-set dev lo handle 1: abw 5mbit ""
t "monitor's keywords" "count dev handle ifindex timeout" er2bcctl monitor ""
t "metrics' keywords" "dev dir ifindex output" er2bcctl metrics ""
t "metrics: no keyword twice" "dir ifindex output" er2bcctl metrics dev lo ""
t "status' keywords" "dir file" er2bcctl status ""
t "status: files repeat, dir once" "file" er2bcctl status dir /run ""
has "dev: the interfaces" lo er2bcctl show dev ""
has "rcvmgr set wan: the interfaces" lo er2bcctl rcvmgr set wan ""
has "rcvmgr set wan: none" none er2bcctl rcvmgr set wan ""
t "rcvmgr set lan: none, else a prefix" "none" er2bcctl rcvmgr set lan ""
t "the policies" "azuma equal off spring" er2bcctl rcvmgr set policy ""
t "handle: the er2bc qdiscs of the dev given" "10: 1:" er2bcctl show dev lo handle ""
t "handle without a dev: nothing" "" er2bcctl show handle ""
# -n NETNS: ip netns's names (ip a shell function here too), then the
# namespace's devices and its qdiscs' handles (tc asked with -n)
ip() {
	case "$*" in
	"netns list") printf '%s\n' "gw (id: 0)" "lan" ;;
	"-n gw -o link show") printf '%s\n' "1: lo: <LOOPBACK> mtu 65536" "5: wan0@if4: <UP> mtu 1500" ;;
	esac
}
t "-n: the network namespaces" "gw lan" er2bcctl -n ""
t "-netns: the network namespaces" "gw" er2bcctl -netns g
t "after -n NETNS, the commands" "show status" er2bcctl -n gw s
t "dev after -n: the namespace's devices" "lo wan0" er2bcctl -n gw show dev ""
# (tc asked in the namespace gw: its own qdisc; the one above kept for after)
eval "$(declare -f tc | sed '1s/^tc /tc_host /')"
tc() { [ "$1 $2" = "-n gw" ] && echo "qdisc er2bc 7: root refcnt 2"; }
t "handle after -n: the namespace's qdiscs" "7:" er2bcctl -n gw show dev wan0 handle ""
t "the last -n counts" "7:" er2bcctl -n lan -n gw show dev wan0 handle ""
unset -f ip
tc() { tc_host "$@"; }
t "handle without -n again: the host's qdiscs" "10: 1:" er2bcctl show dev lo handle ""
t "a value to type: nothing offered" "" er2bcctl abw-set dev lo abw ""
has "rcvmgr set: wan repeats" wan er2bcctl rcvmgr set wan lo ""
t "rcvmgr set: policy once" "" er2bcctl rcvmgr set policy off pol
has "rcvmgr set: a rule's matches" priority er2bcctl rcvmgr set rule port 22 ""
tmp=$(mktemp -d)
touch "$tmp/replay.batch"
t "-batch: files" "$tmp/replay.batch" er2bcctl -batch "$tmp/re"
t "metrics output: files" "$tmp/replay.batch" er2bcctl metrics output "$tmp/re"
rm -rf "$tmp"
has "after -batch FILE: -force, the file not taken for a command" \
	-force er2bcctl -batch abw-set -
echo "1..$n"
exit $failed

# SPDX-License-Identifier: ISC
# ftboot keygen, start, stop, status: the cluster key and its mode, one
# daemon per state directory (the pid file's lock), exit statuses, the
# configuration file under the flags, the refusal to run as root.

load common
load boot

setup() {
	fb_setup
}

teardown() {
	fb_teardown
}

@test "ftboot keygen: 64 hex digits and a newline, mode 0600, no overwrite" {
	run -0 ftboot keygen --key-file "$FB_DIR/k/new.key"
	[[ $output == *"wrote a new cluster key to $FB_DIR/k/new.key"* ]]
	[ "$(stat -c %a "$FB_DIR/k/new.key")" = 600 ]
	[ "$(stat -c %s "$FB_DIR/k/new.key")" = 65 ]
	grep -Eqx '[0-9a-f]{64}' "$FB_DIR/k/new.key"
	old=$(cat "$FB_DIR/k/new.key")
	run -1 --separate-stderr ftboot keygen --key-file "$FB_DIR/k/new.key"
	[[ $stderr == *"exists; keep it, or give --force"* ]]
	[ "$(cat "$FB_DIR/k/new.key")" = "$old" ]
	run -0 ftboot keygen --key-file "$FB_DIR/k/new.key" --force
	[ "$(cat "$FB_DIR/k/new.key")" != "$old" ]
}

@test "ftboot keygen: the default path is under XDG_CONFIG_HOME" {
	XDG_CONFIG_HOME=$FB_DIR/xdg run -0 ftboot keygen
	[ -f "$FB_DIR/xdg/ft/cluster.key" ]
	[ "$(stat -c %a "$FB_DIR/xdg/ft")" = 700 ]
}

@test "ftboot start: a key open to others is refused, naming the mode" {
	chmod 644 "$FB_KEY"
	run -100 --separate-stderr ftboot start --listen tcp:127.0.0.1:0 \
	    --key-file "$FB_KEY" --state-dir "$FB_DIR/d"
	[[ $stderr == *"cluster key '$FB_KEY' is open to others (mode 0644); chmod 600 it"* ]]
	[ ! -e "$FB_DIR/d/ftboot.pid" ]
}

@test "ftboot start: a missing key says how to make one" {
	run -100 --separate-stderr ftboot start --listen tcp:127.0.0.1:0 \
	    --key-file "$FB_DIR/none.key" --state-dir "$FB_DIR/d"
	[[ $stderr == *"none.key"*"ftboot keygen"* ]]
}

@test "ftboot start, status, stop: pid file, address file, exit 0 and 3" {
	run -3 ftboot status --state-dir "$FB_DIR/a"
	[[ $output == "ftboot: not running (state directory $FB_DIR/a)" ]]
	run -0 ftboot start --listen tcp:127.0.0.1:0 --key-file "$FB_KEY" \
	    --state-dir "$FB_DIR/a" --name alpha --slots 3 --jobs 2
	FB_NAMES+=(a)
	[[ $output == "ftboot: started (pid "*"), listening on tcp:127.0.0.1:"*"; state in $FB_DIR/a, log $FB_DIR/a/ftboot.log" ]]
	pid=$(cat "$FB_DIR/a/ftboot.pid")
	[ -d "/proc/$pid" ]
	grep -Eqx 'tcp:127\.0\.0\.1:[0-9]+' "$FB_DIR/a/ftboot.addr"
	run -0 ftboot status --state-dir "$FB_DIR/a" --key-file "$FB_KEY"
	[[ ${lines[0]} == "ftboot: running, pid $pid, address $(fb_addr a), state directory $FB_DIR/a" ]]
	[[ ${lines[1]} == "ftboot: host alpha, P=3 slots, J=2 jobs: 0 reserved, 0 running; 0 peers in the cache" ]]
	run -0 ftboot status --state-dir "$FB_DIR/a" --key-file "$FB_KEY" --json
	[[ $output == '{"running":true,"pid":'"$pid"',"addr":"'"$(fb_addr a)"'"'*'"host":"alpha","slots":3,"jobs":2,"reserved":0,"running_jobs":0,"peers":0,'* ]]
	run -0 ftboot stop --state-dir "$FB_DIR/a"
	[[ $output == "ftboot: stopped (state directory $FB_DIR/a)" ]]
	ft_poll 10 ft_gone "$pid"
	[ ! -e "$FB_DIR/a/ftboot.addr" ]
	run -3 ftboot status --state-dir "$FB_DIR/a" --json
	[ "$output" = '{"running":false,"state_dir":"'"$FB_DIR/a"'"}' ]
	run -0 ftboot stop --state-dir "$FB_DIR/a"
	[[ $output == "ftboot: not running"* ]]
	grep -q "info: started (pid $pid)" "$FB_DIR/a/ftboot.log"
	grep -q "info: stopped" "$FB_DIR/a/ftboot.log"
}

@test "ftboot start: one daemon per state directory" {
	fb_start a
	pid=$(cat "$FB_DIR/a/ftboot.pid")
	run -1 --separate-stderr ftboot start --listen tcp:127.0.0.1:0 \
	    --key-file "$FB_KEY" --state-dir "$FB_DIR/a"
	[[ $stderr == *"a daemon already runs with state directory '$FB_DIR/a' (pid $pid)"* ]]
	[ "$(cat "$FB_DIR/a/ftboot.pid")" = "$pid" ]
	# Another state directory is another daemon.
	fb_start b
	[ "$(cat "$FB_DIR/b/ftboot.pid")" != "$pid" ]
}

@test "ftboot status: a daemon killed with SIGKILL is not running" {
	fb_start a
	pid=$(cat "$FB_DIR/a/ftboot.pid")
	kill -KILL "$pid"
	ft_poll 10 ft_gone "$pid"
	run -3 ftboot status --state-dir "$FB_DIR/a"
	# Its stale pid file does not keep a new daemon out.
	fb_start a
	[ "$(cat "$FB_DIR/a/ftboot.pid")" != "$pid" ]
}

@test "ftboot start --foreground: stays in front, stops on SIGTERM" {
	FB_NAMES+=(f)
	# An address without "tcp:" is taken as HOST:PORT.
	ft_bg ftboot start --foreground --listen 127.0.0.1:0 \
	    --key-file "$FB_KEY" --state-dir "$FB_DIR/f" 2>"$FB_DIR/f.err"
	ft_await 30 "$FB_DIR/f/ftboot.addr" "$bgpid" "$FB_DIR/f.err"
	[ "$(cat "$FB_DIR/f/ftboot.pid")" = "$bgpid" ]
	run -0 ftboot status --state-dir "$FB_DIR/f"
	kill -TERM "$bgpid"
	rc=0
	wait "$bgpid" || rc=$?
	[ "$rc" -eq 0 ]
	grep -q "ftboot\[daemon\]: info: stopped" "$FB_DIR/f.err"
	run -3 ftboot status --state-dir "$FB_DIR/f"
}

@test "ftboot start: settings from --config, flags over them" {
	cat >"$FB_DIR/ftboot.conf" <<-EOC
	# test configuration
	slots 5
	jobs 3
	name fromconf
	key-file $FB_KEY
	EOC
	FB_NAMES+=(c)
	run -0 ftboot start --config "$FB_DIR/ftboot.conf" \
	    --listen tcp:127.0.0.1:0 --state-dir "$FB_DIR/c" --jobs 4
	run -0 ftboot status --state-dir "$FB_DIR/c" --key-file "$FB_KEY"
	[[ ${lines[1]} == "ftboot: host fromconf, P=5 slots, J=4 jobs:"* ]]
}

@test "ftboot start: a bad configuration file names its line" {
	printf 'slots 4\ncolour blue\n' >"$FB_DIR/bad.conf"
	run -100 --separate-stderr ftboot start --config "$FB_DIR/bad.conf" \
	    --key-file "$FB_KEY" --state-dir "$FB_DIR/c"
	[[ $stderr == *"$FB_DIR/bad.conf: line 2: unknown key 'colour'"* ]]
	run -100 --separate-stderr ftboot start --config "$FB_DIR/none.conf" \
	    --key-file "$FB_KEY" --state-dir "$FB_DIR/c"
	[[ $stderr == *"none.conf"*"No such file"* ]]
}

@test "ftboot: usage errors exit 100" {
	run -100 --separate-stderr ftboot
	[[ $stderr == "usage: ftboot keygen"* ]]
	run -100 --separate-stderr ftboot frobnicate
	[[ $stderr == *"unknown command 'frobnicate'"* ]]
	run -100 --separate-stderr ftboot start --slots 0
	[[ $stderr == *"--slots '0' is too small"* ]]
	run -100 --separate-stderr ftboot start --listen 127.0.0.1:x
	[[ $stderr == *"--listen '127.0.0.1:x' is not tcp:HOST:PORT or HOST[:PORT]"* ]]
	run -100 --separate-stderr ftboot start --deny 10.0.0.0/40
	[[ $stderr == *"--deny: '10.0.0.0' is not an IP address or address/prefix"* ]]
	run -100 --separate-stderr ftboot supernode --key-file "$FB_KEY"
	[[ $stderr == *"--listen is missing"* ]]
}

@test "ftboot start, supernode: refuse to run as root unless told" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "not root: the refusal cannot be shown"
	fi
	run -100 --separate-stderr env -u FT_ALLOW_ROOT ftboot start \
	    --listen tcp:127.0.0.1:0 --key-file "$FB_KEY" \
	    --state-dir "$FB_DIR/r"
	[[ $stderr == *"refusing to run as root"*"--allow-root (or FT_ALLOW_ROOT=1)"* ]]
	[ ! -e "$FB_DIR/r/ftboot.pid" ]
	run -100 --separate-stderr env FT_ALLOW_ROOT=0 ftboot supernode \
	    --listen tcp:127.0.0.1:0 --key-file "$FB_KEY"
	[[ $stderr == *"refusing to run as root"* ]]
	FB_NAMES+=(r)
	run -0 env -u FT_ALLOW_ROOT ftboot start --allow-root \
	    --listen tcp:127.0.0.1:0 --key-file "$FB_KEY" \
	    --state-dir "$FB_DIR/r"
	run -0 ftboot status --state-dir "$FB_DIR/r"
}

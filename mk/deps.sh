#!/bin/sh
# SPDX-License-Identifier: ISC
# Install the Debian packages named on the command line that are missing:
# with apt-get when root, else say what to install and fail.
set -eu
command -v dpkg-query >/dev/null 2>&1 || {
	echo "deps: not a Debian system; make sure these are installed: $*" >&2
	exit 0
}
missing=""
for p in "$@"; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root, or: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Wait for the dpkg lock: make -j runs deps and deps-check side by side.
lock="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
apt-get $lock install -y -q $missing >/dev/null 2>&1 || {
	apt-get $lock update -q >/dev/null 2>&1
	# shellcheck disable=SC2086
	apt-get $lock install -y -q $missing >/dev/null
}

#!/usr/bin/env bash
# lanes.sh GO LABELS SERIAL — `make test`: vet, then the tests in two
# lanes that run at once. Both mostly wait (on Mooncake's timeouts, on
# Docker), so on two cores they overlap well:
#   lane 1: the specs on the real engine in processes: the SGLang agreement
#           and the real catalog (which share the real catalog's runs,
#           suites/memo_test.go), duration bands. The agreement is the
#           longest part of make test, so lane 1 starts at once;
#   lane 2: every package's tests (those matching SERIAL, a grep -E of
#           package paths: real Mooncake, scaled timeouts, Docker, one at a
#           time after the others ran in parallel; the realengine package
#           beside them all), then every other spec: containers (container
#           worlds, compose), fake, sim, determinism, explain, the loader.
# INSTALL, when set, is the command that installs the real engine (make's
# real-engine: minutes on a fresh machine, seconds with its caches warm). It
# starts first and runs beside vet and lane 2's parallel packages, which need
# none of it; lane 1 and the packages that run real Mooncake or Docker wait
# for it, and fail when it failed.
# LABELS is make's CI_LABELS (a Ginkgo label filter; empty = every spec).
# REPORT_DIR, when set, keeps the lanes' Ginkgo JSON reports there (lane1.json,
# lane2.json: each run's report entries, the agreement's table of walls).
# A lane that passed prints its summary lines, one that failed its whole
# output (as go test does for a package); the run ends with where the
# suites' time went and each failed spec's message (suites/failures).
set -u
GO=${1:?usage: lanes.sh GO LABELS SERIAL}
LABELS=${2-}
SERIAL=${3:?usage: lanes.sh GO LABELS SERIAL}
cd "$(dirname "$0")/.." || exit 2

tmp=$(mktemp -d -t faultlab-lanes-XXXXXX) || exit 2
pids=() # the process groups of the install and the lanes
cleanup() {
	for p in "${pids[@]}"; do kill -INT -- "-$p" 2>/dev/null; done
	wait
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

LANE2='!real || containers'

# The install in a process group of its own (cleanup stops it); its status
# lands in install.rc, which the lanes poll (they are not its parent).
set -m
{ rc=0; if [ -n "${INSTALL:-}" ]; then eval "$INSTALL" || rc=$?; fi
  echo $rc >"$tmp/install.rc.new" && mv "$tmp/install.rc.new" "$tmp/install.rc"; } &
pids+=($!)
set +m
installed() { # waits for the install; fails, saying so, when it failed
	while [ ! -s "$tmp/install.rc" ]; do
		[ -d "$tmp" ] || return 1 # interrupted: cleanup removed it
		sleep 1
	done
	[ "$(cat "$tmp/install.rc")" = 0 ] && return 0
	echo "--- the real engine's install failed (its output is above the lanes'): nothing that needs it ran"
	return 1
}
filter() { # filter EXTRA: LABELS and EXTRA
	if [ -n "$LABELS" ]; then echo "($LABELS) && $1"; else echo "$1"; fi
}

"$GO" vet ./... || exit 2
# One build of the suites' test binary for both lanes; it runs in its
# package directory, as go test runs it.
"$GO" test -c -o "$tmp/suites.test" ./suites/ || exit 2

lane1() {
	installed || return 1
	cd suites && "$tmp/suites.test" -test.timeout 85m \
		-ginkgo.no-color -ginkgo.label-filter="$(filter "!($LANE2)")" -ginkgo.json-report="$tmp/lane1.json"
}
lane2() {
	local pkgs re rc=0
	pkgs=$("$GO" list ./...) || return 1
	# The realengine package mostly sleeps through Mooncake's own retries
	# (2 min of wall, seconds of CPU): it runs beside the other packages,
	# once the install is done.
	{ installed && "$GO" test -count=1 -timeout 20m ./realengine/ -args -ginkgo.label-filter="${LABELS}"; } >"$tmp/realengine.log" 2>&1 &
	re=$!
	# shellcheck disable=SC2046 # package lists: one word each
	"$GO" test -count=1 -timeout 20m $(grep -v '/suites$' <<<"$pkgs" | grep -Ev "$SERIAL") || rc=1
	# shellcheck disable=SC2046
	if [ $rc = 0 ]; then installed || rc=1; fi
	[ $rc = 0 ] && { "$GO" test -p 1 -count=1 -timeout 85m $(grep -E "$SERIAL" <<<"$pkgs" | grep -v '/realengine$') || rc=1; }
	wait $re || rc=1
	cat "$tmp/realengine.log"
	[ $rc = 0 ] || return 1
	cd suites && "$tmp/suites.test" -test.timeout 85m \
		-ginkgo.no-color -ginkgo.label-filter="$(filter "($LANE2)")" -ginkgo.json-report="$tmp/lane2.json"
}

start=$SECONDS
# Each lane in its own process group, so an interrupt stops all of it.
set -m
for n in 1 2; do
	{ "lane$n"; r=$?; echo $((SECONDS - start)) >"$tmp/lane$n.end"; exit $r; } >"$tmp/lane$n.log" 2>&1 &
	pids+=($!)
done
set +m
show() { # show N NAME RC: lane N's end and output
	echo "--- lane $1, $2: $([ "$3" = 0 ] && echo ok || echo FAIL) after $(cat "$tmp/lane$1.end" 2>/dev/null || echo '?') s"
	if [ "$3" = 0 ]; then grep -E '^(ok |Ran [0-9]+ of|SUCCESS!|FAIL)' "$tmp/lane$1.log"; else cat "$tmp/lane$1.log"; fi
}
rc=0
wait "${pids[1]}"; r1=$?
show 1 "the suites' specs on real in processes ($(filter "!($LANE2)"))" $r1
wait "${pids[2]}"; r2=$?
show 2 "the packages, then the suites' other specs ($(filter "($LANE2)"))" $r2
pids=()
[ $r1 = 0 ] && [ $r2 = 0 ] || rc=1
echo "--- both lanes: $((SECONDS - start)) s"
reports=()
for r in "$tmp/lane1.json" "$tmp/lane2.json"; do [ -s "$r" ] && reports+=("$r"); done
[ ${#reports[@]} -gt 0 ] && "$GO" run ./suites/failures "${reports[@]}"
if [ -n "${REPORT_DIR:-}" ] && [ ${#reports[@]} -gt 0 ]; then
	mkdir -p "$REPORT_DIR" && cp "${reports[@]}" "$REPORT_DIR"/ && echo "--- reports kept in $REPORT_DIR"
fi
exit $rc

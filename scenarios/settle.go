package scenarios

import (
	"context"
	"strings"
	"time"
)

// Real Mooncake writes its log through easylog's asynchronous writer and a
// background thread's line can still be in a pipe when the call that
// raised returns; under load that is tens of milliseconds (fresh CI runs 18
// and earlier lost a trailing coro_rpc line). Before a wall-clock phase's
// logs are read, a missing expected line gets until the output has been
// quiet for settleQuiet, at most settleMax. A phase whose lines are all
// there does not wait; sim never does (its logs are complete when a call
// returns).
const (
	settleQuiet = 300 * time.Millisecond
	settleMax   = 2 * time.Second
	settlePoll  = 25 * time.Millisecond
)

// logsShort reports whether some expected text has fewer lines mentioning
// it than the expectation lists it (a line expected twice, once per batch,
// is still short after its first copy landed: fresh CI run 93).
func logsShort(logs, want []string) bool {
	need := map[string]int{}
	for _, w := range want {
		need[w]++
	}
	for w, n := range need {
		got := 0
		for _, l := range logs {
			if strings.Contains(normalize(l), normalize(w)) {
				got++
			}
		}
		if got < n {
			return true
		}
	}
	return false
}

// settleLogs waits, bounded, while an expected line is missing from the
// trace since mark and output is still arriving.
func (r *run) settleLogs(ctx context.Context, mark int, want []string) {
	missing := func() bool {
		var logs []string
		for _, e := range r.tr.EventsFrom(mark) {
			if e.Kind == "log" {
				logs = append(logs, e.Text)
			}
		}
		return logsShort(logs, want)
	}
	if len(want) == 0 || !missing() {
		return
	}
	deadline := time.Now().Add(settleMax)
	n, quietSince := r.tr.Len(), time.Now()
	t := time.NewTicker(settlePoll)
	defer t.Stop()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if m := r.tr.Len(); m != n {
			n, quietSince = m, time.Now()
			if !missing() {
				return
			}
		} else if time.Since(quietSince) >= settleQuiet {
			return
		}
	}
}

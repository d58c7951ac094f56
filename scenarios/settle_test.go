package scenarios

import (
	"context"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/trace"
)

// A line a process prints after its call returned is read when it lands
// within the bound; a line that never comes ends the wait once output is
// quiet, never later than settleMax.
func TestSettleLogs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		late   []string // printed 100 ms after the phase's steps end
		want   []string
		landed bool // the wanted line is in the trace when settleLogs returns
	}{
		{name: "late line lands", late: []string{"E1202 coro_rpc: connect failed"}, want: []string{"connect failed"}, landed: true},
		{name: "nothing wanted", late: []string{"connect failed"}, want: nil, landed: false},
		{name: "never printed", late: []string{"something else"}, want: []string{"connect failed"}, landed: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{tr: trace.New(nil)}
			r.tr.Record("client", "log", "E", "already there")
			go func() {
				time.Sleep(100 * time.Millisecond)
				for _, l := range tc.late {
					r.tr.Record("client", "log", "E", l)
				}
			}()
			start := time.Now()
			r.settleLogs(context.Background(), 0, tc.want)
			if el := time.Since(start); el > settleMax+time.Second {
				t.Fatalf("settleLogs took %v, bound %v", el, settleMax)
			}
			got := false
			for _, e := range r.tr.EventsFrom(0) {
				if e.Text == "E1202 coro_rpc: connect failed" {
					got = true
				}
			}
			if got != tc.landed {
				t.Fatalf("wanted line in the trace after settleLogs: %v, want %v", got, tc.landed)
			}
		})
	}
}

// A text expected twice is short until its second copy landed.
func TestLogsShort(t *testing.T) {
	for _, c := range []struct {
		logs, want []string
		short      bool
	}{
		{nil, nil, false},
		{[]string{"a x"}, []string{"x"}, false},
		{[]string{"a x"}, []string{"x", "x"}, true},
		{[]string{"a x", "b x"}, []string{"x", "x"}, false},
		{[]string{"a x"}, []string{"x", "y"}, true},
	} {
		if got := logsShort(c.logs, c.want); got != c.short {
			t.Errorf("logsShort(%q, %q) = %v, want %v", c.logs, c.want, got, c.short)
		}
	}
}

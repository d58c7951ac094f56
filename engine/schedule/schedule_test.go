package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/engine/schedule"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// manualTimer runs due callbacks when advanced, in (time, order) order.
type manualTimer struct {
	now     time.Duration
	virtual bool
	evs     []*ev
}

type ev struct {
	at   time.Duration
	fn   func()
	dead bool
}

func (t *manualTimer) Now() time.Duration { return t.now }
func (t *manualTimer) Virtual() bool      { return t.virtual }
func (t *manualTimer) At(at time.Duration, _ string, fn func()) func() {
	e := &ev{at: at, fn: fn}
	t.evs = append(t.evs, e)
	return func() { e.dead = true }
}

func (t *manualTimer) advance(to time.Duration) {
	slices.SortStableFunc(t.evs, func(a, b *ev) int { return int(a.at - b.at) })
	for len(t.evs) > 0 && t.evs[0].at <= to {
		e := t.evs[0]
		t.evs = t.evs[1:]
		t.now = e.at
		if !e.dead {
			e.fn()
		}
	}
	t.now = to
}

// recorder is a world's injection that logs what it is asked to do.
type recorder struct {
	log       []string
	caps      faults.Capabilities
	check     error
	injectErr error
}

func (r *recorder) Check(faults.Primitive) error { return r.check }
func (r *recorder) Inject(_ context.Context, p faults.Primitive) (func(context.Context) error, error) {
	f := p.Source()
	if r.injectErr != nil {
		return nil, r.injectErr
	}
	r.log = append(r.log, "inject "+f.String())
	if f.Kind == faults.Process && faults.Undo(f.Action) == "" {
		return nil, nil
	}
	return func(context.Context) error { r.log = append(r.log, "heal "+f.String()); return nil }, nil
}
func (r *recorder) Clear(context.Context) error { r.log = append(r.log, "clear"); return nil }

func newScheduler(r *recorder, tm *manualTimer, tr *trace.Trace) *schedule.Scheduler {
	return schedule.New(context.Background(), r.Inject, r.Clear, tm, tr)
}

// arm is a world's Arm: Lower, then Scheduler.Arm.
func arm(s *schedule.Scheduler, r *recorder, fs ...faults.Fault) error {
	ps, err := schedule.Lower(fs, r.caps, r.Check)
	if err != nil {
		return err
	}
	return s.Arm(context.Background(), ps)
}

var (
	refuse  = faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse, At: time.Second, For: 2 * time.Second}
	restart = faults.Fault{Kind: faults.Process, Target: "master", Action: "restart", At: 2 * time.Second, For: time.Second}
	latency = faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, At: 5 * time.Second, Params: faults.LatencyParams{Latency: time.Millisecond}}
)

func TestScheduleHealsAtForAndClears(t *testing.T) {
	for _, virtual := range []bool{true, false} {
		t.Run(fmt.Sprintf("virtual=%v", virtual), func(t *testing.T) {
			tm := &manualTimer{virtual: virtual}
			r := &recorder{}
			tr := trace.New(tm.Now)
			s := newScheduler(r, tm, tr)
			if err := arm(s, r, refuse, restart, latency); err != nil {
				t.Fatal(err)
			}
			tm.advance(4 * time.Second)
			if err := s.ClearFaults(context.Background()); err != nil {
				t.Fatal(err)
			}
			tm.advance(10 * time.Second) // latency was cancelled by Clear
			want := []string{
				"inject master-down mode=refuse for=2s",
				"inject process target=master action=restart for=1s",
				"heal master-down mode=refuse for=2s",
				"clear",
			}
			if !slices.Equal(r.log, want) {
				t.Fatalf("got %q\nwant %q", r.log, want)
			}
			var events []string
			for _, e := range tr.Events() {
				events = append(events, fmt.Sprintf("%s %s", e.At, e.Text))
			}
			wantEv := []string{"1s start master-down mode=refuse for=2s", "2s start process target=master action=restart for=1s",
				"3s heal master-down mode=refuse for=2s", "4s clear all"}
			if !slices.Equal(events, wantEv) {
				t.Fatalf("trace %q\nwant %q", events, wantEv)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestArmChecksEverythingFirst(t *testing.T) {
	tm := &manualTimer{}
	r := &recorder{check: engine.Unsupportedf("no such link here")}
	s := newScheduler(r, tm, nil)
	err := arm(s, r, refuse)
	if u, ok := engine.AsUnsupported(err); !ok || u.Reason != "no such link here" {
		t.Fatalf("want Unsupported, got %v", err)
	}
	bad := faults.Fault{Kind: faults.MasterDown, Mode: "drop", Line: 7}
	if err := arm(s, r, bad); err == nil || err.Error() != `fault at line 7: master-down "drop": mode must be one of refuse, blackhole` {
		t.Fatalf("validation: %v", err)
	}
	// A kind the world's capabilities cannot inject is a skip with the
	// kind's reason, before the world's check is asked.
	r.check = nil
	pause := faults.Fault{Kind: faults.Container, Target: "master", Action: "pause"}
	err = arm(s, r, latency, pause)
	if u, ok := engine.AsUnsupported(err); !ok || u.Reason != "container target=master action=pause: needs a container world (faultlab run --containers)" {
		t.Fatalf("container fault without containers: %v", err)
	}
	tm.advance(time.Minute)
	if len(r.log) != 0 || len(tm.evs) != 0 {
		t.Fatalf("armed something: %q", r.log)
	}
}

// A wall timer injects faults already due inside Arm, and their errors
// are Arm's; later errors are kept for Close and traced.
func TestWallDueNowAndLateErrors(t *testing.T) {
	tm := &manualTimer{}
	r := &recorder{injectErr: errors.New("proxy gone")}
	tr := trace.New(tm.Now)
	s := newScheduler(r, tm, tr)
	at0 := faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse}
	if err := arm(s, r, at0); err == nil || !strings.Contains(err.Error(), "proxy gone") {
		t.Fatalf("due-now error: %v", err)
	}
	if err := arm(s, r, latency); err != nil {
		t.Fatal(err)
	}
	tm.advance(6 * time.Second)
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "proxy gone") {
		t.Fatalf("Close: %v", err)
	}
	if logs := tr.Logs(); len(logs) != 1 || !strings.Contains(logs[0], "proxy gone") {
		t.Fatalf("trace logs %q", logs)
	}
}

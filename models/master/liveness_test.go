package master_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// A client that goes silent (SIGKILL, SIGSTOP) after its object went into
// its segment, while a survivor keeps pinging; the master's lines, with the
// second each tick printed them at, and the reads of the object. The lines
// are real 0.3.14's and 0.3.13.post1's (docs/REAL-FINDINGS.md §65: SIGKILL
// with the defaults and with --client_ttl=5, SIGSTOP for 15 s and 40 s).
func TestClientLiveness(t *testing.T) {
	const (
		a = "client_id=1-1"
		b = "client_id=2-2"
	)
	for _, c := range []struct {
		name    string
		version string
		flags   map[string]string
		// from, to: the seconds client A does not ping, [from, to); it
		// pings every second outside them, its last before from at 0 s.
		from, to int
		// reads: the second of each GetReplicaList of the object, and its
		// result (replica count, or the error).
		reads map[int]string
		want  []string
	}{
		{"kill", "0.3.14", nil, 1, 99, map[int]string{5: "1", 15: "REPLICA_IS_NOT_READY", 35: "OBJECT_NOT_FOUND"}, []string{
			"10s " + a + ", action=client_liveness_suspected",
			"15s key=k, error=replica_not_ready",
			"30s " + a + ", action=client_liveness_offline",
			"30s " + a + ", segment_name=a:1, action=unmount_offline_mem_segment",
			"30s " + a + ", action=client_offboarding_complete, retries=0, duration_ms=0",
		}},
		{"kill client_ttl=5", "0.3.14", map[string]string{"client_ttl": "5"}, 1, 99, map[int]string{8: "REPLICA_IS_NOT_READY", 12: "OBJECT_NOT_FOUND"}, []string{
			"5s " + a + ", action=client_liveness_suspected",
			"8s key=k, error=replica_not_ready",
			"10s " + a + ", action=client_liveness_offline",
			"10s " + a + ", segment_name=a:1, action=unmount_offline_mem_segment",
			"10s " + a + ", action=client_offboarding_complete, retries=0, duration_ms=0",
		}},
		{"pause 15 s", "0.3.14", nil, 1, 16, map[int]string{14: "REPLICA_IS_NOT_READY", 20: "1"}, []string{
			"10s " + a + ", action=client_liveness_suspected",
			"14s key=k, error=replica_not_ready",
			"16s " + a + ", action=client_liveness_recovered, signal=ping",
		}},
		{"pause 40 s", "0.3.14", nil, 1, 41, map[int]string{45: "OBJECT_NOT_FOUND"}, []string{
			"10s " + a + ", action=client_liveness_suspected",
			"30s " + a + ", action=client_liveness_offline",
			"30s " + a + ", segment_name=a:1, action=unmount_offline_mem_segment",
			"30s " + a + ", action=client_offboarding_complete, retries=0, duration_ms=0",
		}},
		// Unchanged before 0.3.14: expired at the first tick past client_ttl
		// (0.3.14: at the tick client_ttl after the last ping, >=).
		{"kill 0.3.13.post1", "0.3.13.post1", nil, 1, 99, map[int]string{5: "1", 15: "OBJECT_NOT_FOUND"}, []string{
			"11s " + a + ", action=client_expired",
			"11s " + a + ", segment_name=a:1, action=unmount_expired_mem_segment",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{}
			var logs []string
			cfg := configAt(t, c.version, c.flags)
			cfg.EnableMetricReporting = false // the lines under test only
			m := master.New(cfg, clk, mlog.Func(func(_, text string) {
				logs = append(logs, fmt.Sprintf("%s %s", clk.now, text))
			}), rng.Stream(1, "master"))
			ids := []master.UUID{{Hi: 1, Lo: 1}, {Hi: 2, Lo: 2}}
			for i, id := range ids {
				name := []string{"a:1", "b:1"}[i]
				seg := master.Segment{ID: master.UUID{Lo: uint64(10 + i)}, Name: name, Base: 0x1000, Size: 1 << 20, TEEndpoint: name}
				if err := m.MountSegment(ctx, seg, id); err != nil {
					t.Fatal(err)
				}
				if err := m.ReMountSegment(ctx, []master.Segment{seg}, id); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := m.PutStart(ctx, "k", 4096, master.ReplicateConfig{ReplicaNum: 1, PreferredSegment: "a:1"}); err != nil {
				t.Fatal(err)
			}
			if err := m.PutEnd(ctx, "k"); err != nil {
				t.Fatal(err)
			}
			logs = nil // the mounts' lines
			for s := 1; s <= 50; s++ {
				clk.now = time.Duration(s) * time.Second
				m.Monitor()
				if s < c.from || s >= c.to {
					ping(t, m, ids[0])
				}
				ping(t, m, ids[1])
				want, ok := c.reads[s]
				if !ok {
					continue
				}
				reps, err := m.GetReplicaList(ctx, "k")
				got := fmt.Sprint(len(reps))
				var code mooncake.ErrorCode
				if errors.As(err, &code) {
					got = code.Name()
				}
				if got != want {
					t.Errorf("get at %ds: %s, want %s", s, got, want)
				}
			}
			if !slices.Equal(logs, c.want) {
				t.Errorf("logs\n%q\nwant\n%q", logs, c.want)
			}
		})
	}
}

func ping(t *testing.T, m *master.Master, id master.UUID) {
	t.Helper()
	if _, err := m.Ping(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

// A suspected client's replicas are not there for ExistKey, and its
// segment takes no puts (real 0.3.14: is_exist 0 while suspected, then 1
// after the ping that recovered it; 28 of 28 puts on the live segment
// while the dead one was suspected, 12 of 16 on it -800 before).
func TestSuspectedClientServesNothing(t *testing.T) {
	ctx := context.Background()
	m, clk := newMaster(t, "0.3.14", nil)
	dead, live := master.UUID{Hi: 1, Lo: 1}, master.UUID{Hi: 2, Lo: 2}
	for i, id := range []master.UUID{dead, live} {
		name := []string{"dead:1", "live:1"}[i]
		seg := master.Segment{ID: master.UUID{Lo: uint64(10 + i)}, Name: name, Base: 0x1000, Size: 1 << 30, TEEndpoint: name}
		if err := m.MountSegment(ctx, seg, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.PutStart(ctx, "k", 4096, master.ReplicateConfig{ReplicaNum: 1, PreferredSegment: "dead:1"}); err != nil {
		t.Fatal(err)
	}
	if err := m.PutEnd(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 12; s++ {
		clk.now = time.Duration(s) * time.Second
		ping(t, m, live)
	}
	if ok, _ := m.ExistKey(ctx, "k"); ok {
		t.Error("ExistKey of a suspected client's object: true, want false")
	}
	for i := range 32 {
		key := fmt.Sprintf("p%d", i)
		reps, err := m.PutStart(ctx, key, 4096, master.ReplicateConfig{ReplicaNum: 1})
		if err != nil || len(reps) != 1 || reps[0].SegmentName != "live:1" {
			t.Fatalf("put %s while dead:1 is suspected: %v %v, want one replica on live:1", key, reps, err)
		}
	}
	ping(t, m, dead)
	if ok, _ := m.ExistKey(ctx, "k"); !ok {
		t.Error("ExistKey after the client recovered: false, want true")
	}
}

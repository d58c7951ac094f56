package master_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestExpiryDiskSegment: ClientMonitorFunc and an expired client's
// LOCAL_DISK segment. Up to 0.3.10.post1 it stays (the FileStorage
// heartbeat goes on); from v0.3.10.post2 it is unmounted, with
// "action=unmount_local_disk_segment" up to 0.3.12 and silently from
// 0.3.13, and the next heartbeat is SEGMENT_NOT_FOUND with the master's
// ERROR line (master_service.cpp v0.3.11.post1:2629, :5013-5015; real:
// docs/REAL-FINDINGS.md §79).
func TestExpiryDiskSegment(t *testing.T) {
	ctx := context.Background()
	id := master.UUID{Hi: 1, Lo: 2}
	for _, tc := range []struct {
		version string
		err     error
		lines   []string
	}{
		{"0.3.10.post1", nil, []string{
			"INFO client_id=1-2, action=client_expired",
			"INFO client_id=1-2, segment_name=h:1, action=unmount_expired_segment",
		}},
		{"0.3.11.post1", mooncake.SEGMENT_NOT_FOUND, []string{
			"INFO client_id=1-2, action=client_expired",
			"INFO client_id=1-2, segment_name=h:1, action=unmount_expired_mem_segment",
			"INFO client_id=1-2, action=unmount_local_disk_segment",
			"ERROR Local disk segment not found with client id = 1-2",
		}},
		{"0.3.13.post1", mooncake.SEGMENT_NOT_FOUND, []string{
			"INFO client_id=1-2, action=client_expired",
			"INFO client_id=1-2, segment_name=h:1, action=unmount_expired_mem_segment",
			"ERROR Local disk segment not found with client id = 1-2",
		}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			cfg := configAt(t, tc.version, map[string]string{"enable_offload": "true", "enable_metric_reporting": "false"})
			var lines []string
			c := &clock{}
			m := master.New(cfg, c, mlog.Func(func(level, text string) {
				if !strings.Contains(text, "action=mount_segment") {
					lines = append(lines, level+" "+text)
				}
			}), rng.Stream(1, "master"))
			seg := master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 1 << 20, TEEndpoint: "h:1"}
			if err := m.MountSegment(ctx, seg, id); err != nil {
				t.Fatal(err)
			}
			if err := m.MountLocalDiskSegment(ctx, id); err != nil {
				t.Fatal(err)
			}
			m.Ping(ctx, id)
			c.now += 12 * time.Second // client_ttl 10 s, no ping
			m.Monitor()
			got, err := m.OffloadObjectHeartbeat(ctx, id)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) || len(got) != 0 {
				t.Fatalf("heartbeat after expiry = %v, %v; want %v", got, err, tc.err)
			}
			if !reflect.DeepEqual(lines, tc.lines) {
				t.Fatalf("lines:\n%q\nwant\n%q", lines, tc.lines)
			}
		})
	}
}

// TestOfflineClientHeartbeat: 0.3.14's liveness registry takes a client
// without pings offline and drops its disk segment; its FileStorage
// heartbeat is UNAVAILABLE_IN_CURRENT_STATUS until it remounts, then
// SEGMENT_NOT_FOUND until it mounts the disk segment again (real 0.3.14,
// three runs: docs/REAL-FINDINGS.md §79).
func TestOfflineClientHeartbeat(t *testing.T) {
	ctx := context.Background()
	id := master.UUID{Hi: 1, Lo: 2}
	m, c := newMaster(t, "0.3.14", map[string]string{"enable_offload": "true"})
	seg := master.Segment{ID: master.UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 1 << 20, TEEndpoint: "h:1"}
	if err := m.MountSegment(ctx, seg, id); err != nil {
		t.Fatal(err)
	}
	if err := m.MountLocalDiskSegment(ctx, id); err != nil {
		t.Fatal(err)
	}
	m.Ping(ctx, id)
	if _, err := m.OffloadObjectHeartbeat(ctx, id); err != nil {
		t.Fatalf("heartbeat of a live client = %v", err)
	}
	c.now += time.Minute // past client_ttl and client_suspicion_ttl
	m.Monitor()
	m.Ping(ctx, id)
	if _, err := m.OffloadObjectHeartbeat(ctx, id); !errors.Is(err, mooncake.UNAVAILABLE_IN_CURRENT_STATUS) {
		t.Fatalf("heartbeat after offline, before the remount = %v, want UNAVAILABLE_IN_CURRENT_STATUS", err)
	}
	if err := m.ReMountSegment(ctx, []master.Segment{seg}, id); err != nil {
		t.Fatal(err)
	}
	if _, err := m.OffloadObjectHeartbeat(ctx, id); !errors.Is(err, mooncake.SEGMENT_NOT_FOUND) {
		t.Fatalf("heartbeat after the remount = %v, want SEGMENT_NOT_FOUND", err)
	}
	if err := m.MountLocalDiskSegment(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got, err := m.OffloadObjectHeartbeat(ctx, id); err != nil || len(got) != 0 {
		t.Fatalf("heartbeat after the disk mount = %v, %v; want an empty queue", got, err)
	}
}

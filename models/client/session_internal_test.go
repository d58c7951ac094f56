package client

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The replica batch_get_session_start caches: at 0.3.13.post1 only a
// complete memory one (real: -702 and the ERROR line for a key on SSD
// only); 0.3.14 also a complete LOCAL_DISK one (real: 0, no line).
func TestSessionReplica(t *testing.T) {
	mem := master.Replica{SegmentName: "localhost:1", Size: 4096, Complete: true}
	disk := master.Replica{Size: 4096, Complete: true, OffloadEndpoint: "localhost:2"}
	partial := master.Replica{SegmentName: "localhost:1", Size: 4096}
	line := "No complete memory replica for key: k"
	for _, c := range []struct {
		version string
		reps    []master.Replica
		want    mooncake.ErrorCode
		logs    []string
	}{
		{"0.3.13.post1", []master.Replica{disk}, mooncake.INVALID_REPLICA, []string{line}},
		{"0.3.13.post1", []master.Replica{disk, mem}, mooncake.OK, nil},
		{"0.3.13.post1", []master.Replica{partial}, mooncake.INVALID_REPLICA, []string{line}},
		{"0.3.14", []master.Replica{disk}, mooncake.OK, nil},
		{"0.3.14", []master.Replica{mem}, mooncake.OK, nil},
		{"0.3.14", []master.Replica{partial}, mooncake.INVALID_REPLICA, nil},
	} {
		p, err := mooncake.ProfileFor(c.version)
		if err != nil {
			t.Fatal(err)
		}
		var logs []string
		c0 := &RealClient{p: p, d: Deps{Log: mlog.Func(func(level, text string) {
			if level != mlog.Error {
				t.Errorf("%s: level %s for %q, want ERROR", c.version, level, text)
			}
			logs = append(logs, text)
		})}}
		if got := c0.sessionReplica("k", c.reps); got != c.want {
			t.Errorf("%s %v: %d, want %d", c.version, c.reps, got, c.want)
		}
		if !slices.Equal(logs, c.logs) {
			t.Errorf("%s %v: logged %q, want %q", c.version, c.reps, logs, c.logs)
		}
	}
}

package master_test

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestRPCProtocol: master.cpp reads MC_RPC_PROTOCOL from v0.3.6, exactly
// "rdma".
func TestRPCProtocol(t *testing.T) {
	for _, c := range []struct {
		v    string
		env  map[string]string
		want string
	}{
		{"0.3.7.post2", map[string]string{"MC_RPC_PROTOCOL": "rdma"}, "rdma"},
		{"0.3.13.post1", map[string]string{"MC_RPC_PROTOCOL": "rdma"}, "rdma"},
		{"0.3.7.post2", map[string]string{"MC_RPC_PROTOCOL": "RDMA"}, "tcp"},
		{"0.3.7.post2", map[string]string{"MC_RPC_PROTOCOL": "tcp"}, "tcp"},
		{"0.3.7.post2", nil, "tcp"},
		{"0.3.5", map[string]string{"MC_RPC_PROTOCOL": "rdma"}, "tcp"},
	} {
		p, err := mooncake.ProfileFor(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := master.RPCProtocol(p, c.env); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.v, c.env, got, c.want)
		}
	}
}

// TestTCPClient: what a TCP client's call of n bytes meets, per release
// and RNIC, and what the master logs (yalantinglibs 0.5.5's ib_socket
// accept reads 30 bytes first; 0.5.6 falls back to TCP).
func TestTCPClient(t *testing.T) {
	for _, c := range []struct {
		v     string
		proto string
		rnic  bool
		bytes []int64
		want  []master.TCPCall
		logs  []string
	}{
		{"0.3.7.post2", "rdma", true, []int64{20, 29, 30, 128},
			[]master.TCPCall{master.TCPHeld, master.TCPHeld, master.TCPClosed, master.TCPClosed},
			[]string{"ibverbs init qp failed: End of file conn_id  1", "ibverbs init qp failed: End of file conn_id  2",
				"ibverbs init qp failed: Protocol error conn_id  3", "ibverbs init qp failed: Protocol error conn_id  4"}},
		{"0.3.7.post2", "rdma", false, []int64{20, 128}, []master.TCPCall{master.TCPExits, master.TCPExits}, nil},
		{"0.3.7.post2", "tcp", true, []int64{20}, []master.TCPCall{master.TCPServed}, nil},
		{"0.3.8.post1", "rdma", true, []int64{20, 128}, []master.TCPCall{master.TCPServed, master.TCPServed}, nil},
		{"0.3.8.post1", "rdma", false, []int64{20}, []master.TCPCall{master.TCPServed}, nil},
	} {
		cfg := configAt(t, c.v, nil)
		cfg.RPCProtocol, cfg.RNIC = c.proto, c.rnic
		cfg.EnableMetricReporting = false // its summary at New is not the point
		var logs []string
		m := master.New(cfg, &clock{}, mlog.Func(func(_, text string) { logs = append(logs, text) }), rng.Stream(1, "master"))
		var got []master.TCPCall
		for _, n := range c.bytes {
			r := m.TCPClient(n)
			if r == master.TCPHeld {
				m.HeldClosed()
			}
			got = append(got, r)
		}
		if !slices.Equal(got, c.want) || !slices.Equal(logs, c.logs) {
			t.Errorf("%s %s rnic=%v: %v %q, want %v %q", c.v, c.proto, c.rnic, got, logs, c.want, c.logs)
		}
	}
}

package te_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// ports is a host's port table: held are taken by another process.
type ports map[int]bool

func (p ports) Bind(_ context.Context, host string, port int) (func(), error) {
	if p[port] {
		return nil, fmt.Errorf("bind %s:%d: Address already in use", host, port)
	}
	p[port] = true
	return func() { delete(p, port) }, nil
}

// The TCP transport's port after the RPC port, unchecked up to
// 0.3.4.post2 (Mooncake#601): a P2P store with an explicit port fails
// when another process holds the next one; from 0.3.5 it does not.
func TestTCPPortAfterRPC(t *testing.T) {
	for _, c := range []struct {
		version string
		held    int
		wantErr error
		logs    []string
	}{
		{"0.3.4.post2", 17782, mooncake.INTERNAL_ERROR, []string{
			"Transfer Engine RPC using P2P handshake, listening on 127.0.0.1:17781",
			"TcpTransport: listen on port 17782",
			`tcp_transport_install_failed error_message="bind: Address already in use"`,
		}},
		{"0.3.4.post2", 17785, nil, []string{"TcpTransport: listen on port 17782"}},
		{"0.3.6.post1", 17782, nil, nil},
	} {
		t.Run(fmt.Sprintf("%s held %d", c.version, c.held), func(t *testing.T) {
			p, err := mooncake.ProfileFor(c.version)
			if err != nil {
				t.Fatal(err)
			}
			var logs []string
			table := ports{c.held: true}
			e := te.New(te.Config{Profile: p, Host: te.Host{Name: "n"}, Ports: table,
				Log: mlog.Func(func(_, text string) { logs = append(logs, text) })})
			if err := e.InitStore(context.Background(), "127.0.0.1:17781", te.P2PHandshake, "tcp", nil); err != c.wantErr {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			for _, l := range c.logs {
				if !slices.Contains(logs, l) {
					t.Errorf("logs %q lack %q", logs, l)
				}
			}
			if c.wantErr == nil && !slices.Equal(e.Transports(), []string{"tcp"}) {
				t.Errorf("transports = %v, want [tcp]", e.Transports())
			}
		})
	}
}

package sim

import (
	"slices"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// timeWaitLen is Linux's TCP_TIMEWAIT_LEN: how long the side that closes
// a connection first keeps its local port after the close.
const timeWaitLen = 60 * time.Second

// ephemeralPorts is one host's kernel view of the local ports its outgoing
// TCP connections take from ip_local_port_range (topology
// ip_local_port_range): per destination, those in TIME_WAIT, by when each
// is free again. connect() may give one port to connections to different
// destinations (a connect-bound port is shared while the 4-tuples
// differ), so the ports run out per destination: real 0.3.10.post1 …
// 0.3.12.post1 with a 16-port range put 16 transfers to one peer (SGLang's
// warmup put and get, then 14 pages) while its master connection and the
// handshake held ports too, with 24 ports 24. Only a host with a range of
// its own keeps count; with Linux's 28232 ports no world here runs out.
type ephemeralPorts struct {
	size     int
	timeWait map[string][]time.Duration
}

// checkEphemeral refuses a world whose port range the model cannot count
// for: the one-shot TCP path's ports are measured from 0.3.10 only
// (mooncake.Profile.TCPOneShotPorts).
func checkEphemeral(spec engine.WorldSpec, p mooncake.Profile) error {
	for _, n := range spec.Nodes {
		if n.EphemeralPorts > 0 && !p.Version.AtLeast("0.3.10") {
			return engine.Unsupportedf("node %s: ip_local_port_range at Mooncake %s: not modelled (real 0.3.8.post1 and 0.3.9 leave 19 and 15 transfers of a 16-port range: which side of a transfer closes first varies; docs/REAL-FINDINGS.md §69)", n.Name, p.Version)
		}
	}
	return nil
}

// oneShotTCP reports whether a process with env sends its transfers on
// TcpTransport's one-shot path: a connection per slice, closed after it
// (the TCP transport, MC_TCP_ENABLE_CONNECTION_POOL unset or 0/false/no
// after tolower, the constructor's test at v0.3.10 … v0.3.12.post1
// tcp_transport.cpp).
func (w *World) oneShotTCP(env map[string]string) bool {
	if !w.profile.TCPOneShotPorts {
		return false
	}
	if proto, ok := env["MOONCAKE_PROTOCOL"]; ok && proto != "tcp" {
		return false
	}
	v, set := env["MC_TCP_ENABLE_CONNECTION_POOL"]
	return !set || slices.Contains([]string{"0", "false", "no"}, strings.ToLower(v))
}

// newEphemeral is the port count of each node with a range of its own.
func newEphemeral(nodes []engine.NodeSpec) map[string]*ephemeralPorts {
	out := map[string]*ephemeralPorts{}
	for _, n := range nodes {
		if n.EphemeralPorts > 0 {
			out[n.Name] = &ephemeralPorts{size: n.EphemeralPorts, timeWait: map[string][]time.Duration{}}
		}
	}
	return out
}

// connectEphemeral takes a local port on node for a connection to dest
// that closes at once (then in TIME_WAIT for timeWaitLen); false
// (EADDRNOTAVAIL) when none is left for that destination. A node without a
// range of its own always has one.
func (w *World) connectEphemeral(node, dest string) bool {
	e := w.ephemeral[node]
	if e == nil {
		return true
	}
	now := w.k.Now()
	tw := slices.DeleteFunc(e.timeWait[dest], func(t time.Duration) bool { return t <= now })
	if len(tw) >= e.size {
		e.timeWait[dest] = tw
		return false
	}
	e.timeWait[dest] = append(tw, now+timeWaitLen)
	return true
}

package scenarios

import (
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// portInUse is how a bind that lost Mooncake's port race reads: asio's
// "bind: Address already in use" (TcpContext), the handshake plugin's
// "bind (port N): Address already in use [98]".
const portInUse = "Address already in use"

// refusedHandshake is the P2P handshake's refused connect to a departed
// peer (transfer_metadata_plugin.cpp doConnect); answered are the lines of
// a connect to that port that got through after all: the handshake
// plugin's for an answer that is no handshake, a TCP data session's for a
// server that holds no such segment. Both after a refusal in one run mean
// another world's process bound the departed peer's port meanwhile (the
// transfer engine picks its ports at random): CI run 63
// (io/peer-not-listening-handshake @0.3.11.post1, the first line) and 66
// (@0.3.9, the put then read from a neighbour: "Session::readBody failed
// … End of file").
const refusedHandshake = "Connection refused [111]"

var answered = []string{"SocketHandShakePlugin: unexpected handshake message type", "Session::readBody failed", "Session::writeBody failed"}

// portAnsweredLater: a handshake connect was refused, and a later line
// shows a connect to a peer that got through (answered).
func portAnsweredLater(sc *Scenario, logs []string) bool {
	refused := slices.IndexFunc(logs, func(l string) bool {
		return strings.HasPrefix(l, "SocketHandShakePlugin: connect()") && strings.HasSuffix(l, refusedHandshake)
	})
	if refused < 0 {
		return false
	}
	return slices.ContainsFunc(logs[refused+1:], func(l string) bool {
		return slices.ContainsFunc(answered, func(a string) bool { return strings.Contains(l, a) && !mentions(sc, a) })
	})
}

// interference says why a failed wall-clock run met the harness's own
// parallel worlds rather than its scenario ("" when it did not). Mooncake's
// transfer engine picks its RPC port at random in 15000-17000 and binds
// the next port for its TCP transport without checking it first
// (Mooncake#601, tcp-port-collision); a world running beside it may hold
// that port. The real engine gives each process from 0.3.7 a port window
// of its own (MC_MIN_PRC_PORT, MC_MIN_RPC_PORT from 0.3.11:
// realengine/portwindow.go); this re-run is the backstop for what no
// window covers (0.3.6.post1 and older, a scenario's own range). The
// harness's own ports are outside every range (netport), so a world
// that failed on a bind, where its scenario expects none, ran into a
// neighbour. Sim has no neighbours: its runs are never interfered with.
func interference(sc *Scenario, eng engine.Engine, r Result) string {
	if r.Verdict != Fail || !Wall(eng) {
		return ""
	}
	if sc.HasLabel(RacyOutcomeLabel) {
		return "its outcome hangs on a race inside Mooncake the world cannot pin (" + RacyOutcomeLabel + ")"
	}
	if mentions(sc, portInUse) {
		return ""
	}
	for _, o := range []*Observed{&r.Observed, r.Remedy} {
		if o == nil {
			continue
		}
		// A caller that gets a return code, not an exception (setup 1 up to
		// 0.3.4.post2: tcp_transport_install_failed), shows it in the log only.
		if o.Exception != nil && strings.Contains(o.Exception.Message, portInUse) ||
			o.Died != nil && strings.Contains(o.Died.Reason, portInUse) ||
			slices.ContainsFunc(o.Logs, func(l string) bool { return strings.Contains(l, portInUse) }) {
			return "a bind met a port another world held (Mooncake#601: the transfer engine's TCP port is its random RPC port + 1, unchecked)"
		}
		if portAnsweredLater(sc, o.Logs) {
			return "a connect to a departed peer's port reached a process of another world that bound it since (the transfer engine's ports are random in 12000-17000)"
		}
	}
	return ""
}

// mentions reports whether any of the scenario's expectations names s: a
// scenario about a port collision judges its own binds.
func mentions(sc *Scenario, s string) bool {
	es := []Expect{sc.Expect}
	for _, v := range sc.ByVersion {
		es = append(es, v.Expect)
	}
	if sc.Remedy != nil {
		es = append(es, sc.Remedy.Expect)
		for _, v := range sc.Remedy.ByVersion {
			es = append(es, v.Expect)
		}
	}
	for _, e := range es {
		texts := append(append([]string{}, e.Logs...), e.NoLogs...)
		if e.Raises != nil && e.Raises.Message != nil {
			texts = append(texts, *e.Raises.Message)
		}
		if e.Dies != nil && e.Dies.Reason != nil {
			texts = append(texts, *e.Dies.Reason)
		}
		for _, t := range texts {
			if strings.Contains(t, s) {
				return true
			}
		}
	}
	return false
}

package sim

import (
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// abandonedHandshake is a P2P handshake request a paused peer's kernel
// took whose sender gave up and closed its socket (readFully's deadline,
// models/client/handshakestall.go).
type abandonedHandshake struct {
	mem *hostmem.Space
	log mlog.Logger
}

// answerAbandoned runs at SIGCONT: the resumed peer's handshake listener
// reads each request and answers on the closed socket; writeString's
// write fails (the sender's kernel reset the connection) and the listener
// drops it (common.h writeFully, transfer_metadata_plugin.cpp v0.3.12.post1
// :798-800; real 0.3.11.post1, 0.3.12.post1: both lines per handshake,
// docs/REAL-FINDINGS.md §95). In the order the handshakes were given up.
func (w *World) answerAbandoned() {
	kept := w.abandoned[:0]
	for _, a := range w.abandoned {
		if w.paused[a.mem] || (a.mem == w.clientMem && w.clientState == paused) {
			kept = append(kept, a)
			continue
		}
		a.log.Log(mlog.Error, "Socket write failed: Broken pipe [32]")
		a.log.Log(mlog.Error, "SocketHandShakePlugin: failed to send message: malformed json format, check tcp connection")
	}
	w.abandoned = kept
}

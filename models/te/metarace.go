package te

import (
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// LocalDescRaced is a buffer registration of this engine meeting a
// peer's metadata exchange served by its P2P handshake daemon (a
// te-metadata-race fault): the death it causes, or nil. Up to 0.3.8.post1
// receivePeerMetadata copies the local segment descriptor without
// segment_lock_ while addLocalMemoryBuffer replaces it
// (Profile.MetadataLocalDescUnlocked, transfer_metadata.cpp
// v0.3.8.post1:475, :613-625): the copy reads a freed descriptor and the
// process dies with SIGSEGV, printing nothing of Mooncake's (no failure
// signal handler is installed); or (throw) encodeSegmentDesc reads the
// half-replaced descriptor and jsoncpp throws Json::LogicError in the
// daemon's std::thread, which nothing catches: std::terminate prints its
// line on stderr and aborts. From 0.3.9 (PR 1373) the copy waits for the
// registration's lock: nothing happens. An engine without the P2P daemon
// (HTTP or etcd metadata) serves no metadata exchange.
func (e *Engine) LocalDescRaced(throw bool) error {
	if !e.Handshake() || !e.cfg.Profile.MetadataLocalDescUnlocked {
		return nil
	}
	if throw {
		e.logf(mlog.Stderr, "terminate called after throwing an instance of 'Json::LogicError'")
		return &engine.ProcessDied{Signal: engine.SignalAbort, Reason: "uncaught Json::LogicError in the handshake daemon's TransferMetadata::receivePeerMetadata (encodeSegmentDesc of the local segment descriptor register_memory was replacing)"}
	}
	return &engine.ProcessDied{Signal: "SIGSEGV", Reason: "Segmentation fault in TransferMetadata::receivePeerMetadata: the handshake daemon copied the local segment descriptor register_memory's addLocalMemoryBuffer was replacing"}
}

package te

import (
	"encoding/binary"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// ServeStray is the P2P handshake daemon taking a connection from a
// process that is not Mooncake (the te stray step: a TCP health check,
// a port scan, an HTTP probe or scraper given this port), which sends
// payload and closes. readString reads an 8-byte little-endian length
// first (common.h v0.3.4:195-215, v0.3.12.post1:449-470, 3b5a594:466-486):
//   - fewer than 8 bytes before EOF: readFully's "Socket read
//     incompleted" warning, then up to 0.3.12 "readString: failed to read
//     length" and the daemon parses the empty string as JSON (the
//     "malformed json format" error, transfer_metadata_plugin.cpp
//     v0.3.4:608-616, v0.3.12.post1:764-773); from 0.3.13 readString
//     warns "incomplete handshake length" and returns the Invalid type,
//     which the daemon closes without a word (3b5a594:764-768);
//   - a length over the maximum (an HTTP request's "GET / HT" is
//     5.2e18): "readString: too large length from socket", then the same
//     JSON error up to 0.3.12, nothing more from 0.3.13.
//
// Either way the daemon closes the connection and serves the next one:
// nothing of the store or the engine changes. Other payloads (a length
// the daemon accepts) are not modelled.
func (e *Engine) ServeStray(payload []byte) error {
	e.ReadHandshakeMaxLength()
	v := e.cfg.Profile.Version
	invalidType := v.AtLeast("0.3.13")
	if len(payload) < 8 {
		e.logf(mlog.Warning, "Socket read incompleted: expected 8 bytes, actual %d bytes", len(payload))
		if invalidType {
			e.logf(mlog.Warning, "readString: incomplete handshake length, got: %d", len(payload))
			return nil
		}
		e.logf(mlog.Error, "readString: failed to read length, got: %d", len(payload))
		e.strayJSONError()
		return nil
	}
	length := binary.LittleEndian.Uint64(payload)
	if length <= handshakeMaxLength {
		return engine.Unsupportedf("te stray: a handshake length the daemon accepts (%d) is not modelled", length)
	}
	e.logf(mlog.Error, "readString: too large length from socket: %d", length)
	if !invalidType {
		e.strayJSONError()
	}
	return nil
}

// handshakeMaxLength bounds what ServeStray models: no valid
// MC_HANDSHAKE_MAX_LENGTH (128 MiB at most, common.h v0.3.12.post1:414)
// or the fixed 1 MiB of older releases reaches a text's first 8 bytes.
const handshakeMaxLength = 128 << 20

// strayJSONError is the daemon's line for the empty string readString
// returned (jsoncpp's error for it: "* Line 1, Column 1" and "Syntax
// error: value, object or array expected."). glog prints the record's
// newlines as they are: a log reader sees the lines after the first as
// lines of their own (parseAnswer). Up to 0.3.6 Json::Reader's message
// follows the colon without a space (v0.3.6.post1:723-729); from 0.3.7
// parseJsonString's with one (v0.3.7.post2:751-756).
func (e *Engine) strayJSONError() {
	sep := " "
	if !e.cfg.Profile.Version.AtLeast("0.3.7") {
		sep = ""
	}
	errs := strings.Split(strings.TrimSuffix(jsoncppParseError(nil), "\n"), "\n")
	e.logf(mlog.Error, "SocketHandShakePlugin: failed to receive handshake message, malformed json format:%s%s", sep, errs[0])
	for _, l := range errs[1:] {
		e.logf(mlog.Info, "%s", l)
	}
	e.logf(mlog.Info, ", json string length: 0, json string content: ")
}

package te

import (
	"fmt"
	"strings"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// SessionStep is the step of a TCP transport session whose socket
// operation failed: which side runs it decides which line Mooncake prints.
type SessionStep int

const (
	// ClientWriteHeader: the initiator's async_write of the session header.
	ClientWriteHeader SessionStep = iota
	// ClientReadStatus: the initiator's read of a READ's status frame, the
	// v2 framing's first answer (0.3.12 on; before, the body comes at once).
	ClientReadStatus
	// ClientReadBody: the initiator's read of a READ's body.
	ClientReadBody
	// ClientWriteBody: the initiator's write of a WRITE's body.
	ClientWriteBody
	// ServerReadHeader: the serving side's (the segment owner's) read of
	// the next session header.
	ServerReadHeader
	// ServerReadBody: the serving side's read of a WRITE's body into its
	// memory.
	ServerReadBody
	// ServerWriteBody: the serving side's write of a READ's body from its
	// memory.
	ServerWriteBody
)

// SocketError is an asio error_code as the session lines print it:
// ec.message() and ec.value().
type SocketError struct {
	Message string
	Value   int
}

// The socket errors a session meets when its peer goes away or its address
// is not mapped (asio's system category: strerror texts; End of file is
// asio::error::misc eof, value 2).
var (
	// ErrReset: the peer's kernel answered RST - it died with bytes unread
	// (a SIGKILLed process, a SIGSTOPped one killed while frozen).
	ErrReset = SocketError{"Connection reset by peer", 104}
	// ErrEOF: the peer closed (FIN) before the bytes asked for came.
	ErrEOF = SocketError{"End of file", 2}
	// ErrBrokenPipe: a write after the peer's RST.
	ErrBrokenPipe = SocketError{"Broken pipe", 32}
	// ErrBadAddress: the socket read or wrote an address the process
	// does not map.
	ErrBadAddress = SocketError{"Bad address", 14}
)

// sessionHeaderSize is sizeof(SessionHeader) (tcp_transport.cpp v0.3.9:40:
// two uint64_t and a uint8_t, padded to 24), the ≤ 0.3.9 lines' "expected".
const sessionHeaderSize = 24

// SessionFailure is one failed session operation: Addr is the local address
// the operation reads into (Buffer: the buffer asio reads into, the same
// for host memory), Bytes what the failed operation moved.
type SessionFailure struct {
	Step         SessionStep
	Err          SocketError
	Addr, Buffer uint64
	Bytes        int
}

// SessionLine is the line the TCP transport logs for f at release v, with
// its level; ok false when that release logs nothing for it. The texts, per
// release (tcp_transport.cpp; 3b5a594 tcp_transport_session_impl.h):
//
//	ClientWriteHeader  ≤ 0.3.9 ERROR "Session::writeHeader failed. Error: E (value: N), bytes written: B, expected: 24" (v0.3.9:91)
//	                   0.3.10 on ERROR "ClientSession::writeHeader failed. Error: E (value: N), bytes written: B" (v0.3.11.post1:278, 3b5a594:494)
//	ClientReadStatus   0.3.12 on ERROR "ClientSession: failed to read READ status frame. Error: E (value: N)" (v0.3.12.post1:548, 3b5a594:522)
//	ClientReadBody     0.3.4, 0.3.5 ERROR "Session::readBody failed. Error: E (value: N), total_transferred_bytes_: 0, current transferred_bytes: B" (v0.3.4:171)
//	                   0.3.6 … 0.3.9 ERROR "Session::readBody failed. Attempt to read data A using buffer D. Error: …, total_transferred_bytes_: 0, current transferred_bytes: B" (v0.3.9:224; up to v0.3.8.post1 A and D are char*, streamed as C strings)
//	                   0.3.10 on ERROR "ClientSession::readBody failed. Attempt to read data A using buffer D. Error: E (value: N)" (v0.3.11.post1:326, 3b5a594:629)
//	ClientWriteBody    ≤ 0.3.9 ERROR "Session::writeBody failed. …" as ServerWriteBody's; 0.3.10 on ERROR "ClientSession::writeBody failed. Attempt to write data A using buffer D. Error: E (value: N)" (v0.3.11.post1:419)
//	ServerReadBody     ≤ 0.3.9 ERROR "Session::readBody failed. …" as ClientReadBody's; 0.3.10 on WARNING "ServerSession::readBody failed. Attempt to read data A using buffer D. Error: E (value: N)", not on End of file (v0.3.11.post1:204)
//	ServerWriteBody    ≤ 0.3.9 ERROR "Session::writeBody failed. …" (v0.3.9:176, v0.3.4:137); 0.3.10 on ERROR "ServerSession::writeBody failed. Attempt to write data A using buffer D. Error: E (value: N)" (v0.3.12.post1:289)
//	ServerReadHeader   ≤ 0.3.9 ERROR "Session::readHeader failed. Error: E (value: N), bytes read: B, expected: 24", End of file too (v0.3.9:114)
//	                   0.3.10 on WARNING "ServerSession::readHeader failed. Error: E (value: N), bytes read: B", not on End of file (v0.3.11.post1:91, 3b5a594:170)
//
// Real runs of io/peer-killed-mid-read (owner SIGSTOPped, then SIGKILLed
// while a batch_get_into waits on it: RST) printed ClientReadBody at
// 0.3.8.post1, 0.3.9, 0.3.10.post1, 0.3.11.post1 and ClientReadStatus at
// 0.3.12.post1, 0.3.13.post1, 0.3.14, each "Connection reset by peer
// (value: 104)". v0.3.6 … v0.3.8.post1 stream the addresses as char* (the
// bytes there, not the pointer; PR #1418 cast them): the model's memory
// reads as zeros there, so both print empty, as real 0.3.8.post1 printed
// for a fresh page; for an address the process cannot read (EFAULT's) the
// logging would crash (Mooncake#1267, not modelled) and the model keeps the
// pointer.
func SessionLine(v mooncake.Version, f SessionFailure) (level, text string, ok bool) {
	legacy := !v.AtLeast("0.3.10")
	e := fmt.Sprintf("Error: %s (value: %d)", f.Err.Message, f.Err.Value)
	switch f.Step {
	case ClientWriteHeader:
		if legacy {
			return mlog.Error, fmt.Sprintf("Session::writeHeader failed. %s, bytes written: %d, expected: %d", e, f.Bytes, sessionHeaderSize), true
		}
		return mlog.Error, fmt.Sprintf("ClientSession::writeHeader failed. %s, bytes written: %d", e, f.Bytes), true
	case ClientReadStatus:
		if !v.AtLeast("0.3.12") {
			return "", "", false
		}
		return mlog.Error, "ClientSession: failed to read READ status frame. " + e, true
	case ClientReadBody:
		return mlog.Error, body(v, "ClientSession::readBody", "read", e, f), true
	case ClientWriteBody:
		return mlog.Error, body(v, "ClientSession::writeBody", "write", e, f), true
	case ServerReadBody:
		if !legacy {
			if f.Err == ErrEOF {
				return "", "", false // the initiator closed: not logged
			}
			return mlog.Warning, body(v, "ServerSession::readBody", "read", e, f), true
		}
		return mlog.Error, body(v, "Session::readBody", "read", e, f), true
	case ServerWriteBody:
		return mlog.Error, body(v, "ServerSession::writeBody", "write", e, f), true
	case ServerReadHeader:
		if legacy {
			return mlog.Error, fmt.Sprintf("Session::readHeader failed. %s, bytes read: %d, expected: %d", e, f.Bytes, sessionHeaderSize), true
		}
		if f.Err == ErrEOF {
			// "If client closed connection (EOF), this is normal - don't log".
			return "", "", false
		}
		return mlog.Warning, fmt.Sprintf("ServerSession::readHeader failed. %s, bytes read: %d", e, f.Bytes), true
	}
	return "", "", false
}

// body is a session's body read or write failure line: fn is 0.3.10's
// name (ClientSession::/ServerSession::…), shortened to Session:: before.
func body(v mooncake.Version, fn, verb, e string, f SessionFailure) string {
	if !v.AtLeast("0.3.10") {
		fn = fn[strings.Index(fn, "Session::"):]
		if !v.AtLeast("0.3.6") {
			return fmt.Sprintf("%s failed. %s, total_transferred_bytes_: 0, current transferred_bytes: %d", fn, e, f.Bytes)
		}
		if !v.AtLeast("0.3.9") && f.Err != ErrBadAddress {
			// The addresses streamed as char*: the bytes there up to a NUL,
			// nothing for zeroed memory (real 0.3.8.post1, a get into a
			// fresh SGLang page: "Attempt to read data  using buffer .").
			// An address the process cannot read (EFAULT's) is dereferenced
			// by the logging itself (Mooncake#1267's SIGSEGV), not seen
			// here: the model keeps the pointer there.
			return fmt.Sprintf("%s failed. Attempt to %s data  using buffer . %s, total_transferred_bytes_: 0, current transferred_bytes: %d", fn, verb, e, f.Bytes)
		}
		return fmt.Sprintf("%s failed. Attempt to %s data %#x using buffer %#x. %s, total_transferred_bytes_: 0, current transferred_bytes: %d", fn, verb, f.Addr, f.Buffer, e, f.Bytes)
	}
	return fmt.Sprintf("%s failed. Attempt to %s data %#x using buffer %#x. %s", fn, verb, f.Addr, f.Buffer, e)
}

// ReadFailure is the failure of a READ whose peer went away with err before
// any byte of the answer came: from 0.3.12 the READ's status frame is read
// first (the v2 framing), before, the body.
func ReadFailure(v mooncake.Version, err SocketError, addr uint64) SessionFailure {
	if v.AtLeast("0.3.12") {
		return SessionFailure{Step: ClientReadStatus, Err: err, Addr: addr, Buffer: addr}
	}
	return SessionFailure{Step: ClientReadBody, Err: err, Addr: addr, Buffer: addr}
}

// TransferClosed is a DataPath error: the READ went out on a connection the
// engine kept from earlier transfers (MC_TCP_ENABLE_CONNECTION_POOL) whose
// peer process has since died: the request is written, the answer is Err
// (End of file: the dead process's kernel had closed it).
type TransferClosed struct {
	Endpoint string
	Err      SocketError
}

func (e *TransferClosed) Error() string {
	return "transfer to " + e.Endpoint + ": pooled connection: " + e.Err.Message
}

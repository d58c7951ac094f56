package te

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The lines real printed for io/peer-killed-mid-read (2026-12-04), the
// reader's buffer at the address real printed.
func TestReadFailureIsWhatRealPrinted(t *testing.T) {
	for _, c := range []struct {
		v    string
		addr uint64
		want string
	}{
		{"0.3.8.post1", 0x7f0638000000, "Session::readBody failed. Attempt to read data  using buffer . Error: Connection reset by peer (value: 104), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.9", 0x7f0638000000, "Session::readBody failed. Attempt to read data 0x7f0638000000 using buffer 0x7f0638000000. Error: Connection reset by peer (value: 104), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.10.post1", 0x7f2bec000000, "ClientSession::readBody failed. Attempt to read data 0x7f2bec000000 using buffer 0x7f2bec000000. Error: Connection reset by peer (value: 104)"},
		{"0.3.11.post1", 0x7f6ed0000000, "ClientSession::readBody failed. Attempt to read data 0x7f6ed0000000 using buffer 0x7f6ed0000000. Error: Connection reset by peer (value: 104)"},
		{"0.3.12.post1", 0x7f6ed0000000, "ClientSession: failed to read READ status frame. Error: Connection reset by peer (value: 104)"},
		{"0.3.13.post1", 0x7f6ed0000000, "ClientSession: failed to read READ status frame. Error: Connection reset by peer (value: 104)"},
		{"0.3.14", 0x7f6ed0000000, "ClientSession: failed to read READ status frame. Error: Connection reset by peer (value: 104)"},
	} {
		v := mooncake.MustVersion(c.v)
		lvl, got, ok := SessionLine(v, ReadFailure(v, ErrReset, c.addr))
		if !ok || lvl != "ERROR" || got != c.want {
			t.Errorf("%s: got %v %s %q, want ERROR %q", c.v, ok, lvl, got, c.want)
		}
	}
}

// Every step's text at the releases where it changes (the tags' source).
func TestSessionLinePerRelease(t *testing.T) {
	const a = 0x7f0000001000
	for _, c := range []struct {
		v     string
		f     SessionFailure
		level string // "" = not logged
		want  string
	}{
		{"0.3.9", SessionFailure{Step: ClientWriteHeader, Err: ErrBrokenPipe}, "ERROR", "Session::writeHeader failed. Error: Broken pipe (value: 32), bytes written: 0, expected: 24"},
		{"0.3.10", SessionFailure{Step: ClientWriteHeader, Err: ErrReset}, "ERROR", "ClientSession::writeHeader failed. Error: Connection reset by peer (value: 104), bytes written: 0"},
		{"0.3.11.post1", SessionFailure{Step: ClientReadStatus, Err: ErrEOF}, "", ""},
		{"0.3.12", SessionFailure{Step: ClientReadStatus, Err: ErrEOF}, "ERROR", "ClientSession: failed to read READ status frame. Error: End of file (value: 2)"},
		{"0.3.5", SessionFailure{Step: ClientReadBody, Err: ErrEOF, Addr: a, Buffer: a}, "ERROR", "Session::readBody failed. Error: End of file (value: 2), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.6", SessionFailure{Step: ClientReadBody, Err: ErrEOF, Addr: a, Buffer: a}, "ERROR", "Session::readBody failed. Attempt to read data  using buffer . Error: End of file (value: 2), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.9", SessionFailure{Step: ClientReadBody, Err: ErrEOF, Addr: a, Buffer: a}, "ERROR", "Session::readBody failed. Attempt to read data 0x7f0000001000 using buffer 0x7f0000001000. Error: End of file (value: 2), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.6.post1", SessionFailure{Step: ClientWriteBody, Err: ErrBadAddress, Addr: a, Buffer: a}, "ERROR", "Session::writeBody failed. Attempt to write data 0x7f0000001000 using buffer 0x7f0000001000. Error: Bad address (value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.4.post2", SessionFailure{Step: ClientWriteBody, Err: ErrBadAddress, Addr: a, Buffer: a}, "ERROR", "Session::writeBody failed. Error: Bad address (value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.9", SessionFailure{Step: ClientWriteBody, Err: ErrBadAddress, Addr: a, Buffer: a}, "ERROR", "Session::writeBody failed. Attempt to write data 0x7f0000001000 using buffer 0x7f0000001000. Error: Bad address (value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.10", SessionFailure{Step: ClientWriteBody, Err: ErrReset, Addr: a, Buffer: a}, "ERROR", "ClientSession::writeBody failed. Attempt to write data 0x7f0000001000 using buffer 0x7f0000001000. Error: Connection reset by peer (value: 104)"},
		{"0.3.9", SessionFailure{Step: ServerReadBody, Err: ErrBadAddress, Addr: a, Buffer: a}, "ERROR", "Session::readBody failed. Attempt to read data 0x7f0000001000 using buffer 0x7f0000001000. Error: Bad address (value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.10", SessionFailure{Step: ServerReadBody, Err: ErrReset, Addr: a, Buffer: a}, "WARNING", "ServerSession::readBody failed. Attempt to read data 0x7f0000001000 using buffer 0x7f0000001000. Error: Connection reset by peer (value: 104)"},
		{"0.3.10", SessionFailure{Step: ServerReadBody, Err: ErrEOF, Addr: a, Buffer: a}, "", ""},
		{"0.3.9", SessionFailure{Step: ServerWriteBody, Err: ErrBadAddress, Addr: a, Buffer: a}, "ERROR", "Session::writeBody failed. Attempt to write data 0x7f0000001000 using buffer 0x7f0000001000. Error: Bad address (value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.12.post1", SessionFailure{Step: ServerWriteBody, Err: ErrBrokenPipe, Addr: a, Buffer: a}, "ERROR", "ServerSession::writeBody failed. Attempt to write data 0x7f0000001000 using buffer 0x7f0000001000. Error: Broken pipe (value: 32)"},
		// ≤ 0.3.9 the owner logs a connection closed before its header at
		// ERROR, a clean close too; from 0.3.10 a WARNING, not on EOF.
		{"0.3.9", SessionFailure{Step: ServerReadHeader, Err: ErrEOF}, "ERROR", "Session::readHeader failed. Error: End of file (value: 2), bytes read: 0, expected: 24"},
		{"0.3.10", SessionFailure{Step: ServerReadHeader, Err: ErrEOF}, "", ""},
		{"0.3.13.post1", SessionFailure{Step: ServerReadHeader, Err: ErrReset}, "WARNING", "ServerSession::readHeader failed. Error: Connection reset by peer (value: 104), bytes read: 0"},
	} {
		lvl, got, ok := SessionLine(mooncake.MustVersion(c.v), c.f)
		if ok != (c.level != "") || lvl != c.level || got != c.want {
			t.Errorf("%s step %d %s: got %v %q %q, want %q %q", c.v, c.f.Step, c.f.Err.Message, ok, lvl, got, c.level, c.want)
		}
	}
}

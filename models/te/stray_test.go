package te_test

import (
	"slices"
	"testing"
)

// TestServeStray: the handshake daemon's lines for a connection that
// closes at once and for an HTTP GET, as real 0.3.4.post2, 0.3.6.post1,
// 0.3.8.post1, 0.3.12.post1, 0.3.13.post1 and 0.3.14 printed them
// (io/te-handshake-stray-connection, docs/REAL-FINDINGS.md §143).
func TestServeStray(t *testing.T) {
	jsonErr := func(sep string) []string {
		return []string{"SocketHandShakePlugin: failed to receive handshake message, malformed json format:" + sep + "* Line 1, Column 1",
			"  Syntax error: value, object or array expected.", ", json string length: 0, json string content: "}
	}
	const tooLarge = "readString: too large length from socket: 6073139484287059271"
	for _, c := range []struct {
		version     string
		closed, get []string
	}{
		{"0.3.4.post2",
			append([]string{"Socket read incompleted: expected 8 bytes, actual 0 bytes", "readString: failed to read length, got: 0"}, jsonErr("")...),
			append([]string{tooLarge}, jsonErr("")...)},
		{"0.3.12.post1",
			append([]string{"Socket read incompleted: expected 8 bytes, actual 0 bytes", "readString: failed to read length, got: 0"}, jsonErr(" ")...),
			append([]string{tooLarge}, jsonErr(" ")...)},
		{"0.3.14",
			[]string{"Socket read incompleted: expected 8 bytes, actual 0 bytes", "readString: incomplete handshake length, got: 0"},
			[]string{tooLarge}},
	} {
		e, logs := newP2PEngine(t, c.version, false)
		for _, p := range []struct {
			payload string
			want    []string
		}{{"", c.closed}, {"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", c.get}} {
			*logs = nil
			if err := e.ServeStray([]byte(p.payload)); err != nil {
				t.Fatalf("%s: %v", c.version, err)
			}
			if !slices.Equal(*logs, p.want) {
				t.Errorf("%s, %q: got\n%q\nwant\n%q", c.version, p.payload, *logs, p.want)
			}
		}
	}
	// A length the daemon accepts would be read as a message: not modelled.
	e, _ := newP2PEngine(t, "0.3.14", false)
	if err := e.ServeStray([]byte{16, 0, 0, 0, 0, 0, 0, 0}); err == nil {
		t.Error("a message length of 16: no error, want a skip")
	}
}

package wire

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
)

// TestAdmission: what a client's call reads from each admission, and that
// Exit ends the server (the next call is refused).
func TestAdmission(t *testing.T) {
	ctx := context.Background()
	to := Timeouts{Connect: time.Second, Request: 200 * time.Millisecond}
	heldClosed := make(chan struct{})
	exited := make(chan struct{})
	s := NewServer("master", nil)
	s.Handle("Ping", func(context.Context, json.RawMessage) (any, error) { return "pong", nil })
	s.SetAdmit(func(method string) (Admission, func()) {
		switch method {
		case "Held":
			return Hold, func() { close(heldClosed) }
		case "Closed":
			return CloseEOF, nil
		case "Exit":
			return Exit, nil
		}
		return Serve, nil
	}, func() { close(exited) })
	if err := s.Listen(ctx, "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	kind := func(method string) string {
		err := Call(ctx, s.Addr(), to, method, nil, nil)
		if re, ok := master.AsRPCError(err); ok {
			return re.Kind.String()
		}
		if err != nil {
			return err.Error()
		}
		return "ok"
	}
	for _, c := range []struct{ method, want string }{
		{"Ping", "ok"},
		{"Held", "request_timeout"},
		{"Closed", "eof"},
		{"Exit", "reset"},
		{"Ping", "refused"},
	} {
		if got := kind(c.method); got != c.want {
			t.Errorf("%s: %s, want %s", c.method, got, c.want)
		}
		if c.method == "Held" {
			select {
			case <-heldClosed:
			case <-time.After(5 * time.Second):
				t.Fatal("a held connection's end was not reported")
			}
		}
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("Exit did not report the server's end")
	}
}

package wire

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// rawServer accepts connections and hands each to fn (a misbehaving peer).
func rawServer(t *testing.T, fn func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fn(c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func TestCallClassifiesTransportFailures(t *testing.T) {
	var mu sync.Mutex
	var conns []net.Conn
	hold := func(c net.Conn) { // keep open, silent, until the test ends
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	closed := func() string { // a port nothing listens on
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		a := ln.Addr().String()
		ln.Close()
		return a
	}
	cases := []struct {
		name string
		addr string
		kind master.RPCKind
	}{
		{"dial refused", closed(), master.Refused},
		{"closed before the hello", rawServer(t, func(c net.Conn) { c.Close() }), master.Refused},
		{"hello cut short", rawServer(t, func(c net.Conn) { c.Write([]byte(`{"hello":"fault`)); c.Close() }), master.Reset},
		{"silent after accept", rawServer(t, hold), master.RequestTimeout},
		{"no reply after the hello", rawServer(t, func(c net.Conn) {
			c.Write([]byte(`{"hello":"faultlab-fake/1","service":"x"}` + "\n"))
			hold(c)
		}), master.RequestTimeout},
		{"reply cut short", rawServer(t, func(c net.Conn) {
			c.Write([]byte(`{"hello":"faultlab-fake/1","service":"x"}` + "\n" + `{"id":1,"co`))
			c.Close()
		}), master.Reset},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Call(context.Background(), tc.addr, Timeouts{Connect: time.Second, Request: 100 * time.Millisecond}, "Ping", nil, nil)
			re, ok := master.AsRPCError(err)
			if !ok || re.Kind != tc.kind || re.Op != "Ping" {
				t.Fatalf("err = %v, want rpc Ping %s", err, tc.kind)
			}
		})
	}
}

func TestServerRoundTrip(t *testing.T) {
	s := NewServer("echo", nil)
	s.Handle("Echo", func(_ context.Context, p json.RawMessage) (any, error) {
		var v string
		if err := json.Unmarshal(p, &v); err != nil {
			return nil, err
		}
		return v + "!", nil
	})
	s.Handle("Fail", func(context.Context, json.RawMessage) (any, error) { return nil, mooncake.OBJECT_NOT_FOUND })
	if err := s.Listen(context.Background(), "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	to := Timeouts{Connect: time.Second, Request: time.Second}
	var got string
	if err := Call(context.Background(), s.Addr(), to, "Echo", "hi", &got); err != nil || got != "hi!" {
		t.Fatalf("Echo = %q, %v", got, err)
	}
	if err := Call(context.Background(), s.Addr(), to, "Fail", nil, nil); !errors.Is(err, mooncake.OBJECT_NOT_FOUND) {
		t.Fatalf("Fail err = %v, want OBJECT_NOT_FOUND", err)
	}
	var re *RemoteError
	if err := Call(context.Background(), s.Addr(), to, "Echo", 42, &got); !errors.As(err, &re) {
		t.Fatalf("bad params err = %v, want a RemoteError", err)
	}
	// Paused: connects and hello, no reply → request timeout; resumed: answers.
	s.Pause()
	err := Call(context.Background(), s.Addr(), Timeouts{Connect: time.Second, Request: 100 * time.Millisecond}, "Echo", "a", &got)
	if re, ok := master.AsRPCError(err); !ok || re.Kind != master.RequestTimeout {
		t.Fatalf("paused: err = %v", err)
	}
	s.Resume()
	if err := Call(context.Background(), s.Addr(), to, "Echo", "b", &got); err != nil || got != "b!" {
		t.Fatalf("resumed: %q, %v", got, err)
	}
}

func TestSleepPreciseStops(t *testing.T) {
	done := make(chan struct{})
	close(done)
	if SleepPrecise(time.Hour, done) {
		t.Fatal("SleepPrecise ignored done")
	}
	start := time.Now()
	if !SleepPrecise(5*time.Millisecond, nil) || time.Since(start) < 5*time.Millisecond {
		t.Fatalf("SleepPrecise returned early after %s", time.Since(start))
	}
}

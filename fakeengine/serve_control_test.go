package fakeengine_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/fakeengine"
)

// serve fake --control: actions on stdin, JSON lines on stdout (the
// protocol a fake world in containers drives; incontainers.go).
func TestServeControl(t *testing.T) {
	cmd := fakeengine.NewServeCommand()
	var out syncBuf
	in, stdin := io.Pipe()
	cmd.SetIn(in)
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"--control", "--master", "127.0.0.1:0", "--metadata", "127.0.0.1:0", "--metadata-kind", "master", "--scale", "0.02"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(context.Background()) }()
	type event struct {
		Ready *struct{ Master, Metadata string } `json:"ready"`
		Ack   string                             `json:"ack"`
		Err   string                             `json:"err"`
	}
	// next waits for the n-th stdout line that is not a Mooncake log line
	// (the master's own lines, e.g. its metrics summary at start, come
	// whenever it prints them).
	next := func(n int) event {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if l != "" && !strings.HasPrefix(l, `{"log":`) {
					lines = append(lines, l)
				}
			}
			if len(lines) >= n {
				var e event
				if err := json.Unmarshal([]byte(lines[n-1]), &e); err != nil {
					t.Fatalf("line %d %q: %v", n, lines[n-1], err)
				}
				return e
			}
			if time.Now().After(deadline) {
				t.Fatalf("no line %d in %q", n, out.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	r := next(1)
	if r.Ready == nil || !strings.HasPrefix(r.Ready.Master, "127.0.0.1:") || !strings.HasPrefix(r.Ready.Metadata, "127.0.0.1:") {
		t.Fatalf("ready = %+v", r)
	}
	send := func(line string) { _, _ = io.WriteString(stdin, line+"\n") }

	send("stop master") // the embedded metadata server goes with it
	if e := next(2); e.Ack != "stop master" || e.Err != "" {
		t.Fatalf("ack = %+v", e)
	}
	dialFails(t, r.Ready.Master)
	dialFails(t, r.Ready.Metadata)
	send("start master") // same ports again
	if e := next(3); e.Ack != "start master" || e.Err != "" {
		t.Fatalf("ack = %+v", e)
	}
	for _, a := range []string{r.Ready.Master, r.Ready.Metadata} {
		if c, err := dialTCP(a); err != nil {
			t.Fatalf("after start: %v", err)
		} else {
			c.Close()
		}
	}
	send("explode master")
	if e := next(4); e.Ack != "explode master" || e.Err != `fake serve: "explode master": want <stop|start|restart|pause|resume> <master|metadata>` {
		t.Fatalf("ack = %+v", e)
	}
	stdin.Close() // the harness went away: serve stops
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop at stdin's end")
	}
	dialFails(t, r.Ready.Master)
}

func dialTCP(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, time.Second) }

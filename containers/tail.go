package containers

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
)

// tailLines is the last lines a stream carried, kept so that a party that
// fails to come up can say what it printed (and whether its stream ended).
type tailLines struct {
	mu      sync.Mutex
	n       int // lines seen
	partial []byte
	last    []string
	ended   error // nil while the stream is open
	closed  bool
}

const tailKeep = 5

func (t *tailLines) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, b...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.n++
		t.last = append(t.last, string(t.partial[:i]))
		if len(t.last) > tailKeep {
			t.last = t.last[1:]
		}
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 4096 { // a line that never ends is kept short
		t.partial = t.partial[len(t.partial)-4096:]
	}
	return len(b), nil
}

func (t *tailLines) end(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed, t.ended = true, err
}

// String: "3 lines, last: …; stream ended: …".
func (t *tailLines) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%d lines", t.n)
	if len(t.last) > 0 {
		fmt.Fprintf(&b, ", last %q", t.last)
	}
	if len(t.partial) > 0 {
		fmt.Fprintf(&b, ", unterminated %q", string(t.partial))
	}
	switch {
	case t.closed && t.ended != nil:
		fmt.Fprintf(&b, "; stream ended: %v", t.ended)
	case t.closed:
		b.WriteString("; stream ended")
	}
	return b.String()
}

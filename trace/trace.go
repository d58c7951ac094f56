// Package trace is the one ordered record of a run: calls, return codes,
// raised errors, SGLang and Mooncake log lines, faults. Its canonical text
// (fixed formats, one event per line) hashed with SHA-256 is the identity of
// a sim run.
package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Event is one observation.
type Event struct {
	// At is the time since world start (virtual in sim, wall elsewhere).
	At time.Duration
	// Source: "sglang", "mooncake:<node>", "master", "metadata", "client",
	// "fault", "harness".
	Source string
	// Kind: "log", "call", "return", "raise", "fault", "phase".
	Kind string
	// Level for logs: DEBUG, INFO, WARNING, ERROR (empty otherwise).
	Level string
	Text  string
}

// Line is the event's canonical form.
func (e Event) Line() string { return string(e.appendLine(nil)) }

// lineFormat is the canonical form; appendLine writes it without fmt (it
// was most of a generated sim run's trace hash), and TestAppendLine holds
// the two byte-equal.
const lineFormat = "%013.3fms %-16s %-6s %-7s %q"

func (e Event) appendLine(b []byte) []byte {
	ms := float64(e.At) / float64(time.Millisecond)
	if e.At < 0 {
		return fmt.Appendf(b, lineFormat, ms, e.Source, e.Kind, e.Level, e.Text)
	}
	var num [32]byte
	f := strconv.AppendFloat(num[:0], ms, 'f', 3, 64)
	for n := len(f); n < 13; n++ { // %013: zeros on the left
		b = append(b, '0')
	}
	b = append(b, f...)
	b = append(b, "ms "...)
	b = appendPadded(b, e.Source, 16)
	b = append(b, ' ')
	b = appendPadded(b, e.Kind, 6)
	b = append(b, ' ')
	b = appendPadded(b, e.Level, 7)
	b = append(b, ' ')
	return appendQuote(b, e.Text)
}

// appendQuote is strconv.AppendQuote, copying printable ASCII without
// quote or backslash (nearly every line) as is.
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendPadded is %-<w>s: fmt's width counts runes.
func appendPadded(b []byte, s string, w int) []byte {
	b = append(b, s...)
	for n := utf8.RuneCountInString(s); n < w; n++ {
		b = append(b, ' ')
	}
	return b
}

// Trace is safe for concurrent use (wall-clock engines log from goroutines).
type Trace struct {
	mu     sync.Mutex
	events []Event
	now    func() time.Duration
}

// New returns an empty trace whose Add* helpers stamp events with now.
func New(now func() time.Duration) *Trace {
	if now == nil {
		now = func() time.Duration { return 0 }
	}
	// A sim run records tens to a hundred-odd events: no doubling from one.
	return &Trace{now: now, events: make([]Event, 0, 64)}
}

// SetClock replaces the time source (a world installs its clock).
func (t *Trace) SetClock(now func() time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.now = now
}

// Add appends e as is.
func (t *Trace) Add(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, e)
}

// Record appends an event stamped with the trace clock.
func (t *Trace) Record(source, kind, level, text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, Event{At: t.now(), Source: source, Kind: kind, Level: level, Text: text})
}

// Len is the number of events so far (a mark for Take).
func (t *Trace) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.events)
}

// Take removes and returns the events from source recorded since mark (a
// sim background thread's lines, printed again when its call returns).
func (t *Trace) Take(mark int, source string) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	var taken []Event
	kept := t.events[:mark]
	for _, e := range t.events[mark:] {
		if e.Source == source {
			taken = append(taken, e)
		} else {
			kept = append(kept, e)
		}
	}
	t.events = kept
	return taken
}

// Replay records taken events again, stamped now.
func (t *Trace) Replay(evs []Event) {
	for _, e := range evs {
		t.Record(e.Source, e.Kind, e.Level, e.Text)
	}
}

// Log records a log line.
func (t *Trace) Log(source, level, text string) { t.Record(source, "log", level, text) }

// Events returns a copy of the events so far.
func (t *Trace) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Event(nil), t.events...)
}

// EventsFrom returns a copy of the events from mark (a Len) on.
func (t *Trace) EventsFrom(mark int) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Event(nil), t.events[min(mark, len(t.events)):]...)
}

// Logs returns the text of every log event, in order.
func (t *Trace) Logs() []string {
	var out []string
	for _, e := range t.Events() {
		if e.Kind == "log" {
			out = append(out, e.Text)
		}
	}
	return out
}

// WriteTo writes the canonical text, one line per event.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	var n int64
	var buf []byte
	// Under the lock, not on a copy: w is a hash or a buffer.
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.events {
		buf = append(e.appendLine(buf[:0]), '\n')
		k, err := w.Write(buf)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Hash is "sha256:<hex>" of the canonical text.
func (t *Trace) Hash() string {
	h := sha256.New()
	_, _ = t.WriteTo(h)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// String is the canonical text.
func (t *Trace) String() string {
	var b strings.Builder
	_, _ = t.WriteTo(&b)
	return b.String()
}

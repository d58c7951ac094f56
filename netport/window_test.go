package netport

import (
	"net"
	"strconv"
	"testing"
)

// The windows of a span: claim port, then the ports handed out, back to
// back, the last one ending at 65535 at most.
func TestWindowAt(t *testing.T) {
	for _, tc := range []struct {
		lo, k              int
		claim, first, last int
	}{
		{61000, 0, 61000, 61001, 61031},
		{61000, 1, 61032, 61033, 61063},
		{61000, 140, 65480, 65481, 65511},
		{61016, 0, 61016, 61017, 61047},
	} {
		c, f, l := WindowAt(tc.lo, tc.k)
		if c != tc.claim || f != tc.first || l != tc.last {
			t.Errorf("WindowAt(%d, %d) = %d, %d-%d, want %d, %d-%d", tc.lo, tc.k, c, f, l, tc.claim, tc.first, tc.last)
		}
	}
}

// Windows start above ValidatePortRange's 32768-60999, the ephemeral
// range and Take's ports, whichever ends last.
func TestWindowSpanFor(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		ephemeralLast, takeHi int
		lo, hi, windows       int
	}{
		{"Linux's default range 32768-60999", 60999, 32768, 61000, 65536, 141},
		{"a namespace's 61000-61015 (tcp-ephemeral-ports-exhausted)", 61015, 61000, 61016, 65536, 141},
		{"a range ending low", 28999, 28000, 61000, 65536, 141},
		{"Take above a range starting too low: no windows", 61999, 65536, 65536, 65536, 0},
	} {
		lo, hi := windowSpanFor(tc.ephemeralLast, tc.takeHi)
		if lo != tc.lo || hi != tc.hi || (hi-lo)/WindowStride != tc.windows {
			t.Errorf("%s: windowSpanFor = [%d, %d) (%d windows), want [%d, %d) (%d)", tc.name, lo, hi, (hi-lo)/WindowStride, tc.lo, tc.hi, tc.windows)
		}
	}
}

// Two windows never overlap, a claimed window's claim port refuses a
// second claim (another process's), and a released one can be claimed
// again.
func TestTakeWindowDisjoint(t *testing.T) {
	a, err := TakeWindow()
	if err != nil {
		t.Fatal(err)
	}
	b, err := TakeWindow()
	if err != nil {
		t.Fatal(err)
	}
	if a.Hi-a.Lo != WindowStride-2 || b.Hi-b.Lo != WindowStride-2 {
		t.Fatalf("windows %d-%d, %d-%d: want %d ports each", a.Lo, a.Hi, b.Lo, b.Hi, WindowStride-1)
	}
	if a.Lo <= b.Hi+1 && b.Lo <= a.Hi+1 {
		t.Fatalf("windows %d-%d and %d-%d overlap or share a claim port", a.Lo, a.Hi, b.Lo, b.Hi)
	}
	lo, _ := windowSpan()
	if a.Lo < lo+1 || (a.Lo-1-lo)%WindowStride != 0 {
		t.Fatalf("window %d-%d is not a window of the span from %d", a.Lo, a.Hi, lo)
	}
	claim := net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Lo-1))
	if l, err := net.Listen("tcp", claim); err == nil {
		_ = l.Close()
		t.Fatalf("claim port %s of a held window could be listened on", claim)
	}
	a.Release()
	a.Release() // twice is harmless
	b.Release()
	l, err := net.Listen("tcp", claim)
	if err != nil {
		t.Fatalf("claim port %s after Release: %v", claim, err)
	}
	_ = l.Close()
}

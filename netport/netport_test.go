package netport

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
)

// A port taken and not listened on is never handed out again until released,
// even though the kernel would give it to the next :0 bind.
func TestTakeSkipsOwnedPorts(t *testing.T) {
	first, err := Take(3)
	if err != nil {
		t.Fatal(err)
	}
	defer Release(first...)
	seen := map[int]bool{}
	for _, p := range first {
		if seen[p] {
			t.Fatalf("Take(3) = %v: duplicate port", first)
		}
		seen[p] = true
	}
	for range 200 {
		more, err := Take(1)
		if err != nil {
			t.Fatal(err)
		}
		if seen[more[0]] {
			t.Fatalf("port %d handed out twice", more[0])
		}
		Release(more...)
	}
	// Every taken port was free: it can be listened on.
	for _, p := range first {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("taken port %d not free: %v", p, err)
		}
		_ = l.Close()
	}
}

func TestReleaseMakesPortAvailable(t *testing.T) {
	ps, err := Take(1)
	if err != nil {
		t.Fatal(err)
	}
	Release(ps...)
	Release(ps...) // twice is harmless
	registry.Lock()
	_, owned := registry.owned[ps[0]]
	registry.Unlock()
	if owned {
		t.Fatalf("port %d still owned after Release", ps[0])
	}
}

// Ports come from outside the kernel's ephemeral range, so no :0 bind and
// no outgoing connection's source port can take one while it is not
// listened on, and above Mooncake's own port ranges.
func TestPortsOutsideEphemeralAndMooncakeRanges(t *testing.T) {
	first, last := ephemeralRange()
	ps, err := Take(50)
	if err != nil {
		t.Fatal(err)
	}
	defer Release(ps...)
	for _, p := range ps {
		if p >= first && p <= last {
			t.Errorf("port %d is in the ephemeral range %d-%d", p, first, last)
		}
		if p < lowest {
			t.Errorf("port %d is below %d (Mooncake's ranges end at 17000)", p, lowest)
		}
	}
}

// A port something else listens on is never handed out.
func TestTakeSkipsPortsInUse(t *testing.T) {
	ps, err := Take(1)
	if err != nil {
		t.Fatal(err)
	}
	Release(ps...)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(ps[0])))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	registry.Lock()
	registry.next = ps[0] // the next scan starts at the busy port
	registry.Unlock()
	again, err := Take(1)
	if err != nil {
		t.Fatal(err)
	}
	defer Release(again...)
	if again[0] == ps[0] {
		t.Fatalf("Take handed out %d, which is listened on", ps[0])
	}
}

// A held port refuses other binds on every address until its last holder
// lets go; two holders share it.
func TestHold(t *testing.T) {
	ps, err := Take(1)
	if err != nil {
		t.Fatal(err)
	}
	Release(ps...)
	p := ps[0]
	a, err := Hold(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Hold(p)
	if err != nil {
		t.Fatalf("second Hold(%d): %v", p, err)
	}
	if l, err := net.Listen("tcp4", "0.0.0.0:"+strconv.Itoa(p)); err == nil {
		_ = l.Close()
		t.Fatalf("0.0.0.0:%d bound while held", p)
	}
	a()
	a() // idempotent: b still holds it
	if l, err := net.Listen("tcp4", "0.0.0.0:"+strconv.Itoa(p)); err == nil {
		_ = l.Close()
		t.Fatalf("0.0.0.0:%d bound while b holds it", p)
	}
	b()
	l, err := net.Listen("tcp4", "0.0.0.0:"+strconv.Itoa(p))
	if err != nil {
		t.Fatalf("0.0.0.0:%d after release: %v", p, err)
	}
	_ = l.Close()
}

// A port another process has taken but does not listen on yet (its master
// still starting) is not handed out again: its claim socket is held.
func TestTakeSkipsAPortAnotherProcessTook(t *testing.T) {
	ps, err := Take(1)
	if err != nil {
		t.Fatal(err)
	}
	Release(ps...)
	other, err := claimPort(ps[0]) // as another process's Take would
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	registry.Lock()
	registry.next = ps[0]
	registry.Unlock()
	got, err := Take(1)
	if err != nil {
		t.Fatal(err)
	}
	defer Release(got...)
	if got[0] == ps[0] {
		t.Fatalf("Take handed out port %d, claimed by another process", ps[0])
	}
	if _, err := tryClaim(got[0], got[0]); !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("port %d taken but not claimed host-wide: %v", got[0], err)
	}
}

package netport

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestClaimPortsWaitsForTheHolder(t *testing.T) {
	a, err := ClaimPorts(context.Background(), 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	// An overlapping range waits while a holds port 4 (names only: no
	// scenario fixes ports this low).
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := ClaimPorts(ctx, 4, 5); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("claim of a held port: err = %v, want the deadline", err)
	}
	// The failed attempt held nothing: 5 alone is free.
	c, err := ClaimPorts(context.Background(), 5, 5)
	if err != nil {
		t.Fatalf("5 after the failed claim: %v", err)
	}
	c.Release()
	done := make(chan error, 1)
	go func() {
		b, err := ClaimPorts(context.Background(), 3, 4)
		if err == nil {
			b.Release()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("claimed while held: %v", err)
	default:
	}
	a.Release()
	a.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the claim did not follow the release")
	}
}

func TestClaimPortsRefusesBadRanges(t *testing.T) {
	for _, r := range [][2]int{{0, 3}, {65535, 65536}, {15000, 17000}} {
		if _, err := ClaimPorts(context.Background(), r[0], r[1]); err == nil {
			t.Errorf("ClaimPorts(%d, %d) = nil error", r[0], r[1])
		}
	}
}

package netport

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A blackholed port neither accepts nor refuses: a connect waits out its
// timeout. Released, the port refuses (nothing listens).
func TestBlackholeDropsConnects(t *testing.T) {
	ports, err := Take(1)
	if err != nil {
		t.Fatal(err)
	}
	defer Release(ports...)
	addr := "127.0.0.1:" + strconv.Itoa(ports[0])
	release, err := Blackhole(ports[0])
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err == nil {
		c.Close()
		release()
		t.Fatalf("dial %s: connected; want a timeout", addr)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || time.Since(start) < 300*time.Millisecond {
		release()
		t.Fatalf("dial %s: %v after %v; want i/o timeout after 300ms", addr, err, time.Since(start))
	}
	release()
	release() // a second release is a no-op
	if _, err := net.DialTimeout("tcp", addr, time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s after release: %v; want connection refused", addr, err)
	}
}

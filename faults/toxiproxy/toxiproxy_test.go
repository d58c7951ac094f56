package toxiproxy_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
)

// tcpServer is a loopback TCP server running handle on each connection;
// Close ends every connection and waits for the handlers.
type tcpServer struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func startServer(handle func(net.Conn)) *tcpServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	s := &tcpServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return s
}

func (s *tcpServer) Close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// startEcho writes back what it reads.
func startEcho() *tcpServer {
	return startServer(func(c net.Conn) { _, _ = io.Copy(c, c) })
}

// roundTrip writes msg and reads len(msg) bytes back, with a deadline.
func roundTrip(addr string, msg []byte, deadline time.Duration) ([]byte, time.Duration, error) {
	start := time.Now()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, time.Since(start), err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(deadline))
	if _, err := c.Write(msg); err != nil {
		return nil, time.Since(start), err
	}
	got := make([]byte, len(msg))
	n, err := io.ReadFull(c, got)
	return got[:n], time.Since(start), err
}

var _ = Describe("Injector", func() {
	var (
		ctx  context.Context
		echo *tcpServer
		inj  *toxiproxy.Injector
		addr string
		msg  = []byte("mooncake-ping")
	)

	BeforeEach(func() {
		ctx = context.Background()
		echo = startEcho()
		var err error
		inj, err = toxiproxy.New(ctx, nil)
		Expect(err).NotTo(HaveOccurred())
		addr, err = inj.Link("node→master", echo.ln.Addr().String())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			Expect(inj.Close()).To(Succeed())
			echo.Close()
		})
	})

	link := func(mode string, mut ...func(*faults.Fault)) faults.Fault {
		f := faults.Fault{Kind: faults.Link, Target: "master", Mode: mode}
		for _, m := range mut {
			m(&f)
		}
		Expect(f.Validate()).To(Succeed())
		return f
	}

	It("passes traffic unchanged without a fault", func() {
		got, _, err := roundTrip(addr, msg, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(msg))
		Expect(inj.Links()).To(Equal([]string{"node→master"}))
		Expect(inj.Addr("node→master")).To(Equal(addr))
	})

	It("refuse: the dial is refused fast, and heal listens on the same address", func() {
		Expect(inj.Apply(ctx, "node→master", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse})).To(Succeed())
		_, took, err := roundTrip(addr, msg, time.Second)
		Expect(errors.Is(err, syscall.ECONNREFUSED)).To(BeTrue(), "err = %v", err)
		Expect(took).To(BeNumerically("<", 250*time.Millisecond)) // no wait: nothing listens

		Expect(inj.Heal(ctx, "node→master")).To(Succeed())
		got, _, err := roundTrip(addr, msg, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(msg))
	})

	It("healing one fault leaves the others on the link; a Hold outlives them", func() {
		healRefuse, err := inj.Inject(ctx, "node→master", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse})
		Expect(err).NotTo(HaveOccurred())
		healBlackhole, err := inj.Inject(ctx, "node→master", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeBlackhole})
		Expect(err).NotTo(HaveOccurred())
		Expect(inj.Hold(ctx, "node→master")).To(Succeed())

		Expect(healRefuse(ctx)).To(Succeed()) // held: still refused
		_, _, err = roundTrip(addr, msg, time.Second)
		Expect(errors.Is(err, syscall.ECONNREFUSED)).To(BeTrue(), "err = %v", err)

		Expect(inj.Release(ctx, "node→master")).To(Succeed()) // listening, blackhole still on
		_, _, err = roundTrip(addr, msg, 200*time.Millisecond)
		Expect(errors.Is(err, os.ErrDeadlineExceeded)).To(BeTrue(), "err = %v", err)

		Expect(healBlackhole(ctx)).To(Succeed())
		got, _, err := roundTrip(addr, msg, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(msg))
		Expect(healBlackhole(ctx)).To(Succeed(), "healing twice is a no-op")
	})

	It("SetUpstream: the same listener reaches the new upstream, a Hold stays", func() {
		other := startEcho()
		defer other.Close()
		Expect(inj.Hold(ctx, "node→master")).To(Succeed())
		Expect(inj.SetUpstream(ctx, "node→master", other.ln.Addr().String())).To(Succeed())
		_, _, err := roundTrip(addr, msg, time.Second)
		Expect(err).To(HaveOccurred(), "held: refused")
		Expect(inj.Release(ctx, "node→master")).To(Succeed())
		echo.Close() // the old upstream is gone: only the new one answers
		got, _, err := roundTrip(addr, msg, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(msg))
		Expect(inj.Addr("node→master")).To(Equal(addr))
		Expect(inj.SetUpstream(ctx, "nope", other.ln.Addr().String())).To(MatchError(ContainSubstring(`toxiproxy: set upstream: no link "nope"`)))
	})

	It("refuse cannot be one-way", func() {
		// Validation rejects it for every engine; Apply too, for a caller that skipped it.
		f := faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeRefuse, Stream: "upstream"}
		Expect(f.Validate()).To(MatchError(ContainSubstring("refuse cannot be one-way")))
		Expect(inj.Apply(ctx, "node→master", f)).To(MatchError(ContainSubstring("refuse cannot be one-way")))
	})

	DescribeTable("blackhole: the dial succeeds and the read deadline is hit",
		func(stream string) {
			Expect(inj.Apply(ctx, "node→master", link(faults.ModeBlackhole, func(f *faults.Fault) { f.Stream = stream }))).To(Succeed())
			got, took, err := roundTrip(addr, msg, 200*time.Millisecond)
			Expect(errors.Is(err, os.ErrDeadlineExceeded)).To(BeTrue(), "err = %v", err)
			Expect(got).To(BeEmpty())
			Expect(took).To(BeNumerically(">=", 200*time.Millisecond))
		},
		Entry("both", ""),
		Entry("upstream (requests dropped)", "upstream"),
		Entry("downstream (replies dropped)", "downstream"),
	)

	It("blackhole is healed for new connections", func() {
		Expect(inj.Apply(ctx, "node→master", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeBlackhole})).To(Succeed())
		Expect(inj.HealAll(ctx)).To(Succeed())
		got, _, err := roundTrip(addr, msg, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(msg))
	})

	It("reset_peer: the connection is reset", func() {
		Expect(inj.Apply(ctx, "node→master", link(faults.ModeResetPeer))).To(Succeed())
		_, _, err := roundTrip(addr, msg, time.Second)
		Expect(errors.Is(err, syscall.ECONNRESET)).To(BeTrue(), "err = %v", err)
	})

	DescribeTable("latency adds at least N ms per direction",
		func(stream string, want time.Duration) {
			Expect(inj.Apply(ctx, "node→master", link(faults.ModeLatency, func(f *faults.Fault) {
				f.Params = faults.LatencyParams{Latency: 150 * time.Millisecond}
				f.Stream = stream
			}))).To(Succeed())
			got, took, err := roundTrip(addr, msg, 2*time.Second)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(msg))
			Expect(took).To(BeNumerically(">=", want))
			Expect(took).To(BeNumerically("<", want+time.Second))
		},
		Entry("downstream only", "downstream", 150*time.Millisecond),
		Entry("both ways", "both", 300*time.Millisecond),
	)

	It("bandwidth limits the rate", func() {
		Expect(inj.Apply(ctx, "node→master", link(faults.ModeBandwidth, func(f *faults.Fault) {
			f.Params = faults.BandwidthParams{RateKBps: 10}
			f.Stream = "downstream"
		}))).To(Succeed())
		big := bytes.Repeat([]byte("x"), 5000) // 5000 B at 10 KB/s = 500 ms
		got, took, err := roundTrip(addr, big, 3*time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(big))
		Expect(took).To(BeNumerically(">=", 400*time.Millisecond))
	})

	It("slicer delivers the data intact in several pieces", func() {
		Expect(inj.Apply(ctx, "node→master", link(faults.ModeSlicer, func(f *faults.Fault) {
			f.Params = faults.SlicerParams{AverageSize: 2, Delay: time.Millisecond}
			f.Stream = "downstream"
		}))).To(Succeed())
		c, err := net.Dial("tcp", addr)
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		_, err = c.Write(msg)
		Expect(err).NotTo(HaveOccurred())
		var got []byte
		reads := 0
		buf := make([]byte, 64)
		for len(got) < len(msg) {
			n, err := c.Read(buf)
			Expect(err).NotTo(HaveOccurred())
			got = append(got, buf[:n]...)
			reads++
		}
		Expect(got).To(Equal(msg))
		Expect(reads).To(BeNumerically(">", 1))
	})

	It("limit_data closes the connection after N bytes", func() {
		Expect(inj.Apply(ctx, "node→master", link(faults.ModeLimitData, func(f *faults.Fault) {
			f.Params = faults.LimitDataParams{Bytes: 10}
			f.Stream = "downstream"
		}))).To(Succeed())
		c, err := net.Dial("tcp", addr)
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		_, err = c.Write(bytes.Repeat([]byte("y"), 100))
		Expect(err).NotTo(HaveOccurred())
		got, err := io.ReadAll(c)
		Expect(err).NotTo(HaveOccurred()) // EOF ends ReadAll without error
		Expect(got).To(Equal(bytes.Repeat([]byte("y"), 10)))
	})

	It("rejects unknown links and non-link faults", func() {
		Expect(inj.Apply(ctx, "node→nowhere", link(faults.ModeLatency, func(f *faults.Fault) { f.Params = faults.LatencyParams{Latency: time.Millisecond} }))).
			To(MatchError(ContainSubstring(`no link "node→nowhere" (have node→master)`)))
		Expect(inj.Apply(ctx, "node→master", faults.Fault{Kind: faults.Process, Target: "master", Action: "stop"})).
			To(MatchError(ContainSubstring("is not a link fault")))
		_, err := inj.Link("node→master", "127.0.0.1:1")
		Expect(err).To(MatchError(ContainSubstring("already exists")))
	})
})

var _ = Describe("Close", func() {
	It("leaves no listener and no goroutine, also with active toxics and refused links", func() {
		before := goleak.IgnoreCurrent()
		echo := startEcho()
		inj, err := toxiproxy.New(context.Background(), nil)
		Expect(err).NotTo(HaveOccurred())
		a, err := inj.Link("a", echo.ln.Addr().String())
		Expect(err).NotTo(HaveOccurred())
		b, err := inj.Link("b", echo.ln.Addr().String())
		Expect(err).NotTo(HaveOccurred())
		Expect(inj.Apply(context.Background(), "a", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeBlackhole})).To(Succeed())
		Expect(inj.Apply(context.Background(), "b", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse})).To(Succeed())
		// An open connection stuck in the blackhole.
		c, err := net.Dial("tcp", a)
		Expect(err).NotTo(HaveOccurred())
		_, _ = c.Write([]byte("lost"))

		Expect(inj.Close()).To(Succeed())
		Expect(inj.Close()).To(Succeed())
		_ = c.Close()
		echo.Close()
		for _, addr := range []string{a, b} {
			_, err := net.DialTimeout("tcp", addr, time.Second)
			Expect(errors.Is(err, syscall.ECONNREFUSED)).To(BeTrue(), "dial %s: %v", addr, err)
		}
		_, err = inj.Link("c", "127.0.0.1:1")
		Expect(err).To(MatchError(ContainSubstring("injector closed")))
		Expect(goleak.Find(before, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))).To(Succeed())
	})
})

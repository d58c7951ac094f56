package toxiproxy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// startRPC answers each request of req bytes with resp bytes, on every
// connection, as Mooncake's servers do: the reply is written once the
// whole request has arrived (what a mode's Simulate assumes).
func startRPC(req, resp int) *tcpServer {
	return startServer(func(c net.Conn) {
		in, out := make([]byte, req), make([]byte, resp)
		for {
			if _, err := io.ReadFull(c, in); err != nil {
				return
			}
			if _, err := c.Write(out); err != nil {
				return
			}
		}
	})
}

// observe runs exchanges on one connection through addr, the i-th given
// waits[i] for its reply, and says what each met, as a Verdict and how
// long it took; it stops at the first exchange that loses the connection.
func observe(addr string, req, resp int, waits []time.Duration) []faults.Effect {
	var out []faults.Effect
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		Expect(errors.Is(err, syscall.ECONNREFUSED)).To(BeTrue(), "dial: %v", err)
		return []faults.Effect{{Verdict: faults.Refuse}}
	}
	defer c.Close()
	for _, wait := range waits {
		start := time.Now()
		_ = c.SetDeadline(start.Add(wait))
		_, err := c.Write(make([]byte, req))
		if err == nil {
			_, err = io.ReadFull(c, make([]byte, resp))
		}
		took := time.Since(start)
		switch {
		case err == nil:
			out = append(out, faults.Effect{Delay: took})
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			out = append(out, faults.Effect{Verdict: faults.Blackhole})
		case errors.Is(err, syscall.ECONNRESET):
			out = append(out, faults.Effect{Verdict: faults.ResetPeer, Delay: took})
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			out = append(out, faults.Effect{Verdict: faults.Closed, Delay: took})
		default:
			Fail(fmt.Sprintf("exchange: %v", err))
		}
		return out
	}
	return out
}

// measurable are parameters large enough against the wall clock's band
// that a wrong Simulate shows (halving latency fails the test).
var measurable = map[string]map[string]string{
	faults.ModeLatency:   {"latency": "400ms"},
	faults.ModeResetPeer: {"delay": "400ms"},
	faults.ModeSlicer:    {"average_size": "16", "delay": "100ms"}, // 64 B: 4 slices
}

// typical is a fault of mode with each parameter at its measurable value,
// else its first non-empty explore choice (its gen tag), as a scenario
// would write it.
func typical(mode string, stream string) faults.Fault {
	values := map[string]string{}
	for _, p := range faults.ParamFields(faults.ParamsOf(faults.Link, mode)) {
		if v, ok := measurable[mode][p.Name]; ok {
			values[p.Name] = v
			continue
		}
		for _, g := range p.Gen {
			if g != "" {
				values[p.Name] = g
				break
			}
		}
	}
	params, err := scenarios.FaultParams(string(faults.Link), mode, values)
	Expect(err).NotTo(HaveOccurred())
	return faults.Fault{Kind: faults.Link, Target: "master", Mode: mode, Stream: stream, Params: params}
}

// A mode's Simulate (sim) and its Toxic (fake, real) mean the same thing:
// on a real socket through toxiproxy, each exchange meets the verdict
// Simulate gives and takes its delay, within a band for the wall clock.
// Every registered mode is covered, each stream; a mode with no toxic must
// say why (Check), and its runs on toxiproxy engines are skips.
var _ = Describe("every link mode: Simulate agrees with its toxic on a real socket", func() {
	const (
		exchanges = 3
		// silence: no reply this long after the simulated delay is a
		// blackhole.
		silence = 2 * time.Second
		// The wall clock's band, on the time from the first exchange to the
		// end of each (toxiproxy's bandwidth toxic pays back its own timer's
		// lateness on the next chunk, so one exchange can be early after a
		// late one; the sum cannot): scheduling on a loaded 2-core machine
		// (make test runs this package beside the suites) stretches it, never
		// shortens it: early is tight, late grows with the delay (a 0.8 s
		// bandwidth exchange once took 0.95 s). Every measurable effect is ≥
		// 300 ms each way, so an effect off by half still shows:
		// D/2 < D-early and 2D > D·(1+lateShare)+late.
		early, late = 15 * time.Millisecond, 150 * time.Millisecond
		lateShare   = 0.25
	)
	// beyond says how far each exchange of got ends outside the band
	// (negative: early), cumulatively; 0 inside it. A mode's own randomness
	// (latency's jitter) draws apart in Simulate and in toxiproxy: the band
	// runs from the fewest to the most the draws of Simulate give, lo and hi.
	beyond := func(got, want, lo, hi []faults.Effect) []time.Duration {
		var out []time.Duration
		var sumGot, sumLo, sumHi time.Duration
		for i, g := range got {
			if g.Verdict == faults.Blackhole || g.Verdict != want[i].Verdict {
				out = append(out, 0)
				continue
			}
			sumGot, sumLo, sumHi = sumGot+g.Delay, sumLo+lo[i].Delay, sumHi+hi[i].Delay
			from, to := sumLo-early, sumHi+time.Duration(lateShare*float64(sumHi))+late
			out = append(out, max(0, sumGot-to)+min(0, sumGot-from))
		}
		return out
	}
	// draws are Simulate's effects of each exchange over many seeds: the
	// first seed's, and each exchange's least and largest delay.
	draws := func(eff faults.LinkEffect, req, resp int) (first, lo, hi []faults.Effect) {
		for seed := range uint64(200) {
			state, rng := eff.NewState(), rand.New(rand.NewPCG(seed+1, 2))
			var now time.Duration
			for i := range exchanges {
				w := eff.On(rng, now, state, int64(req), int64(resp))
				now += w.Delay
				if seed == 0 {
					first, lo, hi = append(first, w), append(lo, w), append(hi, w)
				}
				lo[i].Delay, hi[i].Delay = min(lo[i].Delay, w.Delay), max(hi[i].Delay, w.Delay)
			}
		}
		return first, lo, hi
	}
	// sizes are the request and reply of each exchange; a mode whose effect
	// grows with size gets enough bytes to be measured.
	sizes := func(mode string) (int, int) {
		if mode == faults.ModeBandwidth {
			return 40000, 40000 // 100 KB/s: 400 ms each way
		}
		return 64, 64
	}
	for _, mode := range faults.LinkModes() {
		for _, stream := range faults.Streams {
			f := typical(mode, stream)
			if f.Validate() != nil {
				continue // refuse is both-ways only
			}
			It(fmt.Sprintf("%s (stream %s)", mode, stream), func(ctx context.Context) {
				if err := toxiproxy.Check(f); err != nil {
					Expect(err.Error()).To(ContainSubstring("link mode " + mode + ":"))
					_, _, err := toxiproxy.Toxics(f)
					Expect(err).To(HaveOccurred())
					return
				}
				req, resp := sizes(mode)
				srv := startRPC(req, resp)
				inj, err := toxiproxy.New(ctx, nil)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func() {
					Expect(inj.Close()).To(Succeed())
					srv.Close()
				})
				addr, err := inj.Link("node→master", srv.ln.Addr().String())
				Expect(err).NotTo(HaveOccurred())
				_, err = inj.Inject(ctx, "node→master", f)
				Expect(err).NotTo(HaveOccurred())

				eff, err := faults.EffectOf(f)
				Expect(err).NotTo(HaveOccurred())
				want, lo, hi := draws(eff, req, resp)
				var waits []time.Duration
				for _, w := range hi {
					waits = append(waits, w.Delay+silence)
				}
				// Load stretches the exchanges, never shortens them: exchanges
				// later than the band are measured again on a new connection, at
				// most twice more (as a benchmark takes its best run). A
				// Simulate that doubles the delay is late every time; one that
				// halves it is early at once.
				var got []faults.Effect
				for attempt := 0; ; attempt++ {
					got = observe(addr, req, resp, waits)
					if !slices.ContainsFunc(beyond(got, want, lo, hi), func(d time.Duration) bool { return d > 0 }) || attempt == 2 {
						break
					}
					AddReportEntry(fmt.Sprintf("late exchanges, measured again (attempt %d)", attempt+2), fmt.Sprint(got))
				}
				off := beyond(got, want, lo, hi)
				for i, g := range got {
					if want[i].Verdict == faults.Refuse {
						Expect(g.Verdict).To(Equal(faults.Refuse), "exchange %d", i)
						return
					}
					Expect(g.Verdict).To(Equal(want[i].Verdict), "exchange %d: simulated %+v, observed %+v", i, want[i], g)
					Expect(off[i]).To(BeZero(), "exchange %d ends outside the band (by %v, cumulatively): simulated %v, observed %v", i, off[i], want, got)
				}
				if n := len(got); n < exchanges {
					Expect(got[n-1].Verdict).NotTo(Equal(faults.Pass))
				}
			})
		}
	}
})

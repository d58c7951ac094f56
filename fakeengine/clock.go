package fakeengine

import (
	"context"
	"fmt"
	"github.com/mooncake-faultlab/faultlab/faults"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
)

// Time rule of the fake engine (docs/ENGINES.md "fake"): with TimeoutScale
// s (0 < s ≤ 1), one second of Mooncake time takes s seconds of wall time.
//   - World.Clock() is Mooncake time, as on every engine: Now() = wall/s,
//     Sleep(d) waits d·s.
//   - The models (master, clients, transfer engine) see Mooncake time:
//     Now() = wall/s, Sleep(d) waits d·s. So a 30 s RPC connect timeout
//     waits 30·s of wall time and is reported as 30 s, and the 100 ms
//     auto-port retry pause waits 100·s ms.
//   - Trace events are stamped in Mooncake time, comparable with sim.
//   - Fault.At and Fault.For are scenario (Mooncake) time: armed at At·s.

// sleepWall waits d of wall time, precisely (see wire.AfterPrecise: a
// late millisecond is 1/scale late in Mooncake time).
func sleepWall(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if !wire.SleepPrecise(d, ctx.Done()) {
		return fmt.Errorf("sleep %s: %w", d, ctx.Err())
	}
	return nil
}

// scale converts between Mooncake time and wall time.
type scale float64

func newScale(s float64) scale {
	if s <= 0 || s > 1 {
		return 1
	}
	return scale(s)
}

// wall is how long d of Mooncake time takes.
func (s scale) wall(d time.Duration) time.Duration { return time.Duration(float64(d) * float64(s)) }

// timeoutFloor is the least wall time a scaled Mooncake timeout gets: a
// round trip on the fake's loopback sockets takes real wall time (≈ 0.1–2
// ms, more under load), which no scale shrinks. A timeout Mooncake sets
// below the floor keeps its own length, as real would wait it:
// MC_RPC_TIMEOUT_MS="5s" is 5 ms (atoll) and sets up on real and sim,
// while 5 ms × 0.02 failed every RPC on fake. 50 ms: 10 ms was missed by a
// master RPC through toxiproxy with the suites' two lanes running.
const timeoutFloor = 50 * time.Millisecond

// timeout is the wall time a Mooncake timeout d waits: d scaled, but not
// below min(d, timeoutFloor).
func (s scale) timeout(d time.Duration) time.Duration {
	return max(s.wall(d), min(d, timeoutFloor))
}

// mooncake is how much Mooncake time a wall duration stands for.
func (s scale) mooncake(d time.Duration) time.Duration { return time.Duration(float64(d) / float64(s)) }

// toxic is a link fault in wall terms: its latency, jitter and delay are
// Mooncake time like every other duration, and its bandwidth a rate per
// Mooncake second (unscaled toxics made reset_peer with delay 500ms cost
// 25 s of Mooncake time at s = 0.02; found by faultlab explore --engine
// sim,fake, seed 24).
// Every parameter of the fault's mode is scaled by its type (faults.MapParams).
func (s scale) toxic(f faults.Fault) faults.Fault {
	f.Params = faults.MapParams(f.Params, s.wall, func(r int64) int64 { return max(1, int64(float64(r)/float64(s))) })
	return f
}

// gate is the world's model lock: the models are single-threaded state
// machines, so at most one goroutine runs model code at a time (as sim's
// event loop). Whoever waits on the network or the clock releases it, so
// other parties (a server handler, a second node) can run meanwhile — the
// same interleaving points sim has, where its clock advances.
type gate struct{ mu sync.Mutex }

func (g *gate) Lock()   { g.mu.Lock() }
func (g *gate) Unlock() { g.mu.Unlock() }

// wait runs fn (blocking I/O or a sleep) with the gate released. Only code
// that holds the gate calls it: transports and the model clock are used by
// model code only, and model code only runs under the gate.
func (g *gate) wait(fn func()) {
	g.mu.Unlock()
	defer g.mu.Lock()
	fn()
}

// modelClock is the models' engine.Clock: Mooncake time, gate released
// while sleeping.
type modelClock struct {
	start time.Time
	s     scale
	g     *gate
	st    *stalls
}

func (c modelClock) Now() time.Duration { return c.s.mooncake(time.Since(c.start)) }

// Stalled is the harness's stalls in Mooncake time (master.StallClock):
// mooncake_client's dummy-client monitor extends a dummy's TTL by them.
func (c modelClock) Stalled() time.Duration { return c.s.mooncake(c.st.sum()) }

func (c modelClock) Sleep(ctx context.Context, d time.Duration) error {
	var err error
	c.g.wait(func() { err = sleepWall(ctx, c.s.wall(d)) })
	return err
}

// mooncakeClock is World.Clock() and the master model's clock: Mooncake
// time since Launch, without the gate (the master never sleeps; the
// runner holds no gate).
type mooncakeClock struct {
	start time.Time
	s     scale
}

func (c mooncakeClock) Now() time.Duration { return c.s.mooncake(time.Since(c.start)) }

func (c mooncakeClock) Sleep(ctx context.Context, d time.Duration) error {
	return sleepWall(ctx, c.s.wall(d))
}

// HonoursTimeoutScale implements engine.TimeoutScaler.
func (e *Engine) HonoursTimeoutScale() bool { return true }

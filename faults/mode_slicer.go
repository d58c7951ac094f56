package faults

import (
	"fmt"
	"time"
)

// ModeSlicer: each message is cut into pieces of about average_size ±
// size_variation bytes, a delay after each (toxiproxy's slicer).
const ModeSlicer = "slicer"

// SlicerParams are slicer's parameters.
type SlicerParams struct {
	AverageSize   int64         `yaml:"average_size" doc:"bytes per slice (> 0)" gen:"16,1024"`
	SizeVariation int64         `yaml:"size_variation" doc:"± bytes" gen:"0,8"`
	Delay         time.Duration `yaml:"delay" doc:"pause between slices" gen:",10ms,500ms"`
}

// slicerState is until when each pipe of one connection is busy (0
// upstream, 1 downstream).
type slicerState struct{ busy [2]time.Duration }

type slicer struct{ modeBase }

func init() { RegisterMode(slicer{}) }

func (slicer) Name() string { return ModeSlicer }
func (slicer) Doc() string {
	return "each message halved into slices of about average_size bytes, delay after each (the connection waits)"
}
func (slicer) Params() any   { return SlicerParams{} }
func (slicer) NewState() any { return &slicerState{} }

func (slicer) Validate(f Fault) error {
	if paramsOf[SlicerParams](f).AverageSize <= 0 {
		return fmt.Errorf("link slicer: average_size must be > 0")
	}
	return nil
}

func (slicer) Simulate(f Fault, x *Exchange) Effect {
	p := paramsOf[SlicerParams](f)
	// toxiproxy's SlicerToxic.Pipe: each chunk read (one message here: the
	// master's and the client's coro_rpc messages arrive whole) is cut by
	// halving until a piece is within size_variation of average_size; a
	// slice goes out, then the pipe sleeps delay, also after the last
	// slice, so a message's last byte is (slices-1)·delay late and the next
	// message in that direction waits for the pipe. Real 0.3.13.post1,
	// average_size 64, delay 200 ms: put (PutStart 195/126 B, PutEnd 137/26 B)
	// 1409 ms = 7 delays; setup 1029 ms = 5 (REAL-FINDINGS §21).
	if p.AverageSize <= 0 || p.Delay <= 0 {
		return Effect{}
	}
	busy := &x.State.(*slicerState).busy
	t := x.Now
	pipe := func(dir int, n int64) {
		if n <= 0 {
			return
		}
		k := sliceCount(p, x, n, map[int64]int64{})
		start := max(t, busy[dir])
		t = start + time.Duration(k-1)*p.Delay
		busy[dir] = start + time.Duration(k)*p.Delay
	}
	if x.Up {
		pipe(0, x.ReqBytes)
	}
	if x.Down {
		pipe(1, x.RespBytes)
	}
	return Effect{Delay: t - x.Now}
}

// maxRandomSlices bounds the random halving (size_variation > 0): a
// longer message is cut as if without variation (same count, in O(log n)).
const maxRandomSlices = 1 << 12

// sliceCount is how many pieces SlicerToxic.chunk cuts n bytes into
// (memo: counts of sizes already cut without variation).
func sliceCount(f SlicerParams, x *Exchange, n int64, memo map[int64]int64) int64 {
	if n-f.AverageSize <= f.SizeVariation {
		return 1
	}
	if f.SizeVariation > 0 && x.Rand != nil && n/f.AverageSize < maxRandomSlices {
		mid := n/2 + x.Rand.Int64N(2*f.SizeVariation) - f.SizeVariation
		return sliceCount(f, x, mid, memo) + sliceCount(f, x, n-mid, memo)
	}
	if k, ok := memo[n]; ok {
		return k
	}
	k := sliceCount(f, nil0(x), n/2, memo) + sliceCount(f, nil0(x), n-n/2, memo)
	memo[n] = k
	return k
}

// nil0 drops the random source: below a cut made without variation every
// cut is made without it.
func nil0(*Exchange) *Exchange { return &Exchange{} }

func (slicer) Toxic(f Fault) (string, map[string]any, bool) {
	p := paramsOf[SlicerParams](f)
	// slicer's delay is in microseconds.
	return "slicer", map[string]any{"average_size": p.AverageSize, "size_variation": p.SizeVariation,
		"delay": p.Delay.Microseconds()}, true
}

// Holds: with a delay, a message sent before the clear is still sliced.
func (slicer) Holds(f Fault) bool { return paramsOf[SlicerParams](f).Delay > 0 }

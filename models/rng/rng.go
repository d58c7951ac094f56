// Package rng derives a component's random stream from a world's root seed.
// Both model engines draw from it (sim through its kernel, fake directly), so
// the same seed gives the models the same draws on either.
package rng

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// Stream returns the RNG stream of a component: PCG seeded with
// SHA-256(root seed ‖ name), so adding a component never shifts another's
// draws.
func Stream(seed uint64, name string) *rand.Rand {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h := sha256.New()
	h.Write(b[:])
	h.Write([]byte(name))
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])))
}

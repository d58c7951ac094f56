package sim

import (
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
)

// StampContent implements engine.Contents.
func (p *Process) StampContent(ptr uint64, size int64, fp uint64) error {
	return p.mem.WriteContent(ptr, hostmem.Stamp(size, fp))
}

// ContentFP implements engine.Contents.
func (p *Process) ContentFP(ptr uint64, size int64) (uint64, error) {
	c, err := p.mem.ReadContent(ptr, size)
	return c.FP, err
}

var _ engine.Contents = (*Process)(nil)

package faults

import "fmt"

// ModeLimitData: the connection is closed once bytes have crossed it.
const ModeLimitData = "limit_data"

type limitData struct{}

func init() { RegisterMode(limitData{}) }

func (limitData) Name() string    { return ModeLimitData }
func (limitData) Doc() string     { return "connection closed after bytes have crossed it" }
func (limitData) Fields() []Field { return []Field{{"bytes", "bytes let through (> 0)"}} }

func (limitData) Validate(f Fault) error {
	if f.Bytes <= 0 {
		return fmt.Errorf("link limit_data: bytes must be > 0")
	}
	return nil
}

func (limitData) Simulate(f Fault, x *Exchange) Effect {
	*x.Sent += x.Bytes()
	if *x.Sent > f.Bytes {
		return Effect{Verdict: ResetPeer}
	}
	return Effect{}
}

func (limitData) Toxic(f Fault) (string, map[string]any, bool) {
	return "limit_data", map[string]any{"bytes": f.Bytes}, true
}

package faults

import (
	"testing"
	"time"
)

// slowMaster is a kind that lowers to a link with a fixed mode, as a new
// kind may (CONTRIBUTING, "Add a fault kind"): its faults carry no mode.
type slowMaster struct{ kindBase }

func (slowMaster) Kind() Kind              { return "test-slow-master" }
func (slowMaster) Doc() string             { return "" }
func (slowMaster) Fields() []Field         { return nil }
func (slowMaster) Params(Fault) any        { return LatencyParams{} }
func (slowMaster) Validate(Fault) error    { return nil }
func (slowMaster) LinkTarget(Fault) string { return "master" }
func (slowMaster) Lower(f Fault) Primitive {
	f.Mode = ModeLatency
	return LinkPrimitive{Fault: f, Target: "master"}
}

// Available, Toxic and MaxDelay read the mode of the link the kind lowers
// to, not the mode field the scenario left empty.
func TestKindWithFixedLinkMode(t *testing.T) {
	k := slowMaster{}
	kinds[k.Kind()] = k
	t.Cleanup(func() { delete(kinds, k.Kind()) })
	f := Fault{Kind: k.Kind(), Params: LatencyParams{Latency: 50 * time.Millisecond}}
	if err := Available(f, Capabilities{Toxiproxy: true}); err != nil {
		t.Fatalf("Available: %v", err)
	}
	typ, attrs, ok, stop, err := Toxic(f)
	if err != nil || !ok || stop || typ != "latency" || attrs["latency"] != int64(50) {
		t.Fatalf("Toxic = %q %v %v %v %v", typ, attrs, ok, stop, err)
	}
	if d := MaxDelay(f); d != 100*time.Millisecond {
		t.Fatalf("MaxDelay = %v, want 100ms (both directions)", d)
	}
}

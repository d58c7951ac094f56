package fakeengine

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// Only faults that can hold up a party's answer keep its waits scaled.
func TestDelaysAnswers(t *testing.T) {
	for _, tc := range []struct {
		p    faults.Primitive
		want bool
	}{
		{faults.LinkPrimitive{}, true},
		{faults.ProcessPrimitive{}, true},
		{faults.ContainerPrimitive{}, true},
		{faults.AnswerPrimitive{}, true},
		{faults.RDMAPrimitive{}, false},
		{faults.PortPrimitive{}, true},
		{faults.OffloadFilesPrimitive{}, false},
	} {
		if got := delaysAnswers(tc.p); got != tc.want {
			t.Errorf("%T: %v, want %v", tc.p, got, tc.want)
		}
	}
}

package engine_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
)

func TestErrHAMasterUnmodelled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		master *engine.MasterSpec
		skip   bool
	}{
		{"no master", nil, false},
		{"one master", &engine.MasterSpec{}, false},
		{"HA pair", &engine.MasterSpec{HA: true}, true},
	} {
		err := engine.ErrHAMasterUnmodelled(engine.WorldSpec{Master: tc.master})
		if _, ok := engine.AsUnsupported(err); ok != tc.skip || (err != nil) != tc.skip {
			t.Errorf("%s: got %v, want skip %v", tc.name, err, tc.skip)
		}
	}
}

package engine

import "testing"

// CANN's order: a release's candidates, then the release and its patches.
func TestCANNAtLeast(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{
		{"8.2.RC1", false}, {"8.2.0", false}, {"8.3.RC1", true}, {"8.3.RC2", true},
		{"8.3.0", true}, {"8.2.RC9", false}, {"9.0.RC1", true}, {"7.9.9", false},
	} {
		got, err := CANNAtLeast(c.v, CANNForADXL)
		if err != nil || got != c.want {
			t.Errorf("CANNAtLeast(%q, %s) = %v, %v; want %v", c.v, CANNForADXL, got, err, c.want)
		}
	}
	if _, err := CANNAtLeast("8.3", CANNForADXL); err == nil {
		t.Error("8.3 parsed")
	}
}

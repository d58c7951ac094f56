package fakeengine

import (
	"testing"
	"time"
)

func TestScaledTimeoutFloor(t *testing.T) {
	s := newScale(0.02)
	for _, tc := range []struct{ d, want time.Duration }{
		{30 * time.Second, 600 * time.Millisecond}, // scaled as ever
		{2 * time.Second, 50 * time.Millisecond},
		{500 * time.Millisecond, 50 * time.Millisecond}, // the floor
		{50 * time.Millisecond, 50 * time.Millisecond},  // Mooncake's own length
		{5 * time.Millisecond, 5 * time.Millisecond},    // below it: Mooncake's own length
		{0, 0},
	} {
		if got := s.timeout(tc.d); got != tc.want {
			t.Errorf("timeout(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

package suggest

import "testing"

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		s       string
		options []string
		want    string
	}{
		{"inti", []string{"init", "sleep", "set", "get"}, "init"}, // a swap is one edit
		{"expct", []string{"expect", "engines"}, "expect"},        // a letter left out
		{"metadata-dwn", []string{"master-down", "metadata-down"}, "metadata-down"},
		{"refus", []string{"refuse", "blackhole"}, "refuse"},
		{"zzzzzz", []string{"init", "sleep"}, ""}, // nothing close
		{"Init", []string{"init"}, "init"},        // case folded
	} {
		if got := Closest(tc.s, tc.options); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
	if got := DidYouMean("init", []string{"init"}); got != "" {
		t.Errorf("exact match: %q", got)
	}
	if got := DidYouMean("inti", []string{"init"}); got != ` (did you mean "init"?)` {
		t.Errorf("%q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"init", "inti", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

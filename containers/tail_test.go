package containers

import (
	"errors"
	"testing"
)

func TestTailLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		end    error
		ended  bool
		want   string
	}{
		{"nothing", nil, nil, false, "0 lines"},
		{"split writes", []string{"a\nb", "c\n", "d"}, nil, false, `2 lines, last ["a" "bc"], unterminated "d"`},
		{"keeps five", []string{"1\n2\n3\n4\n5\n6\n7\n"}, nil, false, `7 lines, last ["3" "4" "5" "6" "7"]`},
		{"ended", []string{"x\n"}, nil, true, `1 lines, last ["x"]; stream ended`},
		{"ended with error", nil, errors.New("broken pipe"), true, "0 lines; stream ended: broken pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tl tailLines
			for _, w := range tc.writes {
				_, _ = tl.Write([]byte(w))
			}
			if tc.ended {
				tl.end(tc.end)
			}
			if got := tl.String(); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

package mlog

import (
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/trace"
)

// MC_LOG_LEVEL is glog's minloglevel: exact words only, and a level
// drops the lines below it, never FATAL.
func TestMinLevel(t *testing.T) {
	for _, c := range []struct {
		value string
		want  []string // the levels printed of INFO, WARNING, ERROR, FATAL
	}{
		{"", []string{Info, Warning, Error, Fatal}},
		{"INFO", []string{Info, Warning, Error, Fatal}},
		{"TRACE", []string{Info, Warning, Error, Fatal}},
		{"info", []string{Info, Warning, Error, Fatal}},
		{"WARNING", []string{Warning, Error, Fatal}},
		{"ERROR", []string{Error, Fatal}},
	} {
		tr := trace.New(func() time.Duration { return 0 })
		l := Trace{T: tr, Source: "mooncake:tp0", Min: MinLevel(map[string]string{"MC_LOG_LEVEL": c.value})}
		for _, lv := range []string{Info, Warning, Error, Fatal} {
			l.Log(lv, lv+" line")
		}
		var got []string
		for _, e := range tr.Events() {
			got = append(got, e.Level)
		}
		if len(got) != len(c.want) {
			t.Errorf("MC_LOG_LEVEL=%q: printed %v, want %v", c.value, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("MC_LOG_LEVEL=%q: printed %v, want %v", c.value, got, c.want)
				break
			}
		}
	}
}

package master_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/master"
)

// A UUID prints as operator<<(ostream&, const UUID&) writes it: first,
// "-", second, both in decimal (types.h at v0.3.4 … v0.3.12.post1 and
// 3b5a594). The ids are real's: one quoted from a 0.3.14 run, then
// 0.3.14's and 0.3.11.post1's client_id lines (docs/REAL-FINDINGS.md §72).
func TestUUIDString(t *testing.T) {
	for _, c := range []struct {
		id   master.UUID
		want string
	}{
		{master.UUID{Hi: 10684295550290858646, Lo: 16823729354007242427}, "10684295550290858646-16823729354007242427"},
		{master.UUID{Hi: 14286400266408116154, Lo: 6178115569062298502}, "14286400266408116154-6178115569062298502"},
		{master.UUID{Hi: 7226010278364642051, Lo: 2702628790418039729}, "7226010278364642051-2702628790418039729"},
		{master.UUID{Hi: 1, Lo: 2}, "1-2"},
		{master.UUID{}, "0-0"},
	} {
		if got := c.id.String(); got != c.want {
			t.Errorf("UUID{%d, %d}.String() = %q, want %q", c.id.Hi, c.id.Lo, got, c.want)
		}
	}
}

package explain

import (
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// What a person reads of a catalog scenario or a class (cause, remedy)
// never shows a {{role}} placeholder: it names the role.
func TestNoPlaceholdersForPeople(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range cat {
		for what, s := range map[string]string{"cause": Humanize(cause(sc.Summary)), "remedy": Humanize(Remedy(sc))} {
			if strings.Contains(s, "{{") {
				t.Errorf("%s: %s shows a placeholder: %s", sc.Name, what, s)
			}
		}
	}
	cls, err := Classes()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cls {
		if strings.Contains(c.Cause+c.Remedy, "{{") {
			t.Errorf("class %s: cause or remedy shows a placeholder", c.Name)
		}
	}
	if got := Humanize(`env {MOONCAKE_MASTER: "{{master}}"}`); got != `env {MOONCAKE_MASTER: "<the master's address>"}` {
		t.Errorf("Humanize: %s", got)
	}
}

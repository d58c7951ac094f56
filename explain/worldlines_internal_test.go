package explain

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// factPattern: a pattern over a derived fact (facts.go, fieldlog.go's
// Facts), not over a line a world prints.
var factPattern = regexp.MustCompile(`^\^?\(?(env|flag|gap|code|errno|mooncake \(?(error|warning|source files|version)|python|rdma handshake|rdma work completion|timeout in|native import failed)\b`)

var longNumber = regexp.MustCompile(`\d{4,}`)

// maxUnprintedLines is the ceiling of TestClassWorldsPrintTheirLines: lower
// it when a world learns to print a line of its class, never raise it.
const maxUnprintedLines = 206

// TestClassWorldsPrintTheirLines counts the line patterns of classes that
// list worlds which none of those worlds prints on the model, at any
// release. A field log that shows such a line names the class, and new
// --from-log then finds no world whose run prints the line the log quotes:
// the draft is refused ("the model of that version prints no such line").
// Each is a model that lacks a line of Mooncake's on the world's path, or
// a sibling failure the class covers and no world reproduces yet. The list
// (FAULTLAB_WORLDLINES_LIST=1) is the work list (docs/CONTRIBUTING.md).
func TestClassWorldsPrintTheirLines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the catalog at every release on sim (about 15 s)")
	}
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	fp := Fingerprints{}
	for _, v := range mooncake.Versions {
		for k, l := range Fingerprint(context.Background(), cat, sim.New(), v) {
			fp[k] = l
		}
	}
	cls, err := Classes()
	if err != nil {
		t.Fatal(err)
	}
	// Fingerprints keep lines with their values elided (0x…, #): give the
	// patterns values to match.
	valued := strings.NewReplacer("0x…", "0x7f00ab", "#", "12", "…", "x")
	// A pattern's own numbers of four digits or more (512\|1024) are
	// elided in the lines too.
	printedBy := func(re *regexp.Regexp, only []string) []string {
		var elided *regexp.Regexp
		if e := longNumber.ReplaceAllString(re.String(), "#"); e != re.String() {
			elided = regexp.MustCompile(e)
		}
		var out []string
		for k, lines := range fp {
			if only != nil && !slices.Contains(only, k.Scenario) || slices.Contains(out, k.Scenario) {
				continue
			}
			if slices.ContainsFunc(lines, func(l string) bool {
				return re.MatchString(valued.Replace(l)) || elided != nil && elided.MatchString(l)
			}) {
				out = append(out, k.Scenario)
			}
		}
		slices.Sort(out)
		return out
	}
	list := os.Getenv("FAULTLAB_WORLDLINES_LIST") != ""
	total, unprinted := 0, 0
	for _, c := range cls {
		if len(c.Scenarios) == 0 {
			continue
		}
		for _, p := range c.Patterns {
			if factPattern.MatchString(p.RE) {
				continue
			}
			total++
			if len(printedBy(p.re, c.Scenarios)) > 0 {
				continue
			}
			unprinted++
			if list {
				others := printedBy(p.re, nil)
				fmt.Printf("UNPRINTED %s %s w%v %q printed by other worlds: %s\n", c.where, c.Name, p.Weight, p.RE, strings.Join(others[:min(3, len(others))], " "))
			}
		}
	}
	t.Logf("%d of %d line patterns of classes with worlds are printed by none of their worlds (ceiling %d)", unprinted, total, maxUnprintedLines)
	if unprinted > maxUnprintedLines {
		t.Errorf("%d line patterns of classes with worlds are printed by none of their worlds, more than %d: a class's new line needs a world that prints it (FAULTLAB_WORLDLINES_LIST=1 lists them)", unprinted, maxUnprintedLines)
	}
}

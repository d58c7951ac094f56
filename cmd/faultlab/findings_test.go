package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestRealFindingsTable keeps docs/REAL-FINDINGS.md's table of findings
// runnable: every row names its versions, links a section that exists,
// and either gives a command that loads (a scenario that exists, applies
// at the version named and runs on real with the flags it needs; a go
// test that names a test of its package) or says why it is not pinned.
// It checks without running: the commands take minutes of real Mooncake.
func TestRealFindingsTable(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const file = "docs/REAL-FINDINGS.md"
	b, err := os.ReadFile(filepath.Join(repo, file))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := findingRows(string(b))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(rows) < 60 {
		t.Fatalf("%s: %d rows in the findings table; want at least 60 (a row was lost?)", file, len(rows))
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([a-z0-9-]+)"></a>`).FindAllStringSubmatch(string(b), -1) {
		anchors[m[1]] = true
	}
	catalog, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	var runs int
	for _, r := range rows {
		where := fmt.Sprintf("%s:%d", file, r.line)
		if err := checkVersions(r.versions); err != nil {
			t.Errorf("%s: versions: %v", where, err)
		}
		links := regexp.MustCompile(`\]\(#([a-z0-9-]+)\)`).FindAllStringSubmatch(r.section, -1)
		if len(links) == 0 {
			t.Errorf("%s: section %q links no section (want [§N](#sN))", where, r.section)
		}
		for _, l := range links {
			if !anchors[l[1]] {
				t.Errorf("%s: section link #%s: no <a id=%q> in the file", where, l[1], l[1])
			}
		}
		cmds := backticked(r.reproduce)
		if len(cmds) == 0 && !strings.Contains(r.pinned, "not pinned") {
			t.Errorf("%s: no command to reproduce, and the pinned-by cell does not say why (\"not pinned: …\")", where)
		}
		for _, c := range cmds {
			if err := checkCommand(repo, catalog, c); err != nil {
				t.Errorf("%s: `%s`: %v", where, c, err)
			}
			if strings.HasPrefix(c, "faultlab run ") {
				runs++
			}
		}
	}
	if runs < 50 {
		t.Errorf("%s: %d `faultlab run` commands; want at least 50", file, runs)
	}
}

type findingRow struct {
	line                                          int
	finding, versions, pinned, reproduce, section string
}

// findingRows parses the table between the findings markers. A cell holds
// no "|" (the commands avoid pipes), so a row splits on it.
func findingRows(md string) ([]findingRow, error) {
	const begin, end = "<!-- findings:begin -->", "<!-- findings:end -->"
	i, j := strings.Index(md, begin), strings.Index(md, end)
	if i < 0 || j < i {
		return nil, fmt.Errorf("no %s … %s block", begin, end)
	}
	first := strings.Count(md[:i], "\n") + 1
	lines := strings.Split(md[i:j], "\n")
	var rows []findingRow
	header := []string{"Finding", "Versions", "Pinned by", "Reproduce", "§"}
	for k, l := range lines[1:] {
		n := first + 1 + k
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") {
			return nil, fmt.Errorf("line %d: not a table row: %q", n, l)
		}
		cells := strings.Split(l[1:len(l)-1], "|")
		for c := range cells {
			cells[c] = strings.TrimSpace(cells[c])
		}
		if len(cells) != len(header) {
			return nil, fmt.Errorf("line %d: %d cells, want %d (%s); a | inside a cell?", n, len(cells), len(header), strings.Join(header, ", "))
		}
		switch {
		case k == 0:
			if !slices.Equal(cells, header) {
				return nil, fmt.Errorf("line %d: header %q, want %q", n, cells, header)
			}
			continue
		case k == 1:
			continue // the |---| line
		}
		for c, v := range cells {
			if v == "" {
				return nil, fmt.Errorf("line %d: empty %s cell", n, header[c])
			}
		}
		rows = append(rows, findingRow{line: n, finding: cells[0], versions: cells[1], pinned: cells[2], reproduce: cells[3], section: cells[4]})
	}
	return rows, nil
}

var versionRe = regexp.MustCompile(`\b0\.\d+\.\d+(?:\.post\d+)?\b`)

// checkVersions wants every Mooncake version a row names to be known
// (SGLang rows name SGLang releases, checked by their command).
func checkVersions(cell string) error {
	if strings.HasPrefix(cell, "SGLang ") {
		return nil
	}
	vs := versionRe.FindAllString(cell, -1)
	if len(vs) == 0 {
		return fmt.Errorf("%q names no Mooncake version", cell)
	}
	for _, v := range vs {
		if _, err := mooncake.ProfileFor(v); err != nil {
			return err
		}
	}
	return nil
}

func backticked(cell string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// checkCommand parses a command with the CLI's own flags and checks what
// it would run, without running it.
func checkCommand(repo string, catalog []*scenarios.Scenario, c string) error {
	args, err := splitWords(c)
	if err != nil {
		return err
	}
	switch {
	case len(args) > 2 && args[0] == "faultlab" && args[1] == "run":
		return checkRun(repo, catalog, args[2:])
	case len(args) > 2 && args[0] == "faultlab" && args[1] == "explore":
		return checkExplore(args[2:])
	case len(args) > 2 && args[0] == "go" && args[1] == "test":
		return checkGoTest(repo, args[2:])
	}
	return fmt.Errorf("not a faultlab run, faultlab explore or go test command")
}

// parseOnReal parses a row's command with the CLI's own flags and requires
// the real engine among its engines.
func parseOnReal(cmd *cobra.Command, args []string) (*pflag.FlagSet, error) {
	if err := cmd.ParseFlags(args); err != nil {
		return nil, err
	}
	fl := cmd.Flags()
	engines, _ := fl.GetString("engine")
	if !slices.Contains(strings.Split(engines, ","), "real") {
		return nil, fmt.Errorf("--engine %q: a real finding reproduces on real", engines)
	}
	return fl, nil
}

func checkRun(repo string, catalog []*scenarios.Scenario, args []string) error {
	fl, err := parseOnReal(runCmd(), args)
	if err != nil {
		return err
	}
	version, _ := fl.GetString("mooncake-version")
	if version == "" {
		return fmt.Errorf("no --mooncake-version: name the version the row is about")
	}
	if _, err := mooncake.ProfileFor(version); err != nil {
		return fmt.Errorf("--mooncake-version: %w", err)
	}
	slow, _ := fl.GetBool("slow")
	containers, _ := fl.GetBool("containers")
	sides, _ := fl.GetString("sglang")
	sglangVersion, _ := fl.GetString("sglang-version")
	names := fl.Args()
	if len(names) == 0 {
		return fmt.Errorf("no scenario named (it would run the whole catalog)")
	}
	// Paths are relative to the repository's root, where the reader runs them.
	for i, a := range names {
		if strings.Contains(a, "/") && strings.HasSuffix(a, ".yaml") {
			names[i] = filepath.Join(repo, a)
		}
	}
	scs, err := scenarios.Resolve(catalog, names)
	if err != nil {
		return err
	}
	for _, sc := range scs {
		if !sc.RunsOn("real") {
			return fmt.Errorf("%s does not run on real (engines %v)", sc.Name, sc.Engines)
		}
		if _, ok := sc.Versions(version); !ok {
			return fmt.Errorf("%s does not apply at %s (versions %v): the run would skip", sc.Name, version, sc.Mooncake.Versions)
		}
		if sc.HasLabel(scenarios.SlowLabel) && !slow {
			return fmt.Errorf("%s is %s: add --slow or the run skips", sc.Name, scenarios.SlowLabel)
		}
		if sc.HasLabel(scenarios.ContainerLabel) && !containers {
			return fmt.Errorf("%s is labelled %s: add --containers or the run skips", sc.Name, scenarios.ContainerLabel)
		}
		if sc.HasLabel("needs-rdma-hw") {
			return fmt.Errorf("%s needs RDMA hardware: it skips on a machine without", sc.Name)
		}
		if strings.Contains(sides, "real") && sglangVersion != "" && !sc.AppliesToSGLang(sglangVersion) {
			return fmt.Errorf("%s does not cover SGLang %s", sc.Name, sglangVersion)
		}
	}
	return nil
}

func checkExplore(args []string) error {
	fl, err := parseOnReal(exploreCmd(), args)
	if err != nil {
		return err
	}
	if !fl.Changed("seed") {
		return fmt.Errorf("no --seed: the command must re-draw the finding's scenario")
	}
	if n, _ := fl.GetUint64("seeds"); n != 1 {
		return fmt.Errorf("--seeds %d: one seed, the finding's", n)
	}
	vs, _ := fl.GetStringSlice("mooncake-version")
	for _, v := range vs {
		if _, err := mooncake.ProfileFor(v); err != nil {
			return fmt.Errorf("--mooncake-version: %w", err)
		}
	}
	return nil
}

// checkGoTest wants `go test ./PKG -run TestX [-args -ginkgo.focus=RE]`:
// the package exists, -run names a test function of it, and the focus
// matches one of its spec texts.
func checkGoTest(repo string, args []string) error {
	if len(args) == 0 || !strings.HasPrefix(args[0], "./") {
		return fmt.Errorf("want go test ./PKG -run TestX")
	}
	dir := filepath.Join(repo, args[0])
	tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(tests) == 0 {
		return fmt.Errorf("package %s has no tests", args[0])
	}
	var src strings.Builder
	for _, f := range tests {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		src.Write(b)
	}
	var run, focus string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-run" && i+1 < len(args):
			run = args[i+1]
			i++
		case strings.HasPrefix(a, "-ginkgo.focus="):
			focus = strings.TrimPrefix(a, "-ginkgo.focus=")
		}
	}
	if run == "" {
		return fmt.Errorf("no -run: name the test")
	}
	if !regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(run) + `\(t \*testing\.T\)`).MatchString(src.String()) {
		return fmt.Errorf("-run %s: no func %s(t *testing.T) in %s", run, run, args[0])
	}
	if focus != "" {
		re, err := regexp.Compile(focus)
		if err != nil {
			return fmt.Errorf("-ginkgo.focus: %w", err)
		}
		specs := regexp.MustCompile(`(?:It|Describe|Context|DescribeTable|Entry)\("([^"]*)"`).FindAllStringSubmatch(src.String(), -1)
		if !slices.ContainsFunc(specs, func(m []string) bool { return re.MatchString(m[1]) }) {
			return fmt.Errorf("-ginkgo.focus=%s matches no spec text in %s", focus, args[0])
		}
	}
	return nil
}

// splitWords splits a command as sh would for the quoting the table uses:
// words separated by spaces, '…' and "…" quoted.
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

package explain

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/mooncake-faultlab/faultlab/fieldlogs"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Class is a cause explain can name from a field log's lines: a field
// cause the catalog has no scenario for, or the log-line signature of a
// catalog scenario (Name is then the scenario's name).
type Class struct {
	Name   string   `yaml:"name"`
	Cause  string   `yaml:"cause"`
	Remedy string   `yaml:"remedy"`
	Refs   []string `yaml:"refs"`
	// Scenarios are catalog scenarios that reproduce the class (`faultlab
	// run NAME`), where its lines alone cannot tell which one it is.
	Scenarios []string `yaml:"scenarios"`
	// LinkWhenScored: the class gives its points to a linked scenario only
	// when the log's catalog evidence already names that scenario; else it
	// stays a class. For a class wider than its scenarios (a metadata
	// server answering wrongly: a 404 or a rejected re-publish) whose one
	// scenario is only one of its failures.
	LinkWhenScored bool      `yaml:"link_when_scored"`
	Patterns       []Pattern `yaml:"patterns"`
	Against        []Pattern `yaml:"against"`
	// Examples are synthetic logs built from the format strings the
	// patterns cite, with made-up values: each must name the class (or a
	// scenario it links) first (TestClassExamplesNameTheirClass).
	Examples []string `yaml:"examples"`
	// Mooncake is the releases that have the cause (a bug fixed in a later
	// release: until is the last one with it). A log that states a
	// release outside it, or whose glog lines' source files only exist
	// outside it, cannot show the cause. Empty: every release.
	Mooncake Range `yaml:"mooncake"`
	// KindOf names the wider class this one is a kind of (a specific
	// cause of an umbrella class: a wheel without a torch extension for the
	// installed torch is an install that does not import). Naming this
	// class answers a log of the wider one; leaving the wider one out
	// leaves this one out too.
	KindOf string `yaml:"kind_of"`
	// narrower are the classes whose kind_of names this one (readClasses).
	narrower []string
	// seen is how many tuning field cases the class is the cause of
	// (countSeen).
	seen int
	// where is the class's file:line, for errors.
	where string
	// terms and nterms: the words of the name and patterns and their
	// count (resemble.go), counted by ParseClasses.
	terms  map[string]int
	nterms int
}

// Pattern is a regular expression over one log line (or derived fact) and
// the weight of its evidence.
type Pattern struct {
	RE     string  `yaml:"re"`
	Weight float64 `yaml:"weight"`
	re     *regexp.Regexp
	line   int
}

// The class tables: field.yaml (the field classes and the catalog
// scenarios' signatures), one file per area of Mooncake's source whose
// error lines were swept for causes (source-*.yaml), one per span of its
// history whose fixed bugs were swept (fixed-*.yaml) and one per
// integration's source swept (integration-*.yaml), read in name order.
//
//go:embed classes/*.yaml
var classesFS embed.FS

var (
	classesOnce sync.Once
	classes     []Class
	classesErr  error
)

// Classes returns the cause classes of explain/classes/*.yaml.
func Classes() ([]Class, error) {
	classesOnce.Do(func() {
		if classes, classesErr = readClasses(classesFS, "classes"); classesErr == nil {
			classesErr = countSeen(classes)
		}
	})
	return classes, classesErr
}

// countSeen sets each class's seen: how many of the field corpus's tuning
// cases (fieldlogs.Split; never a held-out one) it is the established
// cause of - how often the cause comes up in public threads.
func countSeen(cls []Class) error {
	cases, err := fieldlogs.Load()
	if err != nil {
		return err
	}
	tuning, _ := fieldlogs.Split(cases)
	n := map[string]int{}
	for _, c := range tuning {
		n[c.Class]++
	}
	for i := range cls {
		cls[i].seen = n[cls[i].Name]
	}
	return nil
}

// fieldSeen is how many tuning field cases name the cause name or a class
// that explains it: the base rate a tie between equal points falls back on.
func fieldSeen(cls []Class, name string) int {
	n := 0
	for _, c := range cls {
		if c.Explains(name) {
			n += c.seen
		}
	}
	return n
}

// readClasses reads every *.yaml of dir in name order into one table; a
// class name is defined once across the files.
func readClasses(fsys fs.FS, dir string) ([]Class, error) {
	files, err := fs.Glob(fsys, dir+"/*.yaml")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("explain/%s: no class tables", dir)
	}
	var out []Class
	where := map[string]string{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		cls, err := ParseClasses("explain/"+f, data)
		if err != nil {
			return nil, err
		}
		for _, c := range cls {
			// A swept class is known only from its format strings: its
			// examples are what tests it.
			base := path.Base(f)
			swept := slices.ContainsFunc([]string{"source-", "fixed-", "integration-"}, func(p string) bool { return strings.HasPrefix(base, p) })
			if swept && len(c.Examples) == 0 {
				return nil, fmt.Errorf("%s: class %q: a class of a source sweep needs examples (synthetic logs from the format strings it cites)", c.where, c.Name)
			}
			// A fixed bug is a cause of the releases that have it only.
			if strings.HasPrefix(base, "fixed-") && c.Mooncake.IsZero() {
				return nil, fmt.Errorf("%s: class %q: a fixed bug's class needs mooncake: {since, until} (the releases that have it)", c.where, c.Name)
			}
			if w, ok := where[c.Name]; ok {
				return nil, fmt.Errorf("%s: class %q already defined at %s", c.where, c.Name, w)
			}
			where[c.Name] = c.where
		}
		out = append(out, cls...)
	}
	for _, c := range out {
		if c.KindOf == "" {
			continue
		}
		i := slices.IndexFunc(out, func(p Class) bool { return p.Name == c.KindOf })
		switch {
		case i < 0:
			return nil, fmt.Errorf("%s: class %q: kind_of %q: no such class", c.where, c.Name, c.KindOf)
		case out[i].KindOf != "":
			return nil, fmt.Errorf("%s: class %q: kind_of %q, itself a kind of %q: name the widest class", c.where, c.Name, c.KindOf, out[i].KindOf)
		}
		out[i].narrower = append(out[i].narrower, c.Name)
	}
	return out, nil
}

// ParseClasses reads a class table strictly; errors name file:line.
func ParseClasses(file string, data []byte) ([]Class, error) {
	var doc struct {
		Classes yaml.Node `yaml:"classes"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []Class
	seen := map[string]int{}
	for _, n := range doc.Classes.Content {
		var c Class
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i]; k.Value {
			case "name", "cause", "remedy", "refs", "scenarios", "link_when_scored", "patterns", "against", "examples", "mooncake", "kind_of":
			default:
				return nil, fmt.Errorf("%s:%d: unknown key %q (name, cause, remedy, refs, scenarios, link_when_scored, patterns, against, examples, mooncake, kind_of)", file, k.Line, k.Value)
			}
		}
		if err := n.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n.Line, err)
		}
		if c.Name == "" {
			return nil, fmt.Errorf("%s:%d: a class without a name", file, n.Line)
		}
		if l, ok := seen[c.Name]; ok {
			return nil, fmt.Errorf("%s:%d: class %q already defined at line %d", file, n.Line, c.Name, l)
		}
		seen[c.Name] = n.Line
		c.where = fmt.Sprintf("%s:%d", file, n.Line)
		if !strings.Contains(c.Name, "/") && (c.Cause == "" || c.Remedy == "") {
			return nil, fmt.Errorf("%s:%d: class %q needs a cause and a remedy (only a catalog scenario's signature takes them from the scenario)", file, n.Line, c.Name)
		}
		if err := c.Mooncake.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: class %q: mooncake: %w", file, n.Line, c.Name, err)
		}
		// Line numbers of the patterns, for errors.
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if key != "patterns" && key != "against" {
				continue
			}
			ps := &c.Patterns
			if key == "against" {
				ps = &c.Against
			}
			for j, pn := range n.Content[i+1].Content {
				if j < len(*ps) {
					(*ps)[j].line = pn.Line
				}
			}
		}
		for _, ps := range [][]Pattern{c.Patterns, c.Against} {
			for j := range ps {
				re, err := regexp.Compile(ps[j].RE)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: class %q: %w", file, ps[j].line, c.Name, err)
				}
				if ps[j].Weight <= 0 {
					return nil, fmt.Errorf("%s:%d: class %q: pattern %q: weight must be positive", file, ps[j].line, c.Name, ps[j].RE)
				}
				ps[j].re = re
			}
		}
		c.indexTerms()
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no classes", file)
	}
	return out, nil
}

// Explains reports whether a cause named name is this class: the class
// itself, one of the catalog scenarios it links, or a class that is a
// kind of it.
func (c Class) Explains(name string) bool {
	return name == c.Name || slices.Contains(c.Scenarios, name) || slices.Contains(c.narrower, name)
}

// check: both ends parse as releases, since not after until.
func (r Range) check() error {
	var vs []mooncake.Version
	for _, s := range []string{r.Since, r.Until} {
		if s == "" {
			continue
		}
		v, err := mooncake.ParseVersion(s)
		if err != nil {
			return err
		}
		vs = append(vs, v)
	}
	if len(vs) == 2 && vs[0].Compare(vs[1]) > 0 {
		return fmt.Errorf("since %s is after until %s", r.Since, r.Until)
	}
	return nil
}

// InReleases reports whether a log of Mooncake release version (as given
// or stated; "" or unparsable: unknown) whose glog lines' source files
// exist in src can show the class's cause.
func (c Class) InReleases(version string, src Range) bool {
	if c.Mooncake.IsZero() {
		return true
	}
	if v, err := mooncake.ParseVersion(version); err == nil {
		return c.Mooncake.Contains(v.String())
	}
	return c.Mooncake.Overlaps(src)
}

// match returns the points a class earns on the log's lines and facts,
// the lines that earned them and the lines that argue against it.
func (c Class) match(lines []Line, facts []string) (points float64, evidence, against []string) {
	find := func(p Pattern) (string, bool) {
		for _, l := range lines {
			if p.re.MatchString(l.Text) {
				return l.Cite(), true
			}
		}
		for _, f := range facts {
			if p.re.MatchString(f) {
				return f, true
			}
		}
		return "", false
	}
	// A line several patterns match earns each weight and is cited once.
	for _, p := range c.Patterns {
		if s, ok := find(p); ok {
			points += p.Weight
			if !slices.Contains(evidence, s) {
				evidence = append(evidence, s)
			}
		}
	}
	for _, p := range c.Against {
		if s, ok := find(p); ok {
			points -= p.Weight
			if !slices.Contains(against, s) {
				against = append(against, s)
			}
		}
	}
	return points, evidence, against
}

// TelltaleWeight is the weight from which a pattern is a telltale: a
// line only this cause prints.
const TelltaleWeight = 5

// telltales are the log's lines that match the class's telltale patterns.
func (c Class) telltales(lines []Line) []Line {
	var out []Line
	for _, p := range c.Patterns {
		if p.Weight < TelltaleWeight {
			continue
		}
		for _, l := range lines {
			if p.re.MatchString(l.Text) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// Cite is the line as evidence: where Mooncake printed it, and what.
func (l Line) Cite() string {
	if l.Source != "" {
		return fmt.Sprintf("line %d (%s): %s", l.N, l.Source, short(l.Text, 160))
	}
	return fmt.Sprintf("line %d: %s", l.N, short(l.Text, 160))
}

func short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

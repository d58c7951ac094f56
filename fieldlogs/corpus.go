// Package fieldlogs is the field corpus: logs posted in public threads
// (Mooncake, SGLang, projects embedding Mooncake's store), each with the
// thread, the versions it states, the cause and fix the thread established
// and the cause class explain should name. A fixed third is held out: never
// tune explain on it (docs/FIELD.md).
package fieldlogs

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed cases/*.yaml
var files embed.FS

// Versions are the versions the thread states ("" when it does not).
type Versions struct {
	Mooncake string `yaml:"mooncake,omitempty"`
	SGLang   string `yaml:"sglang,omitempty"`
	Other    string `yaml:"other,omitempty"`
}

// Case is one field report.
type Case struct {
	ID       string   `yaml:"id"`
	URL      string   `yaml:"url"`
	Versions Versions `yaml:"versions"`
	// Cause and Fix are what the thread established, in our words.
	Cause string `yaml:"cause"`
	Fix   string `yaml:"fix"`
	// Confidence that the thread established the cause: high, medium, low.
	Confidence string `yaml:"confidence"`
	// Class is the cause class: a catalog scenario name or one of
	// explain's field classes.
	Class   string `yaml:"class"`
	Heldout bool   `yaml:"heldout"`
	// Batch is the collection round: 0 (omitted) for the first batch, 2
	// to 4, 7 to 12 for the blind held-out ones (collected without running
	// explain on them), 5, 6 and 13 to 20 for the tuning batches
	// (more causes to build worlds from); batches are
	// reported apart so a later batch leaves the earlier batches' numbers
	// as they were.
	Batch int `yaml:"batch,omitempty"`
	// Log is the excerpt as posted, trimmed to the relevant lines.
	Log string `yaml:"log"`
	// File is where the case came from (for errors).
	File string `yaml:"-"`
}

var (
	reID  = regexp.MustCompile(`^[a-z0-9][a-z0-9.\-]*$`)
	reURL = regexp.MustCompile(`^https://github\.com/[\w.\-]+/[\w.\-]+/(issues|pull|discussions)/\d+$`)
)

// MaxBatch is the latest collection round.
const MaxBatch = 20

// Tuning reports whether a collection round is tuning data as a whole (the
// fifth, sixth and thirteenth on); batches 2 to 4 and 7 to 12 are
// held out as a whole, and the first batch is split case by case.
func Tuning(batch int) bool {
	return batch == 5 || batch == 6 || batch >= 13
}

// Confidences are the valid confidence values, strongest first.
var Confidences = []string{"high", "medium", "low"}

// Load reads the embedded corpus, in file order.
func Load() ([]Case, error) {
	ents, err := files.ReadDir("cases")
	if err != nil {
		return nil, fmt.Errorf("field corpus: %w", err)
	}
	var cs []Case
	for _, e := range ents {
		name := path.Join("cases", e.Name())
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("field corpus: %w", err)
		}
		c, err := Parse("fieldlogs/"+name, b)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// Parse reads one case strictly (unknown keys are errors) and checks its
// fields; errors name file:line.
func Parse(file string, data []byte) (Case, error) {
	var c Case
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return c, fmt.Errorf("%s: %w", file, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %w", file, err)
	}
	c.File = file
	line := func(key string) int {
		if len(doc.Content) == 0 {
			return 1
		}
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i].Line
			}
		}
		return 1
	}
	bad := func(key, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s: %s", file, line(key), key, fmt.Sprintf(format, args...))
	}
	switch {
	case !reID.MatchString(c.ID):
		return c, bad("id", "%q: lower-case letters, digits, '.', '-'", c.ID)
	case !reURL.MatchString(c.URL):
		return c, bad("url", "%q is not a GitHub issue, pull request or discussion URL", c.URL)
	case strings.TrimSpace(c.Cause) == "":
		return c, bad("cause", "empty: say what the thread established (or that it established nothing)")
	case strings.TrimSpace(c.Fix) == "":
		return c, bad("fix", "empty: say the fix, or \"None stated.\"")
	case !slices.Contains(Confidences, c.Confidence):
		return c, bad("confidence", "%q: one of %s", c.Confidence, strings.Join(Confidences, ", "))
	case strings.TrimSpace(c.Class) == "":
		return c, bad("class", "empty: a catalog scenario name or an explain class")
	case strings.TrimSpace(c.Log) == "":
		return c, bad("log", "empty: the excerpt as posted")
	case c.Batch < 0 || c.Batch == 1 || c.Batch > MaxBatch:
		return c, bad("batch", "%d: omit it for the first batch, or 2..%d", c.Batch, MaxBatch)
	case c.Batch >= 2 && !Tuning(c.Batch) && !c.Heldout:
		return c, bad("batch", "batch %d is held out as a whole: set heldout: true", c.Batch)
	case Tuning(c.Batch) && c.Heldout:
		return c, bad("batch", "batch %d is tuning data as a whole: set heldout: false", c.Batch)
	}
	return c, nil
}

// Validate checks the corpus as a whole: ids unique, every class known
// (known answers for catalog scenario names and explain's classes), and at
// least a third held out.
func Validate(cs []Case, known func(class string) bool) error {
	var errs []error
	seen := map[string]string{}
	held := 0
	for _, c := range cs {
		if f, ok := seen[c.ID]; ok {
			errs = append(errs, fmt.Errorf("%s: id %q already used by %s", c.File, c.ID, f))
		}
		seen[c.ID] = c.File
		if known != nil && !known(c.Class) {
			errs = append(errs, fmt.Errorf("%s: class %q is neither a catalog scenario nor an explain class", c.File, c.Class))
		}
		if c.Heldout {
			held++
		}
	}
	if 3*held < len(cs) {
		errs = append(errs, fmt.Errorf("field corpus: %d of %d cases held out, want at least a third", held, len(cs)))
	}
	return errors.Join(errs...)
}

// Split returns the tuning and held-out parts.
func Split(cs []Case) (tuning, heldout []Case) {
	for _, c := range cs {
		if c.Heldout {
			heldout = append(heldout, c)
		} else {
			tuning = append(tuning, c)
		}
	}
	return tuning, heldout
}

package sourcecov

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Status is how much of a Mooncake text the model can print.
type Status string

const (
	// Covered: ≥ 80 % of the text's letters and digits are matched.
	Covered Status = "covered"
	// Partial: 40–80 %, almost always a sibling line sharing words (counted
	// as not printed).
	Partial Status = "partial"
	// None: < 40 %.
	None Status = "none"
)

// Thresholds of the survey.
const (
	CoveredAt = 0.8
	PartialAt = 0.4
)

// Classify maps a matched fraction to its status.
func Classify(frac float64) Status {
	switch {
	case frac >= CoveredAt:
		return Covered
	case frac >= PartialAt:
		return Partial
	}
	return None
}

// Model is the set of texts the model can print: its Go string literals.
type Model struct {
	all       string   // every literal, NUL separated: one Contains for "inside some literal"
	pieces    []string // literal pieces between % verbs, trimmed, ≥ 10 runes
	templates []template
}

// template is a Go format string with verbs: its pieces must all occur in a
// text, then each verb matches any value (up to 120 runes on one line).
type template struct {
	pieces []string // the non-blank pieces, as written
	re     *regexp.Regexp
}

// fmtVerb is a fmt verb with its flags, width and precision.
var fmtVerb = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z]`)

// minPiece is the length (in runes) of a Go literal piece that counts when
// found inside a Mooncake text: shorter ones ("timeout") match anywhere.
const minPiece = 10

// NewModel indexes the model's literals (duplicates are harmless).
func NewModel(literals []string) (*Model, error) {
	seen := map[string]bool{}
	var uniq []string
	for _, l := range literals {
		if !seen[l] {
			seen[l] = true
			uniq = append(uniq, l)
		}
	}
	m := &Model{all: strings.Join(uniq, "\x00")}
	seenPiece := map[string]bool{}
	seenRe := map[string]bool{}
	for _, l := range uniq {
		parts := fmtVerb.Split(l, -1)
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if utf8.RuneCountInString(p) >= minPiece && !seenPiece[p] {
				seenPiece[p] = true
				m.pieces = append(m.pieces, p)
			}
		}
		if len(parts) < 2 {
			continue
		}
		// A template needs some words of its own: at least 4 letters in
		// all, one piece with 3 (so "%s: %v" matches nothing).
		letters, worded := 0, false
		var quoted, nonBlank []string
		for _, p := range parts {
			n := countLetters(p)
			letters += n
			worded = worded || n >= 3
			quoted = append(quoted, regexp.QuoteMeta(p))
			if strings.TrimSpace(p) != "" {
				nonBlank = append(nonBlank, p)
			}
		}
		if letters < 4 || !worded {
			continue
		}
		expr := strings.Join(quoted, `[^\n]{0,120}?`)
		if seenRe[expr] {
			continue
		}
		seenRe[expr] = true
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("template from Go literal %q: %w", l, err)
		}
		m.templates = append(m.templates, template{pieces: nonBlank, re: re})
	}
	return m, nil
}

// Fraction is the share of a text's letters and digits that the model's
// literals match; ok is false for a text with fewer than 4 (nothing to
// compare: not counted). A letter is matched by
//   - a piece of the text (between values and "{}") of ≥ 4 letters/digits
//     found inside a Go literal,
//   - a Go format template whose verbs stand for any value, matched in it,
//   - a Go literal piece (between verbs) of ≥ 10 runes found inside it.
func (m *Model) Fraction(text string) (frac float64, ok bool) {
	total := countSig(text)
	if total < 4 {
		return 0, false
	}
	marked := make([]bool, len(text))
	mark := func(from, to int) {
		for k := from; k < to; k++ {
			marked[k] = true
		}
	}
	for _, piece := range strings.Split(text, ValueMark) {
		for _, sub := range strings.Split(piece, "{}") {
			s := strings.TrimSpace(sub)
			if countSig(s) >= 4 && strings.Contains(m.all, s) {
				at := strings.Index(text, s)
				mark(at, at+len(s))
			}
		}
	}
	for _, t := range m.templates {
		if !containsAll(text, t.pieces) {
			continue
		}
		for _, loc := range t.re.FindAllStringIndex(text, -1) {
			mark(loc[0], loc[1])
		}
	}
	for _, p := range m.pieces {
		if at := strings.Index(text, p); at >= 0 {
			mark(at, at+len(p))
		}
	}
	n := 0
	for k := 0; k < len(text); k++ {
		if marked[k] && isSig(text[k]) {
			n++
		}
	}
	return float64(n) / float64(total), true
}

func containsAll(s string, subs []string) bool {
	for _, p := range subs {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func isSig(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func countSig(s string) int {
	n := 0
	for k := 0; k < len(s); k++ {
		if isSig(s[k]) {
			n++
		}
	}
	return n
}

func countLetters(s string) int {
	n := 0
	for k := 0; k < len(s); k++ {
		if c := s[k]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			n++
		}
	}
	return n
}

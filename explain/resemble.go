package explain

import (
	"math"
	"regexp"
	"slices"
	"strings"
)

// When no class earns a point, a log still names things: a function, a
// transport, an errno. resemble ranks the classes whose known lines (their
// patterns, which come from the source's format strings) share the most
// of the log's rarer words, so that a no-fit answer still points an
// operator at the nearest causes. It never names a cause: the matches fill
// Nearest only, each marked Resembles, with the words it rests on.
//
// The class's prose (cause, remedy) is left out on purpose: it says what
// a thread established, in our words, and ranking on it would reward
// wording a log cannot know.

// minResemblance is the least score (BM25 over the classes' lines) a class
// needs, and minShared the fewest distinct words it must share: one
// common word ("transfer") is no resemblance.
const (
	minResemblance = 4.0
	minShared      = 2
)

var reWord = regexp.MustCompile(`[A-Za-z][A-Za-z_]+`)

// stopWords are words every class and most logs carry.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("the and for with from that this was are not but its has have had into than then when where which while can cannot does did any all each one per via use used using set get got also only their there they them out off our you your failed fail error errors line log logs mooncake warning info debug file self none true false") {
		m[w] = true
	}
	return m
}()

// words splits text into lower-case words of three letters or more,
// snake_case and CamelCase apart, a plural's s dropped.
func words(text string) []string {
	var out []string
	for _, w := range reWord.FindAllString(text, -1) {
		for _, p := range strings.Split(w, "_") {
			p = strings.ToLower(p)
			if len(p) < 3 || stopWords[p] {
				continue
			}
			out = append(out, strings.TrimSuffix(p, "s"))
		}
	}
	return out
}

// resemble returns up to n classes (not in skip) ranked by how much of the
// log's error lines and facts their patterns share, best first.
func resemble(cls []Class, lines []Line, facts []string, skip func(string) bool, n int) []Cause {
	query := map[string]bool{}
	if n <= 0 {
		return nil
	}
	for _, l := range lines {
		if errorLine(l) || raisedException.MatchString(l.Text) {
			for _, w := range words(l.Text) {
				query[w] = true
			}
		}
	}
	for _, f := range facts {
		if !strings.HasPrefix(f, "env ") && !strings.HasPrefix(f, "flag ") && !strings.HasPrefix(f, "gap ") {
			for _, w := range words(f) {
				query[w] = true
			}
		}
	}
	if len(query) == 0 {
		return nil
	}
	df := map[string]int{}
	total := 0
	for _, c := range cls {
		for w := range c.terms {
			df[w]++
		}
		total += c.nterms
	}
	nd := float64(len(cls))
	avg := float64(total) / nd
	type scored struct {
		c      Class
		score  float64
		shared []string
	}
	var ranked []scored
	for _, c := range cls {
		if skip(c.Name) || c.nterms == 0 {
			continue
		}
		s := scored{c: c}
		for w := range query {
			f := float64(c.terms[w])
			if f == 0 {
				continue
			}
			// BM25 (k1 1.2, b 0.75).
			idf := math.Log(1 + (nd-float64(df[w])+0.5)/(float64(df[w])+0.5))
			s.score += idf * f * 2.2 / (f + 1.2*(0.25+0.75*float64(c.nterms)/avg))
			s.shared = append(s.shared, w)
		}
		if s.score >= minResemblance && len(s.shared) >= minShared {
			slices.Sort(s.shared)
			ranked = append(ranked, s)
		}
	}
	slices.SortStableFunc(ranked, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(a.c.Name, b.c.Name)
	})
	var out []Cause
	for _, s := range ranked[:min(n, len(ranked))] {
		out = append(out, Cause{Kind: "class", Name: s.c.Name, Cause: s.c.Cause, Remedy: s.c.Remedy, Refs: s.c.Refs,
			Reproduce: s.c.Scenarios, Resembles: true,
			Evidence: []string{"no line of this cause's matched; the log shares words with its known lines: " + strings.Join(s.shared, ", ")}})
	}
	return out
}

// indexTerms counts the words of a class's name and patterns, once, when
// the class table is read (resemble's documents).
func (c *Class) indexTerms() {
	text := strings.ReplaceAll(c.Name, "-", " ")
	for _, p := range c.Patterns {
		text += " " + p.RE
	}
	ws := words(text)
	c.terms, c.nterms = map[string]int{}, len(ws)
	for _, w := range ws {
		c.terms[w]++
	}
}

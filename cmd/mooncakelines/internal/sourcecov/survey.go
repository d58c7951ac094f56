package sourcecov

import "strconv"

// Measured is a statement with its match.
type Measured struct {
	Statement
	Fraction float64
	Status   Status
}

// Measure extracts the counted statements of files (those of an area) and matches each
// against the model; statements whose text has fewer than 4 letters and
// digits (a CHECK with no message) are dropped, as the survey drops them.
func Measure(files []File, m *Model) []Measured {
	memo := map[string]Measured{}
	var out []Measured
	for _, f := range files {
		area := AreaOf(f.Path)
		if area == "" {
			continue
		}
		for _, st := range Extract(f.Path, f.Src) {
			st.Area = area
			r, seen := memo[st.Text]
			if !seen {
				frac, ok := m.Fraction(st.Text)
				r = Measured{Fraction: frac, Status: Classify(frac)}
				if !ok {
					r.Status = ""
				}
				memo[st.Text] = r
			}
			if r.Status == "" {
				continue
			}
			r.Statement = st
			out = append(out, r)
		}
	}
	return out
}

// Row is one line of the table: an area (or "all") at a tag.
type Row struct {
	Area string `json:"area"`
	// Statements and their statuses.
	Statements int `json:"statements"`
	StmtCov    int `json:"statements_covered"`
	StmtPart   int `json:"statements_partial"`
	StmtNone   int `json:"statements_none"`
	// Distinct texts (a text counted once however many statements print it).
	Texts       int `json:"texts"`
	TextCov     int `json:"texts_covered"`
	TextPartial int `json:"texts_partial"`
	// Core: the distinct texts not exotic and printed from at least one
	// file off the exotic list.
	Core        int `json:"core"`
	CoreCov     int `json:"core_covered"`
	CorePartial int `json:"core_partial"`
}

// Line is one distinct text of an area with where it is printed.
type Line struct {
	Area     string   `json:"area"`
	Text     string   `json:"text"` // Display form
	Kind     string   `json:"kind"` // of its first statement
	Status   Status   `json:"status"`
	Fraction float64  `json:"fraction"`
	Core     bool     `json:"core"`
	Where    []string `json:"where"` // path:line of each statement
}

// AllAreas is the Row.Area of the whole tag: its texts are distinct across
// areas (a text two areas print counts once).
const AllAreas = "all"

// Summarize is the table's row for sel (the statements of one area, or of
// all) and its distinct texts in order of first appearance.
func Summarize(area string, sel []Measured) (Row, []Line) {
	row := Row{Area: area, Statements: len(sel)}
	var texts []Line
	index := map[string]int{}
	for _, s := range sel {
		switch s.Status {
		case Covered:
			row.StmtCov++
		case Partial:
			row.StmtPart++
		default:
			row.StmtNone++
		}
		i, seen := index[s.Text]
		if !seen {
			i = len(texts)
			index[s.Text] = i
			texts = append(texts, Line{Area: area, Text: Display(s.Text), Kind: s.Kind, Status: s.Status,
				Fraction: s.Fraction, Core: !exotic.MatchString(s.Text)})
		}
		texts[i].Where = append(texts[i].Where, s.File+":"+strconv.Itoa(s.Line))
	}
	// A text is core when it names nothing exotic and some statement
	// printing it is in a file off the exotic list.
	coreFile := map[string]bool{}
	for _, s := range sel {
		if !exoticFile.MatchString(s.File) {
			coreFile[s.Text] = true
		}
	}
	for raw, j := range index {
		texts[j].Core = texts[j].Core && coreFile[raw]
	}
	for _, t := range texts {
		row.Texts++
		if t.Status == Covered {
			row.TextCov++
		} else if t.Status == Partial {
			row.TextPartial++
		}
		if t.Core {
			row.Core++
			if t.Status == Covered {
				row.CoreCov++
			} else if t.Status == Partial {
				row.CorePartial++
			}
		}
	}
	return row, texts
}

// Table is the rows of every area, then "all", and each area's texts.
func Table(ms []Measured) ([]Row, []Line) {
	var rows []Row
	var texts []Line
	for _, a := range AreaNames() {
		var sel []Measured
		for _, m := range ms {
			if m.Area == a {
				sel = append(sel, m)
			}
		}
		r, t := Summarize(a, sel)
		rows = append(rows, r)
		texts = append(texts, t...)
	}
	r, _ := Summarize(AllAreas, ms)
	return append(rows, r), texts
}

package sourcecov

import (
	"regexp"
	"strings"
	"unicode"
)

// Statement is one counted logging statement of Mooncake's source.
type Statement struct {
	File string // repository path
	Line int    // 1-based line of the macro
	Area string
	// Kind is ERROR, WARNING, FATAL, PERROR, PWARNING, PFATAL, LOG_ASSERT or CHECK.
	Kind string
	// Stmt is the statement from the macro to its ';', whitespace collapsed.
	Stmt string
	// Text is what it prints: its string literals in order, adjacent ones
	// joined, every other operand a runtime value (ValueMark).
	Text string
}

// ValueMark stands for a runtime value in a Text; Display shows it as «».
const ValueMark = "\x01"

// Display is a text as people read it: values as «», newlines escaped.
func Display(text string) string {
	return strings.NewReplacer(ValueMark, "«»", "\n", `\n`).Replace(text)
}

// logMacro is the survey's regex: DCHECK, CHECK_EQ, LOG_IF, LOG_EVERY_N,
// VLOG and LOG(INFO) do not match.
var logMacro = regexp.MustCompile(`\b(P?LOG\((ERROR|WARNING|FATAL)\)|LOG_ASSERT\(|CHECK\()`)

// cppLiteral is a C++ string literal (its body in group 1).
var cppLiteral = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`)

// Extract returns the counted statements of one source file (File and Line
// set, Area left to the caller).
func Extract(file, src string) []Statement {
	// As Python's text mode read them: universal newlines.
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	var out []Statement
	for _, m := range logMacro.FindAllStringSubmatchIndex(src, -1) {
		start := m[0]
		lineStart := strings.LastIndexByte(src[:start], '\n') + 1
		pre := src[lineStart:start]
		// Commented out (a line comment, a block comment's "* " line) or a
		// macro definition: not a statement.
		if t := strings.TrimSpace(pre); strings.Contains(pre, "//") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "#define") {
			continue
		}
		macro := src[m[2]:m[3]]
		var kind string
		switch {
		case m[4] >= 0:
			kind = src[m[4]:m[5]]
			if strings.HasPrefix(macro, "PLOG") {
				kind = "P" + kind
			}
		case strings.HasPrefix(macro, "LOG_ASSERT"):
			kind = "LOG_ASSERT"
		default:
			kind = "CHECK"
		}
		stmt := strings.Join(strings.Fields(statement(src, start)), " ")
		out = append(out, Statement{
			File: file,
			Line: strings.Count(src[:start], "\n") + 1,
			Kind: kind,
			Stmt: stmt,
			Text: TextOf(afterArgs(stmt)),
		})
	}
	return out
}

// afterArgs is a statement after its macro's arguments: what it streams.
// So a CHECK's condition (CHECK(s == "x")) is not part of its text.
func afterArgs(stmt string) string {
	open := strings.IndexByte(stmt, '(')
	if open < 0 {
		return stmt
	}
	depth := 0
	for i := open; i < len(stmt); i++ {
		switch c := stmt[i]; c {
		case '"', '\'':
			j := i + 1
			for j < len(stmt) && stmt[j] != c {
				if stmt[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return stmt[i+1:]
			}
		}
	}
	return ""
}

// statement is src from pos to the ';' that ends the statement outside
// literals and parentheses (or up to a '{' at that level: a macro used as
// a condition).
func statement(src string, pos int) string {
	depth := 0
	for i := pos; i < len(src); {
		switch c := src[i]; c {
		case '"', '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j += 2
				} else {
					j++
				}
			}
			i = j + 1
			continue
		case '(':
			depth++
		case ')':
			depth--
		case ';':
			if depth <= 0 {
				return src[pos : i+1]
			}
		case '{':
			if depth <= 0 {
				return src[pos:i]
			}
		}
		i++
	}
	return src[pos:]
}

// TextOf is what a (whitespace-collapsed) statement prints: its literals in
// order; a non-literal operand between two literals, or after the last one,
// is a ValueMark. What precedes the first literal is not part of it.
func TextOf(stmt string) string {
	lits := cppLiteral.FindAllStringSubmatchIndex(stmt, -1)
	var b strings.Builder
	for i, m := range lits {
		if i > 0 && !onlyRunes(stmt[lits[i-1][1]:m[0]], "<") {
			b.WriteString(ValueMark)
		}
		b.WriteString(unescape(stmt[m[2]:m[3]]))
	}
	if len(lits) > 0 && !onlyRunes(stmt[lits[len(lits)-1][1]:], ";)") {
		b.WriteString(ValueMark)
	}
	return b.String()
}

// onlyRunes says whether s holds nothing but white space and runes of set.
func onlyRunes(s, set string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !strings.ContainsRune(set, r) {
			return false
		}
	}
	return true
}

// unescape undoes the escapes that matter for comparing texts, in the
// survey's order (so `\\n` reads as a backslash and a newline, as there).
func unescape(s string) string {
	for _, r := range [][2]string{{`\"`, `"`}, {`\n`, "\n"}, {`\t`, "\t"}, {`\\`, `\`}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// Package suggest finds the intended word behind a typo (a did-you-mean)
// for the loader's and the fault registry's error messages.
package suggest

import "strings"

// Closest returns the option closest to s by edit distance, or "" when
// none is close enough to be the intended one.
func Closest(s string, options []string) string {
	best, bestD := "", -1
	for _, o := range options {
		d := distance(strings.ToLower(s), strings.ToLower(o))
		if bestD < 0 || d < bestD {
			best, bestD = o, d
		}
	}
	// Close enough: at most a third of the longer word, and at least one edit allowed.
	if bestD < 0 || bestD > max(1, max(len(s), len(best))/3) {
		return ""
	}
	return best
}

// DidYouMean is ` (did you mean "x"?)` or "".
func DidYouMean(s string, options []string) string {
	if m := Closest(s, options); m != "" && m != s {
		return ` (did you mean "` + m + `"?)`
	}
	return ""
}

// distance is the optimal string alignment distance (bytes; names are
// ASCII): Levenshtein plus the swap of two neighbours as one edit, the
// commonest typo ("inti" for "init").
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

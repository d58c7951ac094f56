package scenarios

import "strings"

// Suggest returns the option closest to s by edit distance, or "" when
// none is close enough to be the intended one (a did-you-mean).
func Suggest(s string, options []string) string {
	best, bestD := "", -1
	for _, o := range options {
		d := editDistance(strings.ToLower(s), strings.ToLower(o))
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

// didYouMean is ` (did you mean "x"?)` or "".
func didYouMean(s string, options []string) string {
	if m := Suggest(s, options); m != "" && m != s {
		return ` (did you mean "` + m + `"?)`
	}
	return ""
}

// editDistance is the Levenshtein distance (bytes; names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

package scenarios

import "github.com/mooncake-faultlab/faultlab/suggest"

// Suggest returns the option closest to s, or "" when none is close
// enough to be the intended one (a did-you-mean).
func Suggest(s string, options []string) string { return suggest.Closest(s, options) }

// didYouMean is ` (did you mean "x"?)` or "".
func didYouMean(s string, options []string) string { return suggest.DidYouMean(s, options) }

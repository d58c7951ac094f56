package explain

// Ranked is every cause the diagnosis scored, best first.
func Ranked(d Diagnosis) []Cause { return d.ranked }

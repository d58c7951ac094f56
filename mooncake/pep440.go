package mooncake

import (
	"fmt"
	"strconv"
	"strings"
)

// pipSyntax reports whether a constraint uses pip's (PEP 440) specifier
// syntax beyond the single comparisons Match handles itself: several
// clauses (">=0.3.9,<0.3.12"), compatible release ("~=0.3.9"), exclusion
// ("!=0.3.10") or a wildcard ("==0.3.*").
func pipSyntax(s string) bool {
	return strings.Contains(s, ",") || strings.HasPrefix(s, "~=") || strings.HasPrefix(s, "!=") || strings.HasSuffix(s, ".*")
}

// matchPip matches v against comma-separated PEP 440 clauses, all of
// which must hold. Ordered comparisons are faultlab's (0.3.9.post1 >
// 0.3.9, also for >0.3.9, where PEP 440 would exclude post-releases).
func matchPip(c string, v Version) (bool, error) {
	ok := true
	for _, cl := range strings.Split(c, ",") {
		cl = strings.TrimSpace(cl)
		if cl == "" {
			return false, fmt.Errorf("version constraint %q: empty clause", c)
		}
		m, err := matchClause(cl, v)
		if err != nil {
			return false, fmt.Errorf("version constraint %q: %w", c, err)
		}
		ok = ok && m
	}
	return ok, nil
}

func matchClause(cl string, v Version) (bool, error) {
	switch {
	case strings.HasPrefix(cl, "~="):
		// ~=0.3.9 is >=0.3.9 and ==0.3.*: the last release number may grow.
		w, err := ParseVersion(strings.TrimSpace(cl[2:]))
		if err != nil {
			return false, err
		}
		return v.Compare(w) >= 0 && v.Major == w.Major && v.Minor == w.Minor, nil
	case strings.HasSuffix(cl, ".*"):
		neg := strings.HasPrefix(cl, "!=")
		if !neg && !strings.HasPrefix(cl, "==") {
			return false, fmt.Errorf("%q: a wildcard needs == or !=", cl)
		}
		p := cl[2:]
		pre := strings.Split(strings.TrimSuffix(strings.TrimSpace(p), ".*"), ".")
		rel := []int{v.Major, v.Minor, v.Patch}
		if len(pre) > 3 {
			return false, fmt.Errorf("%q: at most MAJOR.MINOR.PATCH before .*", cl)
		}
		match := true
		for i, s := range pre {
			n, err := strconv.Atoi(s)
			if err != nil {
				return false, fmt.Errorf("%q: %q is not a number", cl, s)
			}
			match = match && rel[i] == n
		}
		return match != neg, nil
	case strings.HasPrefix(cl, "!="):
		w, err := ParseVersion(strings.TrimSpace(cl[2:]))
		if err != nil {
			return false, err
		}
		return v != w, nil
	}
	return Constraint(cl).Match(v)
}

package scenarios

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// SourceOf returns the YAML text a scenario was loaded from: the embedded
// file for catalog scenarios, the file on disk otherwise.
func SourceOf(sc *Scenario) ([]byte, error) {
	if strings.HasPrefix(sc.Source, "catalog/") {
		if b, err := fs.ReadFile(catalogFS, sc.Source); err == nil {
			return b, nil
		}
	}
	b, err := os.ReadFile(sc.Source)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	return b, nil
}

// Names lists the scenarios' names.
func Names(scs []*Scenario) []string {
	out := make([]string, len(scs))
	for i, sc := range scs {
		out[i] = sc.Name
	}
	return out
}

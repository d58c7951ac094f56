package scenarios

import (
	"embed"
	"fmt"
	"os"
	"strings"
)

// catalogFS is the built-in catalog, embedded so the binary works from any
// directory.
//
//go:embed catalog
var catalogFS embed.FS

// Catalog loads the embedded catalog.
func Catalog() ([]*Scenario, error) { return LoadFS(catalogFS, "catalog") }

// Resolve finds scenarios by name in the catalog, or loads them from disk
// when an argument is a path to a YAML file or a directory.
func Resolve(catalog []*Scenario, args []string) ([]*Scenario, error) {
	var out []*Scenario
	for _, a := range args {
		if st, err := os.Stat(a); err == nil {
			if st.IsDir() {
				scs, err := LoadDir(a)
				if err != nil {
					return nil, err
				}
				out = append(out, scs...)
				continue
			}
			sc, err := Load(a)
			if err != nil {
				return nil, err
			}
			out = append(out, sc)
			continue
		}
		if strings.HasSuffix(a, ".yaml") || strings.HasSuffix(a, ".yml") {
			return nil, fmt.Errorf("scenario file %s: no such file", a)
		}
		var found []*Scenario
		for _, sc := range catalog {
			// A name or a name prefix ending in "/" ("setup/") selects.
			if sc.Name == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(sc.Name, a)) {
				found = append(found, sc)
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no scenario named %q in the catalog%s (see `faultlab list`), and no such file", a, didYouMean(a, Names(catalog)))
		}
		out = append(out, found...)
	}
	return out, nil
}

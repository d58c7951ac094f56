package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/spf13/cobra"
)

// catalogFlags select where scenarios come from.
type catalogFlags struct {
	dir    string
	labels []string
}

func (c *catalogFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.dir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	cmd.Flags().StringSliceVar(&c.labels, "label", nil, "only scenarios with this label (repeatable; all must match; !L excludes; an unknown label is a usage error)")
}

func (c *catalogFlags) load() ([]*scenarios.Scenario, error) {
	if c.dir != "" {
		if _, err := os.Stat(c.dir); err != nil {
			return nil, fmt.Errorf("catalog %s: %w", c.dir, err)
		}
		return scenarios.LoadDir(c.dir)
	}
	return scenarios.Catalog()
}

// filter keeps the scenarios of scs that match every --label. A label
// that no scenario of catalog or scs has, or a selection left empty, is
// the user's mistake (exit 2 in list and run alike), naming the labels
// there are. An exclusion (!L) of an unknown label is accepted: CI files
// exclude defensively (the nightly's '!open-harness' on a corpus that may
// have none).
func (c *catalogFlags) filter(catalog, scs []*scenarios.Scenario) ([]*scenarios.Scenario, error) {
	known := map[string]bool{}
	for _, sc := range append(slices.Clip(catalog), scs...) {
		for _, l := range sc.Labels {
			known[l] = true
		}
	}
	for _, name := range c.labels {
		if strings.HasPrefix(name, "!") {
			continue
		}
		if !known[name] {
			names := slices.Sorted(maps.Keys(known))
			return nil, usageErr(fmt.Errorf("--label %s: no scenario has label %q%s; known labels: %s", name, name, suggestion(name, names), strings.Join(names, ", ")))
		}
	}
	var out []*scenarios.Scenario
	for _, sc := range scs {
		if matchLabels(sc, c.labels) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 && len(c.labels) > 0 {
		return nil, usageErr(fmt.Errorf("no scenario selected: none has every label of --label %s", strings.Join(c.labels, ",")))
	}
	return out, nil
}

func matchLabels(sc *scenarios.Scenario, labels []string) bool {
	for _, l := range labels {
		if neg, ok := strings.CutPrefix(l, "!"); ok {
			if sc.HasLabel(neg) {
				return false
			}
		} else if !sc.HasLabel(l) {
			return false
		}
	}
	return true
}

// listEntry is one scenario in `faultlab list --json`.
type listEntry struct {
	Name     string   `json:"name"`
	Summary  string   `json:"summary"`
	Labels   []string `json:"labels"`
	Engines  []string `json:"engines"`
	Versions []string `json:"versions"`
	Refs     []string `json:"refs"`
	Source   string   `json:"source"`
	Faults   []string `json:"faults"`
	Steps    []string `json:"steps"`
}

func listCmd() *cobra.Command {
	var cf catalogFlags
	var asJSON, faultKinds, knobs bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the scenario catalog (or, with --faults, the fault kinds and link modes; with --knobs, the knob table)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if knobs {
				return printKnobs(cmd.OutOrStdout(), asJSON)
			}
			if faultKinds {
				_, err := fmt.Fprint(cmd.OutOrStdout(), faults.Markdown())
				return err
			}
			scs, err := cf.load()
			if err != nil {
				return err
			}
			if scs, err = cf.filter(scs, scs); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				entries := make([]listEntry, 0, len(scs))
				for _, sc := range scs {
					vs, _ := sc.Versions("")
					e := listEntry{Name: sc.Name, Summary: strings.TrimSpace(sc.Summary), Labels: nonNil(sc.Labels), Engines: sc.Engines,
						Versions: vs, Refs: nonNil(sc.Refs), Source: sc.Source, Faults: []string{}, Steps: []string{}}
					for _, f := range sc.Faults {
						at := "at " + f.At.D().String()
						if f.After != "" {
							at = f.After + " + " + f.At.D().String()
						}
						e.Faults = append(e.Faults, fmt.Sprintf("%s: %s", at, f.Fault()))
					}
					for _, s := range sc.Steps {
						e.Steps = append(e.Steps, s.String())
					}
					entries = append(entries, e)
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SCENARIO\tVERSIONS\tLABELS\tSUMMARY")
			for _, sc := range scs {
				vs, _ := sc.Versions("")
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sc.Name, strings.Join(vs, ","), strings.Join(sc.Labels, ","), short(sc.Summary, 70))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(out, "%d scenarios\n", len(scs))
			return nil
		},
	}
	cf.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalog as JSON")
	cmd.Flags().BoolVar(&knobs, "knobs", false, "print the knob table: every env variable and flag Mooncake reads, how each release parses it, what an invalid value does (--json for JSON)")
	cmd.Flags().BoolVar(&faultKinds, "faults", false, "print the registered fault kinds, link modes and process actions (Markdown tables)")
	return cmd
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// printKnobs is `faultlab list --knobs`: the knob table (mooncake.Knobs),
// one line per knob and release range, or the table as JSON.
func printKnobs(out io.Writer, asJSON bool) error {
	if asJSON {
		// Each knob as the table holds it, with the measured releases whose
		// wheel does not hold it (the knob surface, docs/KNOBS.md).
		type knobJSON struct {
			mooncake.Knob
			NotInWheels []string `json:"not_in_wheels,omitempty"`
		}
		ks := make([]knobJSON, len(mooncake.Knobs))
		for i, k := range mooncake.Knobs {
			ks[i] = knobJSON{k, k.NotInWheels()}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(ks)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KNOB\tSCOPE\tREADER\tTYPE\tRELEASES\tPARSE\tDEFAULT\tRANGE\tMODELLED\tINVALID / BOUNDARY")
	for _, k := range mooncake.Knobs {
		for i, r := range k.Rules {
			from := r.From
			if i == 0 {
				from = k.Since
			}
			until := k.Until
			if i+1 < len(k.Rules) {
				until = k.Rules[i+1].From
			}
			rel := "all"
			switch {
			case from != "" && until != "":
				rel = from + " .. <" + until
			case from != "":
				rel = ">=" + from
			case until != "":
				rel = "<" + until
			}
			rng := "-"
			if r.Min != 0 || r.Max != 0 {
				rng = fmt.Sprintf("%d..%d", r.Min, r.Max)
				if r.ExcludeHi != 0 {
					rng += fmt.Sprintf(" not %d..%d", r.ExcludeLo, r.ExcludeHi)
				}
			}
			name, scope, reader, typ, modelled := k.Name, string(k.Scope), k.Reader, k.Type, map[bool]string{true: "yes", false: "no"}[k.Modelled]
			if i > 0 {
				name, scope, reader, typ, modelled = "", "", "", "", ""
			}
			def := orDash(r.Default)
			if r.DefaultHost != "" {
				def = "host: " + r.DefaultHost
			}
			invalid := strings.ReplaceAll(r.Invalid, "\t", " ")
			if not := k.NotInWheels(); i == 0 && len(not) > 0 {
				// the knob surface (docs/KNOBS.md): these wheels do not read it
				invalid = "not in the wheel of " + strings.Join(not, ", ") + "; " + invalid
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s [%s]\n", name, scope, reader, typ, rel, r.Parse,
				def, rng, modelled, invalid, r.Source)
		}
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

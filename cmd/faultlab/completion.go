package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sglang"
)

// Shell completion (cobra's `completion` command, `__complete` underneath)
// of what the harness knows: scenario names and their prefixes, labels,
// engines, Mooncake and SGLang versions. Wired per command by
// addCompletions after the tree is built, for the flags each command has.

type completeFunc = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective)

// addCompletions registers completions on c and its subcommands.
func addCompletions(c *cobra.Command) {
	flags := map[string]completeFunc{
		"label":            completeLabels,
		"engine":           completeList(engine.Names),
		"mooncake-version": completeFixed(func() []string { return mooncake.Versions }),
		"sglang-version":   completeFixed(sglangVersions),
		"sglang":           completeList(func() []string { return []string{sglang.ModelSide, realengine.SGLangSide} }),
		"progress":         completeFixed(func() []string { return progressModes }),
		"scenario":         completeScenarioNames(false),
	}
	for name, fn := range flags {
		if c.Flags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, fn) // fails only when registered twice
		}
	}
	switch c.Name() {
	case "run":
		c.ValidArgsFunction = completeScenarioNames(true)
	case "show":
		c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 { // show takes one name
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeScenarioNames(false)(cmd, args, toComplete)
		}
	}
	for _, s := range c.Commands() {
		addCompletions(s)
	}
}

// completeScenarioNames offers the catalog's categories ("setup/", no
// space after: the name follows), then, once a "/" is typed, the names in
// it with their summaries; with paths, the shell completes file names too
// (run takes YAML files and directories).
func completeScenarioNames(paths bool) completeFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		dir := cobra.ShellCompDirectiveNoFileComp
		if paths {
			dir = cobra.ShellCompDirectiveDefault
		}
		scs, err := catalogFor(cmd)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []string
		for _, sc := range scs {
			if !strings.HasPrefix(sc.Name, toComplete) {
				continue
			}
			cat, _, ok := strings.Cut(sc.Name, "/")
			switch {
			case ok && !strings.Contains(toComplete, "/"):
				if !slices.Contains(out, cat+"/") {
					out = append(out, cat+"/")
					dir |= cobra.ShellCompDirectiveNoSpace
				}
			default:
				out = append(out, sc.Name+"\t"+short(sc.Summary, 60))
			}
		}
		return out, dir
	}
}

// completeLabels offers every label of the catalog; after "!" the same
// as exclusions.
func completeLabels(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	scs, err := catalogFor(cmd)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	neg := ""
	if strings.HasPrefix(toComplete, "!") {
		neg = "!"
	}
	var out []string
	for _, sc := range scs {
		for _, l := range sc.Labels {
			if !slices.Contains(out, neg+l) && strings.HasPrefix(neg+l, toComplete) {
				out = append(out, neg+l)
			}
		}
	}
	slices.Sort(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// catalogFor is the catalog the command would load (its --catalog, if it
// has one and it is set).
func catalogFor(cmd *cobra.Command) ([]*scenarios.Scenario, error) {
	cf := catalogFlags{}
	if f := cmd.Flags().Lookup("catalog"); f != nil {
		cf.dir = f.Value.String()
	}
	return cf.load()
}

// completeFixed offers the values with toComplete as prefix.
func completeFixed(values func() []string) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, v := range values() {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeList completes the last item of a comma-separated list
// ("sim,f" → "sim,fake"), never one already given.
func completeList(values func() []string) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		head, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			head, last = toComplete[:i+1], toComplete[i+1:]
		}
		given := strings.Split(head, ",")
		var out []string
		for _, v := range values() {
			if strings.HasPrefix(v, last) && !slices.Contains(given, v) {
				out = append(out, head+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// sglangVersions: the releases the model follows and those real installs.
func sglangVersions() []string {
	out := append(slices.Clone(sglang.NamedVersions), sglang.Versions...)
	for _, v := range realengine.SGLangVersions() {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

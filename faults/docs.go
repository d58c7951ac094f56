package faults

import (
	"fmt"
	"slices"
	"strings"
)

// Markdown is the registry as the docs tables: the kinds with their
// fields, the link modes with their fields, toxiproxy toxic and what
// heals them, the process actions. docs/SCENARIOS.md embeds it between
// <!-- faults:begin --> and <!-- faults:end --> (a test keeps it true);
// `faultlab list --faults` prints it.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| kind | fields | meaning |\n|---|---|---|\n")
	for _, k := range Kinds() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Kind(), fieldList(append(k.Fields(), paramDocs(k.Params(Fault{Kind: k.Kind()}))...)), k.Doc())
	}
	b.WriteString("\n| link mode | fields | meaning | toxiproxy | healed by |\n|---|---|---|---|---|\n")
	for _, m := range Modes() {
		typ, attrs, ok := m.Toxic(Fault{Mode: m.Name()})
		toxic, heal := "none: fake and real skip the run", "—"
		if m.StopsProxy() {
			toxic, heal = "proxy stopped", "proxy started"
		}
		if ok {
			keys := make([]string, 0, len(attrs))
			for k := range attrs {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			toxic = fmt.Sprintf("`%s` (%s)", typ, strings.Join(keys, ", "))
			heal = "toxic removed"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", m.Name(), fieldList(paramDocs(m.Params())), m.Doc(), toxic, heal)
	}
	actionTable(&b, "process action", ProcessActions)
	actionTable(&b, "container action", ContainerActions)
	return b.String()
}

func actionTable(b *strings.Builder, title string, actions []Action) {
	fmt.Fprintf(b, "\n| %s | meaning | undone by (at `at + for`) |\n|---|---|---|\n", title)
	for _, a := range actions {
		undo := "—"
		if a.Undo != "" {
			undo = "`" + a.Undo + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", a.Name, a.Doc, undo)
	}
}

func fieldList(fs []Field) string {
	if len(fs) == 0 {
		return "—"
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("`%s`: %s", f.Name, strings.ReplaceAll(f.Doc, "|", `\|`)))
	}
	return strings.Join(parts, "; ")
}

// paramDocs are a params struct's fields for the tables.
func paramDocs(params any) []Field {
	var out []Field
	for _, p := range ParamFields(params) {
		out = append(out, Field{p.Name, p.Doc})
	}
	return out
}

// Command mooncakelines measures which of Mooncake's error and warning
// lines faultlab's model can print, at a tag of Mooncake's source: the
// place to look before writing a world (docs/CONTRIBUTING.md).
//
//	go run ./cmd/mooncakelines -mooncake /path/to/Mooncake(.git) -tag v0.3.12.post1 [-core] [-uncovered] [-unexplained] [-json]
//
// It reads Mooncake's files with git (ls-tree, cat-file) from the directory
// given, extracts the texts of LOG(ERROR|WARNING|FATAL), PLOG, LOG_ASSERT and
// CHECK statements per area, matches them against the Go string literals of
// models/, sim/, fakeengine/ and mooncake/ (run it from faultlab's root, or
// pass -faultlab) and prints per area the statements and distinct texts the
// model covers (≥ 80 % of the text's letters and digits matched) or only
// partly (40–80 %, counted as not printed), with the core subset. With
// -uncovered it lists the texts not covered, with file:line at the tag.
// With -unexplained it feeds each text, as one glog line, to faultlab's
// explain and counts per area those it names a cause for; it lists those
// it names none for (the core ones with -core): the sweep's work list
// (docs/CONTRIBUTING.md, "Add a cause class").
// Nothing of Mooncake's source is written anywhere.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mooncake-faultlab/faultlab/cmd/mooncakelines/internal/sourcecov"
)

type options struct {
	mooncake  string
	tags      []string
	faultlab  string
	core      bool
	uncovered bool
	// unexplained: measure and list the texts explain names no cause for.
	unexplained bool
	json        bool
}

// result is one tag's measurement (the -json form).
type result struct {
	Tag       string           `json:"tag"`
	Rows      []sourcecov.Row  `json:"rows"`
	Uncovered []sourcecov.Line `json:"uncovered,omitempty"`
	// Explained: per area, the distinct texts explain names a cause for
	// (-unexplained); Unexplained the texts it names none for.
	Explained   map[string]int   `json:"explained,omitempty"`
	Unexplained []sourcecov.Line `json:"unexplained,omitempty"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "mooncakelines:", err)
		}
		os.Exit(2)
	}
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mooncakelines:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mooncakelines", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.mooncake, "mooncake", "", "Mooncake's git directory (a clone, bare repository or mirror)")
	tags := fs.String("tag", "", "tag or commit to read, or several, comma separated (v0.3.9,v0.3.12.post1)")
	fs.StringVar(&o.faultlab, "faultlab", ".", "faultlab's repository root (its models/, sim/, fakeengine/, mooncake/)")
	fs.BoolVar(&o.core, "core", false, "list only the core texts (no NoF/CXL/Ascend/GPU/HA/tensor/… lines): of those not covered (implies -uncovered), or with -unexplained of those explain names no cause for")
	fs.BoolVar(&o.uncovered, "uncovered", false, "list the texts the model does not print (none and partial), with file:line")
	fs.BoolVar(&o.unexplained, "unexplained", false, "feed each text as one glog line to faultlab explain: per area how many it names a cause for, and list those it names none for (the core ones with -core)")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.mooncake == "" || *tags == "" {
		fs.Usage()
		return o, errors.New("-mooncake and -tag are required")
	}
	o.uncovered = o.uncovered || (o.core && !o.unexplained)
	for _, t := range strings.Split(*tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.tags = append(o.tags, t)
		}
	}
	return o, nil
}

func run(ctx context.Context, o options, w io.Writer) error {
	lits, nfiles, err := sourcecov.ModelLiterals(o.faultlab)
	if err != nil {
		return err
	}
	model, err := sourcecov.NewModel(lits)
	if err != nil {
		return err
	}
	var ex *explainer
	if o.unexplained {
		if ex, err = newExplainer(ctx); err != nil {
			return err
		}
	}
	var results []result
	for _, tag := range o.tags {
		files, err := sourcecov.ReadTag(ctx, o.mooncake, tag)
		if err != nil {
			return err
		}
		rows, lines := sourcecov.Table(sourcecov.Measure(files, model))
		r := result{Tag: tag, Rows: rows}
		if o.uncovered {
			r.Uncovered = uncovered(lines, o.core)
		}
		if ex != nil {
			names, err := ex.causes(ctx, tag, lines)
			if err != nil {
				return err
			}
			r.Explained = map[string]int{}
			var none []sourcecov.Line
			for i, l := range lines {
				if names[i] != "" {
					r.Explained[l.Area]++
					r.Explained[sourcecov.AllAreas]++
				} else {
					none = append(none, l)
				}
			}
			r.Unexplained = sortByPlace(none, o.core)
		}
		results = append(results, r)
	}
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	fmt.Fprintf(w, "Mooncake's error/warning lines the model can print (%d Go files of faultlab's %s; covered ≥ %.0f %%, partial ≥ %.0f %% of a text's letters and digits)\n",
		nfiles, strings.Join(sourcecov.ModelDirs, "/, ")+"/", 100*sourcecov.CoveredAt, 100*sourcecov.PartialAt)
	for _, r := range results {
		fmt.Fprintf(w, "\n%s\n", r.Tag)
		printRows(w, r.Rows)
		if o.uncovered {
			printUncovered(w, r.Uncovered, o.core, "uncovered")
		}
		if ex != nil {
			printExplained(w, r)
			printUncovered(w, r.Unexplained, o.core, "unexplained")
		}
	}
	return nil
}

// uncovered keeps the texts not covered (the core ones with core), by file
// and line of their first statement.
func uncovered(lines []sourcecov.Line, core bool) []sourcecov.Line {
	var out []sourcecov.Line
	for _, l := range lines {
		if l.Status != sourcecov.Covered {
			out = append(out, l)
		}
	}
	return sortByPlace(out, core)
}

// sortByPlace keeps the lines (the core ones with core) by area, file and
// line of their first statement.
func sortByPlace(lines []sourcecov.Line, core bool) []sourcecov.Line {
	var out []sourcecov.Line
	for _, l := range lines {
		if !core || l.Core {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b sourcecov.Line) int {
		if c := cmp.Compare(slices.Index(sourcecov.AreaNames(), a.Area), slices.Index(sourcecov.AreaNames(), b.Area)); c != 0 {
			return c
		}
		fa, la := splitWhere(a.Where[0])
		fb, lb := splitWhere(b.Where[0])
		return cmp.Or(cmp.Compare(fa, fb), cmp.Compare(la, lb))
	})
	return out
}

// splitWhere splits "path:line" (Line.Where) for sorting.
func splitWhere(w string) (string, int) {
	i := strings.LastIndexByte(w, ':')
	n, _ := strconv.Atoi(w[i+1:]) // always a number: written by sourcecov
	return w[:i], n
}

func pct(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", float64(100*a)/float64(b))
}

func printRows(w io.Writer, rows []sourcecov.Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Columns right-aligned; the area names padded to one width, left-aligned.
	fmt.Fprintf(tw, "%-12s\t", "area")
	fmt.Fprintln(tw, "stmts\tcovered\tpartial\tnone\tstmt cov\ttexts\tcovered\tpartial\ttext cov\tcore texts\tcovered\tpartial\tcore cov\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%-12s\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%s\t\n", r.Area,
			r.Statements, r.StmtCov, r.StmtPart, r.StmtNone, pct(r.StmtCov, r.Statements),
			r.Texts, r.TextCov, r.TextPartial, pct(r.TextCov, r.Texts),
			r.Core, r.CoreCov, r.CorePartial, pct(r.CoreCov, r.Core))
	}
	tw.Flush()
}

// printExplained is the -unexplained table: per area, the distinct texts
// and those explain names a cause for.
func printExplained(w io.Writer, r result) {
	fmt.Fprintln(w, "\nexplain, one glog line per text:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-12s\ttexts\tnamed\tshare\t\n", "area")
	for _, row := range r.Rows {
		n := r.Explained[row.Area]
		fmt.Fprintf(tw, "%-12s\t%d\t%d\t%s\t\n", row.Area, row.Texts, n, pct(n, row.Texts))
	}
	tw.Flush()
}

func printUncovered(w io.Writer, lines []sourcecov.Line, core bool, what string) {
	what += " texts"
	if core {
		what = strings.Replace(what, " texts", " core texts", 1)
	}
	area := ""
	for _, l := range lines {
		if l.Area != area {
			area = l.Area
			n := 0
			for _, m := range lines {
				if m.Area == area {
					n++
				}
			}
			fmt.Fprintf(w, "\n%s: %d %s (status, matched share, level, first file:line, other statements, text)\n", area, n, what)
		}
		more := ""
		if len(l.Where) > 1 {
			more = fmt.Sprintf(" (+%d)", len(l.Where)-1)
		}
		fmt.Fprintf(w, "  %-7s %3.0f%% %-10s %s%s  %s\n", l.Status, 100*l.Fraction, l.Kind, l.Where[0], more, l.Text)
	}
}

// Command faultlab runs Mooncake × SGLang fault scenarios on the sim, fake
// and real engines: list the catalog, run scenarios, replay a run by seed,
// explain a field log.
package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes, documented in `faultlab --help` and the README.
const (
	exitOK      = 0 // every run passed
	exitFail    = 1 // a scenario failed (an expectation was not met)
	exitUsage   = 2 // bad flag, argument, scenario file or report
	exitHarness = 3 // a harness error, or interrupted (SIGINT/SIGTERM)
	exitNothing = 4 // nothing ran: every run was skipped
)

const exitCodesHelp = `Exit status:
  0  every run passed
  1  a scenario failed (an expectation was not met)
  2  usage error: bad flag or argument, scenario file or report that does not load
  3  harness error (a run's verdict is error, an engine cannot run) or interrupted (SIGINT, SIGTERM)
  4  nothing ran: every selected run was skipped`

// The other commands' exit statuses (same codes, their own meaning).
const (
	replayExitHelp = `Exit status:
  0  the replay matches the report (sim: trace hash; fake, real: verdict, codes, exception, death)
  1  it differs
  2  usage error: bad flag, a report that does not load or has no such result
  3  harness error, or interrupted (SIGINT, SIGTERM)
  4  the result was a skip: nothing to replay`
	explainExitHelp = `Exit status:
  0  at least one cause fits the log
  2  usage error: bad flag or argument, a log that cannot be read
  3  harness error
  4  no cause fits the log (the nearest are listed)`
	newExitHelp = `Exit status:
  0  the scenario was written (its run on the model ends in the log's error)
  1  nothing written: no draft reproduced the log's error (what did not is printed)
  2  usage error: bad flag or argument, a log that cannot be read
  3  harness error`
)

// exitError carries an exit code; its message (if any) is printed once.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as the user's mistake (exit 2).
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitUsage, err: err}
}

// silent exits with code without a message: the output already said why.
func silent(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// errVerdict is the silent exit of a run with a failed scenario.
var errVerdict = silent(exitFail)

// exitCode maps an Execute error to the process status: unclassified
// errors are the harness's.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitHarness
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "faultlab",
		Short:         "Deterministic simulation and fault injection for Mooncake as SGLang HiCache uses it",
		Long:          "Deterministic simulation and fault injection for Mooncake as SGLang HiCache uses it.\n\n" + exitCodesHelp,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Unknown commands get a did-you-mean (legacyArgs).
		SuggestionsMinimumDistance: 2,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	// Flag and argument mistakes are usage errors (exit 2) everywhere.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	root.AddCommand(listCmd(), runCmd(), replayCmd(), installCmd(), serveCmd(), explainCmd(), newCmd(), showCmd(), schemaCmd(), exploreCmd(), mergeCmd(), imagesCmd(), versionsCmd())
	wrapArgs(root) // also the root's "unknown command" (with cobra's did-you-mean)
	addCompletions(root)
	return root
}

// wrapArgs makes cobra's argument validation errors usage errors; a
// command without its own check (the root) gets cobra's default one.
func wrapArgs(c *cobra.Command) {
	a := c.Args
	if a == nil {
		a = func(cmd *cobra.Command, args []string) error { return cobra.ArbitraryArgs(cmd, args) }
		if c.HasSubCommands() {
			a = legacyArgs
		}
	}
	c.Args = func(cmd *cobra.Command, args []string) error { return usageErr(a(cmd, args)) }
	// A missing required flag is a usage error too: checked here, before
	// cobra's own check (which would return it unclassified, exit 3).
	pre := c.PreRunE
	c.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := cmd.ValidateRequiredFlags(); err != nil {
			return usageErr(err)
		}
		if err := cmd.ValidateFlagGroups(); err != nil {
			return usageErr(err)
		}
		// Output paths are checked before anything runs (exit 2).
		if err := checkOutputs(cmd); err != nil {
			return err
		}
		if pre != nil {
			return pre(cmd, args)
		}
		return nil
	}
	if c.HasSubCommands() && !c.Runnable() {
		// Runnable, so cobra checks its arguments (an unknown subcommand)
		// instead of printing help with status 0.
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	for _, s := range c.Commands() {
		wrapArgs(s)
	}
}

// legacyArgs is cobra's check for a command with subcommands: an unknown
// subcommand is an error, with its suggestions.
func legacyArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	return errors.New(msg)
}

func main() {
	err := newRoot().Execute()
	if err != nil {
		var ee *exitError
		if !errors.As(err, &ee) || ee.err != nil {
			fmt.Fprintln(os.Stderr, "faultlab:", err)
		}
	}
	os.Exit(exitCode(err))
}

func logger(verbose bool) *slog.Logger {
	if !verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

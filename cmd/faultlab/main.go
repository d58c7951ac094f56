// Command faultlab runs Mooncake × SGLang fault scenarios on the sim, fake
// and real engines: list the catalog, run scenarios, replay a run by seed.
package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
)

// errVerdict makes the process exit 1 without printing usage: the output
// already says which scenarios failed.
var errVerdict = errors.New("some scenarios failed or errored")

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "faultlab",
		Short:         "Deterministic simulation and fault injection for Mooncake as SGLang HiCache uses it",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(listCmd(), runCmd(), replayCmd(), installCmd(), serveCmd(), imagesCmd())
	return root
}

func main() {
	if err := newRoot().Execute(); err != nil {
		if !errors.Is(err, errVerdict) {
			fmt.Fprintln(os.Stderr, "faultlab:", err)
		}
		os.Exit(1)
	}
}

func logger(verbose bool) *slog.Logger {
	if !verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

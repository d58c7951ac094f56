package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/containers/images"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

// imagesCmd is `faultlab images build|clean`: the container worlds' images,
// built here from nothing pulled, and removal of leftover world containers.
func imagesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "images", Short: "Build the container images (nothing is pulled) or remove leftovers"}
	var versions string
	var timeout time.Duration
	build := &cobra.Command{
		Use:     "build",
		Short:   "Build faultlab/base, faultlab/mooncake:<version>, faultlab/fake, faultlab/toxiproxy (cached by input hash)",
		Example: "  faultlab images build --versions " + containers.ComposeVersion + "\n  make images",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			d, err := containers.Docker(ctx)
			if err != nil {
				return err
			}
			defer d.Close()
			b := &images.Builder{Docker: d, Logger: logger(false), Wheels: realengine.ImageWheel}
			steps := []func(context.Context) (images.Image, error){b.Base}
			for _, v := range strings.Split(versions, ",") {
				if v = strings.TrimSpace(v); v != "" {
					steps = append(steps, func(ctx context.Context) (images.Image, error) { return b.Mooncake(ctx, v) })
				}
			}
			steps = append(steps, b.Fake, b.Toxiproxy)
			for _, step := range steps {
				img, err := step(ctx)
				if err != nil {
					return err
				}
				how := "cached"
				if img.Built {
					how = "built"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-40s %-6s %6.1fs  (%s)\n", img.Alias, how, img.Took.Seconds(), img.Ref)
			}
			return nil
		},
	}
	build.Flags().StringVar(&versions, "versions", containers.ComposeVersion, "comma-separated Mooncake versions")
	build.Flags().DurationVar(&timeout, "timeout", 20*time.Minute, "overall time limit")
	clean := &cobra.Command{
		Use:   "clean",
		Short: "Remove every container and network labelled faultlab.world (all worlds; stop runs first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			d, err := containers.Docker(ctx)
			if err != nil {
				return err
			}
			defer d.Close()
			left, err := containers.Leftovers(ctx, d, "")
			if err != nil {
				return err
			}
			for _, l := range left {
				fmt.Fprintln(cmd.OutOrStdout(), "removing", l)
			}
			return containers.Remove(ctx, d, "")
		},
	}
	cmd.AddCommand(build, clean)
	return cmd
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/explore"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/onboard"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// versionsCmd is `faultlab versions`: the Mooncake versions, and
// onboarding a release or a developer's build (package onboard).
func versionsCmd() *cobra.Command {
	c := &cobra.Command{Use: "versions", Short: "Mooncake versions: list them, onboard a release or a build of your own"}
	c.AddCommand(versionsListCmd(), versionsAddCmd())
	return c
}

func versionsListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "The Mooncake versions the models know, and how the real engine installs each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			for _, v := range mooncake.Versions {
				how := "real: not on a CPU-only machine"
				if r, err := realengine.RecipeFor(v); err == nil {
					how = "real: " + r.Package + " (" + r.Flavour() + ")"
				}
				fmt.Fprintf(w, "%-14s %s\n", v, how)
			}
			return nil
		},
	}
}

type versionsAddFlags struct {
	catalogFlags
	wheel, derives, pkg, against string
	sglangCheckout, sglangVer    string
	seeds, jobs                  int
	seed                         uint64
	timeout                      time.Duration
}

func versionsAddCmd() *cobra.Command {
	var f versionsAddFlags
	c := &cobra.Command{
		Use:   "add NAME",
		Short: "Onboard a release or a build: install it, run the catalog on real at it and at the release before, print what changed, run a differential sample",
		Long: `Onboard a Mooncake release or a build of your own on the real engine.

NAME is a release (0.3.14: installed by its recipe; a release the models do not
know yet, e.g. 0.3.15, runs the scenarios of the newest modelled release) or a
name of your own for a wheel you built (--wheel, with --derives: the release it
runs as). The command installs it, runs the catalog on real at it and at the
release it is compared with (the one before a modelled release; --derives for a
build), prints every scenario whose outcome changed, and runs --seeds generated
scenarios on sim (at the modelled release) against real (NAME).

` + exitCodesHelp,
		Example: `  faultlab versions add 0.3.14
  faultlab versions add 0.3.15 --package mooncake-transfer-engine-cuda13
  faultlab versions add mybranch --wheel dist/mooncake_transfer_engine-0.3.14-cp311-cp311-manylinux_2_28_x86_64.whl --derives 0.3.14
  faultlab versions add sglbranch --sglang-checkout ~/src/sglang --sglang-version 0.5.23 --derives 0.3.14`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := onboard.Resolve(onboard.Build{Name: args[0], Wheel: f.wheel, Derives: f.derives, Package: f.pkg, SGLangCheckout: f.sglangCheckout})
			if err != nil {
				return usageErr(err)
			}
			ctx, stop := interruptContext(cmd.Context())
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, f.timeout)
			defer cancel()
			log := logger(false)
			d := &realDeps{f: f, log: log}
			rep, err := onboard.Onboard(ctx, d, b, onboard.Options{Against: f.against, Seeds: f.seeds, Out: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			rep.Print(cmd.OutOrStdout())
			return nil
		},
	}
	f.catalogFlags.add(c)
	c.Flags().StringVar(&f.wheel, "wheel", "", "a wheel file you built (NAME is then a name of your own; needs --derives)")
	c.Flags().StringVar(&f.derives, "derives", "", "the release the build runs as: its scenarios, its model on sim (default: NAME if modelled, else the newest release)")
	c.Flags().StringVar(&f.pkg, "package", "", "PyPI distribution of a release the recipes do not know (default "+realengine.Package+")")
	c.Flags().StringVar(&f.sglangCheckout, "sglang-checkout", "", "an SGLang source tree (a changed mooncake_store.py): NAME runs its code (--sglang real) at Mooncake --derives, against the SGLang release's own code")
	c.Flags().StringVar(&f.sglangVer, "sglang-version", "", "the SGLang release a checkout derives from (default: the newest installed)")
	c.Flags().StringVar(&f.against, "against", "", "release to compare with (default: the one before NAME, or --derives)")
	c.Flags().IntVar(&f.seeds, "seeds", 10, "generated scenarios in the differential sample (0 = none)")
	c.Flags().Uint64Var(&f.seed, "seed", 20261201, "first seed of the differential sample")
	c.Flags().IntVarP(&f.jobs, "jobs", "j", 3, "real worlds at once")
	c.Flags().DurationVar(&f.timeout, "timeout", 2*time.Hour, "overall time limit")
	return c
}

// realDeps are onboard.Deps on this machine: the real engine's installer,
// the catalog runner, explore.
type realDeps struct {
	f   versionsAddFlags
	log *slog.Logger
}

// real is the reference engine running b: a developer's build by name
// (engine.LocalBuild), a release as installed.
func (d *realDeps) real(b onboard.Build) (engine.Engine, error) {
	o := engine.Options{Logger: d.log}
	if !b.Modelled() && b.SGLangCheckout == "" {
		o.Build = b.Name
	}
	return engineWith(engine.Reference|engine.LocalBuild, o)
}

func (d *realDeps) Install(ctx context.Context, b onboard.Build) error {
	opts := realengine.InstallOptions{Logger: logger(true), SystemPackages: true}
	if b.Modelled() {
		return realengine.Install(ctx, []string{b.Name}, opts)
	}
	return realengine.InstallBuild(ctx, realengine.BuildSpec{Name: b.Name, Derives: b.Derives, Wheel: b.Wheel, Package: b.Package}, opts)
}

func (d *realDeps) Catalog(ctx context.Context, b onboard.Build) ([]onboard.Outcome, error) {
	scs, err := d.f.load()
	if err != nil {
		return nil, err
	}
	if scs, err = d.f.filter(scs, scs); err != nil {
		return nil, err
	}
	eng, err := d.real(b)
	if err != nil {
		return nil, err
	}
	opts := scenarios.Options{Seed: 1, Version: b.Derives, TimeoutScale: defaultTimeoutScale, Logger: d.log, Invariants: explore.Check}
	if b.RealSGLang {
		side := &realengine.SGLang{Version: d.f.sglangVer, Checkout: b.SGLangCheckout}
		if err := side.Available(); err != nil {
			return nil, err
		}
		opts.SGLang = side
	}
	jobs := scenarios.Jobs(scs, []engine.Engine{eng}, opts)
	rs := scenarios.RunParallel(ctx, jobs, opts, scenarios.ParallelOptions{Jobs: map[string]int{eng.Name(): d.f.jobs}})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := make([]onboard.Outcome, 0, len(rs))
	for _, r := range rs {
		o := onboard.Outcome{Scenario: r.Scenario, Verdict: r.Verdict, Reason: abstractAddrs(r.Reason, r.Addrs)}
		if r.Verdict != "skip" {
			o.Observed = abstractAddrs(outcome(r.Observed), r.Addrs)
		}
		out = append(out, o)
	}
	return out, nil
}

// abstractAddrs writes a world's addresses as their roles, so outcomes
// of two worlds compare.
func abstractAddrs(s string, addrs map[string]string) string {
	for role, a := range addrs {
		if a != "" {
			s = strings.ReplaceAll(s, a, "{{"+role+"}}")
		}
	}
	return s
}

func (d *realDeps) Explore(ctx context.Context, b onboard.Build, seeds int) (onboard.Sample, error) {
	model, err := engineWith(engine.Deterministic, engine.Options{})
	if err != nil {
		return onboard.Sample{}, err
	}
	real, err := d.real(b)
	if err != nil {
		return onboard.Sample{}, err
	}
	rep, err := explore.Explore(ctx, explore.Options{
		Seeds: uint64(seeds), Seed: d.f.seed, Engines: []engine.Engine{model, real},
		Versions: []string{b.Derives}, Jobs: d.f.jobs, TimeoutScale: defaultTimeoutScale,
	})
	if err != nil {
		return onboard.Sample{}, err
	}
	s := rep.Summary
	return onboard.Sample{Seeds: seeds, Ran: int(s.EngineRuns[real.Name()]), Divergences: s.Divergences, Violations: s.Violations, Errors: s.Errors}, nil
}

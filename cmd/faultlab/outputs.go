package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputAnnotation marks a flag whose value is a path the command writes
// when it ends (a report, a timeline): checked before anything runs, so a
// typo costs no run (issue 17).
const outputAnnotation = "faultlab_output"

const (
	outputFile = "file"
	outputDir  = "dir"
)

// markOutput marks the flag as a file (or directory) the command writes;
// shells complete it as a file name.
func markOutput(cmd *cobra.Command, name, kind string) {
	if err := cmd.Flags().SetAnnotation(name, outputAnnotation, []string{kind}); err != nil {
		panic(fmt.Sprintf("markOutput %s: %v", name, err)) // a programming error: no such flag
	}
	if kind == outputDir {
		_ = cmd.MarkFlagDirname(name)
	} else {
		_ = cmd.MarkFlagFilename(name)
	}
}

// checkOutputs checks every marked flag with a value: usage error (exit 2)
// if it cannot be written. It changes nothing on disk.
func checkOutputs(cmd *cobra.Command) error {
	var errs []error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		kind := fl.Annotations[outputAnnotation]
		v := fl.Value.String()
		if len(kind) == 0 || v == "" || v == "-" {
			return
		}
		var err error
		if kind[0] == outputDir {
			err = checkDir(v)
		} else {
			err = checkFile(v)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s %s: %w", fl.Name, v, err))
		}
	})
	return usageErr(errors.Join(errs...))
}

// checkFile: path is a writable file, or can be created (and is removed
// again).
func checkFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("is a directory, want a file")
	case err == nil:
		fh, err := os.OpenFile(path, os.O_WRONLY, 0) // no O_TRUNC: the old file stays until the run writes
		if err != nil {
			return fmt.Errorf("cannot write: %w", err)
		}
		return fh.Close()
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot write: %w", err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("cannot write: directory %s does not exist", dir)
	} else if !st.IsDir() {
		return fmt.Errorf("cannot write: %s is not a directory", dir)
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("cannot write: %w", err)
	}
	fh.Close()
	return os.Remove(path)
}

// checkDir: path is a writable directory, or the nearest existing
// ancestor is one (the command creates the rest).
func checkDir(path string) error {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if (errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && filepath.Dir(p) != p {
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot write: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("cannot write: %s is not a directory", p)
		}
		if err := syscall.Access(p, 2 /* W_OK */); err != nil {
			return fmt.Errorf("cannot write: %s: %w", p, err)
		}
		return nil
	}
}

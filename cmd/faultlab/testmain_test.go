package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps explain's fingerprint cache of this package's tests in a
// temporary directory, removed afterwards, not in the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "faultlab-cmd-fp-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("FAULTLAB_FINGERPRINT_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

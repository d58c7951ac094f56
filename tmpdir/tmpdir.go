// Package tmpdir makes the harness's temporary directories. A harness
// killed by SIGKILL runs no deferred cleanup, so each directory's name
// carries the pid of the process that made it, and the next harness to
// make one of that kind removes those whose process is gone.
package tmpdir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Make is os.MkdirTemp("", prefix+"<pid>-*"), after Sweep(prefix).
func Make(prefix string) (string, error) {
	Sweep(prefix)
	return os.MkdirTemp("", prefix+strconv.Itoa(os.Getpid())+"-")
}

// Sweep removes prefix's directories in the temp dir whose maker has
// exited. A name without a pid (made before this package) is left alone.
func Sweep(prefix string) []string {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
	var removed []string
	for _, m := range matches {
		pid, ok := maker(strings.TrimPrefix(filepath.Base(m), prefix))
		if !ok || alive(pid) {
			continue
		}
		if err := os.RemoveAll(m); err == nil {
			removed = append(removed, m)
		}
	}
	return removed
}

// maker is the pid in "<pid>-<random>".
func maker(rest string) (int, bool) {
	s, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(s)
	return pid, ok && err == nil && pid > 0
}

// alive: signal 0 reaches the process (EPERM: it exists, another user's).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

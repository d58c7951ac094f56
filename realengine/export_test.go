package realengine

import (
	"fmt"
	"syscall"
)

// CheckDisk exposes checkDisk to the external test package.
var CheckDisk = checkDisk

// SGLangShareOf and ParsePins expose how a release's pinned file is read.
var (
	SGLangShareOf = sglangShare
	ParsePins     = parsePins
)

// KillBehindHarness SIGKILLs a server's process as the kernel's OOM killer
// would: the harness is not told (no fault, the server not marked down).
func KillBehindHarness(w *World, role string) error {
	w.mu.Lock()
	s, ok := w.servers[role]
	w.mu.Unlock()
	if !ok {
		return fmt.Errorf("no server %q", role)
	}
	if err := s.p.signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-s.p.exited
	return nil
}

package realengine

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// limitAddressSpace is `ulimit -v` applied to a running process with
// headroom bytes left: its RLIMIT_AS (soft and hard) becomes its VmSize now
// plus headroom. Applied once mooncake_client serves, so its own start
// (segment, threads, arenas) is not what fails; a later mmap larger than
// what is left fails with ENOMEM, as it would under a limit set by the
// operator's shell or scheduler.
func limitAddressSpace(pid int, headroom int64) (int64, error) {
	vm, err := vmSize(pid)
	if err != nil {
		return 0, err
	}
	limit := vm + headroom
	lim := syscall.Rlimit{Cur: uint64(limit), Max: uint64(limit)}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(syscall.RLIMIT_AS),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0); errno != 0 {
		return 0, fmt.Errorf("prlimit RLIMIT_AS %d on pid %d: %w", limit, pid, errno)
	}
	return limit, nil
}

// vmSize is /proc/<pid>/status's VmSize in bytes.
func vmSize(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("vm size of pid %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmSize:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("vm size of pid %d: %q: %w", pid, rest, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("vm size of pid %d: %w", pid, err)
	}
	return 0, fmt.Errorf("vm size of pid %d: no VmSize line", pid)
}

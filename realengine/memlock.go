package realengine

import "syscall"

// rlimitMemlock is RLIMIT_MEMLOCK on Linux (not exported by package syscall).
const rlimitMemlock = 8

// memlockHard is this process's RLIMIT_MEMLOCK hard limit, which every
// Mooncake process it starts inherits; ok is false when it is unlimited or
// unknown.
func memlockHard() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(rlimitMemlock, &r); err != nil || r.Max == ^uint64(0) {
		return 0, false
	}
	return r.Max, true
}

package faults

import (
	"fmt"
	"slices"
)

// Errno is one errno value as Mooncake's PLOG lines print it: glibc's
// strerror text and the number ("Invalid argument [22]").
type Errno struct {
	Name string
	Num  int
	Text string
}

// PLOG is the errno as glog's PLOG appends it.
func (e Errno) PLOG() string { return fmt.Sprintf("%s [%d]", e.Text, e.Num) }

// Errnos are the errno values a verbs call of the kernel's RDMA stack
// returns (ib_uverbs, ib_umem_get, the providers; Linux errno-base.h and
// errno.h, glibc's strerror texts): what a fault may make one fail with.
var Errnos = []Errno{
	{"EPERM", 1, "Operation not permitted"},
	{"EIO", 5, "Input/output error"},
	{"EAGAIN", 11, "Resource temporarily unavailable"},
	{"ENOMEM", 12, "Cannot allocate memory"},
	{"EACCES", 13, "Permission denied"},
	{"EFAULT", 14, "Bad address"},
	{"EBUSY", 16, "Device or resource busy"},
	{"ENODEV", 19, "No such device"},
	{"EINVAL", 22, "Invalid argument"},
	{"ENOSYS", 38, "Function not implemented"},
	{"EOPNOTSUPP", 95, "Operation not supported"},
}

// ErrnoNamed is the errno of that name (EINVAL), if a fault can give it.
func ErrnoNamed(name string) (Errno, bool) {
	i := slices.IndexFunc(Errnos, func(e Errno) bool { return e.Name == name })
	if i < 0 {
		return Errno{}, false
	}
	return Errnos[i], true
}

// ErrnoNumbered is the errno of that number (22), if a fault can give it.
func ErrnoNumbered(n int) (Errno, bool) {
	i := slices.IndexFunc(Errnos, func(e Errno) bool { return e.Num == n })
	if i < 0 {
		return Errno{}, false
	}
	return Errnos[i], true
}

// ErrnoNames are the names a fault's errno parameter takes.
func ErrnoNames() []string {
	out := make([]string, len(Errnos))
	for i, e := range Errnos {
		out[i] = e.Name
	}
	return out
}

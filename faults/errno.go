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

// Errnos are Linux's errno names, numbers and strerror texts (errno-base.h,
// errno.h, glibc) that Mooncake's messages carry ("...: Bad address [14]",
// asio's "Error: Bad address (value: 14)", "errno 12") and faults inject.
var Errnos = []Errno{
	{"EPERM", 1, "Operation not permitted"}, {"ENOENT", 2, "No such file or directory"},
	{"EIO", 5, "Input/output error"}, {"ENXIO", 6, "No such device or address"},
	{"EAGAIN", 11, "Resource temporarily unavailable"}, {"ENOMEM", 12, "Cannot allocate memory"},
	{"EACCES", 13, "Permission denied"}, {"EFAULT", 14, "Bad address"}, {"EBUSY", 16, "Device or resource busy"},
	{"EEXIST", 17, "File exists"}, {"ENODEV", 19, "No such device"}, {"EINVAL", 22, "Invalid argument"},
	{"ENOSPC", 28, "No space left on device"}, {"EPIPE", 32, "Broken pipe"}, {"ENOSYS", 38, "Function not implemented"},
	{"ENODATA", 61, "No data available"}, {"EPROTO", 71, "Protocol error"}, {"EOPNOTSUPP", 95, "Operation not supported"},
	{"EADDRINUSE", 98, "Address already in use"}, {"EADDRNOTAVAIL", 99, "Cannot assign requested address"},
	{"ENETUNREACH", 101, "Network is unreachable"}, {"ECONNRESET", 104, "Connection reset by peer"},
	{"ENOTCONN", 107, "Transport endpoint is not connected"}, {"ETIMEDOUT", 110, "Connection timed out"},
	{"ECONNREFUSED", 111, "Connection refused"}, {"EHOSTUNREACH", 113, "No route to host"},
	{"ECANCELED", 125, "Operation canceled"},
}

// RegMRErrnos are the errnos ibv_reg_mr returns (ib_uverbs, ib_umem_get,
// the providers): what an rdma-context reg_mr fault may fail it with.
var RegMRErrnos = []string{"EPERM", "EIO", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "EBUSY", "ENODEV", "EINVAL", "ENOSYS", "EOPNOTSUPP"}

// ErrnoNamed is the errno of that name (EINVAL).
func ErrnoNamed(name string) (Errno, bool) {
	i := slices.IndexFunc(Errnos, func(e Errno) bool { return e.Name == name })
	if i < 0 {
		return Errno{}, false
	}
	return Errnos[i], true
}

// ErrnoNumbered is the errno of that number (22).
func ErrnoNumbered(n int) (Errno, bool) {
	i := slices.IndexFunc(Errnos, func(e Errno) bool { return e.Num == n })
	if i < 0 {
		return Errno{}, false
	}
	return Errnos[i], true
}

// MustErrno is the errno of that name; the name is the caller's constant.
func MustErrno(name string) Errno {
	e, ok := ErrnoNamed(name)
	if !ok {
		panic("faults: no errno " + name)
	}
	return e
}

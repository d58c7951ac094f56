package kernel

import "time"

// Timer is the kernel as a schedule.Timer: virtual time, events fire in
// the one event loop.
type Timer struct{ K *Kernel }

// Now is virtual time.
func (t Timer) Now() time.Duration { return t.K.Now() }

// At schedules fn as a kernel event.
func (t Timer) At(at time.Duration, name string, fn func()) func() {
	return t.K.At(at, name, fn).Cancel
}

// Virtual is true: nothing happens outside the event loop.
func (Timer) Virtual() bool { return true }

// Package mlog is how models print Mooncake log lines: glog level plus the
// exact text Mooncake prints (no glog prefix). sim writes them into the
// trace; the fake engine may do the same from its goroutines.
package mlog

import "github.com/mooncake-faultlab/faultlab/trace"

// glog levels as the trace records them.
const (
	Info    = "INFO"
	Warning = "WARNING"
	Error   = "ERROR"
	Fatal   = "FATAL"
)

// Logger receives Mooncake log lines of one party (a node's client, the master...).
type Logger interface {
	Log(level, text string)
}

// Trace logs into a trace under a fixed source ("mooncake:<node>", "master", "client").
type Trace struct {
	T      *trace.Trace
	Source string
}

// Log implements Logger.
func (l Trace) Log(level, text string) {
	if l.T != nil {
		l.T.Log(l.Source, level, text)
	}
}

// Discard drops every line.
type Discard struct{}

// Log implements Logger.
func (Discard) Log(string, string) {}

// Func adapts a function.
type Func func(level, text string)

// Log implements Logger.
func (f Func) Log(level, text string) { f(level, text) }

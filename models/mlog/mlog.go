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
	// Stderr: a plain std::cerr line, no glog prefix (Environ's
	// "[Mooncake] Warning: …"); MC_LOG_LEVEL does not drop it.
	Stderr = "stderr"
)

// Logger receives Mooncake log lines of one party (a node's client, the master...).
type Logger interface {
	Log(level, text string)
}

// Trace logs into a trace under a fixed source ("mooncake:<node>", "master", "client").
type Trace struct {
	T      *trace.Trace
	Source string
	// Min drops lines below this level ("" = none): glog's minloglevel
	// (MinLevel).
	Min string
}

// Log implements Logger.
func (l Trace) Log(level, text string) {
	if l.T != nil && rank(level) >= rank(l.Min) {
		l.T.Log(l.Source, level, text)
	}
}

// MinLevel is the least level a process with env prints: the transfer
// engine's config sets glog's FLAGS_minloglevel from MC_LOG_LEVEL for the
// whole process, its store client included — "WARNING" or "ERROR" exactly
// (case-sensitive), anything else INFO (config.cpp v0.3.9:211-225,
// v0.3.12.post1:389; real 0.3.9 and 0.3.13.post1 with WARNING print no
// INFO line of SGLang's process, the master's as ever).
func MinLevel(env map[string]string) string {
	switch v := env["MC_LOG_LEVEL"]; v {
	case Warning, Error:
		return v
	}
	return ""
}

func rank(level string) int {
	switch level {
	case Warning:
		return 1
	case Error:
		return 2
	case Fatal:
		return 3
	case Stderr:
		return 4
	}
	return 0
}

// Discard drops every line.
type Discard struct{}

// Log implements Logger.
func (Discard) Log(string, string) {}

// Func adapts a function.
type Func func(level, text string)

// Log implements Logger.
func (f Func) Log(level, text string) { f(level, text) }

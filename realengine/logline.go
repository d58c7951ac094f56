package realengine

import (
	"regexp"
	"strings"
)

// Log line shapes of the real processes, reduced to (level, text) so the
// trace holds the same text the simulator writes (models/mlog: message only,
// no glog prefix, no file:line, which differ per version).
var (
	// glog: I1129 21:32:54.944119 13877 master_client.cpp:361] Client not available
	glogRE = regexp.MustCompile(`^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^ \]]+:\d+\] ?(.*)$`)
	// yalantinglibs easylog (0.3.9 prints it on stdout, with ANSI colours):
	// \x1b[93m2026-11-29 21:32:50.659702 WARNING  \x1b[0m\x1b[0K[13845] [coro_rpc_client.hpp:989] client_id 1 failed:Connection refused
	easylogRE = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ (TRACE|DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\s+\[\d+\] \[[^\]]+\] ?(.*)$`)
	// Python logging (mooncake_http_metadata_server): 2026-11-29 21:35:09,689 - root - INFO - text
	pylogRE = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ - \S+ - (DEBUG|INFO|WARNING|ERROR|CRITICAL) - (.*)$`)
	ansiRE  = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	// grpc-go's default logger (Go's log package, LstdFlags), in the store's
	// Go etcd client (mooncake-common/etcd): 2026/12/04 21:07:41 ERROR: [transport] Client received GoAway ...
	grpclogRE = regexp.MustCompile(`^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d (INFO|WARNING|ERROR|FATAL): (.*)$`)
)

// glogPreamble is printed by every glog process before InitGoogleLogging;
// it says nothing about the run.
const glogPreamble = "WARNING: Logging before InitGoogleLogging() is written to STDERR"

// ParseLogLine returns the trace level and text of one output line; ok is
// false for lines that carry nothing (blank, glog preamble). Lines of no
// known shape (Python tracebacks, crash reports) are kept whole at level
// INFO, so nothing a process says is lost.
func ParseLogLine(line string) (level, text string, ok bool) {
	line = strings.TrimRight(line, "\r\n")
	clean := ansiRE.ReplaceAllString(line, "")
	if strings.TrimSpace(clean) == "" || clean == glogPreamble {
		return "", "", false
	}
	if m := glogRE.FindStringSubmatch(clean); m != nil {
		return glogLevels[m[1]], m[2], true
	}
	if m := easylogRE.FindStringSubmatch(clean); m != nil {
		return normLevel(m[1]), m[2], true
	}
	if m := pylogRE.FindStringSubmatch(clean); m != nil {
		return normLevel(m[1]), m[2], true
	}
	if m := grpclogRE.FindStringSubmatch(clean); m != nil {
		return m[1], m[2], true
	}
	return "INFO", clean, true
}

var glogLevels = map[string]string{"I": "INFO", "W": "WARNING", "E": "ERROR", "F": "FATAL"}

func normLevel(s string) string {
	switch s {
	case "TRACE", "DEBUG":
		return "DEBUG"
	case "WARN", "WARNING":
		return "WARNING"
	case "CRITICAL", "FATAL":
		return "FATAL"
	}
	return s
}

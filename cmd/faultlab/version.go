package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// buildVersion and buildCommit are set at link time by `make build`
// (-ldflags -X); otherwise the build info's module version and VCS stamp
// are used (go build stamps the commit unless -buildvcs=false).
var buildVersion, buildCommit string

// BuildInfo is what `faultlab --version` prints and every report carries.
type BuildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

func buildInfo() (b BuildInfo) {
	b = BuildInfo{Version: buildVersion, Commit: buildCommit, GoVersion: runtime.Version()}
	defer func() {
		if b.Commit == "" {
			b.Commit = "unknown"
		}
	}()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if b.Version == "" {
			b.Version = "unknown"
		}
		return b
	}
	if b.Version == "" {
		b.Version = bi.Main.Version
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if b.Commit == "" {
				b.Commit = s.Value
			}
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

func versionString() string {
	b := buildInfo()
	dirty := ""
	if b.Modified {
		dirty = " (modified)"
	}
	return fmt.Sprintf("faultlab %s\ncommit %s%s\n%s %s/%s", b.Version, b.Commit, dirty, b.GoVersion, runtime.GOOS, runtime.GOARCH)
}

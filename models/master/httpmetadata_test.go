package master

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

type recordLog struct{ lines []string }

func (r *recordLog) Log(level, text string) { r.lines = append(r.lines, level+" "+text) }

// TestStartHTTPMetadata: the embedded HTTP metadata server's start on a
// port another process holds, per release, as the source says
// (http_metadata_server.cpp, master.cpp at v0.3.11.post1, v0.3.12.post1,
// 3b5a594) and real mooncake_master printed (0.3.12.post1, 0.3.13.post1,
// 0.3.14 abort; 0.3.11.post1 serves on: docs/REAL-FINDINGS.md §90, §113).
func TestStartHTTPMetadata(t *testing.T) {
	aborts := []string{
		"INFO Starting C++ HTTP metadata server on 0.0.0.0:18780",
		"ERROR Failed to start HTTP metadata server on 0.0.0.0:18780",
		"ERROR Failed to start C++ HTTP metadata server",
		"FATAL Failed to start HTTP metadata server",
		"INFO *** Check failure stack trace: ***",
	}
	for _, c := range []struct {
		v     string
		host  string
		taken bool
		want  MetadataStart
		lines []string
	}{
		{"0.3.13.post1", "", false, MetadataServes, nil},
		{"0.3.9", "", false, MetadataServes, nil},
		{"0.3.12.post1", "", true, MetadataAborts, aborts},
		{"0.3.12", "", true, MetadataAborts, aborts},
		{"0.3.13.post1", "", true, MetadataAborts, aborts},
		{"0.3.14", "", true, MetadataAborts, aborts},
		// The line names the flag as given (0.3.12 and 0.3.13 bind
		// 0.0.0.0 whatever it says).
		{"0.3.13.post1", "127.0.0.1", true, MetadataAborts, []string{
			"INFO Starting C++ HTTP metadata server on 127.0.0.1:18780",
			"ERROR Failed to start HTTP metadata server on 127.0.0.1:18780",
			"ERROR Failed to start C++ HTTP metadata server",
			"FATAL Failed to start HTTP metadata server",
			"INFO *** Check failure stack trace: ***",
		}},
		{"0.3.11.post1", "", true, MetadataUnchecked, []string{
			"INFO Starting C++ HTTP metadata server on 0.0.0.0:18780",
			"INFO HTTP metadata server started on 0.0.0.0:18780",
			"INFO C++ HTTP metadata server started successfully",
		}},
		{"0.3.9", "", true, MetadataUnchecked, []string{
			"INFO Starting C++ HTTP metadata server on 0.0.0.0:18780",
			"INFO HTTP metadata server started on 0.0.0.0:18780",
			"INFO C++ HTTP metadata server started successfully",
		}},
	} {
		flags := map[string]string{}
		if c.host != "" {
			flags["http_metadata_server_host"] = c.host
		}
		cfg, err := ConfigFor(mooncake.MustProfile(c.v), flags)
		if err != nil {
			t.Fatal(err)
		}
		var log recordLog
		got := StartHTTPMetadata(cfg, 18780, c.taken, &log)
		if got != c.want || !slices.Equal(log.lines, c.lines) {
			t.Errorf("%s host %q taken %v: %s %q, want %s %q", c.v, c.host, c.taken, got, log.lines, c.want, c.lines)
		}
	}
	for v, want := range map[string]bool{"0.3.9": false, "0.3.11": false, "0.3.11.post1": false, "0.3.12": true, "0.3.12.post1": true, "0.3.13.post1": true, "0.3.14": true} {
		if got := MetadataBindChecked(mooncake.MustProfile(v)); got != want {
			t.Errorf("MetadataBindChecked(%s) = %v, want %v", v, got, want)
		}
	}
	// A nil logger prints nowhere.
	cfg, _ := ConfigFor(mooncake.MustProfile("0.3.14"), nil)
	if got := StartHTTPMetadata(cfg, 18780, true, nil); got != MetadataAborts {
		t.Errorf("nil logger: %s", got)
	}
	var _ mlog.Logger = &recordLog{}
}

package master_test

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

const cleanupDisabled = "enable_metadata_cleanup_on_timeout is set to true but enable_http_metadata_server is false and no HTTP metadata server address could be derived from the cluster config (set MOONCAKE_TE_META_DATA_SERVER=http://host:port/metadata or MOONCAKE_CONFIG_PATH). Disabling metadata cleanup on timeout."

// TestMetadataCleanupStartLines: main()'s lines for
// --enable_metadata_cleanup_on_timeout (master.cpp v0.3.12.post1:67-108,
// 1332-1363), each case a branch of the source.
func TestMetadataCleanupStartLines(t *testing.T) {
	on := map[string]string{"enable_metadata_cleanup_on_timeout": "true"}
	for _, c := range []struct {
		name         string
		flags, env   map[string]string
		httpMetadata bool
		want         []string
	}{
		{"config path unreadable", on, map[string]string{"MOONCAKE_CONFIG_PATH": "/x/mooncake.json"}, false, []string{
			"WARNING Cannot open MOONCAKE_CONFIG_PATH (/x/mooncake.json): file does not exist or is not readable",
			"WARNING " + cleanupDisabled}},
		{"nothing set", on, nil, false, []string{"WARNING " + cleanupDisabled}},
		{"empty config path is unset", on, map[string]string{"MOONCAKE_CONFIG_PATH": ""}, false, []string{"WARNING " + cleanupDisabled}},
		{"metadata server read first", on, map[string]string{"MOONCAKE_TE_META_DATA_SERVER": "http://h:8080/metadata", "MOONCAKE_CONFIG_PATH": "/x/mooncake.json"}, false, []string{
			"INFO enable_metadata_cleanup_on_timeout: HTTP metadata server is deployed separately; cleanup will target http://h:8080/metadata"}},
		{"P2PHANDSHAKE falls through to the file", on, map[string]string{"MOONCAKE_TE_META_DATA_SERVER": "P2PHANDSHAKE", "MOONCAKE_CONFIG_PATH": "/x/mooncake.json"}, false, []string{
			"WARNING Cannot open MOONCAKE_CONFIG_PATH (/x/mooncake.json): file does not exist or is not readable",
			"WARNING " + cleanupDisabled}},
		{"etcd is not http", on, map[string]string{"MOONCAKE_TE_META_DATA_SERVER": "etcd://h:2379"}, false, []string{"WARNING " + cleanupDisabled}},
		{"embedded metadata server", on, map[string]string{"MOONCAKE_CONFIG_PATH": "/x/mooncake.json"}, true, nil},
		{"embedded metadata server by flag", map[string]string{"enable_metadata_cleanup_on_timeout": "true", "enable_http_metadata_server": "true"}, map[string]string{"MOONCAKE_CONFIG_PATH": "/x/mooncake.json"}, false, nil},
		{"cleanup off: the variable is not read", nil, map[string]string{"MOONCAKE_CONFIG_PATH": "/x/mooncake.json"}, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mooncake.MustProfile("0.3.12.post1")
			cfg, err := master.ConfigFor(p, c.flags)
			if err != nil {
				t.Fatal(err)
			}
			cfg = master.WithEnv(cfg, p, c.env, c.httpMetadata)
			var lines []string
			cfg.EnableMetricReporting = false // no summary line among them
			master.New(cfg, &clock{}, mlog.Func(func(level, text string) { lines = append(lines, level+" "+text) }), rng.Stream(1, "master"))
			if !slices.Equal(lines, c.want) {
				t.Errorf("lines:\n got %q\nwant %q", lines, c.want)
			}
		})
	}
}

// TestMetadataCleanupFlagUnknownBefore0312: up to 0.3.11.post1 the flag is
// not defined: gflags' unknown flag, the master's exit.
func TestMetadataCleanupFlagUnknownBefore0312(t *testing.T) {
	_, err := master.ConfigFor(mooncake.MustProfile("0.3.11.post1"), map[string]string{"enable_metadata_cleanup_on_timeout": "true"})
	if err == nil || err.Error() != "mooncake_master: unknown command line flag 'enable_metadata_cleanup_on_timeout'" {
		t.Fatalf("0.3.11.post1: err %v", err)
	}
}

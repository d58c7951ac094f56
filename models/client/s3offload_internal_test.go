package client

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The distributed backend's S3 adapter by release: 0.3.13.post1 has none
// ("unsupported fs_adapter_type: s3", ValueError), 0.3.14 reads only the
// MOONCAKE_S3_* (and AWS_*) names, so 0.3.13's MOONCAKE_AWS_* leave it
// without an endpoint (real, REAL-FINDINGS §130, §131).
func TestS3OffloadAdapterByRelease(t *testing.T) {
	base := map[string]string{
		"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": dfsBackend,
		"MOONCAKE_DFS_FS_ADAPTER":                     "s3",
	}
	with := func(kv ...string) map[string]string {
		env := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return env
	}
	old := with("MOONCAKE_AWS_S3_ENDPOINT", "http://127.0.0.1:9", "MOONCAKE_AWS_BUCKET_NAME", "b", "MOONCAKE_AWS_REGION", "us-east-1")
	renamed := with("MOONCAKE_S3_ENDPOINT", "http://127.0.0.1:9", "MOONCAKE_S3_BUCKET", "b", "MOONCAKE_S3_REGION", "us-east-1")
	sdk := with("AWS_ENDPOINT_URL", "http://127.0.0.1:9", "MOONCAKE_S3_BUCKET", "b", "AWS_REGION", "us-east-1")
	const standIn = "http://127.0.0.1:19009"
	stood := with("MOONCAKE_S3_ENDPOINT", standIn, "MOONCAKE_S3_BUCKET", "b")
	for _, c := range []struct {
		name, version string
		env           map[string]string
		code          mooncake.ErrorCode
		pyErr         string
		want          []string // lines that must be there, in order
	}{
		{"0.3.12 reads no adapter name", "0.3.12.post1", old, mooncake.OK, "", nil},
		{"0.3.13 has no S3 adapter", "0.3.13.post1", old, 0, "Invalid DistributedStorage configuration", []string{"ERROR DistributedStorageConfig: unsupported fs_adapter_type: s3"}},
		{"0.3.14 ignores MOONCAKE_AWS_*", "0.3.14", old, mooncake.INVALID_PARAMS, "", []string{
			"WARNING S3 region not set (MOONCAKE_S3_REGION, AWS_REGION or AWS_DEFAULT_REGION); signing for us-east-1. Requests to a bucket in another AWS region will fail.",
			"ERROR " + s3ConfigMissing, "ERROR Failed to init storage backend: INVALID_PARAMS", "ERROR file storage init failed with error: INVALID_PARAMS"}},
		{"0.3.14 reads MOONCAKE_S3_*, a closed port", "0.3.14", renamed, mooncake.DFS_SERVICE_UNAVAILABLE, "", []string{
			"INFO S3 adapter initialized: endpoint=http://127.0.0.1:9, bucket=b, region=us-east-1, key_prefix=mnt/3fs/mooncake, max_connections=64, receive_buffer_size=1048576, upload_buffer_size=1048576",
			"ERROR S3 GET request failed: Couldn't connect to server", "ERROR file storage init failed with error: DFS_SERVICE_UNAVAILABLE"}},
		{"0.3.14 reads the SDK's names", "0.3.14", sdk, mooncake.DFS_SERVICE_UNAVAILABLE, "", []string{"INFO DistributedStorageBackend initialized, object adapter=s3"}},
		{"0.3.14 and the stand-in", "0.3.14", stood, mooncake.OK, "", []string{"INFO DistributedStorageBackend initialized, object adapter=s3"}},
		{"another backend", "0.3.14", with("MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", "bucket_storage_backend"), mooncake.OK, "", nil},
	} {
		var lines []string
		cl := &RealClient{p: mooncake.MustProfile(c.version), d: Deps{Clock: &beatClock{}, S3Endpoint: standIn, Env: c.env,
			Log: mlog.Func(func(level, text string) { lines = append(lines, level+" "+text) })}}
		cfg, code, err := cl.objectStorageBeforeMount(context.Background())
		if err == nil && code == mooncake.OK {
			code, err = cl.objectStorageAfterBuffer(context.Background(), cfg)
		}
		gotPy := ""
		if pe := (*engine.PyError)(nil); errors.As(err, &pe) {
			gotPy = pe.Message
		}
		if code != c.code || gotPy != c.pyErr {
			t.Errorf("%s: code %v err %v", c.name, code, err)
		}
		at := 0
		for _, l := range lines {
			if at < len(c.want) && l == c.want[at] {
				at++
			}
		}
		if at != len(c.want) {
			t.Errorf("%s: lines %q, want in order %q", c.name, lines, c.want)
		}
		if c.want == nil && len(lines) > 0 {
			t.Errorf("%s: lines %q, want none", c.name, lines)
		}
	}
}

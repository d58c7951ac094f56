package client

import (
	"context"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The S3 object-storage adapter of SSD offload's distributed backend
// (MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR=distributed_storage_backend
// with MOONCAKE_DFS_FS_ADAPTER, or MOONCAKE_DISTRIBUTED_FS_TYPE, "s3").
// The texts are the wheels' (_store.so strings, CreateStorageBackend's
// dispatch, S3AdapterConfig::FromEnvironment) and real runs
// (REAL-FINDINGS §130, §131).
const (
	dfsBackend   = "distributed_storage_backend"
	dfsAdapterS3 = "s3"
	// s3ConfigMissing is S3AdapterConfig::FromEnvironment's ERROR when the
	// endpoint, the bucket or the region is empty (0.3.14 wheel).
	s3ConfigMissing = "S3 requires MOONCAKE_S3_ENDPOINT (or AWS_ENDPOINT_URL), MOONCAKE_S3_BUCKET and a non-empty region"
)

// dfsAdapter is the distributed backend's adapter name as
// DistributedStorageConfig::FromEnvironment reads it (MOONCAKE_DFS_FS_ADAPTER
// first, MOONCAKE_DISTRIBUTED_FS_TYPE its older name); "" when the backend
// is another one or the release reads neither.
func (c *RealClient) dfsAdapter() string {
	if c.p.DFSAdapterS3 == mooncake.DFSS3Unread || c.d.Env["MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR"] != dfsBackend {
		return ""
	}
	if v, ok := c.d.Env["MOONCAKE_DFS_FS_ADAPTER"]; ok {
		return v
	}
	return c.d.Env["MOONCAKE_DISTRIBUTED_FS_TYPE"]
}

// s3Config is what S3AdapterConfig::FromEnvironment (0.3.14) takes from
// the environment: MOONCAKE_S3_* first, the AWS SDK's names next. The
// 0.3.13 names (MOONCAKE_AWS_S3_ENDPOINT, _BUCKET_NAME, _REGION) are not
// in the wheel: they are never read.
type s3Config struct{ endpoint, bucket, region string }

func (c *RealClient) s3ConfigFromEnv() s3Config {
	first := func(names ...string) string {
		for _, n := range names {
			if v := c.d.Env[n]; v != "" {
				return v
			}
		}
		return ""
	}
	return s3Config{
		endpoint: first("MOONCAKE_S3_ENDPOINT", "AWS_ENDPOINT_URL"),
		bucket:   first("MOONCAKE_S3_BUCKET"),
		region:   first("MOONCAKE_S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"),
	}
}

// s3Region is the region the adapter signs for when none is set.
const s3Region = "us-east-1"

// objectStorageBeforeMount is the S3 adapter's Init at 0.3.14: FileStorage
// allocates its client buffer, then inits the distributed backend (the
// adapter's configuration) before it mounts the disk segment (real
// 0.3.14, §130). nil when the world does not offload to S3 at 0.3.14;
// a missing endpoint or bucket ends setup with INVALID_PARAMS.
func (c *RealClient) objectStorageBeforeMount(ctx context.Context) (*s3Config, mooncake.ErrorCode, error) {
	if c.p.DFSAdapterS3 != mooncake.DFSS3Env || c.dfsAdapter() != dfsAdapterS3 {
		return nil, mooncake.OK, nil
	}
	if err := engine.SleepAs(ctx, c.d.Clock, engine.HostWork, FileStorageCost); err != nil {
		return nil, mooncake.INTERNAL_ERROR, err
	}
	cfg := c.s3ConfigFromEnv()
	if cfg.region == "" {
		c.logf(mlog.Warning, "S3 region not set (MOONCAKE_S3_REGION, AWS_REGION or AWS_DEFAULT_REGION); signing for %s. Requests to a bucket in another AWS region will fail.", s3Region)
		cfg.region = s3Region
	}
	if cfg.endpoint == "" || cfg.bucket == "" {
		c.logf(mlog.Error, "%s", s3ConfigMissing)
		c.logf(mlog.Error, "Failed to init storage backend: %s", mooncake.INVALID_PARAMS.Name())
		c.logf(mlog.Error, "file storage init failed with error: %s", mooncake.INVALID_PARAMS.Name())
		return nil, mooncake.INVALID_PARAMS, nil
	}
	endpoint := strings.TrimRight(cfg.endpoint, "/")
	if u, err := url.Parse(endpoint); err == nil && (net.ParseIP(u.Hostname()) != nil || u.Hostname() == "localhost") {
		c.logf(mlog.Warning, "S3 endpoint host %s is an IP address or localhost; using path-style addressing (virtual-hosted needs a DNS name)", u.Hostname())
	}
	c.logf(mlog.Info, "S3 adapter initialized: endpoint=%s, bucket=%s, region=%s, key_prefix=%s, max_connections=64, receive_buffer_size=1048576, upload_buffer_size=1048576",
		endpoint, cfg.bucket, cfg.region, c.dfsKeyPrefix())
	c.logf(mlog.Info, "DistributedStorageBackend initialized, object adapter=%s", dfsAdapterS3)
	return &cfg, mooncake.OK, nil
}

// dfsKeyPrefix is the adapter's key_prefix: the DFS root directory
// (MOONCAKE_DFS_ROOT_DIR, or MOONCAKE_DISTRIBUTED_ROOT_DIR; the wheel's
// default /mnt/3fs/mooncake) without its slashes at the ends.
func (c *RealClient) dfsKeyPrefix() string {
	dir := "/mnt/3fs/mooncake"
	for _, n := range []string{"MOONCAKE_DISTRIBUTED_ROOT_DIR", "MOONCAKE_DFS_ROOT_DIR"} {
		if v, ok := c.d.Env[n]; ok {
			dir = v
		}
	}
	return strings.Trim(dir, "/")
}

// objectStorageAfterBuffer is what follows the client buffer: at
// 0.3.13.post1 the distributed backend's construction, which knows no
// "s3" (ValueError out of setup, after the buffer; real 0.3.13.post1,
// §130); at 0.3.14 FileStorage::Init's ScanMeta, a LIST of the bucket,
// which an endpoint that refuses fails after two retries (real 0.3.14
// against a closed port, §131). cfg is objectStorageBeforeMount's.
func (c *RealClient) objectStorageAfterBuffer(ctx context.Context, cfg *s3Config) (mooncake.ErrorCode, error) {
	if c.p.DFSAdapterS3 == mooncake.DFSS3Unsupported && c.dfsAdapter() == dfsAdapterS3 {
		c.logf(mlog.Error, "DistributedStorageConfig: unsupported fs_adapter_type: %s", dfsAdapterS3)
		return 0, &engine.PyError{Class: "ValueError", Message: "Invalid DistributedStorage configuration"}
	}
	if cfg == nil || (c.d.S3Endpoint != "" && strings.TrimRight(cfg.endpoint, "/") == c.d.S3Endpoint) {
		return mooncake.OK, nil
	}
	// The curl GET is refused at once; the adapter waits ~0.1 s, then
	// ~0.2 s, before its next attempts (real: 125 ms, 226 ms).
	for i, wait := range []time.Duration{125 * time.Millisecond, 225 * time.Millisecond} {
		c.logf(mlog.Warning, "S3 GET attempt %d failed (Couldn't connect to server); retrying", i+1)
		if err := c.d.Clock.Sleep(ctx, wait); err != nil {
			return mooncake.INTERNAL_ERROR, err
		}
	}
	code := mooncake.DFS_SERVICE_UNAVAILABLE
	c.logf(mlog.Error, "S3 GET request failed: Couldn't connect to server")
	c.logf(mlog.Error, "Failed to list keys from object storage adapter: %d", int(code))
	c.logf(mlog.Error, "Failed to scan meta and send to master: %s", code.Name())
	c.logf(mlog.Error, "file storage init failed with error: %s", code.Name())
	return code, nil
}

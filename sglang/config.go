package sglang

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// DefaultTenantID is mooncake_store.py's DEFAULT_TENANT_ID.
const DefaultTenantID = "default"

// Config sources, as _load_config's log line names them.
const (
	SourceExtraConfig = "extra_config"
	SourceFile        = "file"
	SourceEnv         = "env"
)

// envField is one EnvField of sglang/srt/environ.py ("Mooncake store" block).
type envField struct {
	name string
	kind string // "str", "bool", "int"
	def  any
}

var (
	envConfigPath      = envField{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH", "str", nil}
	envMaster          = envField{"MOONCAKE_MASTER", "str", nil}
	envClient          = envField{"MOONCAKE_CLIENT", "str", nil}
	envLocalHostname   = envField{"MOONCAKE_LOCAL_HOSTNAME", "str", "localhost"}
	envMetadataServer  = envField{"MOONCAKE_TE_META_DATA_SERVER", "str", "P2PHANDSHAKE"}
	envGlobalSegment   = envField{"MOONCAKE_GLOBAL_SEGMENT_SIZE", "str", "4gb"}
	envProtocol        = envField{"MOONCAKE_PROTOCOL", "str", "rdma"}
	envDevice          = envField{"MOONCAKE_DEVICE", "str", ""}
	envMetricsPort     = envField{"MOONCAKE_MASTER_METRICS_PORT", "int", int64(9003)}
	envCheckServer     = envField{"MOONCAKE_CHECK_SERVER", "bool", false}
	envStandalone      = envField{"MOONCAKE_STANDALONE_STORAGE", "bool", false}
	envEnableSSD       = envField{"MOONCAKE_ENABLE_SSD_OFFLOAD", "bool", false}
	envOffloadPath     = envField{"MOONCAKE_OFFLOAD_FILE_STORAGE_PATH", "str", nil}
	envTenantID        = envField{"MOONCAKE_TENANT_ID", "str", DefaultTenantID}
	legacyLocalHostEnv = "LOCAL_HOSTNAME"
)

// pyEnv is envs.X as SGLang reads it from the process environment.
type pyEnv struct {
	vars map[string]string
	// warn receives warnings.warn text (invalid EnvBool/EnvInt values).
	warn func(string)
	// resolveHost: the release resolves local_hostname with
	// MooncakeStoreConfig._resolve_local_hostname (versionResolveHostname).
	resolveHost bool
}

// resolveLocalHostname is _resolve_local_hostname (sglang 0.5.21
// mooncake_store.py:110-126): MOONCAKE_LOCAL_HOSTNAME when set, else a
// non-empty LOCAL_HOSTNAME, else the overrides' value when truthy (a null
// or "" in a config file falls through), else the default.
func (e pyEnv) resolveLocalHostname(overrides map[string]any) any {
	if e.isSet(envLocalHostname) {
		return e.get(envLocalHostname)
	}
	if v := e.vars[legacyLocalHostEnv]; v != "" {
		return v
	}
	if v, ok := overrides["local_hostname"]; ok && pyTruthy(v) {
		return v
	}
	return envLocalHostname.def
}

func (e pyEnv) isSet(f envField) bool { _, ok := e.vars[f.name]; return ok }

// get is EnvField.get(): default when unset; an unparsable value warns
// `Invalid value for {name}: {e}, using default "{default}"` and yields the default.
func (e pyEnv) get(f envField) any {
	v, ok := e.vars[f.name]
	if !ok {
		return f.def
	}
	switch f.kind {
	case "bool":
		l := strings.ToLower(v)
		switch l {
		case "true", "1", "yes", "y":
			return true
		case "false", "0", "no", "n":
			return false
		}
		e.warn(fmt.Sprintf(`Invalid value for %s: "%s" is not a valid boolean value, using default "%s"`, f.name, l, pyStr(f.def)))
		return f.def
	case "int":
		n, err := pyIntFromStr(v)
		if err != nil {
			e.warn(fmt.Sprintf(`Invalid value for %s: "%s" is not a valid integer value, using default "%s"`, f.name, v, pyStr(f.def)))
			return f.def
		}
		return n
	}
	return v
}

// MooncakeStoreConfig is the dataclass of the same name. Fields keep the
// Python value they were loaded with (a config file may put an int where a
// str belongs); Start checks them where Python would.
type MooncakeStoreConfig struct {
	LocalHostname       any
	MetadataServer      any
	GlobalSegmentSize   int64
	Protocol            any
	DeviceName          any
	MasterServerAddress any
	MasterMetricsPort   any
	CheckServer         any
	StandaloneStorage   any
	ClientServerAddress any
	EnableSSDOffload    any
	SSDOffloadPath      any
	TenantID            string
}

// ParseGlobalSegmentSize is _parse_global_segment_size.
func ParseGlobalSegmentSize(v any) (int64, error) {
	switch x := v.(type) {
	case bool: // isinstance(True, int)
		if x {
			return 1, nil
		}
		return 0, nil
	case int64:
		return x, nil
	case string:
		s := strings.ToLower(strings.TrimFunc(x, unicode.IsSpace))
		if strings.HasSuffix(s, "gb") {
			num := strings.TrimFunc(s[:len(s)-2], unicode.IsSpace)
			if num == "" {
				return 0, pyErr("ValueError", "Invalid global_segment_size: missing number before 'gb'")
			}
			n, err := pyIntFromStr(num)
			if err != nil {
				return 0, err
			}
			if n > math.MaxInt64>>30 || n < math.MinInt64>>30 {
				return 0, engine.Unsupportedf("sglang: global_segment_size %q exceeds int64", x)
			}
			return n << 30, nil
		}
		return pyIntFromStr(s)
	case float64:
		switch {
		case math.IsNaN(x):
			return 0, pyErr("ValueError", "cannot convert float NaN to integer")
		case math.IsInf(x, 0):
			return 0, pyErr("OverflowError", "cannot convert float infinity to integer")
		}
		return int64(x), nil
	}
	return 0, pyErr("TypeError", fmt.Sprintf("int() argument must be a string, a bytes-like object or a real number, not '%s'", pyTypeName(v)))
}

// NormalizeTenantID is _normalize_tenant_id.
func NormalizeTenantID(v any) string {
	if v == nil {
		return DefaultTenantID
	}
	t := strings.TrimFunc(pyStr(v), unicode.IsSpace)
	if t == "" {
		return DefaultTenantID
	}
	return t
}

// configFromDict is the body shared by from_file and load_from_extra_config:
// each key falls back to the env var's *default*, never the env var itself.
func configFromDict(env pyEnv, d map[string]any) (*MooncakeStoreConfig, error) {
	get := func(key string, f envField) any {
		if v, ok := d[key]; ok {
			return v
		}
		return f.def
	}
	c := &MooncakeStoreConfig{LocalHostname: get("local_hostname", envLocalHostname), MetadataServer: get("metadata_server", envMetadataServer)}
	if env.resolveHost {
		c.LocalHostname = env.resolveLocalHostname(d)
	}
	seg, err := ParseGlobalSegmentSize(get("global_segment_size", envGlobalSegment))
	if err != nil {
		return nil, err
	}
	c.GlobalSegmentSize = seg
	c.Protocol = get("protocol", envProtocol)
	c.DeviceName = get("device_name", envDevice)
	c.MasterServerAddress = get("master_server_address", envMaster)
	c.MasterMetricsPort = get("master_metrics_port", envMetricsPort)
	c.CheckServer = get("check_server", envCheckServer)
	c.StandaloneStorage = get("standalone_storage", envStandalone)
	c.ClientServerAddress = get("client_server_address", envClient)
	c.EnableSSDOffload = get("enable_ssd_offload", envEnableSSD)
	c.SSDOffloadPath = get("ssd_offload_path", envOffloadPath)
	c.TenantID = NormalizeTenantID(get("tenant_id", envTenantID))
	return c, nil
}

// loadFromExtraConfig is MooncakeStoreConfig.load_from_extra_config.
func loadFromExtraConfig(env pyEnv, extra map[string]any) (*MooncakeStoreConfig, error) {
	_, m := extra["master_server_address"]
	_, c := extra["client_server_address"]
	if !m && !c {
		return nil, pyErr("ValueError", "Either master_server_address or client_server_address is required in extra_config")
	}
	return configFromDict(env, extra)
}

// loadFromFile is MooncakeStoreConfig.from_file, reading files from files.
func loadFromFile(env pyEnv, files map[string]string) (*MooncakeStoreConfig, error) {
	if !env.isSet(envConfigPath) {
		return nil, pyErr("RuntimeError", "Config file path not set. Please set "+envConfigPath.name)
	}
	path := env.get(envConfigPath).(string)
	text, ok := files[path]
	if !ok {
		return nil, pyErr("RuntimeError", fmt.Sprintf("Failed to load config from %s: [Errno 2] No such file or directory: %s", path, pyRepr(path)))
	}
	doc, err := pyJSONLoads(text)
	if err != nil {
		if je, ok := err.(*jsonDecodeError); ok {
			return nil, pyErr("RuntimeError", fmt.Sprintf("Failed to load config from %s: %s", path, je.Error()))
		}
		return nil, fmt.Errorf("sglang: config file %s: %w", path, err)
	}
	const missing = "Either master_server_address or client_server_address is required in config file"
	// `"master_server_address" not in config` on whatever json.load returned.
	switch x := doc.(type) {
	case map[string]any:
		return loadDict(env, x, missing)
	case []any, string:
		has := func(k string) bool {
			if s, ok := x.(string); ok {
				return strings.Contains(s, k)
			}
			for _, e := range x.([]any) {
				if e == k {
					return true
				}
			}
			return false
		}
		if !has("master_server_address") && !has("client_server_address") {
			return nil, pyErr("ValueError", missing)
		}
		return nil, pyErr("AttributeError", fmt.Sprintf("'%s' object has no attribute 'get'", pyTypeName(doc)))
	default:
		return nil, pyErr("TypeError", fmt.Sprintf("argument of type '%s' is not iterable", pyTypeName(doc)))
	}
}

func loadDict(env pyEnv, d map[string]any, missing string) (*MooncakeStoreConfig, error) {
	_, m := d["master_server_address"]
	_, c := d["client_server_address"]
	if !m && !c {
		return nil, pyErr("ValueError", missing)
	}
	return configFromDict(env, d)
}

// loadFromEnv is MooncakeStoreConfig.load_from_env.
func loadFromEnv(env pyEnv) (*MooncakeStoreConfig, error) {
	if !env.isSet(envMaster) && !env.isSet(envClient) {
		return nil, pyErr("ValueError", "Either the environment variable 'MOONCAKE_MASTER' or 'MOONCAKE_CLIENT' is not set.")
	}
	c := &MooncakeStoreConfig{}
	if env.resolveHost {
		c.LocalHostname = env.resolveLocalHostname(nil)
	} else if env.isSet(envLocalHostname) {
		c.LocalHostname = env.get(envLocalHostname)
	} else if v, ok := env.vars[legacyLocalHostEnv]; ok {
		c.LocalHostname = v
	} else {
		c.LocalHostname = envLocalHostname.def
	}
	// Keyword-argument order of the MooncakeStoreConfig(...) call: it fixes
	// the order of invalid-value warnings.
	c.MetadataServer = env.get(envMetadataServer)
	seg, err := ParseGlobalSegmentSize(env.get(envGlobalSegment))
	if err != nil {
		return nil, err
	}
	c.GlobalSegmentSize = seg
	c.Protocol = env.get(envProtocol)
	c.DeviceName = env.get(envDevice)
	c.MasterServerAddress = env.get(envMaster)
	c.MasterMetricsPort = env.get(envMetricsPort)
	c.CheckServer = env.get(envCheckServer)
	c.StandaloneStorage = env.get(envStandalone)
	c.ClientServerAddress = env.get(envClient)
	c.EnableSSDOffload = env.get(envEnableSSD)
	c.SSDOffloadPath = env.get(envOffloadPath)
	c.TenantID = NormalizeTenantID(env.get(envTenantID))
	return c, nil
}

// loadConfig is MooncakeBaseStore._load_config: all-or-nothing precedence
// extra_config (an address key that is not None) → file → env. It returns
// the source name for the "loaded from ... successfully." log line.
func loadConfig(env pyEnv, files map[string]string, extra map[string]any) (*MooncakeStoreConfig, string, error) {
	if len(extra) > 0 && (extra["master_server_address"] != nil || extra["client_server_address"] != nil) {
		c, err := loadFromExtraConfig(env, extra)
		return c, SourceExtraConfig, err
	}
	if env.isSet(envConfigPath) {
		c, err := loadFromFile(env, files)
		return c, SourceFile, err
	}
	c, err := loadFromEnv(env)
	return c, SourceEnv, err
}

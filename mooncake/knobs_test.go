package mooncake

import (
	"math"
	"slices"
	"testing"
)

// Every knob is complete data: a reader, rules with a source, rule
// versions that parse and ascend, samples in every class.
func TestKnobTableComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Knobs {
		if seen[k.Name] {
			t.Errorf("%s: listed twice", k.Name)
		}
		seen[k.Name] = true
		if k.Reader == "" || k.Type == "" || k.Doc == "" || len(k.Rules) == 0 {
			t.Errorf("%s: reader, type, doc and rules are required", k.Name)
		}
		for _, v := range []string{k.Since, k.Until} {
			if v != "" {
				if _, err := ProfileFor(v); err != nil {
					t.Errorf("%s: %v", k.Name, err)
				}
			}
		}
		prev := MustVersion("0.0.0")
		for i, r := range k.Rules {
			if r.Source == "" || r.Invalid == "" {
				t.Errorf("%s rule %d: source and invalid behaviour are required", k.Name, i)
			}
			if i > 0 {
				v, err := ParseVersion(r.From)
				if err != nil || v.Compare(prev) <= 0 {
					t.Errorf("%s rule %d: From %q must be a version after the previous rule's", k.Name, i, r.From)
				}
				prev = v
			}
		}
		for _, c := range ValueClasses {
			if len(k.Samples[c]) == 0 {
				t.Errorf("%s: no %s sample", k.Name, c)
			}
		}
	}
}

// A version added later inherits the last rule.
func TestKnobRuleAtInheritsLast(t *testing.T) {
	k, _ := KnobByName("default_kv_lease_ttl")
	r, ok := k.RuleAt(Version{0, 3, 99, 0})
	if !ok || r.Parse != ParseDuration {
		t.Fatalf("0.3.99 rule = %v %v, want the last (duration)", r.Parse, ok)
	}
	r, _ = k.RuleAt(MustVersion("0.3.10"))
	if r.Parse != ParseGflagUint64 {
		t.Fatalf("0.3.10 rule = %v, want gflags uint64", r.Parse)
	}
	m, _ := KnobByName("MC_MAX_MR_SIZE")
	if _, ok := m.RuleAt(MustVersion("0.3.10")); ok {
		t.Fatal("0.3.10 does not read MC_MAX_MR_SIZE")
	}
}

// The boundary cases read against the source and, where marked, real wheels.
func TestParseKnob(t *testing.T) {
	for _, c := range []struct {
		ver, name, raw string
		want           Value
	}{
		// atoll into uint64 (config.cpp): prefix, zero ignored, negative wraps.
		{"0.3.11.post1", "MC_MAX_MR_SIZE", "1GB", Value{Read: true, Int: 1, Uint: 1, Str: "1GB"}}, // real: max_mr_size: 1
		{"0.3.11.post1", "MC_MAX_MR_SIZE", "0x1000000", Value{Read: true, Int: 1 << 40, Uint: 1 << 40, Str: "0x1000000", Fallback: true, Log: "Ignore value from environment variable MC_MAX_MR_SIZE", Level: "WARNING"}},
		{"0.3.11.post1", "MC_MAX_MR_SIZE", "-1", Value{Read: true, Int: math.MaxInt64, Uint: math.MaxUint64, Str: "-1"}}, // real: no warning
		{"0.3.10", "MC_MAX_MR_SIZE", "1GB", Value{}},
		// GetEnvOr (stoll): prefix, none → default silently.
		{"0.3.9", "MC_STORE_CLIENT_SETUP_RETRIES", "3x", Value{Read: true, Int: 3, Uint: 3, Str: "3x"}},
		{"0.3.9", "MC_STORE_CLIENT_SETUP_RETRIES", "two", Value{Read: true, Int: 20, Uint: 20, Str: "two", Fallback: true}},
		{"0.3.9", "MC_STORE_CLIENT_SETUP_RETRIES", "0", Value{Read: true, Str: "0"}}, // real: "after 0 retries", -1
		// atoll timeouts: a unit is ignored.
		{"0.3.12", "MC_RPC_TIMEOUT_MS", "2s", Value{Read: true, Int: 2, Uint: 2, Str: "2s"}},
		{"0.3.11.post1", "MC_RPC_TIMEOUT_MS", "2s", Value{}},
		// stoi uncaught, then caught (real 0.3.11.post1 / 0.3.12.post1).
		{"0.3.11.post1", "MC_MS_AUTO_DISC", "true", Value{Read: true, Str: "true", Raise: "ValueError: stoi"}},
		{"0.3.12.post1", "MC_MS_AUTO_DISC", "true", Value{Read: true, Str: "true", Fallback: true, Log: "invalid MC_MS_AUTO_DISC value: true, should be 0 or 1, using default: auto discovery not set", Level: "WARNING"}},
		{"0.3.9", "MC_MS_AUTO_DISC", "1x", Value{Read: true, Int: 1, Uint: 1, Str: "1x"}},
		// A number but 0 or 1: a warning from 0.3.6 (client.cpp v0.3.6:110), silent before.
		{"0.3.9", "MC_MS_AUTO_DISC", "2", Value{Read: true, Str: "2", Fallback: true, Log: "invalid MC_MS_AUTO_DISC value: 2, should be 0 or 1, using default: auto discovery not set", Level: "WARNING"}},
		{"0.3.5", "MC_MS_AUTO_DISC", "2", Value{Read: true, Int: 2, Uint: 2, Str: "2"}},
		// presence.
		{"0.3.9", "MC_FORCE_TCP", "0", Value{Read: true, Str: "0", On: true}},
		{"0.3.5", "MC_FORCE_TCP", "1", Value{}},
		// on/off words: any other text is on, warned lowercased (real 0.3.9 … 0.3.14).
		{"0.3.9", "MC_STORE_MEMCPY", "OFF", Value{Read: true, Str: "OFF"}},
		{"0.3.9", "MC_STORE_MEMCPY", "Yes", Value{Read: true, Str: "Yes", On: true}},
		{"0.3.10.post1", "MC_STORE_MEMCPY", "Disable", Value{Read: true, Str: "Disable", On: true, Fallback: true, Log: "Invalid value for MC_STORE_MEMCPY: disable, defaulting to enabled", Level: "WARNING"}},
		{"0.3.12.post1", "MC_STORE_MEMCPY", "", Value{Read: true, On: true, Fallback: true, Log: "Invalid value for MC_STORE_MEMCPY: , defaulting to enabled", Level: "WARNING"}},
		{"0.3.3.post2", "MC_STORE_MEMCPY", "disable", Value{}},
		// one of words: the backend descriptor, per release (file_storage.cpp).
		{"0.3.11.post1", "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", "bucket", Value{Read: true, Str: "bucket_storage_backend", Fallback: true, Log: "Unknown storage backend.", Level: "ERROR"}},
		{"0.3.11.post1", "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", "distributed_storage_backend", Value{Read: true, Str: "bucket_storage_backend", Fallback: true, Log: "Unknown storage backend.", Level: "ERROR"}},
		{"0.3.12.post1", "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", "distributed_storage_backend", Value{Read: true, Str: "distributed_storage_backend"}},
		{"0.3.12.post1", "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", "nvme_kv_storage_backend", Value{Read: true, Str: "bucket_storage_backend", Fallback: true, Log: "Unknown storage backend.", Level: "ERROR"}},
		{"0.3.13.post1", "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", "nvme_kv_storage_backend", Value{Read: true, Str: "nvme_kv_storage_backend"}},
		{"0.3.14", "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", "File_Per_Key_Storage_Backend", Value{Read: true, Str: "bucket_storage_backend", Fallback: true, Log: "Unknown storage backend.", Level: "ERROR"}},
		// atoi with a range.
		{"0.3.9", "MC_RETRY_CNT", "128", Value{Read: true, Int: 9, Uint: 9, Str: "128", Fallback: true, Log: "Ignore value from environment variable MC_RETRY_CNT", Level: "WARNING"}},
		{"0.3.9", "MC_GID_INDEX", "255", Value{Read: true, Int: 255, Uint: 255, Str: "255"}},
		// config.h's gid_index: 0, and from 0.3.8 -1 (the transfer engine picks one).
		{"0.3.12.post1", "MC_GID_INDEX", "300", Value{Read: true, Int: -1, Uint: math.MaxUint64, Str: "300", Fallback: true, Log: "Ignore value from environment variable MC_GID_INDEX", Level: "WARNING"}},
		{"0.3.7.post2", "MC_GID_INDEX", "300", Value{Read: true, Int: 0, Uint: 0, Str: "300", Fallback: true, Log: "Ignore value from environment variable MC_GID_INDEX", Level: "WARNING"}},
		{"0.3.9", "MC_HANDSHAKE_PORT", "70000", Value{Read: true, Int: 12001, Uint: 12001, Str: "70000", Fallback: true, Log: "Ignore value from environment variable MC_HANDSHAKE_PORT", Level: "WARNING"}},
		{"0.3.9", "MC_HANDSHAKE_PORT", "12002x", Value{Read: true, Int: 12002, Uint: 12002, Str: "12002x"}},
		// MC_MTU: one of four values; exit 1 up to 0.3.11.post1 (real 0.3.4 … 0.3.11.post1 wheels).
		{"0.3.4", "MC_MTU", "9000", Value{Read: true, Int: 9000, Uint: 9000, Str: "9000", Log: mtuLog, Level: "ERROR", Exit: mtuLog}},
		{"0.3.11.post1", "MC_MTU", "1500", Value{Read: true, Int: 1500, Uint: 1500, Str: "1500", Log: mtuLog, Level: "ERROR", Exit: mtuLog}},
		{"0.3.11.post1", "MC_MTU", "1024", Value{Read: true, Int: 1024, Uint: 1024, Str: "1024"}},
		{"0.3.12.post1", "MC_MTU", "9000", Value{Read: true, Int: 4096, Uint: 4096, Str: "9000", Fallback: true, Log: mtuLog, Level: "ERROR"}},
		// master flags (real 0.3.9 wheel; real 0.3.11.post1, 0.3.13.post1).
		{"0.3.9", "default_kv_lease_ttl", "5s", Value{Read: true, Str: "5s", Exit: "ERROR: illegal value '5s' specified for uint64 flag 'default_kv_lease_ttl'"}},
		{"0.3.10", "default_kv_lease_ttl", "0x10", Value{Read: true, Int: 16, Uint: 16, Str: "0x10"}},
		{"0.3.10", "default_kv_lease_ttl", "010", Value{Read: true, Int: 10, Uint: 10, Str: "010"}},
		{"0.3.10.post1", "default_kv_lease_ttl", "5s", Value{Read: true, Int: 5000, Uint: 5000, Str: "5s"}},
		{"0.3.10.post1", "default_kv_lease_ttl", " 7 M ", Value{Read: true, Int: 420000, Uint: 420000, Str: " 7 M "}},
		{"0.3.11.post1", "default_kv_lease_ttl", "5sec", Value{Read: true, Str: "5sec", Exit: "Invalid value for --default_kv_lease_ttl: 5sec. unsupported duration unit 'sec'; supported units are ms, s, m, and h"}},
		{"0.3.11.post1", "default_kv_lease_ttl", "-1", Value{Read: true, Str: "-1", Exit: "Invalid value for --default_kv_lease_ttl: -1. duration must start with a non-negative integer and may use ms, s, m, or h as the unit suffix"}},
		{"0.3.9", "client_ttl", "10s", Value{Read: true, Str: "10s", Exit: "ERROR: illegal value '10s' specified for int64 flag 'client_ttl'"}},
	} {
		got := ParseKnob(MustVersion(c.ver), c.name, c.raw, true)
		if got != c.want {
			t.Errorf("%s %s=%q:\n got %+v\nwant %+v", c.ver, c.name, c.raw, got, c.want)
		}
	}
	if got := ParseKnob(MustVersion("0.3.9"), "MC_NOT_A_KNOB", "1", true); got != (Value{}) {
		t.Errorf("unknown knob = %+v", got)
	}
	if got := ParseKnob(MustVersion("0.3.9"), "MC_FORCE_TCP", "", false); got != (Value{}) {
		t.Errorf("unset = %+v", got)
	}
}

func TestValidatePortRange(t *testing.T) {
	for _, c := range []struct {
		lo, hi, wantLo, wantHi int64
		warn                   string
	}{
		{13000, 14000, 13000, 14000, ""},
		{1024, 65535, 12300, 14300, "Invalid port range [1024, 65535], falling back to default [12300, 14300]"}, // 65535 fine, but the pair spans nothing invalid? see below
		{14000, 13000, 12300, 14300, "Invalid port range [14000, 13000], falling back to default [12300, 14300]"},
		{80, 14000, 12300, 14300, "Invalid port range [80, 14000], falling back to default [12300, 14300]"},
		{13000, 40000, 12300, 14300, "Invalid port range [13000, 40000], falling back to default [12300, 14300]"},
		{61000, 65535, 61000, 65535, ""},
	} {
		lo, hi, warn := ValidatePortRange(c.lo, c.hi, 12300, 14300)
		// Only the endpoints are checked: [1024, 65535] is valid.
		if c.lo == 1024 {
			c.wantLo, c.wantHi, c.warn = 1024, 65535, ""
		}
		if lo != c.wantLo || hi != c.wantHi || warn != c.warn {
			t.Errorf("ValidatePortRange(%d, %d) = %d, %d, %q", c.lo, c.hi, lo, hi, warn)
		}
	}
}

func TestAtoll(t *testing.T) {
	for s, want := range map[string]int64{"": 0, " 12ab": 12, "-3": -3, "+7": 7, "x1": 0, "99999999999999999999": math.MaxInt64, "-99999999999999999999": math.MinInt64} {
		if got := Atoll(s); got != want {
			t.Errorf("Atoll(%q) = %d, want %d", s, got, want)
		}
	}
}

// Every knob a model reads is in the table (the generator and coverage
// rely on it).
func TestModelledKnobsListed(t *testing.T) {
	for _, n := range []string{"MC_MAX_MR_SIZE", "MC_RPC_TIMEOUT_MS", "MC_RPC_CONNECT_TIMEOUT_MS", "MC_STORE_CLIENT_SETUP_RETRIES",
		"MC_STORE_CLIENT_MIN_PORT", "MC_STORE_CLIENT_MAX_PORT", "MC_MS_AUTO_DISC", "MC_FORCE_TCP", "MC_FORCE_HCA", "MC_STORE_MEMCPY",
		"MC_STORE_USE_HUGEPAGE", "MC_MIN_RPC_PORT", "MC_MAX_RPC_PORT", "default_kv_lease_ttl", "client_ttl",
		"MC_TCP_BIND_ADDRESS", "MC_LEGACY_RPC_PORT_BINDING", "MC_TRANSFER_TIMEOUT", "MC_GID_INDEX", "MC_HANDSHAKE_PORT",
		"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR"} {
		k, ok := KnobByName(n)
		if !ok || !k.Modelled {
			t.Errorf("%s: not in the table as modelled", n)
		}
	}
	if !slices.ContainsFunc(Knobs, func(k Knob) bool { return k.Scope == ScopeSGLang }) {
		t.Error("no SGLang knob")
	}
}

const mtuLog = "Ignore value from environment variable MC_MTU, it should be 512|1024|2048|4096"

func TestKnobValueDefault(t *testing.T) {
	for _, c := range []struct {
		v, name string
		want    int64
	}{
		{"0.3.7.post2", "MC_GID_INDEX", 0},
		{"0.3.8.post1", "MC_GID_INDEX", -1},
		{"0.3.14", "MC_GID_INDEX", -1},
		{"0.3.9", "MC_RETRY_CNT", 9},
		{"0.3.9", "NO_SUCH_KNOB", 0},
	} {
		if got := KnobValue(MustVersion(c.v), c.name, "", false).Int; got != c.want {
			t.Errorf("%s %s: %d, want %d", c.v, c.name, got, c.want)
		}
	}
}

package mooncake

import "testing"

// MC_FORCE_TCP, MC_FORCE_HCA and MC_USE_IPV6 are getenv presence in every
// release (transfer_engine_impl.cpp:209,297, config.cpp:477); at 0.3.13
// Environ's constructor also ReadBools them (main@3b5a594
// environ.cpp:188,196-197) and warns on stderr for text TryParseBool
// rejects. Real 0.3.13.post1 printed, at store setup:
//
//	[Mooncake] Warning: invalid value 'maybe' for env MC_USE_IPV6, using default 0
//	[Mooncake] Warning: invalid value ' ' for env MC_FORCE_TCP, using default 0
//	[Mooncake] Warning: invalid value 'enabled' for env MC_FORCE_HCA, using default 0
//
// and real 0.3.14 none of them (MC_FORCE_TCP=enabled still forced TCP).
func TestEnvironPresenceBoolParse(t *testing.T) {
	for _, c := range []struct {
		v, name, raw string
		log, level   string
	}{
		{"0.3.12.post1", "MC_FORCE_TCP", "enabled", "", ""},
		{"0.3.12.post1", "MC_USE_IPV6", "", "", ""},
		{"0.3.13.post1", "MC_FORCE_TCP", "0", "", ""},
		{"0.3.13.post1", "MC_FORCE_TCP", " Yes ", "", ""},
		{"0.3.13.post1", "MC_FORCE_TCP", "disable", "", ""},
		{"0.3.13.post1", "MC_FORCE_TCP", " ", "[Mooncake] Warning: invalid value ' ' for env MC_FORCE_TCP, using default 0", LevelStderr},
		{"0.3.13.post1", "MC_FORCE_TCP", "", "[Mooncake] Warning: invalid value '' for env MC_FORCE_TCP, using default 0", LevelStderr},
		{"0.3.13.post1", "MC_FORCE_HCA", "enabled", "[Mooncake] Warning: invalid value 'enabled' for env MC_FORCE_HCA, using default 0", LevelStderr},
		{"0.3.13.post1", "MC_USE_IPV6", "maybe", "[Mooncake] Warning: invalid value 'maybe' for env MC_USE_IPV6, using default 0", LevelStderr},
		{"0.3.14", "MC_FORCE_TCP", "enabled", "", ""},
		{"0.3.14", "MC_FORCE_HCA", "enabled", "", ""},
		{"0.3.14", "MC_USE_IPV6", "maybe", "", ""},
	} {
		got := ParseKnob(MustVersion(c.v), c.name, c.raw, true)
		// Presence decides the effective value whatever Environ says.
		if !got.Read || !got.On || got.Fallback || got.Log != c.log || got.Level != c.level {
			t.Errorf("%s %s=%q: read %v on %v fallback %v log %q level %q, want on, no fallback, log %q level %q",
				c.v, c.name, c.raw, got.Read, got.On, got.Fallback, got.Log, got.Level, c.log, c.level)
		}
	}
}

// Environ's warning is std::cerr, not glog (environ.cpp:90-92).
func TestWithNvidiaPeermemWarningIsStderr(t *testing.T) {
	got := ParseKnob(MustVersion("0.3.13.post1"), "WITH_NVIDIA_PEERMEM", "enabled", true)
	if got.Level != LevelStderr {
		t.Errorf("level %q, want %q", got.Level, LevelStderr)
	}
}

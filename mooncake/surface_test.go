package mooncake

import "testing"

// The binding's surface as dir(MooncakeDistributedStore) of the cached
// wheels showed it (2026-12-02) and store_py.cpp at the tags.
func TestHasMethod(t *testing.T) {
	for _, c := range []struct {
		version, method string
		want            bool
	}{
		{"0.3.5", "batch_get_buffer", false},
		{"0.3.6", "batch_get_buffer", true},
		{"0.3.4.post2", "batch_get_into", false},
		{"0.3.5", "batch_get_into", true},
		{"0.3.4", "batch_is_exist", false},
		{"0.3.4.post2", "batch_is_exist", true},
		{"0.3.9", "health_check", false},
		{"0.3.10", "health_check", true},
		{"0.3.13.post1", "get_tensor_with_parallelism", true},
		{"0.3.14", "get_tensor_with_parallelism", false},
		{"0.3.14", "probe_key", true},
		{"0.3.0", "setup", true},
		{"0.3.14", "setup_lmcache", false},
	} {
		p := MustProfile(c.version)
		if got := p.HasMethod(c.method); got != c.want {
			t.Errorf("%s HasMethod(%s) = %v, want %v", c.version, c.method, got, c.want)
		}
	}
	if got, want := MustProfile("0.3.14").NoAttributeError("x"), "'mooncake._store.MooncakeDistributedStore' object has no attribute 'x'"; got != want {
		t.Errorf("NoAttributeError = %q, want %q", got, want)
	}
}

// The Profile gates of methods agree with the surface table.
func TestSurfaceAgreesWithProfile(t *testing.T) {
	for _, v := range Versions {
		p := MustProfile(v)
		if p.HasMethod("health_check") != p.HealthCheck || p.HasMethod("setup_dummy") != p.DummyClient {
			t.Errorf("%s: surface says health_check %v, setup_dummy %v; profile %v, %v", v, p.HasMethod("health_check"), p.HasMethod("setup_dummy"), p.HealthCheck, p.DummyClient)
		}
	}
}

func TestValidMethodName(t *testing.T) {
	for s, want := range map[string]bool{"batch_get_buffer": true, "_x": true, "": false, "1a": false, "a-b": false, "a b": false} {
		if ValidMethodName(s) != want {
			t.Errorf("ValidMethodName(%q) != %v", s, want)
		}
	}
}

package sglang

import "testing"

func TestParseGlobalSegmentSize(t *testing.T) {
	tests := []struct {
		in        any
		want      int64
		wantClass string
		wantMsg   string
	}{
		{in: int64(17179869184), want: 16 * gib},
		{in: true, want: 1},
		{in: "4gb", want: 4 * gib},
		{in: " 4GB ", want: 4 * gib},
		{in: "4 gb", want: 4 * gib},
		{in: "1_024", want: 1024},
		{in: "+5", want: 5},
		{in: "-1gb", want: -gib},
		{in: 4.9, want: 4},
		{in: "4G", wantClass: "ValueError", wantMsg: "invalid literal for int() with base 10: '4g'"},
		{in: "512MB", wantClass: "ValueError", wantMsg: "invalid literal for int() with base 10: '512mb'"},
		{in: "gb", wantClass: "ValueError", wantMsg: "Invalid global_segment_size: missing number before 'gb'"},
		{in: "1__0", wantClass: "ValueError", wantMsg: "invalid literal for int() with base 10: '1__0'"},
		{in: "", wantClass: "ValueError", wantMsg: "invalid literal for int() with base 10: ''"},
		{in: nil, wantClass: "TypeError", wantMsg: "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"},
		{in: []any{int64(1)}, wantClass: "TypeError", wantMsg: "int() argument must be a string, a bytes-like object or a real number, not 'list'"},
	}
	for _, tc := range tests {
		got, err := ParseGlobalSegmentSize(tc.in)
		if tc.wantClass != "" {
			wantPyError(t, err, tc.wantClass, tc.wantMsg)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%#v: got %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestNormalizeTenantID(t *testing.T) {
	for in, want := range map[any]string{nil: "default", "": "default", " \t": "default", " t1 ": "t1", int64(7): "7", true: "True"} {
		if got := NormalizeTenantID(in); got != want {
			t.Errorf("%#v: got %q want %q", in, got, want)
		}
	}
}

func TestLoadFromExtraConfigMissingAddress(t *testing.T) {
	// Unreachable through _load_config (it needs a non-None address to pick
	// extra_config) but part of the loader.
	_, err := loadFromExtraConfig(pyEnv{}, map[string]any{"protocol": "tcp"})
	wantPyError(t, err, "ValueError", "Either master_server_address or client_server_address is required in extra_config")
}

func TestEnvFieldParsing(t *testing.T) {
	var warnings []string
	env := pyEnv{vars: map[string]string{
		"MOONCAKE_CHECK_SERVER": "Y", "MOONCAKE_STANDALONE_STORAGE": "off", "MOONCAKE_ENABLE_SSD_OFFLOAD": "",
		"MOONCAKE_MASTER_METRICS_PORT": " 9100 ",
	}, warn: func(s string) { warnings = append(warnings, s) }}
	eq(t, "Y", env.get(envCheckServer), true)
	eq(t, "off", env.get(envStandalone), false)
	eq(t, "empty", env.get(envEnableSSD), false)
	eq(t, "port", env.get(envMetricsPort), int64(9100))
	eq(t, "unset", env.get(envOffloadPath), nil)
	eq(t, "warnings", warnings, []string{
		`Invalid value for MOONCAKE_STANDALONE_STORAGE: "off" is not a valid boolean value, using default "False"`,
		`Invalid value for MOONCAKE_ENABLE_SSD_OFFLOAD: "" is not a valid boolean value, using default "False"`,
	})
}

func TestFileTopLevelShapes(t *testing.T) {
	env := pyEnv{vars: map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": "/c"}, warn: func(string) {}}
	tests := []struct{ doc, class, msg string }{
		{`null`, "TypeError", "argument of type 'NoneType' is not iterable"},
		{`["x"]`, "ValueError", "Either master_server_address or client_server_address is required in config file"},
		{`["master_server_address"]`, "AttributeError", "'list' object has no attribute 'get'"},
		{`"client_server_address"`, "AttributeError", "'str' object has no attribute 'get'"},
	}
	for _, tc := range tests {
		_, err := loadFromFile(env, map[string]string{"/c": tc.doc})
		wantPyError(t, err, tc.class, tc.msg)
	}
	_, err := loadFromFile(pyEnv{vars: map[string]string{}}, nil)
	wantPyError(t, err, "RuntimeError", "Config file path not set. Please set SGLANG_HICACHE_MOONCAKE_CONFIG_PATH")
}

func TestPyFloatRepr(t *testing.T) {
	// repr(float(x)) from CPython.
	for in, want := range map[float64]string{4.5: "4.5", 1e20: "1e+20", 1e16: "1e+16", 1e15: "1000000000000000.0", 0.0001: "0.0001", 1e-05: "1e-05", 123.456: "123.456", -0.5: "-0.5", 2.0: "2.0"} {
		if got := pyFloatRepr(in); got != want {
			t.Errorf("%v: got %q want %q", in, got, want)
		}
	}
}

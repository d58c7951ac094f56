package mooncake

import "testing"

// The transfer engine's RDMA/handshake knobs as real 0.3.9, 0.3.12.post1,
// 0.3.13.post1 and 0.3.14 printed them (REAL-FINDINGS §98).
func TestTEConfigKnobs(t *testing.T) {
	for _, c := range []struct {
		ver, name, raw    string
		log, environ, sig string
	}{
		{"0.3.9", "MC_MAX_SGE", "0", "Ignore value from environment variable MC_MAX_SGE", "", ""},
		{"0.3.9", "MC_MAX_WR", "-1", "Ignore value from environment variable MC_MAX_WR", "", ""},
		{"0.3.9", "MC_MAX_INLINE", "0", "", "", ""},
		{"0.3.9", "MC_IB_TC", "300", "Ignore value from environment variable MC_IB_TC, value 300 out of range (should be 0-255)", "", ""},
		{"0.3.9", "MC_IB_TC", "abc", "Invalid MC_IB_TC environment value: abc. Error: stoi", "", ""},
		{"0.3.9", "MC_HANDSHAKE_LISTEN_BACKLOG", "abc", "", "", "SIGABRT"},
		{"0.3.9", "MC_HANDSHAKE_LISTEN_BACKLOG", "0", "Ignore value from environment variable MC_HANDSHAKE_LISTEN_BACKLOG", "", ""},
		{"0.3.12.post1", "MC_HANDSHAKE_LISTEN_BACKLOG", "abc", "Invalid MC_HANDSHAKE_LISTEN_BACKLOG environment value: abc. Error: stoi", "", ""},
		{"0.3.12.post1", "MC_ENDPOINT_STORE_TYPE", "fifo", "Ignore value from environment variable MC_ENDPOINT_STORE_TYPE, it should be FIFO|SIEVE", "", ""},
		{"0.3.12.post1", "MC_ENABLE_PARALLEL_REG_MR", "on", "", "", ""},
		{"0.3.13.post1", "MC_MAX_SGE", "abc", "Ignore value from environment variable MC_MAX_SGE", "[Mooncake] Warning: invalid value 'abc' for env MC_MAX_SGE, using default 4", ""},
		{"0.3.13.post1", "MC_NUM_CQ_PER_CTX", "0", "Ignore value from environment variable MC_NUM_CQ_PER_CTX", "", ""},
		{"0.3.13.post1", "MC_FRAGMENT_RATIO", "4x", "", "[Mooncake] Warning: invalid value '4x' for env MC_FRAGMENT_RATIO, using default 4", ""},
		{"0.3.13.post1", "MC_PATH_ROUNDROBIN", "maybe", "", "[Mooncake] Warning: invalid value 'maybe' for env MC_PATH_ROUNDROBIN, using default 0", ""},
		{"0.3.13.post1", "MC_DISABLE_METACACHE", "maybe", "[Mooncake] Warning: invalid value 'maybe' for env MC_DISABLE_METACACHE, using default 0", "", ""},
		{"0.3.13.post1", "MC_EFA_CQ_THREADS", "x", "[Mooncake] Warning: invalid value 'x' for env MC_EFA_CQ_THREADS, using default 1", "", ""},
		{"0.3.13.post1", "MC_HANDSHAKE_MAX_LENGTH", "1MB", "Invalid MC_HANDSHAKE_MAX_LENGTH value: 1MB, valid range: 1048576 to 134217728, using default 1MB", "[Mooncake] Warning: invalid value '1MB' for env MC_HANDSHAKE_MAX_LENGTH, using default 1048576", ""},
		{"0.3.14", "MC_MAX_SGE", "abc", "Ignore value from environment variable MC_MAX_SGE", "", ""},
		{"0.3.14", "MC_EFA_CQ_THREADS", "x", "Invalid MC_EFA_CQ_THREADS environment value: x, keeping default 1", "", ""},
		{"0.3.14", "MC_EFA_CQ_THREADS", "-1", "", "", ""},
		{"0.3.14", "MOONCAKE_STORE_CHECKSUM", "maybe", "[Mooncake] Warning: invalid value 'maybe' for env MOONCAKE_STORE_CHECKSUM, using default 0", "", ""},
		{"0.3.14", "MC_DISABLE_METACACHE", "maybe", "", "", ""},
		{"0.3.13.post1", "MOONCAKE_AWS_CONNECT_TIMEOUT_MS", "10s", "[Mooncake] Warning: invalid value '10s' for env MOONCAKE_AWS_CONNECT_TIMEOUT_MS, using default 10000", "", ""},
		{"0.3.13.post1", "MOONCAKE_AWS_USE_HTTPS", "maybe", "[Mooncake] Warning: invalid value 'maybe' for env MOONCAKE_AWS_USE_HTTPS, using default 1", "", ""},
	} {
		v := ParseKnob(MustVersion(c.ver), c.name, c.raw, true)
		if !v.Read || v.Log != c.log || v.EnvironLog != c.environ || v.Signal != c.sig {
			t.Errorf("%s %s=%q: %+v", c.ver, c.name, c.raw, v)
		}
	}
	if v := ParseKnob(MustVersion("0.3.9"), "MC_PATH_ROUNDROBIN", "TRUE", true); !v.On {
		t.Errorf("TRUE: %+v", v)
	}
	if v := ParseKnob(MustVersion("0.3.9"), "MC_PATH_ROUNDROBIN", "yes", true); v.On {
		t.Errorf("yes: %+v", v)
	}
	if v := ParseKnob(MustVersion("0.3.9"), "MC_HANDSHAKE_MAX_LENGTH", " 2097152", true); !v.Fallback || v.Int != 1048576 {
		t.Errorf("leading space: %+v", v)
	}
	if v := ParseKnob(MustVersion("0.3.12"), "MC_EFA_CQ_THREADS", "x", true); v.Log != "" || v.Int != 0 {
		t.Errorf("0.3.12 atoi: %+v", v)
	}
	if _, ok := KnobByName("MC_EFA_CQ_THREADS"); !ok {
		t.Error("MC_EFA_CQ_THREADS missing")
	}
	if v := ParseKnob(MustVersion("0.3.11.post1"), "MC_EFA_CQ_THREADS", "2", true); v.Read {
		t.Errorf("read before 0.3.12: %+v", v)
	}
}

// The knobs only recent releases read: real 0.3.12.post1 and 0.3.14's
// lines (REAL-FINDINGS §100).
func TestRecentConfigKnobs(t *testing.T) {
	for _, c := range []struct {
		v, name, raw string
		log          string
	}{
		{"0.3.14", "MC_CONN_PAUSE_TTL_MS", "abc", "Invalid MC_CONN_PAUSE_TTL_MS environment value: abc. Expected an integer in range 0-600000"},
		{"0.3.14", "MC_CONN_PAUSE_TTL_MS", "-5", "Ignore value from environment variable MC_CONN_PAUSE_TTL_MS, value -5 out of range (should be 0-600000)"},
		{"0.3.14", "MC_CONN_PAUSE_TTL_MS", "+5", "Invalid MC_CONN_PAUSE_TTL_MS environment value: +5. Expected an integer in range 0-600000"},
		{"0.3.14", "MC_CONN_PAUSE_TTL_MS", "600000", ""},
		{"0.3.14", "MC_EFA_NIC_SELECTION", "LOCAL", ""},
		{"0.3.14", "MC_EFA_NIC_SELECTION", "some", "Invalid MC_EFA_NIC_SELECTION environment value: some, expected all|local, keeping default"},
		{"0.3.12.post1", "MC_EFA_NIC_SELECTION", "some", ""}, // not read yet
		{"0.3.14", "MC_MAX_CONCURRENT_REG_MR", "-1", "Invalid MC_MAX_CONCURRENT_REG_MR environment value: -1, keeping default"},
		{"0.3.12.post1", "MC_PKEY_INDEX", "abc", "Invalid MC_PKEY_INDEX environment value: abc. Error: stoi"},
		{"0.3.12.post1", "MC_IB_SL", "16", "Ignore value from environment variable MC_IB_SL, value 16 out of range (should be 0-15)"},
		{"0.3.11", "MC_IB_SL", "16", ""}, // not read yet
		{"0.3.12.post1", "MC_MLX5_QP_LAG_PORT_BALANCE", "yes", "Ignore MC_MLX5_QP_LAG_PORT_BALANCE: expected 0/1/true/false, got: yes"},
		{"0.3.12.post1", "MC_MLX5_QP_LAG_PORT_BALANCE", "", ""},
	} {
		if got := ParseKnob(MustVersion(c.v), c.name, c.raw, true).Log; got != c.log {
			t.Errorf("%s %s=%q: log %q, want %q", c.v, c.name, c.raw, got, c.log)
		}
	}
}

// The last seven config.cpp knobs: real 0.3.9, 0.3.12.post1, 0.3.13.post1
// and 0.3.14's lines (REAL-FINDINGS §102).
func TestLastConfigKnobs(t *testing.T) {
	const nic = "MC_NIC_PEER_AFFINITY"
	for _, c := range []struct {
		v, name, raw string
		log          string
		fallback     bool
	}{
		{"0.3.9", "MC_MIN_REG_SIZE", "abc", "Ignore value from environment variable MC_MIN_REG_SIZE", true},
		{"0.3.9", "MC_MIN_REG_SIZE", "0", "Ignore value from environment variable MC_MIN_REG_SIZE", true},
		{"0.3.9", "MC_MIN_REG_SIZE", "-1", "", false}, // wraps: "Barex set MC_MIN_REG_SIZE=18446744073709551615"
		{"0.3.9", "MC_MIN_REG_SIZE", "1MB", "", false},
		{"0.3.7.post2", "MC_MIN_REG_SIZE", "abc", "", false}, // not read yet
		{"0.3.9", "MC_SLICE_TIMEOUT", "65536", "Ignore value from environment variable MC_SLICE_TIMEOUT", true},
		{"0.3.9", "MC_SLICE_TIMEOUT", "-1", "Ignore value from environment variable MC_SLICE_TIMEOUT", true},
		{"0.3.9", "MC_SLICE_TIMEOUT", "30s", "", false},
		{"0.3.4", "MC_SLICE_TIMEOUT", "0", "Ignore value from environment variable MC_SLICE_TIMEOUT", true},
		{"0.3.12.post1", "MC_AUTO_GID_MAX_RETRIES", "17", "Ignore value from environment variable MC_AUTO_GID_MAX_RETRIES", true},
		{"0.3.12.post1", "MC_AUTO_GID_MAX_RETRIES", "abc", "", false}, // atoi 0: taken
		{"0.3.11.post1", "MC_AUTO_GID_MAX_RETRIES", "17", "", false},
		{"0.3.14", "MC_ENABLE_HCA_PEER_AFFINITY", "yes", "Ignore value from environment variable MC_ENABLE_HCA_PEER_AFFINITY, it should be 0|1|true|false", true},
		{"0.3.14", "MC_ENABLE_HCA_PEER_AFFINITY", "TRUE", "", false},
		{"0.3.12.post1", "MC_LOG_RDMA_SLICE_AFFINITY", "", "Ignore value from environment variable MC_LOG_RDMA_SLICE_AFFINITY, it should be 0|1|true|false", true},
		{"0.3.13.post1", "MC_TRACK_RDMA_POSTED_SLICES", "maybe", "Ignore value from environment variable MC_TRACK_RDMA_POSTED_SLICES, it should be 0|1|true|false", true},
		{"0.3.13.post1", "MC_TRACK_RDMA_POSTED_SLICES", " 1", "Ignore value from environment variable MC_TRACK_RDMA_POSTED_SLICES, it should be 0|1|true|false", true},
		{"0.3.12.post1", nic, " mlx5_0 ;=mlx5_1; mlx5_2 = , ;mlx5_3=mlx5_4", "Invalid MC_NIC_PEER_AFFINITY rule 'mlx5_0'. Expected local_hca=peer_hca[,peer_hca].\n" +
			"Invalid MC_NIC_PEER_AFFINITY rule '=mlx5_1': local HCA is empty.\n" +
			"Invalid MC_NIC_PEER_AFFINITY rule 'mlx5_2 = ,': peer HCA list is empty.", false},
		{"0.3.12.post1", nic, " mlx5_0 = mlx5_1 ;", "", false},
	} {
		got := ParseKnob(MustVersion(c.v), c.name, c.raw, true)
		if got.Log != c.log || got.Fallback != c.fallback {
			t.Errorf("%s %s=%q: log %q fallback %v, want %q %v", c.v, c.name, c.raw, got.Log, got.Fallback, c.log, c.fallback)
		}
	}
	if n := ParseKnob(MustVersion("0.3.14"), nic, "a=b;a=c;c=d,;=x;e=", true).Int; n != 2 {
		t.Errorf("%s kept %d mappings, want 2", nic, n)
	}
	if u := ParseKnob(MustVersion("0.3.14"), "MC_MIN_REG_SIZE", "-1", true).Uint; u != 18446744073709551615 {
		t.Errorf("MC_MIN_REG_SIZE=-1 is %d", u)
	}
	v := MustVersion("0.3.14")
	both := map[string]string{"MC_ENABLE_HCA_PEER_AFFINITY": "1", "MC_ENABLE_DEST_DEVICE_AFFINITY": "1"}
	if HCAPeerAffinityConflict(v, both) == "" || HCAPeerAffinityOn(v, both) || HCAPeerAffinityUnmapped(v, both) != "" {
		t.Error("both affinities: the ERROR, both off")
	}
	if HCAPeerAffinityUnmapped(v, map[string]string{"MC_ENABLE_HCA_PEER_AFFINITY": "True", nic: "mlx5_0"}) == "" {
		t.Error("on without a mapping: topology's warning")
	}
	if HCAPeerAffinityUnmapped(v, map[string]string{"MC_ENABLE_HCA_PEER_AFFINITY": "true", nic: "mlx5_0=mlx5_1"}) != "" {
		t.Error("on with a mapping: silent")
	}
	if HCAPeerAffinityConflict(MustVersion("0.3.11.post1"), both) != "" {
		t.Error("0.3.11.post1 does not read MC_ENABLE_HCA_PEER_AFFINITY")
	}
}

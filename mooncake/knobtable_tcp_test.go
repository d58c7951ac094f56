package mooncake

import (
	"math"
	"testing"
)

// The TCP transport's knobs as real 0.3.12.post1, 0.3.13.post1 and 0.3.14
// logged them (two TransferEngines, tcp; notes/s108.md).
func TestTCPTransportKnobs(t *testing.T) {
	const dep = "MC_TCP_MAX_CONNECTIONS_PER_PEER is deprecated; use MC_TCP_LANES_PER_PEER"
	for _, c := range []struct {
		ver, name, raw string
		log            string
		n              int64
		fallback       bool
	}{
		{"0.3.14", "MC_TCP_LANES_PER_PEER", "16", "", 16, false},
		{"0.3.14", "MC_TCP_LANES_PER_PEER", "17", "Invalid MC_TCP_LANES_PER_PEER value: 17, using default 4", 4, true},
		{"0.3.14", "MC_TCP_LANES_PER_PEER", "0", "Invalid MC_TCP_LANES_PER_PEER value: 0, using default 4", 4, true},
		{"0.3.14", "MC_TCP_LANES_PER_PEER", "", "Invalid MC_TCP_LANES_PER_PEER value: , using default 4", 4, true},
		{"0.3.14", "MC_TCP_LANES_PER_PEER", " 2", "Invalid MC_TCP_LANES_PER_PEER value:  2, using default 4", 4, true},
		{"0.3.14", "MC_TCP_LANES_PER_PEER", "+2", "Invalid MC_TCP_LANES_PER_PEER value: +2, using default 4", 4, true},
		{"0.3.14", "MC_TCP_LANES_PER_PEER", "-1", "Invalid MC_TCP_LANES_PER_PEER value: -1, using default 4", 4, true},
		{"0.3.14", "MC_TCP_LANES_PER_PEER", "99999999999999999999999", "Invalid MC_TCP_LANES_PER_PEER value: 99999999999999999999999, using default 4", 4, true},
		{"0.3.13.post1", "MC_TCP_LANES_PER_PEER", "abc", "Invalid MC_TCP_LANES_PER_PEER value: abc, using default 4", 4, true},
		{"0.3.12.post1", "MC_TCP_LANES_PER_PEER", "abc", "", 0, false}, // not read yet
		{"0.3.14", "MC_TCP_MAX_CONNECTIONS_PER_PEER", "8", dep, 8, false},
		{"0.3.14", "MC_TCP_MAX_CONNECTIONS_PER_PEER", "17", dep + "\nInvalid MC_TCP_MAX_CONNECTIONS_PER_PEER value: 17, using default 4", 4, true},
		{"0.3.13.post1", "MC_TCP_MAX_CONNECTIONS_PER_PEER", "abc", dep + "\nInvalid MC_TCP_MAX_CONNECTIONS_PER_PEER value: abc, using default 4", 4, true},
		{"0.3.13.post1", "MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER", "65535", "", 65535, false},
		{"0.3.13.post1", "MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER", "65536", "Invalid MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER value: 65536, using default 1024", 1024, true},
		{"0.3.13.post1", "MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER", "0", "Invalid MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER value: 0, using default 1024", 1024, true},
		{"0.3.14", "MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER", "65536", "", 65536, false},
		{"0.3.14", "MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER", "1048576", "", 1048576, false},
		{"0.3.14", "MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER", "1048577", "Invalid MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER value: 1048577, using default 65535", 65535, true},
		{"0.3.14", "MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER", "abc", "Invalid MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER value: abc, using default 65535", 65535, true},
		{"0.3.13.post1", "MC_TCP_MAX_PENDING_ADMISSIONS_PER_PEER", "65536", "Invalid MC_TCP_MAX_PENDING_ADMISSIONS_PER_PEER value: 65536, using default 1024", 1024, true},
		{"0.3.14", "MC_TCP_MAX_PENDING_ADMISSIONS_PER_PEER", "0", "Invalid MC_TCP_MAX_PENDING_ADMISSIONS_PER_PEER value: 0, using default 65535", 65535, true},
		{"0.3.14", "MC_TCP_MAX_PENDING_ADMISSIONS_PER_PEER", "4294967296", "Invalid MC_TCP_MAX_PENDING_ADMISSIONS_PER_PEER value: 4294967296, using default 65535", 65535, true},
		{"0.3.13.post1", "MC_TCP_ADMISSION_TIMEOUT_MS", "600001", "Invalid MC_TCP_ADMISSION_TIMEOUT_MS value: 600001, using default 1000", 1000, true},
		{"0.3.14", "MC_TCP_ADMISSION_TIMEOUT_MS", "600000", "", 600000, false},
		{"0.3.14", "MC_TCP_ADMISSION_TIMEOUT_MS", "0", "Invalid MC_TCP_ADMISSION_TIMEOUT_MS value: 0, using default 1000", 1000, true},
		{"0.3.14", "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", "0", "", 0, false},
		{"0.3.14", "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", "1048575", "", 1048575, false}, // taken; fails a 1 MiB write
		{"0.3.14", "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", "18446744073709551615", "", math.MaxInt64, false},
		{"0.3.14", "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", "18446744073709551616", "Invalid MC_TCP_MAX_QUEUED_BYTES_PER_PEER value: 18446744073709551616, using default 0", 0, true},
		{"0.3.14", "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", "-1", "Invalid MC_TCP_MAX_QUEUED_BYTES_PER_PEER value: -1, using default 0", 0, true},
		{"0.3.14", "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", "abc", "Invalid MC_TCP_MAX_QUEUED_BYTES_PER_PEER value: abc, using default 0", 0, true},
		{"0.3.13.post1", "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", "abc", "", 0, false}, // not read yet
		{"0.3.14", "MC_NUM_TCP_IO_THREADS", "32", "", 32, false},
		{"0.3.14", "MC_NUM_TCP_IO_THREADS", "33", "Invalid MC_NUM_TCP_IO_THREADS value: 33, using default 1", 1, true},
		{"0.3.14", "MC_NUM_TCP_IO_THREADS", "0", "Invalid MC_NUM_TCP_IO_THREADS value: 0, using default 1", 1, true},
		{"0.3.14", "MC_NUM_TCP_IO_THREADS", " 2", "Invalid MC_NUM_TCP_IO_THREADS value:  2, using default 1", 1, true},
		{"0.3.14", "MC_TCP_PROGRESS_TIMEOUT_SEC", "3x", "", 3, false},
		{"0.3.14", "MC_TCP_PROGRESS_TIMEOUT_SEC", "abc", "", 30, true},
		{"0.3.13.post1", "MC_TCP_PROGRESS_TIMEOUT_SEC", "0", "", 30, true},
		{"0.3.12.post1", "MC_TCP_SLICE_SIZE", "0", "Ignore non-positive MC_TCP_SLICE_SIZE value: 0, using default 65536", 65536, true},
		{"0.3.12.post1", "MC_TCP_SLICE_SIZE", "abc", "Invalid MC_TCP_SLICE_SIZE value: abc. Error: stoull, using default 65536", 65536, true},
		{"0.3.13.post1", "MC_TCP_SLICE_SIZE", "", "Invalid MC_TCP_SLICE_SIZE value: . Error: stoull, using default 65536", 65536, true},
		{"0.3.14", "MC_TCP_SLICE_SIZE", "99999999999999999999", "Invalid MC_TCP_SLICE_SIZE value: 99999999999999999999. Error: stoull, using default 65536", 65536, true},
		{"0.3.14", "MC_TCP_SLICE_SIZE", "-1", "", math.MaxInt64, false}, // wraps to 2⁶⁴−1
		{"0.3.14", "MC_TCP_SLICE_SIZE", "4k", "", 4, false},
		{"0.3.14", "MC_TCP_SLICE_SIZE", " 10", "", 10, false},
		{"0.3.11.post1", "MC_TCP_SLICE_SIZE", "abc", "", 0, false}, // not read yet
		{"0.3.14", "MC_TCP_PROTO", "2", "", 0, true},
	} {
		v := ParseKnob(MustVersion(c.ver), c.name, c.raw, true)
		if v.Log != c.log || v.Int != c.n || v.Fallback != c.fallback || (v.Log != "" && v.Level != "WARNING") {
			t.Errorf("%s %s=%q: %+v, want log %q, %d, fallback %v", c.ver, c.name, c.raw, v, c.log, c.n, c.fallback)
		}
	}
	if v := ParseKnob(MustVersion("0.3.14"), "MC_TCP_SLICE_SIZE", "-1", true); v.Uint != math.MaxUint64 {
		t.Errorf("MC_TCP_SLICE_SIZE=-1: %+v, want 2⁶⁴−1", v)
	}
	if v := ParseKnob(MustVersion("0.3.14"), "MC_TCP_PROTO", "1", true); v.Fallback || v.Str != "1" {
		t.Errorf("MC_TCP_PROTO=1: %+v", v)
	}
	if v := ParseKnob(MustVersion("0.3.14"), "MC_METADATA_HTTP_TOKEN", "s3cret", true); !v.Read || v.Str != "s3cret" || v.Log != "" {
		t.Errorf("MC_METADATA_HTTP_TOKEN: %+v", v)
	}
	if v := ParseKnob(MustVersion("0.3.13.post1"), "MC_METADATA_HTTP_TOKEN", "s3cret", true); v.Read {
		t.Errorf("MC_METADATA_HTTP_TOKEN read before 0.3.14: %+v", v)
	}
	for name, want := range map[string]int64{"MC_TCP_LANES_PER_PEER": 4, "MC_NUM_TCP_IO_THREADS": 1, "MC_TCP_PROGRESS_TIMEOUT_SEC": 30, "MC_TCP_SLICE_SIZE": 65536, "MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER": 65535} {
		if got := KnobValue(MustVersion("0.3.14"), name, "", false).Int; got != want {
			t.Errorf("0.3.14 %s unset: %d, want %d", name, got, want)
		}
	}
}

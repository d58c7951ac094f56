package mooncake

import "testing"

// WITH_NVIDIA_PEERMEM unset is false at 0.3.11 only (environ.cpp v0.3.11:84
// GetBool(..., false)); #2192 made it true from 0.3.11.post1
// (v0.3.11.post1:84, v0.3.12.post1:126, main@3b5a594:201 ReadBool).
func TestWithNvidiaPeermemDefault(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{
		{"0.3.10.post2", false}, // not read: the compile option
		{"0.3.11", false},
		{"0.3.11.post1", true},
		{"0.3.12.post1", true},
		{"0.3.13.post1", true},
		{"0.3.14", false}, // real: the module is not loaded here
	} {
		if got := KnobValue(MustVersion(c.v), "WITH_NVIDIA_PEERMEM", "", false).On; got != c.want {
			t.Errorf("%s: default %v, want %v", c.v, got, c.want)
		}
	}
	// Real 0.3.14: unset follows /sys/module/nvidia_peermem (or
	// nv_peer_mem); the releases before ignore the host.
	for _, v := range []string{"0.3.13.post1", "0.3.14"} {
		if got := KnobValueOn(MustVersion(v), "WITH_NVIDIA_PEERMEM", "", false, KnobHost{Peermem: true}).On; !got {
			t.Errorf("%s with the module loaded: default off, want on", v)
		}
	}
	if KnobValue(MustVersion("0.3.13.post1"), "NO_SUCH_KNOB", "", false).On {
		t.Error("an unknown knob defaults on")
	}
}

// GetBool (up to 0.3.12.post1) turns anything but 1/true/on/yes off,
// silently; ReadBool (0.3.13: main@3b5a594 environ.cpp:78-93) keeps the
// default, true, for a word it does not know and warns on stderr.
func TestWithNvidiaPeermemParse(t *testing.T) {
	const warn = "[Mooncake] Warning: invalid value 'enabled' for env WITH_NVIDIA_PEERMEM, using default 1"
	for _, c := range []struct {
		v, raw   string
		on, fell bool
		log      string
	}{
		{"0.3.11", "Yes", true, false, ""},
		{"0.3.11.post1", "0", false, false, ""},
		{"0.3.11.post1", "enabled", false, false, ""},
		{"0.3.12.post1", " 1", false, false, ""}, // GetBool does not trim
		{"0.3.13.post1", "0", false, false, ""},
		{"0.3.13.post1", " Off ", false, false, ""},
		{"0.3.13.post1", "disable", false, false, ""},
		{"0.3.13.post1", "ENABLE", true, false, ""},
		{"0.3.13.post1", "enabled", true, true, warn},
		{"0.3.13.post1", "", true, true, "[Mooncake] Warning: invalid value '' for env WITH_NVIDIA_PEERMEM, using default 1"},
	} {
		got := ParseKnob(MustVersion(c.v), "WITH_NVIDIA_PEERMEM", c.raw, true)
		if !got.Read || got.On != c.on || got.Fallback != c.fell || got.Log != c.log {
			t.Errorf("%s %q: read %v on %v fallback %v log %q, want on %v fallback %v log %q",
				c.v, c.raw, got.Read, got.On, got.Fallback, got.Log, c.on, c.fell, c.log)
		}
	}
	// Real 0.3.14 (REAL-FINDINGS §97): the same words, a glog line that
	// names the host's default.
	for _, c := range []struct {
		raw     string
		peermem bool
		on      bool
		log     string
	}{
		{" yes ", false, true, ""},
		{"enable", false, true, ""},
		{"TRUE", false, true, ""},
		{"off", true, false, ""},
		{"enabled", false, false, "Invalid WITH_NVIDIA_PEERMEM environment value: enabled, keeping default 0"},
		{"enabled", true, true, "Invalid WITH_NVIDIA_PEERMEM environment value: enabled, keeping default 1"},
		{"2", false, false, "Invalid WITH_NVIDIA_PEERMEM environment value: 2, keeping default 0"},
		{"", false, false, "Invalid WITH_NVIDIA_PEERMEM environment value: , keeping default 0"},
	} {
		got := ParseKnobOn(MustVersion("0.3.14"), "WITH_NVIDIA_PEERMEM", c.raw, true, KnobHost{Peermem: c.peermem})
		if got.On != c.on || got.Log != c.log || (c.log != "" && got.Level != "WARNING") {
			t.Errorf("0.3.14 %q (module %v): on %v log %q %s, want on %v log %q WARNING", c.raw, c.peermem, got.On, got.Log, got.Level, c.on, c.log)
		}
	}
	if got := ParseKnob(MustVersion("0.3.11.post1"), "WITH_NVIDIA_PEERMEM", "", false); got.Read {
		t.Errorf("unset: %+v, want not read (the model takes KnobValue's default)", got)
	}
}

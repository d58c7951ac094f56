package mooncake

import "testing"

func TestSkew(t *testing.T) {
	for _, c := range []struct {
		master, client, op string
		text               string
		fails, modelled    bool
	}{
		{"0.3.9", "0.3.14", "MountSegment", SkewInvalidArg, true, true},
		{"0.3.9", "0.3.14", "ServiceReady", "", false, true},
		{"0.3.9", "0.3.7.post2", "ServiceReady", SkewDeserialResult, true, true},
		{"0.3.9", "0.3.10.post1", "MountSegment", "", false, true},
		{"0.3.9", "0.3.10.post1", "PutStart", SkewInvalidArg, true, true},
		{"0.3.14", "0.3.9", "MountSegment", SkewInvalidArgOld, true, true},
		{"0.3.13.post1", "0.3.14", "PutStart", "", false, true},
		{"0.3.9", "0.3.9", "MountSegment", "", false, true},
		{"0.3.4", "0.3.14", "MountSegment", "", false, false},
	} {
		text, fails := SkewFails(c.master, c.client, c.op)
		if text != c.text || fails != c.fails {
			t.Errorf("SkewFails(%s, %s, %s) = %q, %v; want %q, %v", c.master, c.client, c.op, text, fails, c.text, c.fails)
		}
		if err := SkewModelled(c.master, c.client); (err == nil) != c.modelled {
			t.Errorf("SkewModelled(%s, %s) = %v; want modelled %v", c.master, c.client, err, c.modelled)
		}
	}
}

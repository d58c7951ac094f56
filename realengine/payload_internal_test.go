package realengine

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Bytes cross the driver's protocol as one byte and a length when they are
// all that byte, base64 otherwise; both ways give back the same bytes.
func TestPayloadRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		wire string
	}{
		{"zeros", make([]byte, 5), `{"fill":0,"size":5}`},
		{"one byte repeated", []byte("aaaa"), `{"fill":97,"size":4}`},
		{"mixed", []byte("ab"), `{"b64":"YWI="}`},
		{"one byte", []byte("a"), `{"b64":"YQ=="}`},
		{"empty", []byte{}, `{"b64":""}`},
	} {
		wire, err := json.Marshal(b64(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(wire) != c.wire {
			t.Errorf("%s: wire %s, want %s", c.name, wire, c.wire)
		}
		var v b64Value
		if err := json.Unmarshal(wire, &v); err != nil {
			t.Fatal(err)
		}
		got, err := v.bytes()
		if err != nil || !bytes.Equal(got, c.in) {
			t.Errorf("%s: back %q (%v), want %q", c.name, got, err, c.in)
		}
	}
	if _, err := (b64Value{Fill: new(byte), Size: -1}).bytes(); err == nil || err.Error() != "driver sent -1 bytes of fill" {
		t.Errorf("negative size: %v", err)
	}
}

package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"
)

func TestCanonicalTextAndHash(t *testing.T) {
	now := time.Duration(0)
	tr := New(func() time.Duration { return now })
	tr.Log("sglang", "INFO", "Mooncake Configuration loaded from env successfully.")
	now = 1500 * time.Microsecond
	tr.Record("mooncake:tp0", "return", "", "setup -> -1")

	want := `000000000.000ms sglang           log    INFO    "Mooncake Configuration loaded from env successfully."` + "\n" +
		`000000001.500ms mooncake:tp0     return         "setup -> -1"` + "\n"
	if got := tr.String(); got != want {
		t.Fatalf("canonical text:\n%s\nwant:\n%s", got, want)
	}
	if got := tr.Hash(); got != "sha256:"+sha256Hex(want) {
		t.Fatalf("hash %s", got)
	}
	if logs := tr.Logs(); len(logs) != 1 || logs[0] != "Mooncake Configuration loaded from env successfully." {
		t.Fatalf("Logs() = %q", logs)
	}

	// Same events, same hash; one more event, another hash.
	tr2 := New(nil)
	for _, e := range tr.Events() {
		tr2.Add(e)
	}
	if tr2.Hash() != tr.Hash() {
		t.Fatal("equal traces hash differently")
	}
	tr2.Log("master", "WARNING", "x")
	if tr2.Hash() == tr.Hash() {
		t.Fatal("different traces hash equally")
	}
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// A sim background thread's lines are taken out when its call starts and
// recorded again, stamped then, when it returns; other sources stay.
func TestTakeAndReplay(t *testing.T) {
	now := time.Duration(0)
	tr := New(func() time.Duration { return now })
	tr.Log("sglang", "INFO", "before")
	mark := tr.Len()
	tr.Log("mooncake:tp0", "ERROR", "PUT timed out")
	tr.Log("master", "WARNING", "segment_already_exists")
	taken := tr.Take(mark, "mooncake:tp0")
	if got := tr.Logs(); len(got) != 2 || got[0] != "before" || got[1] != "segment_already_exists" {
		t.Fatalf("after Take: %q", got)
	}
	now = 3 * time.Second
	tr.Replay(taken)
	evs := tr.Events()
	if len(evs) != 3 || evs[2].Text != "PUT timed out" || evs[2].Source != "mooncake:tp0" || evs[2].Level != "ERROR" || evs[2].At != 3*time.Second {
		t.Fatalf("after Replay: %+v", evs)
	}
}

// appendLine writes exactly what lineFormat does through fmt.
func TestAppendLine(t *testing.T) {
	for _, e := range []Event{
		{},
		{At: 1500 * time.Microsecond, Source: "tp0/sglang", Kind: "log", Level: "info", Text: "plain"},
		{At: 123456789 * time.Second, Source: "a-source-longer-than-sixteen", Kind: "kindlong", Level: "warning!", Text: "quote \" tab \t nl \n é \x00"},
		{At: 7, Source: "é", Kind: "ü", Level: "ß", Text: "🙂"},
		{At: 7, Text: "back\\slash ~ del \x7f"},
		{At: 7, Text: "printable ascii: {}[]~!@#$%^&*()_+`'"},
		{At: -3 * time.Millisecond, Source: "s", Kind: "k", Level: "l", Text: "negative"},
	} {
		want := fmt.Sprintf(lineFormat, float64(e.At)/float64(time.Millisecond), e.Source, e.Kind, e.Level, e.Text)
		if got := e.Line(); got != want {
			t.Errorf("Line() = %q, want %q", got, want)
		}
	}
}

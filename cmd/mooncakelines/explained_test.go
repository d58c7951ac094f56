package main

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/cmd/mooncakelines/internal/sourcecov"
)

func TestGlogLine(t *testing.T) {
	for _, tc := range []struct {
		l    sourcecov.Line
		want string
	}{
		{sourcecov.Line{Kind: "ERROR", Text: "Failed to open device «» on port «»", Where: []string{"src/transport/rdma_transport/rdma_context.cpp:81"}},
			"E1201 10:00:00.000000 12345 rdma_context.cpp:81] Failed to open device 7 on port 7\n"},
		{sourcecov.Line{Kind: "PWARNING", Text: " listen() ", Where: []string{"a/b.cpp:3", "a/c.cpp:9"}},
			"W1201 10:00:00.000000 12345 b.cpp:3] listen()\n"},
		{sourcecov.Line{Kind: "FATAL", Text: "Unable to find metadata storage plugin «»", Where: []string{"x.cpp:1"}},
			"F1201 10:00:00.000000 12345 x.cpp:1] Unable to find metadata storage plugin 7\n"},
	} {
		if got := glogLine(tc.l); got != tc.want {
			t.Errorf("glogLine(%q) = %q, want %q", tc.l.Text, got, tc.want)
		}
	}
}

// TestExplainerCauses: a text a class claims alone is named, one no class
// knows is not (the catalog on the model, as explain has it).
func TestExplainerCauses(t *testing.T) {
	ctx := context.Background()
	ex, err := newExplainer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ex.causes(ctx, "v0.3.12.post1", []sourcecov.Line{
		{Kind: "ERROR", Text: "ClientSession: malformed READ status frame (peer likely speaks the legacy protocol); dropping connection", Where: []string{"tcp_transport.cpp:556"}},
		{Kind: "ERROR", Text: "Size mismatch in batch_put", Where: []string{"store_py.cpp:911"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != "tcp-framing-peer-skew" || got[1] != "" {
		t.Errorf("causes %q, want [tcp-framing-peer-skew \"\"]", got)
	}
}

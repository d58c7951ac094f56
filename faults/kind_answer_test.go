package faults_test

import (
	"net/http"
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
)

func TestAnswerKind(t *testing.T) {
	for _, c := range []struct {
		f    faults.Fault
		want string
	}{
		{faults.Fault{Kind: faults.Answer, Target: "metadata", Params: faults.AnswerParams{Status: 500}}, ""},
		{faults.Fault{Kind: faults.Answer, Target: "master", Params: faults.AnswerParams{Status: 500}}, `answer "master": target must be one of metadata`},
		{faults.Fault{Kind: faults.Answer, Target: "metadata"}, `answer: status 0: give an HTTP status, 100-599 (e.g. status: 500)`},
		{faults.Fault{Kind: faults.Answer, Target: "metadata", Mode: "post", Params: faults.AnswerParams{Status: 500}}, `answer "post": mode must be one of all, get, put, delete`},
	} {
		got := ""
		if err := c.f.Validate(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	p, err := faults.Lower(faults.Fault{Kind: faults.Answer, Target: "metadata", Mode: "put", Params: faults.AnswerParams{Status: 503}})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := p.(faults.AnswerPrimitive)
	if !ok || a.Status != 503 || a.Target != "metadata" || !a.Matches(http.MethodPut, "k") || a.Matches(http.MethodGet, "k") {
		t.Fatalf("%#v", p)
	}
	all, _ := faults.Lower(faults.Fault{Kind: faults.Answer, Target: "metadata", Params: faults.AnswerParams{Status: 500}})
	if m := all.(faults.AnswerPrimitive); !m.Matches(http.MethodDelete, "k") || m.Method != "all" {
		t.Fatalf("%#v", m)
	}
}

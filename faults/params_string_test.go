package faults_test

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// stringParams is a params struct with a string field beside the other
// types, as a kind would declare it.
type stringParams struct {
	Delay time.Duration `yaml:"delay" trace:"delay=%s"`
	Count int64         `yaml:"count" trace:"count=%d"`
	Word  string        `yaml:"word" doc:"a word" gen:",alpha,beta" trace:"word=%q"`
}

// A string parameter is one more field type on the same path: it parses
// as written, is listed with its type, prints in traces, is drawn from its
// gen tag and is left alone by the fake engine's time scale.
func TestStringParams(t *testing.T) {
	fs := faults.ParamFields(stringParams{})
	if len(fs) != 3 || !fs[2].IsString() || fs[2].IsDuration() || fs[0].IsString() || fs[2].Type != reflect.TypeFor[string]() {
		t.Fatalf("fields %+v", fs)
	}
	if got := fs[2].Gen; !reflect.DeepEqual(got, []string{"", "alpha", "beta"}) {
		t.Errorf("gen %q", got)
	}
	for _, c := range []struct{ v, want string }{
		{"plain", "plain"},
		{"", ""},
		{"30s", "30s"}, // not a duration: taken as written
		{"42", "42"},
		{`{"name":"x","buffers":[{"addr":1}]}`, `{"name":"x","buffers":[{"addr":1}]}`},
		{"with, commas and \"quotes\"", "with, commas and \"quotes\""},
	} {
		set := faults.NewParams(stringParams{})
		if err := set.Set("word", c.v); err != nil {
			t.Errorf("Set(word, %q): %v", c.v, err)
			continue
		}
		if got := set.Value().(stringParams).Word; got != c.want {
			t.Errorf("Set(word, %q) = %q, want %q", c.v, got, c.want)
		}
	}
	// The other types still refuse what they cannot parse.
	set := faults.NewParams(stringParams{})
	if err := set.Set("count", "many"); err == nil || err.Error() != `want an integer, got "many"` {
		t.Errorf("count: %v", err)
	}

	for _, c := range []struct {
		p    stringParams
		want map[string]any
	}{
		{stringParams{}, map[string]any{}},
		{stringParams{Word: "w"}, map[string]any{"word": "w"}},
		{stringParams{Delay: time.Second, Count: 2, Word: "a b"}, map[string]any{"delay": "1s", "count": int64(2), "word": "a b"}},
	} {
		if got := faults.ParamValues(c.p); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParamValues(%+v) = %v, want %v", c.p, got, c.want)
		}
	}

	half := func(d time.Duration) time.Duration { return d / 2 }
	if got := faults.MapParams(stringParams{Delay: time.Second, Word: "w"}, half, nil); got != (stringParams{Delay: 500 * time.Millisecond, Word: "w"}) {
		t.Errorf("scaled %+v", got)
	}

	seen := map[string]bool{}
	for seed := range uint64(40) {
		seen[faults.DrawParams(stringParams{}, draw(seed, false)).(stringParams).Word] = true
	}
	if !seen[""] || !seen["alpha"] || !seen["beta"] || len(seen) != 3 {
		t.Errorf("drawn %v", seen)
	}
}

// A field of a type the path does not know fails when the struct is read.
func TestParamsRefuseOtherTypes(t *testing.T) {
	defer func() {
		if r := recover(); r != "faults: params faults_test.floatParams.F: type float64 (want time.Duration, int64 or string)" {
			t.Errorf("panic %v", r)
		}
	}()
	faults.ParamFields(floatParams{})
}

type floatParams struct {
	F float64 `yaml:"f"`
}

// The answer kind's body and key: parsed, traced, lowered (default body
// "injected", every key) and matched by key prefix.
func TestAnswerBodyAndKey(t *testing.T) {
	set := faults.NewParams(faults.ParamsOf(faults.Answer, "get"))
	for k, v := range map[string]string{"status": "200", "body": `{"protocol":"tcp"}`, "key": "mooncake/ram/"} {
		if err := set.Set(k, v); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	f := faults.Fault{Kind: faults.Answer, Target: "metadata", Mode: "get", Params: set.Value()}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := f.String(), `answer target=metadata mode=get status=200 body="{\"protocol\":\"tcp\"}" key=mooncake/ram/`; got != want {
		t.Errorf("String %s, want %s", got, want)
	}
	p, _ := faults.Lower(f)
	a := p.(faults.AnswerPrimitive)
	if a.Body != `{"protocol":"tcp"}` || a.Key != "mooncake/ram/" {
		t.Errorf("%#v", a)
	}
	for _, c := range []struct {
		method, key string
		want        bool
	}{
		{http.MethodGet, "mooncake/ram/localhost:1", true},
		{http.MethodGet, "mooncake/rpc_meta/localhost:1", false},
		{http.MethodPut, "mooncake/ram/localhost:1", false},
	} {
		if got := a.Matches(c.method, c.key); got != c.want {
			t.Errorf("Matches(%s, %s) = %t", c.method, c.key, got)
		}
	}
	plain, _ := faults.Lower(faults.Fault{Kind: faults.Answer, Target: "metadata", Params: faults.AnswerParams{Status: 500}})
	if a := plain.(faults.AnswerPrimitive); a.Body != faults.AnswerBody || a.Key != "" || !a.Matches(http.MethodGet, "anything") {
		t.Errorf("%#v", a)
	}
}

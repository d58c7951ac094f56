package faults

import (
	"fmt"
	"net/http"
	"strings"
)

// Answer: a service that answers, but wrongly — the HTTP metadata server
// (the wheel's Python one, or the master's embedded one) answers requests
// with an HTTP status (and body) of the fault's choosing instead of its own
// answer: a 500, a page that is not JSON, or a JSON value that decodes but
// is not what the reader wants (a segment descriptor with a field missing).
const Answer Kind = "answer"

// AnswerParams are an answer fault's parameters.
type AnswerParams struct {
	Status int64  `yaml:"status" doc:"HTTP status answered (100-599)" gen:"500,503" trace:"status=%d"`
	Body   string `yaml:"body" doc:"body answered (default \"injected\"; served as application/json)" trace:"body=%q"`
	Key    string `yaml:"key" doc:"only requests whose metadata key starts with this (e.g. mooncake/ram/: segment descriptors; default every key)" trace:"key=%s"`
}

// AnswerMethods are the requests an answer fault rewrites (mode).
var AnswerMethods = []string{"all", "get", "put", "delete"}

// AnswerPrimitive: the metadata server (Target) answers the requests of
// Method ("all", or one HTTP method) whose key starts with Key with Status
// and Body; healing restores its own answers. Its state is kept: a PUT
// answered wrongly does not store.
type AnswerPrimitive struct {
	Fault  Fault
	Target string
	Method string
	Status int
	Body   string // AnswerBody unless the fault gives one
	Key    string // "" = every key
}

func (p AnswerPrimitive) Source() Fault { return p.Fault }

// Matches reports whether a request of method for key (the ?key=
// parameter, unescaped) gets the wrong answer.
func (p AnswerPrimitive) Matches(method, key string) bool {
	if !strings.HasPrefix(key, p.Key) {
		return false
	}
	return p.Method == "all" || p.Method == map[string]string{http.MethodGet: "get", http.MethodPut: "put", http.MethodDelete: "delete"}[method]
}

// AnswerBody is the body of a wrong answer the fault gives none for.
const AnswerBody = "injected"

type answerKind struct{ kindBase }

func init() { RegisterKind(answerKind{}) }

func (answerKind) Kind() Kind { return Answer }
func (answerKind) Doc() string {
	return "the HTTP metadata server answers with a status and body of the fault's choosing (its state untouched)"
}
func (answerKind) Fields() []Field {
	return []Field{
		{"target", "metadata (topology metadata http or master)"},
		{"mode", "all | get | put | delete: the requests answered wrongly (default all)"},
	}
}

func (answerKind) Params(Fault) any { return AnswerParams{} }

func (answerKind) Validate(f Fault) error {
	if err := oneOf(f, "target", f.Target, []string{"metadata"}); err != nil {
		return err
	}
	if f.Mode != "" {
		if err := oneOf(f, "mode", f.Mode, AnswerMethods); err != nil {
			return err
		}
	}
	if s := paramsOf[AnswerParams](f).Status; s < 100 || s > 599 {
		return fmt.Errorf("answer: status %d: give an HTTP status, 100-599 (e.g. status: 500)", s)
	}
	return nil
}

func (answerKind) LinkTarget(Fault) string { return "" }

func (answerKind) Modes() []string { return AnswerMethods }

func (answerKind) Lower(f Fault) Primitive {
	m := f.Mode
	if m == "" {
		m = "all"
	}
	p := paramsOf[AnswerParams](f)
	body := p.Body
	if body == "" {
		body = AnswerBody
	}
	return AnswerPrimitive{Fault: f, Target: f.Target, Method: m, Status: int(p.Status), Body: body, Key: p.Key}
}

// Weight keeps explore from drawing it: what a wrong answer does depends
// on the body and key a world states, which the generator does not draw
// from Mooncake's formats yet (all three engines inject it).
func (answerKind) Weight(*Draw) int { return 0 }

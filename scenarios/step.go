package scenarios

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Step actions.
const (
	StepInit        = "init"         // start SGLang on a node: host pool, MooncakeStore, register_mem_pool_host
	StepSleep       = "sleep"        // let (virtual) time pass
	StepSet         = "set"          // batch_set_v1 of pages
	StepGet         = "get"          // batch_get_v1 of pages
	StepExists      = "exists"       // batch_exists of pages
	StepHealthCheck = "health_check" // store.health_check()
	StepCall        = "call"         // an integration's store.<method>: the attribute lookup
	StepPut         = "put"          // an integration's own store: setup, then put(key, bytes(size))
	StepFetch       = "fetch"        // an integration's own store: setup, then get(key)
	StepTE          = "te"           // PD disaggregation's mooncake.engine.TransferEngine on a node (te.go)
	StepBench       = "bench"        // the wheel's transfer_engine_bench on a node (bench.go)
)

// StepActions lists the step actions.
var StepActions = []string{StepInit, StepSleep, StepSet, StepGet, StepExists, StepHealthCheck, StepCall, StepPut, StepFetch, StepTE, StepBench}

// Step is one action of a phase.
type Step struct {
	Pos
	Action string
	// Node the action runs on (init, set, get, exists, health_check);
	// default: the first node.
	Node string
	// Sleep is the sleep step's duration.
	Sleep Duration
	// Pages are the page keys of set/get/exists.
	Pages []string
	// Method is the call step's MooncakeDistributedStore method, and the
	// fetch step's read (FetchMethods).
	Method string
	// Key and Size are the put step's object: put(key, bytes(size)); Key
	// is also the fetch step's get(key). Keys instead of Key: one
	// batch_put_from of len(Keys) objects of Size each, from a buffer the
	// integration registered (LMCache's zero-copy put).
	Key  string
	Keys []string
	Size ByteSize
	// SkipExisting: the batch put asks batch_is_exist(Keys) first and
	// puts only the keys not stored yet (newer SGLang and LMCache); a
	// skipped key's code is 0, stored already.
	SkipExisting bool
	// Unregistered: the fetch step's batch_get_into reads into (the batch
	// put step's batch_put_from writes from) a buffer the integration
	// never passed to register_buffer (a zero-copy buffer the store does
	// not know; LMCache#1993).
	Unregistered bool
	// Allocator is the integration's zero-copy buffer's allocator (batch
	// put, batch_get_into): "" or BufferDefault (host memory of its own),
	// BufferMooncake (MooncakeHostMemAllocator: Mooncake's shared memory,
	// what a standalone store's register_buffer accepts).
	Allocator string
	// Op, Peer, Batch and Entries are the te step's: Op one of TEOps;
	// Peer the node whose TransferEngine a transfer writes to; Batch:
	// through batch_transfer_sync_write (else transfer_sync_write), of
	// Entries equal, consecutive entries (0: one), as a KV chunk is one
	// entry a layer. Size is the register's buffer and the transfer's
	// length (all entries').
	Op      string
	Peer    string
	Batch   bool
	Entries int
	// Memory is the te register's buffer: "" or TEMemoryHost (malloc'd
	// host memory), TEMemoryGPU (device memory of the node's GPU 0, as
	// PD disaggregation registers its KV cache).
	Memory string
	// Send is the te stray's payload: "" (a TCP health check that
	// connects and closes) or TEStrayHTTP (an HTTP GET, a scraper or an
	// HTTP probe on the wrong port).
	Send string
	// Raise: the te call goes through SGLang's PD wrapper, which raises
	// when it fails (scenarios/te.go, pdRaises).
	Raise bool
	// PD: the te transfer is SGLang PD's MooncakeKVManager sending a KV
	// chunk from Node (the prefill) to Peer (the decode): a failed one
	// prints the KV manager's and both schedulers' lines (pdlines.go).
	PD bool
	// Bench is the bench step's flags (bench.go).
	Bench *BenchStep
	// Want is the expected result: set/get → one bool per page; exists →
	// the hit count; health_check and put → the code (a batch put: one
	// per key); fetch → the bytes
	// get returned (0: b""). nil = not checked.
	Want any
}

func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }

// pageArgs is the mapping form of set/get/exists/health_check/init.
type pageArgs struct {
	Node  string `yaml:"node"`
	Pages any    `yaml:"pages"`
	Want  any    `yaml:"want"`
}

// teArgs is the mapping form of te.
type teArgs struct {
	Node    string   `yaml:"node"`
	Op      string   `yaml:"op"`
	Peer    string   `yaml:"peer"`
	Size    ByteSize `yaml:"size"`
	Batch   bool     `yaml:"batch"`
	Entries int      `yaml:"entries"`
	Memory  string   `yaml:"memory"`
	Send    string   `yaml:"send"`
	Raise   bool     `yaml:"raise"`
	PD      bool     `yaml:"pd"`
	Want    any      `yaml:"want"`
}

// callArgs is the mapping form of call.
type callArgs struct {
	Node   string `yaml:"node"`
	Method string `yaml:"method"`
}

// fetchArgs is the mapping form of fetch.
type fetchArgs struct {
	Node   string `yaml:"node"`
	Key    string `yaml:"key"`
	Method string `yaml:"method"`
	Want   any    `yaml:"want"`
	// Size, Unregistered and Allocator: batch_get_into's buffer only.
	Size         ByteSize `yaml:"size"`
	Unregistered bool     `yaml:"unregistered"`
	Allocator    string   `yaml:"allocator"`
}

// The integration's buffer allocators (Step.Allocator).
const (
	BufferDefault  = "default"
	BufferMooncake = "mooncake"
)

// BufferAllocators are the valid Step.Allocator values.
var BufferAllocators = []string{BufferDefault, BufferMooncake}

// FetchMethods are the calls on a key a fetch step makes: get(key) ->
// bytes, get_buffer(key) -> a buffer or None (LMCache's), remove(key)
// -> its code (an integration dropping a key it no longer needs), and
// batch_get_into([key], [buf], [size]) -> the bytes read or a negative
// code (a zero-copy read into a buffer of size bytes, registered first
// unless unregistered), is_exist(key) -> 1, 0 or a negative code, and
// batch_is_exist([key]) -> its one answer (the lookups a connector makes
// before it reads), and batch_get_session_start([key]) -> its one code
// (the get-session API's start, 0.3.13+: 0 once a replica is cached).
var FetchMethods = []string{"get", "get_buffer", "remove", "batch_get_into", "is_exist", "batch_is_exist", "batch_get_session_start"}

// fetchIntoMethod is the FetchMethods entry that reads into a buffer.
const fetchIntoMethod = "batch_get_into"

// putArgs is the mapping form of put.
type putArgs struct {
	Node string   `yaml:"node"`
	Key  string   `yaml:"key"`
	Keys []string `yaml:"keys"`
	Size ByteSize `yaml:"size"`
	Want any      `yaml:"want"`
	// SkipExisting is skip_existing: only with keys.
	SkipExisting bool `yaml:"skip_existing"`
	// Unregistered and Allocator: the batch's buffer (keys only).
	Unregistered bool   `yaml:"unregistered"`
	Allocator    string `yaml:"allocator"`
}

func (s *Step) decodeNode(d *decoder, n *yaml.Node) {
	s.Pos = d.pos(n)
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		d.errorf(n, "step: want a mapping with exactly one action, one of %s", strings.Join(StepActions, ", "))
		return
	}
	k, v := resolve(n.Content[0]), resolve(n.Content[1])
	if k == nil || v == nil || k.Kind != yaml.ScalarNode {
		d.errorf(n, "step: bad action key")
		return
	}
	s.Action = k.Value
	switch k.Value {
	case StepSleep:
		d.decode(v, reflectValue(&s.Sleep), "sleep", "")
	case StepCall:
		// call: METHOD, or call: {node: N, method: METHOD}: the caller (an
		// integration's own process on the node, not SGLang's) looks the
		// method up on a MooncakeDistributedStore() it made.
		if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
			s.Method = v.Value
		} else if v.Kind == yaml.MappingNode {
			var a callArgs
			d.decodeStruct(v, reflectValue(&a), k.Value)
			s.Node, s.Method = a.Node, a.Method
		}
		if !mooncake.ValidMethodName(s.Method) {
			d.errorf(v, "call: want a MooncakeDistributedStore method name (call: batch_get_buffer, or call: {node: tp0, method: batch_get_buffer}), got %q", s.Method)
		}
	case StepPut:
		var a putArgs
		d.decodeStruct(v, reflectValue(&a), k.Value)
		s.Node, s.Key, s.Keys, s.Size, s.Want = a.Node, a.Key, a.Keys, a.Size, a.Want
		switch {
		case a.Key == "" && len(a.Keys) == 0:
			d.errorf(v, "put: key (put) or keys (batch_put_from) is required")
		case a.Key != "" && len(a.Keys) > 0:
			d.errorf(v, "put: give key (put) or keys (batch_put_from), not both")
		case slices.Contains(a.Keys, ""):
			d.errorf(v, "put: keys must not be empty strings")
		case a.SkipExisting && len(a.Keys) == 0:
			d.errorf(v, "put: skip_existing needs keys (a batch put)")
		case (a.Unregistered || a.Allocator != "") && len(a.Keys) == 0:
			d.errorf(v, "put: unregistered and allocator are the batch's buffer's (keys)")
		}
		d.checkAllocator(v, "put", a.Allocator)
		s.SkipExisting, s.Unregistered, s.Allocator = a.SkipExisting, a.Unregistered, a.Allocator
		if a.Size <= 0 {
			d.errorf(v, "put: size is required and must be positive (the value's bytes)")
		}
		d.checkWant(v, s)
	case StepFetch:
		var a fetchArgs
		d.decodeStruct(v, reflectValue(&a), k.Value)
		s.Node, s.Key, s.Method, s.Want = a.Node, a.Key, a.Method, a.Want
		s.Size, s.Unregistered, s.Allocator = a.Size, a.Unregistered, a.Allocator
		d.checkAllocator(v, "fetch", a.Allocator)
		if a.Key == "" {
			d.errorf(v, "fetch: key is required")
		}
		if s.Method == "" {
			s.Method = FetchMethods[0]
		} else if !slices.Contains(FetchMethods, s.Method) {
			d.errorf(v, "fetch: method %q: want one of %s", s.Method, strings.Join(FetchMethods, ", "))
		}
		switch {
		case s.Method == fetchIntoMethod && a.Size <= 0:
			d.errorf(v, "fetch: method %s needs size (its buffer's bytes, positive)", fetchIntoMethod)
		case s.Method != fetchIntoMethod && (a.Size != 0 || a.Unregistered):
			d.errorf(v, "fetch: size and unregistered are batch_get_into's (method: %s)", fetchIntoMethod)
		case s.Method != fetchIntoMethod && a.Allocator != "":
			d.errorf(v, "fetch: allocator is batch_get_into's (method: %s)", fetchIntoMethod)
		}
		d.checkWant(v, s)
	case StepTE:
		var a teArgs
		d.decodeStruct(v, reflectValue(&a), k.Value)
		s.Node, s.Op, s.Peer, s.Size, s.Batch, s.Entries, s.Memory, s.Send, s.Raise, s.PD, s.Want = a.Node, a.Op, a.Peer, a.Size, a.Batch, a.Entries, a.Memory, a.Send, a.Raise, a.PD, a.Want
		d.checkTE(v, s)
		d.checkWant(v, s)
	case StepBench:
		s.decodeBench(d, v)
	case StepInit, StepHealthCheck, StepSet, StepGet, StepExists:
		if v.Kind == yaml.ScalarNode && v.Tag != "!!null" && (k.Value == StepInit || k.Value == StepHealthCheck) {
			s.Node = v.Value
			return
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			return
		}
		var a pageArgs
		d.decodeStruct(v, reflectValue(&a), k.Value)
		s.Node = a.Node
		s.Want = a.Want
		if k.Value == StepInit && a.Pages != nil {
			d.errorf(v, "init: has no pages")
		}
		if k.Value == StepSet || k.Value == StepGet || k.Value == StepExists {
			s.Pages = d.pages(v, a.Pages, k.Value)
		}
		d.checkWant(v, s)
	default:
		d.errorf(k, "unknown step action %q%s; valid actions: %s", k.Value, didYouMean(k.Value, StepActions), strings.Join(StepActions, ", "))
	}
}

// checkAllocator: a step's buffer allocator is one of BufferAllocators.
func (d *decoder) checkAllocator(n *yaml.Node, action, a string) {
	if a != "" && !slices.Contains(BufferAllocators, a) {
		d.errorf(n, "%s: allocator %q: want one of %s", action, a, strings.Join(BufferAllocators, ", "))
	}
}

// pages accepts a count (page0..pageN-1) or a list of keys.
func (d *decoder) pages(n *yaml.Node, p any, action string) []string {
	switch t := p.(type) {
	case nil:
		d.errorf(n, "%s: pages is required (a count or a list of page keys)", action)
	case int64:
		if t <= 0 || t > 1<<16 {
			d.errorf(n, "%s: pages must be between 1 and 65536", action)
			return nil
		}
		out := make([]string, t)
		for i := range out {
			out[i] = "page" + strconv.Itoa(i)
		}
		return out
	case []any:
		var out []string
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				d.errorf(n, "%s: page keys must be strings, got %v", action, x)
				return nil
			}
			out = append(out, s)
		}
		if len(out) == 0 {
			d.errorf(n, "%s: pages must not be empty", action)
		}
		return out
	default:
		d.errorf(n, "%s: pages must be a count or a list of page keys", action)
	}
	return nil
}

func (d *decoder) checkWant(n *yaml.Node, s *Step) {
	if s.Want == nil {
		return
	}
	switch s.Action {
	case StepSet, StepGet:
		l, ok := s.Want.([]any)
		if ok {
			for _, x := range l {
				if _, isBool := x.(bool); !isBool {
					ok = false
				}
			}
		}
		if !ok || len(l) != len(s.Pages) {
			d.errorf(n, "%s: want must be a list of %d booleans (one per page)", s.Action, len(s.Pages))
		}
	case StepTE:
		if s.Op == TEPause || s.Op == TEResume || s.Op == TEStray {
			d.errorf(n, "te: op %s has no want", s.Op)
		} else if _, ok := s.Want.(int64); !ok {
			d.errorf(n, "te: want must be an integer (the call's return code)")
		}
	case StepPut:
		if len(s.Keys) == 0 {
			if _, ok := s.Want.(int64); !ok {
				d.errorf(n, "put: want must be an integer")
			}
			return
		}
		l, ok := s.Want.([]any)
		if ok {
			for _, x := range l {
				if _, isInt := x.(int64); !isInt {
					ok = false
				}
			}
		}
		if !ok || len(l) != len(s.Keys) {
			d.errorf(n, "put: want must be a list of %d integers (one code per key)", len(s.Keys))
		}
	case StepExists, StepHealthCheck, StepFetch, StepBench:
		if _, ok := s.Want.(int64); !ok {
			d.errorf(n, "%s: want must be an integer", s.Action)
		}
	default:
		d.errorf(n, "%s: has no want", s.Action)
	}
}

func (s Step) String() string {
	switch s.Action {
	case StepSleep:
		return fmt.Sprintf("sleep %s", s.Sleep.D())
	case StepSet, StepGet, StepExists:
		return fmt.Sprintf("%s %s %d pages", s.Action, s.Node, len(s.Pages))
	case StepCall:
		return fmt.Sprintf("call %s %s", s.Node, s.Method)
	case StepPut:
		if len(s.Keys) > 0 {
			skip := ""
			if s.SkipExisting {
				skip = " those batch_is_exist does not find of"
			}
			return fmt.Sprintf("batch_put_from %s%s %s %d bytes each%s", s.Node, skip, strings.Join(s.Keys, ","), int64(s.Size), s.bufferText())
		}
		return fmt.Sprintf("put %s %s %d bytes", s.Node, s.Key, int64(s.Size))
	case StepBench:
		return fmt.Sprintf("bench %s %s", s.Node, s.Bench.Mode)
	case StepFetch:
		if s.Method == fetchIntoMethod {
			return fmt.Sprintf("fetch %s %s %s into %d bytes%s", s.Node, s.Method, s.Key, int64(s.Size), s.bufferText())
		}
		return fmt.Sprintf("fetch %s %s %s", s.Node, s.Method, s.Key)
	case StepTE:
		switch s.Op {
		case TETransfer:
			return fmt.Sprintf("te %s transfer %d bytes to %s", s.Node, int64(s.Size), s.Peer)
		case TERegister:
			if s.Memory != "" {
				return fmt.Sprintf("te %s register %d bytes of %s memory", s.Node, int64(s.Size), s.Memory)
			}
			return fmt.Sprintf("te %s register %d bytes", s.Node, int64(s.Size))
		}
		return "te " + s.Node + " " + s.Op
	}
	return s.Action + " " + s.Node
}

// bufferText is how String names a zero-copy buffer's allocator and
// registration (nothing for the default: registered host memory).
func (s Step) bufferText() string {
	t := ""
	if s.Allocator == BufferMooncake {
		t = " of Mooncake's shm"
	}
	if s.Unregistered {
		t += " unregistered"
	}
	return t
}

// sortedKeys returns m's keys sorted, so iteration never decides behaviour.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

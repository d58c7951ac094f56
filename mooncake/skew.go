package mooncake

import (
	"fmt"
	"slices"
)

// Version skew between mooncake_master and its clients. Master and client
// speak coro_rpc with struct_pack arguments: an RPC whose argument or result
// layout changed between the two releases fails on the wire, and the
// client's MasterClient::invoke_rpc logs "RPC call failed: <coro_rpc's
// text>" and returns RPC_FAIL. The explicit check cannot catch it:
// MasterClient::Connect (v0.3.8+, master_client.cpp v0.3.9:325) compares
// ServiceReady's GetMooncakeStoreVersion(), which is CMake's `project(
// MooncakeStore VERSION 2.0.0)` at every tag from v0.3.8 to v0.3.14.
//
// Which RPC breaks depends on the pair, so this is a table of pairs
// measured on real (the wheels of this machine, a mooncake_master from one
// venv and setup/put/is_exist/get from another; docs/REAL-FINDINGS.md
// "Version skew"). A pair not in it is not modelled: the model engines
// skip it rather than guess.

// Texts coro_rpc gives the client for a call the other side could not
// decode (the server rejected the arguments) or whose result the client
// could not decode. The server's rejection reads differently in the
// client's older coro_rpc ("invalid rpc function arguments", 0.3.9).
const (
	SkewInvalidArg     = "invalid rpc arg"
	SkewInvalidArgOld  = "invalid rpc function arguments"
	SkewDeserialResult = "failed to deserialize rpc return value"
)

// skewPair is one measured (master, client) pair: the master RPCs (the
// client model's op names) that fail, with the client's text; an op not
// listed works.
type skewPair struct {
	master, client string
	fails          map[string]string
}

var skewPairs = []skewPair{
	// Master 0.3.9 (2026-12-01).
	{"0.3.9", "0.3.7.post2", map[string]string{"ServiceReady": SkewDeserialResult}}, // setup -600 "Failed to create client"
	{"0.3.9", "0.3.8.post1", map[string]string{"MountSegment": SkewInvalidArg, "ReMountSegment": SkewInvalidArg}},
	{"0.3.9", "0.3.10.post1", map[string]string{"PutStart": SkewInvalidArg, "ExistKey": SkewDeserialResult, "BatchExistKey": SkewDeserialResult, "GetReplicaList": SkewDeserialResult}},
	{"0.3.9", "0.3.11.post1", map[string]string{"PutStart": SkewInvalidArg, "ExistKey": SkewDeserialResult, "BatchExistKey": SkewDeserialResult, "GetReplicaList": SkewDeserialResult}},
	{"0.3.9", "0.3.12.post1", map[string]string{"MountSegment": SkewInvalidArg, "ReMountSegment": SkewInvalidArg}},
	{"0.3.9", "0.3.13.post1", map[string]string{"MountSegment": SkewInvalidArg, "ReMountSegment": SkewInvalidArg}},
	{"0.3.9", "0.3.14", map[string]string{"MountSegment": SkewInvalidArg, "ReMountSegment": SkewInvalidArg}},
	// Other directions and neighbours.
	{"0.3.14", "0.3.9", map[string]string{"MountSegment": SkewInvalidArgOld, "ReMountSegment": SkewInvalidArgOld}},
	{"0.3.13.post1", "0.3.14", map[string]string{}}, // setup, put, is_exist, get all fine
	{"0.3.12.post1", "0.3.13.post1", map[string]string{"PutStart": SkewInvalidArg, "ExistKey": SkewDeserialResult, "BatchExistKey": SkewDeserialResult, "GetReplicaList": SkewDeserialResult}},
	{"0.3.10.post1", "0.3.11.post1", map[string]string{"PutStart": SkewInvalidArg, "ExistKey": SkewDeserialResult, "BatchExistKey": SkewDeserialResult, "GetReplicaList": SkewDeserialResult}},
	// A 0.3.5 client (its wheel loaded with torch from an SGLang venv)
	// against a 0.3.6.post1 master, 2026-12-02 (docs/REAL-FINDINGS.md §42):
	// setup 0, PutStart works, PutEnd and PutRevoke "invalid rpc arg"
	// (LMCache#1518's lines). The master then closes the connection, so
	// the client's next RPCs fail with an empty text: not modelled, the
	// pair's world only puts.
	{"0.3.6.post1", "0.3.5", map[string]string{"PutEnd": SkewInvalidArg, "PutRevoke": SkewInvalidArg}},
}

// SkewModelled reports whether the models know how a mooncake_master of
// release master answers clients of release client: the same release, or
// a pair measured on real. The error says which pairs are.
func SkewModelled(master, client string) error {
	if master == client {
		return nil
	}
	if slices.ContainsFunc(skewPairs, func(p skewPair) bool { return p.master == master && p.client == client }) {
		return nil
	}
	var known []string
	for _, p := range skewPairs {
		known = append(known, "master "+p.master+" / client "+p.client)
	}
	return fmt.Errorf("mooncake_master %s with clients at %s: no real run measured this pair (measured: %v)", master, client, known)
}

// SkewFails is how a master RPC op fails between a master and a client of
// the given releases: coro_rpc's text, and whether it fails at all.
func SkewFails(master, client, op string) (string, bool) {
	if master == client {
		return "", false
	}
	for _, p := range skewPairs {
		if p.master == master && p.client == client {
			t, ok := p.fails[op]
			return t, ok
		}
	}
	return "", false
}

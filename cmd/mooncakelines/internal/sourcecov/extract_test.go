package sourcecov

import (
	"reflect"
	"testing"
)

func TestExtract(t *testing.T) {
	src := `void f() {
  LOG(ERROR) << "Failed to " "connect to " << host << ", retry";
  // LOG(ERROR) << "commented out";
  LOG(INFO) << "info line";
  VLOG(1) << "verbose";
  DCHECK(x) << "debug check";
  CHECK_EQ(a, b) << "check eq";
  PLOG(WARNING) << "bind(" << port
                << ") failed";
  CHECK(ptr != nullptr) << "buffer " << name << " is null";
  LOG_ASSERT(ok);
  LOG(FATAL) << "a; b \"quoted\"\n" << ';' << x;
  /*
   * LOG(ERROR) << "in a block comment";
   */
#define FAIL(x) LOG(ERROR) << x
  LOG(WARNING) << std::string("wrapped");
  LOG_IF(ERROR, bad) << "conditional";
}
`
	type got struct {
		Line       int
		Kind, Text string
	}
	src += `  CHECK(s == "x") << "msg " << s;
  LOG_ASSERT(f(")")) << "after";
`
	want := []got{
		{2, "ERROR", "Failed to connect to \x01, retry"},
		{8, "PWARNING", "bind(\x01) failed"},
		{10, "CHECK", "buffer \x01 is null"},
		{11, "LOG_ASSERT", ""},
		{12, "FATAL", "a; b \"quoted\"\n\x01"},
		{17, "WARNING", "wrapped"},
		{20, "CHECK", "msg \x01"}, // the streamed message only, not the condition
		{21, "LOG_ASSERT", "after"},
	}
	var have []got
	for _, s := range Extract("x.cpp", src) {
		have = append(have, got{s.Line, s.Kind, s.Text})
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("Extract:\n have %#v\n want %#v", have, want)
	}
}

func TestExtractStatement(t *testing.T) {
	// The statement runs to its ';' (not one inside a literal or a call),
	// white space collapsed; CRLF sources count lines as LF ones.
	src := "x;\r\nLOG(ERROR) << f(a;\r\n  b) << \"x;y\"\r\n    << z;\r\nafter();"
	want := []Statement{{File: "f.cpp", Line: 2, Kind: "ERROR", Stmt: `LOG(ERROR) << f(a; b) << "x;y" << z;`, Text: "x;y\x01"}}
	if have := Extract("f.cpp", src); !reflect.DeepEqual(have, want) {
		t.Errorf("Extract:\n have %+v\n want %+v", have, want)
	}
}

func TestTextOf(t *testing.T) {
	for _, c := range []struct{ stmt, want string }{
		{`LOG(ERROR) << "a" << "b";`, "ab"},
		{`LOG(ERROR) << "a" "b";`, "ab"},
		{`LOG(ERROR) << "a" << v << "b";`, "a\x01b"},
		{`LOG(ERROR) << v << "a";`, "a"}, // before the first literal: not part of it
		{`LOG(ERROR) << "a" << v;`, "a\x01"},
		{`LOG(ERROR) << f("a");`, "a"},
		{`CHECK(ok);`, ""},
		{`LOG(ERROR) << "tab\there";`, "tab\there"},
		{`LOG(ERROR) << "back\\slash";`, `back\slash`},
	} {
		if have := TextOf(c.stmt); have != c.want {
			t.Errorf("TextOf(%s) = %q, want %q", c.stmt, have, c.want)
		}
	}
}

func TestDisplay(t *testing.T) {
	if have, want := Display("a\x01b\n"), `a«»b\n`; have != want {
		t.Errorf("Display = %q, want %q", have, want)
	}
}

func TestAreaOf(t *testing.T) {
	for _, c := range []struct{ path, area string }{
		{"mooncake-store/src/master_service.cpp", "master"},
		{"mooncake-store/src/http_metadata_server.cpp", "master"},
		{"mooncake-store/src/client.cpp", "store-client"},
		{"mooncake-store/src/client_service_extra.cpp", ""},
		{"mooncake-store/src/ha/leadership/lease.cpp", "master-ha"},
		{"mooncake-integration/store/store_py_internal.h", "store-client"},
		{"mooncake-transfer-engine/src/common/base/status.cpp", "te-core"},
		{"mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport_session_impl.h", "te-tcp"},
		{"mooncake-transfer-engine/src/transport/rdma_transport/worker_pool.cpp", "te-rdma"},
		{"mooncake-transfer-engine/tent/src/transport/rdma/rdma_transport.cpp", ""},
	} {
		if have := AreaOf(c.path); have != c.area {
			t.Errorf("AreaOf(%s) = %q, want %q", c.path, have, c.area)
		}
	}
	if Counted("mooncake-transfer-engine/src/common/README.md") {
		t.Error("Counted a .md file")
	}
}

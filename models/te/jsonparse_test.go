package te

import "testing"

func TestJsoncppParseError(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		// real 0.3.9 / 0.3.13.post1, the harness's answer body
		{"injected", "* Line 1, Column 1\n  Syntax error: value, object or array expected.\n"},
		{"\n  <html>", "* Line 2, Column 3\n  Syntax error: value, object or array expected.\n"},
		{"", "* Line 1, Column 1\n  Syntax error: value, object or array expected.\n"},
		{`{"ip_or_host_name":"h","rpc_port":1}`, ""},
		// failIfExtra false: what follows the first value is ignored
		{`{} trailing`, ""},
	} {
		if got := jsoncppParseError([]byte(c.body)); got != c.want {
			t.Errorf("jsoncppParseError(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}

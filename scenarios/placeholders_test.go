package scenarios

import "testing"

func TestPlaceholderWords(t *testing.T) {
	for _, r := range Roles {
		if RoleDocs[r] == "" {
			t.Errorf("role %s has no RoleDocs entry", r)
		}
	}
	addrs := map[string]string{"master": "127.0.0.1:50051"}
	for _, c := range []struct{ in, expand, describe string }{
		{"MOONCAKE_MASTER={{master}}", "MOONCAKE_MASTER=127.0.0.1:50051", "MOONCAKE_MASTER=<the mooncake_master address (host:port)>"},
		{"in {{ etcd }}: x", "in <the etcd address (host:port)>: x", "in <the etcd address (host:port)>: x"},
		{"no placeholder", "no placeholder", "no placeholder"},
	} {
		if got := ExpandAddrs(c.in, addrs); got != c.expand {
			t.Errorf("ExpandAddrs(%q) = %q, want %q", c.in, got, c.expand)
		}
		if got := DescribePlaceholders(c.in); got != c.describe {
			t.Errorf("DescribePlaceholders(%q) = %q, want %q", c.in, got, c.describe)
		}
	}
	if got := PlaceholdersIn("a: {{client}}\nb: {{master}} {{master}}\n"); len(got) != 2 ||
		got[0] != "{{master}} = the mooncake_master address (host:port)" || got[1] != "{{client}} = the mooncake_client address (host:port)" {
		t.Fatalf("PlaceholdersIn: %q", got)
	}
}

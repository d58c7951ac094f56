package scenarios

import (
	"fmt"
)

// RoleDocs says in words what each placeholder ({{master}}...) stands
// for, for output a person reads (explain, show), where a placeholder
// would look like a template bug.
var RoleDocs = map[string]string{
	"master":          "the mooncake_master address (host:port)",
	"metadata":        "the metadata server (HTTP URL, etcd://host:port or P2PHANDSHAKE)",
	"client":          "the mooncake_client address (host:port)",
	"master_metrics":  "the mooncake_master metrics address (host:port)",
	"etcd":            "the etcd address (host:port)",
	"master_ip":       "the mooncake_master's own ip:port (no proxy in between; with master.ha the first master's)",
	"master_ipv6":     "the mooncake_master's RPC port on the IPv6 loopback ([::1]:port, no proxy in between)",
	"metadata_ipv6":   "the master's embedded HTTP metadata URL on the IPv6 loopback (http://[::1]:port/metadata, no proxy in between)",
	"offload_dir":     "an empty directory for SSD offload (under the world's own directory)",
	"s3":              "an S3 endpoint URL (http://127.0.0.1:port: the harness's in-memory stand-in bucket server)",
	MethodPlaceholder: "the MooncakeDistributedStore method the call step looks up",
}

// MethodPlaceholder is {{method}}: not an address but the method of the
// scenario's first call step, so a world's expected AttributeError names
// whatever method a draft of it calls (explain reads any placeholder as
// one word).
const MethodPlaceholder = "method"

// CallMethod is the method of the first call step ("" when none).
func CallMethod(steps []Step) string {
	for _, s := range steps {
		if s.Action == StepCall {
			return s.Method
		}
	}
	return ""
}

// DescribePlaceholders writes each {{role}} in s as <what it stands for>.
func DescribePlaceholders(s string) string {
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		role := placeholderRE.FindStringSubmatch(m)[1]
		if d, ok := RoleDocs[role]; ok {
			return "<" + d + ">"
		}
		return "<" + role + ">"
	})
}

// ExpandAddrs writes each {{role}} in s as the run's address for it
// (Result.Addrs); a role the run has no address for is described.
func ExpandAddrs(s string, addrs map[string]string) string {
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		if a, ok := addrs[placeholderRE.FindStringSubmatch(m)[1]]; ok && a != "" {
			return a
		}
		return DescribePlaceholders(m)
	})
}

// PlaceholdersIn lists, one line each, the placeholders s uses and what
// they stand for, in Roles order.
func PlaceholdersIn(s string) []string {
	var out []string
	for _, r := range Roles {
		if containsRole(s, r) {
			out = append(out, fmt.Sprintf("{{%s}} = %s", r, RoleDocs[r]))
		}
	}
	return out
}

func containsRole(s, role string) bool {
	for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
		if m[1] == role {
			return true
		}
	}
	return false
}

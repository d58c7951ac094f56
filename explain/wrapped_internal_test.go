package explain

import (
	"slices"
	"strings"
	"testing"
)

func TestJoinWrapped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Hard-wrapped mid-sentence (an issue's text box): one line.
		{"RuntimeError: MooncakeStore with standalone_storage=True requires\n  MooncakeHostTensorAllocator. Please set standalone_storage=False or upgrade\n  Mooncake by 'pip install mooncake --upgrade'.\nnext",
			"RuntimeError: MooncakeStore with standalone_storage=True requires MooncakeHostTensorAllocator. Please set standalone_storage=False or upgrade Mooncake by 'pip install mooncake --upgrade'.\nnext"},
		// pybind11 lists overloads after a colon: left alone.
		{"TypeError: setup(): incompatible function arguments. The following argument types are supported:\n    1. (self: x) -> int",
			"TypeError: setup(): incompatible function arguments. The following argument types are supported:\n    1. (self: x) -> int"},
		// A complete message, then a traceback frame: left alone.
		{"RuntimeError: Failed to setup Mooncake store, error code: -1\n  File \"a.py\", line 1, in f", "RuntimeError: Failed to setup Mooncake store, error code: -1\n  File \"a.py\", line 1, in f"},
		{"ValueError: bad value for\n  File \"a.py\", line 1, in f", "ValueError: bad value for\n  File \"a.py\", line 1, in f"},
		// Not an exception: an indented line stays its own.
		{"Mooncake store setup\n  continued", "Mooncake store setup\n  continued"},
		// A message of fields wrapped at its commas, unindented: one line.
		{"Invalid argument: received packet mismatch,\nlocal.local_nic_path: 10.0.0.1:15050@mlx5_1,\npeer.local_nic_path: ,\nWorker: Cannot make connection",
			"Invalid argument: received packet mismatch, local.local_nic_path: 10.0.0.1:15050@mlx5_1, peer.local_nic_path: ,\nWorker: Cannot make connection"},
		// A sentence ending in a comma, then a line of its own: left alone.
		{"waiting for peers,\nRetrying in 1s", "waiting for peers,\nRetrying in 1s"},
		{"", ""},
	} {
		got := strings.Join(joinWrapped(strings.Split(tc.in, "\n")), "\n")
		if got != tc.want {
			t.Errorf("joinWrapped(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	if got := joinWrapped([]string{"RuntimeError: a", "  b"}); !slices.Equal(got, []string{"RuntimeError: a b"}) {
		t.Errorf("a message wrapped at the end of the log: %q", got)
	}
}

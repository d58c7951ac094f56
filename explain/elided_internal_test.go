package explain

import "testing"

func TestElided(t *testing.T) {
	const printed = "Worker: Process failed for slice (opcode: 0, source_addr: 0x7f00, length: 65536, dest_addr: 0x7e00, local_nic: mlx5_1, peer_nic: IP:#@mlx5_3, dest_rkey: #, retry_cnt: 0): transport retry counter exceeded"
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"Process failed for slice (... retry_cnt: 0): transport retry counter exceeded", true},
		{"Process failed for slice (… retry_cnt: 0): transport retry counter exceeded", true},
		// The pieces out of order are another line.
		{"transport retry counter exceeded ... Process failed for slice", false},
		{"Process failed for slice (... retry_cnt: 0): local protection error", false},
		// No elision: Contains decides, not this.
		{"Process failed for slice", false},
		// Only short pieces: nothing to tell a line by.
		{"Wor ... slice", false},
	} {
		if got := piecesIn(elided(tc.line), printed); got != tc.want {
			t.Errorf("piecesIn(elided(%q)) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

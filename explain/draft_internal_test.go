package explain

import "testing"

func TestSettingsFromLogIPv6Hostname(t *testing.T) {
	for _, tc := range []struct{ log, want string }{
		{"export MOONCAKE_LOCAL_HOSTNAME=[fd00::12]\n", "[::1]"},
		{"export MOONCAKE_LOCAL_HOSTNAME=fd00::12\n", "[::1]"},
		{"I0101 00:00:00.000001 7 transfer_engine.cpp:1] Transfer Engine parseHostNameWithPort. server_name: ::1 port: 12001\n", "[::1]"},
		{"I0101 00:00:00.000001 7 transfer_engine.cpp:1] Transfer Engine RPC using P2P handshake, listening on fd00::12:15875\n", "[::1]"},
		{"export MOONCAKE_LOCAL_HOSTNAME=10.0.0.7\n", ""},
		{"I0101 00:00:00.000001 7 transfer_engine.cpp:1] Transfer Engine RPC using P2P handshake, listening on 10.0.0.7:15875\n", ""},
	} {
		if got := settingsFromLog(ParseLog(tc.log))["MOONCAKE_LOCAL_HOSTNAME"]; got != tc.want {
			t.Errorf("%q: MOONCAKE_LOCAL_HOSTNAME %q, want %q", tc.log, got, tc.want)
		}
	}
}

package scenarios_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func TestCallKind(t *testing.T) {
	for method, want := range map[string]string{
		"":                          "",
		"setup":                     scenarios.CallSetup,
		"setup_dummy":               scenarios.CallSetup,
		"initialize":                scenarios.CallSetup,
		"register_buffer":           scenarios.CallRegister,
		"register_memory":           scenarios.CallRegister,
		"batch_put_from":            scenarios.CallPut,
		"put":                       scenarios.CallPut,
		"batch_get_into":            scenarios.CallGet,
		"get":                       scenarios.CallGet,
		"batch_is_exist":            scenarios.CallExist,
		"transfer_sync_write":       scenarios.CallTransfer,
		"batch_transfer_sync_write": scenarios.CallTransfer,
		"health_check":              scenarios.CallOther,
		"close":                     scenarios.CallOther,
	} {
		if got := scenarios.CallKind(method); got != want {
			t.Errorf("CallKind(%q) = %q, want %q", method, got, want)
		}
	}
}

package realengine

import (
	"slices"
	"testing"
)

// ClearFaults starts stopped servers in dependency order: a mooncake_client
// started before its metadata service or master aborts (explore seed 119).
func TestStartOrderIsDependencyOrder(t *testing.T) {
	got := startOrder(map[string]*server{"client": {}, "master": {}, "metadata": {}})
	want := []string{"metadata", "master", "client"}
	if !slices.Equal(got, want) {
		t.Fatalf("startOrder = %v, want %v", got, want)
	}
}

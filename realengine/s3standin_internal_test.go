package realengine

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The stand-in answers what 0.3.14's S3 adapter asks of a path-style
// endpoint: PUT, a ListObjectsV2 GET of the bucket by prefix, GET, HEAD,
// DELETE (REAL-FINDINGS §132).
func TestS3StandIn(t *testing.T) {
	s, err := startS3StandIn()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.close(context.Background()) }()
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := do(http.MethodGet, "/mooncake?list-type=2&prefix=mnt/3fs/mooncake/", ""); code != 200 || !strings.Contains(body, "<IsTruncated>false</IsTruncated>") || strings.Contains(body, "<Contents>") {
		t.Fatalf("empty list: %d %s", code, body)
	}
	if code, _ := do(http.MethodPut, "/mooncake/mnt/3fs/mooncake/k0", "abc"); code != 200 {
		t.Fatalf("put: %d", code)
	}
	if code, body := do(http.MethodGet, "/mooncake/?list-type=2&prefix=mnt/3fs/mooncake/", ""); code != 200 || !strings.Contains(body, "<Key>mnt/3fs/mooncake/k0</Key><Size>3</Size>") {
		t.Fatalf("list: %d %s", code, body)
	}
	if code, body := do(http.MethodGet, "/mooncake/mnt/3fs/mooncake/k0", ""); code != 200 || body != "abc" {
		t.Fatalf("get: %d %q", code, body)
	}
	if code, _ := do(http.MethodDelete, "/mooncake/mnt/3fs/mooncake/k0", ""); code != 204 {
		t.Fatalf("delete: %d", code)
	}
	if code, _ := do(http.MethodHead, "/mooncake/mnt/3fs/mooncake/k0", ""); code != 404 {
		t.Fatalf("head after delete: %d", code)
	}
}

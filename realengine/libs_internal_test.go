package realengine

import (
	"slices"
	"strings"
	"testing"
)

// A container world withholds a library by purging the Debian package that
// provides it; the CUDA libraries come from no such package.
func TestDebianPackagesOf(t *testing.T) {
	for _, c := range []struct {
		libs    []string
		want    []string
		wantErr string
	}{
		{libs: []string{"libibverbs.so.1"}, want: []string{"libibverbs1"}},
		{libs: []string{"libcurl.so.4", "libnuma.so.1"}, want: []string{"libcurl4", "libnuma1"}},
		{libs: []string{"libmlx5.so.1", "libibverbs.so.1"}, want: []string{"ibverbs-providers", "libibverbs1"}},
		{libs: []string{"libnl-3.so.200", "libnl-route-3.so.200"}, want: []string{"libnl-3-200", "libnl-route-3-200"}},
		{libs: []string{"libibverbs.so.1", "libcudart.so.12"}, wantErr: "unsupported: topology missing_libs: libcudart.so.12 comes from no Debian package of the container images"},
	} {
		got, err := debianPackagesOf(c.libs)
		if c.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.wantErr) {
				t.Errorf("%v: err = %v, want %q…", c.libs, err, c.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v = %v, %v; want %v", c.libs, got, err, c.want)
		}
	}
}

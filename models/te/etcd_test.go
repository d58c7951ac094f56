package te_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/metadata"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func TestParseConnectionString(t *testing.T) {
	for _, c := range []struct{ in, proto, domain string }{
		{"etcd://127.0.0.1:2379", "etcd", "127.0.0.1:2379"},
		{"127.0.0.1:2379", "etcd", "127.0.0.1:2379"},
		{"10.0.0.1:2379;10.0.0.2:2379", "etcd", "10.0.0.1:2379;10.0.0.2:2379"},
		{"http://h:8080/metadata", "http", "h:8080/metadata"},
		{"redis://h:6379", "redis", "h:6379"},
	} {
		p, d := te.ParseConnectionString(c.in)
		if p != c.proto || d != c.domain {
			t.Errorf("%q: got %q %q, want %q %q", c.in, p, d, c.proto, c.domain)
		}
	}
}

// fakeEtcd is an in-memory etcd client: down makes every operation fail
// as the wrapper reports a context deadline.
type fakeEtcd struct {
	s    *metadata.Etcd
	down bool
	eps  []string
}

func (f *fakeEtcd) op(endpoints string, fn func()) error {
	f.eps = append(f.eps, endpoints)
	if f.down {
		return errors.New("context deadline exceeded")
	}
	fn()
	return nil
}
func (f *fakeEtcd) Put(_ context.Context, eps, k string, v []byte) error {
	return f.op(eps, func() { f.s.Put(k, v) })
}
func (f *fakeEtcd) Get(_ context.Context, eps, k string) (v []byte, ok bool, err error) {
	err = f.op(eps, func() { v, ok = f.s.Get(k) })
	return
}
func (f *fakeEtcd) Delete(_ context.Context, eps, k string) error {
	return f.op(eps, func() { f.s.Delete(k) })
}

func newEtcdEngine(t *testing.T, et *fakeEtcd) (*te.Engine, *[]string) {
	t.Helper()
	p, err := mooncake.ProfileFor("0.3.13.post1")
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	return te.New(te.Config{Profile: p, Host: te.Host{Name: "n"}, Etcd: et,
		Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}), &logs
}

func TestEtcdMetadata(t *testing.T) {
	ctx := context.Background()
	t.Run("publishes rpc_meta under etcd:// and bare host:port, removes it on close", func(t *testing.T) {
		for _, conn := range []string{"etcd://127.0.0.1:2379", "127.0.0.1:2379"} {
			et := &fakeEtcd{s: metadata.NewEtcd()}
			e, _ := newEtcdEngine(t, et)
			if err := e.InitStore(ctx, "127.0.0.1:17781", conn, "tcp", nil); err != nil {
				t.Fatalf("%s: init: %v", conn, err)
			}
			if _, ok := et.s.Get("mooncake/rpc_meta/127.0.0.1:17781"); !ok || et.eps[0] != "127.0.0.1:2379" {
				t.Fatalf("%s: rpc_meta not in etcd (endpoints %q)", conn, et.eps)
			}
			e.Close(ctx)
			if et.s.Len() != 0 {
				t.Fatalf("%s: %d keys left after close", conn, et.s.Len())
			}
		}
	})
	t.Run("a second engine with the same name overwrites silently", func(t *testing.T) {
		et := &fakeEtcd{s: metadata.NewEtcd()}
		a, _ := newEtcdEngine(t, et)
		b, logs := newEtcdEngine(t, et)
		if err := a.InitStore(ctx, "127.0.0.1:17783", "etcd://e:1", "tcp", nil); err != nil {
			t.Fatal(err)
		}
		rev := et.s.Revision()
		if err := b.InitStore(ctx, "127.0.0.1:17783", "etcd://e:1", "tcp", nil); err != nil {
			t.Fatalf("second init: %v (logs %q)", err, *logs)
		}
		if et.s.Revision() != rev+1 || et.s.Len() != 1 {
			t.Fatalf("revision %d (was %d), keys %d", et.s.Revision(), rev, et.s.Len())
		}
	})
	t.Run("unreachable etcd: Failed to set location → ERR_METADATA, then the remove fails too", func(t *testing.T) {
		et := &fakeEtcd{s: metadata.NewEtcd(), down: true}
		e, logs := newEtcdEngine(t, et)
		if err := e.InitStore(ctx, "127.0.0.1:17781", "etcd://127.0.0.1:2379", "tcp", nil); err != mooncake.INTERNAL_ERROR {
			t.Fatalf("init = %v, want INTERNAL_ERROR", err)
		}
		e.Close(ctx)
		want := []string{
			"EtcdStoragePlugin: unable to set mooncake/rpc_meta/127.0.0.1:17781 in 127.0.0.1:2379: context deadline exceeded",
			"Failed to set location of 127.0.0.1:17781",
			"Failed to initialize transfer engine, rc=-200",
			"EtcdStoragePlugin: unable to remove mooncake/rpc_meta/127.0.0.1:17781 in 127.0.0.1:2379: context deadline exceeded",
			"Failed to remove location of 127.0.0.1:17781",
		}
		var got []string
		for _, l := range *logs {
			if slices.Contains(want, l) {
				got = append(got, l)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("logs %q\nwant (in order) %q", *logs, want)
		}
	})
}

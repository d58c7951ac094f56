package client

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// lines records what a model logs.
type lines []string

func (l *lines) Log(level, text string) { *l = append(*l, level+" "+text) }

var (
	fsOffload = master.Replica{Size: 262144, Complete: true, OffloadEndpoint: "h:40000"}
	fsDisk    = master.Replica{Size: 262144, Complete: true, FilePath: "/r/mooncake_cluster/d0__k"}
	fsData    = hostmem.Content{Size: 262144, FP: 7}
)

// fsClient is a mooncake_client at version whose --root_fs_dir file of
// d0__k holds fsData.
func fsClient(t *testing.T, version string) (*Standalone, *lines) {
	t.Helper()
	log := &lines{}
	disk := NewOffloadDisk()
	disk.writeObject(fsDisk.FilePath, fsData)
	return &Standalone{RealClient: &RealClient{p: mooncake.MustProfile(version), d: Deps{Log: log, Disk: disk}}}, log
}

// TestFsReplicaThrows: up to 0.3.10.post2 a dummy's batch read of a key
// left [LOCAL_DISK, DISK] takes the first complete replica, whose file
// read throws get_disk_descriptor's "Expected DiskDescriptor": coro_rpc's
// WARNING in mooncake_client and the text for the dummy (real 0.3.9).
func TestFsReplicaThrows(t *testing.T) {
	s, log := fsClient(t, "0.3.9")
	ctx := context.WithValue(context.Background(), dummyBatchGetKey{}, &batchTiming{keys: 1})
	reps := []master.Replica{fsOffload, fsDisk}
	if _, code, done := s.readFsReplica(ctx, "d0__k", &reps); !done || code != mooncake.INTERNAL_ERROR {
		t.Fatalf("read = %v, %v; want INTERNAL_ERROR, done", code, done)
	}
	err := s.handlerThrew()
	var re *master.RPCError
	if !errors.As(err, &re) || re.Kind != master.Threw || re.Text != "Expected DiskDescriptor" || re.Op != "batch_get_into_dummy_helper" {
		t.Fatalf("handler = %v, want the throw", err)
	}
	if s.handlerThrew() != nil {
		t.Fatal("a second answer throws again")
	}
	if want := (lines{"WARNING rpc route/execute error, error msg: Expected DiskDescriptor"}); !reflect.DeepEqual(*log, want) {
		t.Fatalf("logged %q, want %q", *log, want)
	}
}

// TestFsReplicaReads: the DISK replica alone reads from its file at
// 0.3.9 (a memory-path key); from 0.3.11 SelectBestReplica takes the
// LOCAL_DISK one of [LOCAL_DISK, DISK] (the DISK one dropped for the
// offload read), and a DISK one alone needs a temporary buffer that
// mooncake_client (no local buffer) lacks: -200 and its line (real
// 0.3.11.post1).
func TestFsReplicaReads(t *testing.T) {
	ctx := context.WithValue(context.Background(), dummyBatchGetKey{}, &batchTiming{keys: 1})
	s, log := fsClient(t, "0.3.9")
	reps := []master.Replica{fsDisk}
	if data, code, done := s.readFsReplica(ctx, "d0__k", &reps); !done || code != mooncake.OK || !reflect.DeepEqual(data, fsData) || len(*log) != 0 {
		t.Fatalf("0.3.9, DISK alone: %v %v %v, logged %q; want the file's contents", data, code, done, *log)
	}
	s, log = fsClient(t, "0.3.11.post1")
	reps = []master.Replica{fsOffload, fsDisk}
	if _, code, done := s.readFsReplica(ctx, "d0__k", &reps); done || code != mooncake.OK || !reflect.DeepEqual(reps, []master.Replica{fsOffload}) {
		t.Fatalf("0.3.11.post1, [LOCAL_DISK, DISK]: %v %v, reps %+v; want the LOCAL_DISK one left to read", code, done, reps)
	}
	reps = []master.Replica{fsDisk}
	if _, code, done := s.readFsReplica(ctx, "d0__k", &reps); !done || code != mooncake.NO_AVAILABLE_HANDLE || s.rootFS.tempReads != 1 {
		t.Fatalf("0.3.11.post1, DISK alone: %v %v (temp reads %d); want NO_AVAILABLE_HANDLE", code, done, s.rootFS.tempReads)
	}
	if want := (lines{"ERROR Failed to allocate temp buffer for DISK read, key: d0__k, size: 262144"}); !reflect.DeepEqual(*log, want) {
		t.Fatalf("logged %q, want %q", *log, want)
	}
}

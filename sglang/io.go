package sglang

import (
	"context"
	"errors"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// Zero-copy v1 I/O of mooncake_store.py (reference sglang.md §2.3), used by
// HiCache for "mooncake": batch_exists, batch_set_v1, batch_get_v1.

var errNotStarted = errors.New("sglang: store not started (Start failed or Close was called)")

func (s *MooncakeStore) ready() error {
	if s.closed || s.store == nil || s.config == nil {
		return errNotStarted
	}
	return nil
}

// kvReady is ready() for HiCache's page I/O, which only the KV backend has.
func (s *MooncakeStore) kvReady() error {
	if err := s.ready(); err != nil {
		return err
	}
	if s.l.Backend == BackendEmbedding {
		return engine.Unsupportedf("sglang: page I/O on the embedding store (its batch_put/batch_get of emb_ keys) is not modelled")
	}
	if s.l.Backend == BackendDirectLinker {
		return engine.Unsupportedf("sglang: page I/O of the direct linker (its load and offload threads on GPU pages) is not modelled")
	}
	return nil
}

// tagKeys is _tag_keys.
func (s *MooncakeStore) tagKeys(keys []string) []string {
	if !s.hasPrefix {
		return keys
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = s.configPrefix + "_" + k
	}
	return out
}

// componentKeys are the object keys of pages: MHA "{key}_{tp[_pp]}_k",
// "{key}_{tp[_pp]}_v"; MLA "{key}_{pp|""}_k" (so "{key}__k" without PP).
func (s *MooncakeStore) componentKeys(tagged []string) ([]string, int) {
	var out []string
	if s.isMLA {
		for _, k := range tagged {
			out = append(out, k+"_"+s.mlaSuffix+"_k")
		}
		return out, 1
	}
	for _, k := range tagged {
		out = append(out, k+"_"+s.mhaSuffix+"_k", k+"_"+s.mhaSuffix+"_v")
	}
	return out, 2
}

// BatchExists is batch_exists: the number of leading pages whose every
// component batch_is_exist reports as 1.
func (s *MooncakeStore) BatchExists(ctx context.Context, keys []string) (int, error) {
	if err := s.kvReady(); err != nil {
		return 0, err
	}
	query, mult := s.componentKeys(s.tagKeys(keys))
	res, err := s.batchIsExist(ctx, query)
	if err != nil {
		return 0, err
	}
	for i := range query {
		if res[i] != 1 {
			return i / mult, nil
		}
	}
	return len(query) / mult, nil
}

func (s *MooncakeStore) batchIsExist(ctx context.Context, keys []string) ([]int, error) {
	s.begin()
	res, err := s.store.BatchIsExist(ctx, keys)
	s.observe("batch_is_exist", 0, nonNil(res), err)
	if err != nil {
		return nil, err
	}
	if len(res) != len(keys) {
		return nil, fmt.Errorf("sglang: batch_is_exist returned %d results for %d keys", len(res), len(keys))
	}
	return res, nil
}

func nonNil(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// pageMeta is _batch_preprocess: component keys with their host pointers
// and sizes (get_page_buffer_meta of a page_first pool).
func (s *MooncakeStore) pageMeta(keys []string, hostIndices []int64) ([]string, []uint64, []int64, int, error) {
	spec := s.host.spec
	if spec.PageSize <= 0 || spec.PageBytes <= 0 {
		return nil, nil, nil, 0, errors.New("sglang: HostPoolSpec.PageSize and PageBytes are needed for batch I/O")
	}
	// assert len(keys) > 0; assert len(keys) == len(host_indices) // page_size
	if len(keys) == 0 || len(keys) != len(hostIndices)/spec.PageSize {
		return nil, nil, nil, 0, pyErr("AssertionError", "")
	}
	keyStrs, mult := s.componentKeys(s.tagKeys(keys))
	bases := s.host.hybridBuffers()
	tokenBytes := spec.PageBytes / int64(spec.PageSize)
	var ptrs []uint64
	var sizes []int64
	for p := range keys {
		idx := hostIndices[p*spec.PageSize]
		for _, b := range bases {
			off := idx * tokenBytes
			if idx < 0 || off+spec.PageBytes > b.Size {
				return nil, nil, nil, 0, fmt.Errorf("sglang: host index %d outside the %d-byte host buffer", idx, b.Size)
			}
			ptrs = append(ptrs, b.Ptr+uint64(off))
			sizes = append(sizes, spec.PageBytes)
		}
	}
	return keyStrs, ptrs, sizes, mult, nil
}

// PageBuffers are the component keys of pages with their host pointers
// and sizes, as batch_set_v1/batch_get_v1 pass them to Mooncake (the
// harness stamps and checks page contents there).
func (s *MooncakeStore) PageBuffers(keys []string, hostIndices []int64) ([]string, []uint64, []int64, error) {
	if err := s.kvReady(); err != nil {
		return nil, nil, nil, err
	}
	k, p, z, _, err := s.pageMeta(keys, hostIndices)
	return k, p, z, err
}

// postprocess is _batch_postprocess: a page is OK iff all its components
// are == 0 (set) or > 0 (get).
func postprocess(results []int, set bool, mult int) []bool {
	out := make([]bool, 0, len(results)/mult)
	for i := 0; i+mult <= len(results); i += mult {
		ok := true
		for _, r := range results[i : i+mult] {
			if (set && r != 0) || (!set && r <= 0) {
				ok = false
			}
		}
		out = append(out, ok)
	}
	return out
}

// BatchSetV1 is batch_set_v1: batch_is_exist over every component, then
// batch_put_from of the missing ones only (present ones count as 0).
// hostIndices are token slots of the host pool, PageSize per key.
func (s *MooncakeStore) BatchSetV1(ctx context.Context, keys []string, hostIndices []int64) ([]bool, error) {
	if err := s.kvReady(); err != nil {
		return nil, err
	}
	keyStrs, ptrs, sizes, mult, err := s.pageMeta(keys, hostIndices)
	if err != nil {
		return nil, err
	}
	exist, err := s.batchIsExist(ctx, keyStrs)
	if err != nil {
		return nil, err
	}
	results := make([]int, len(keyStrs))
	var setKeys []string
	var setPtrs []uint64
	var setSizes []int64
	var setIdx []int
	for i := range keyStrs {
		if exist[i] != 1 {
			results[i] = -1
			setKeys, setPtrs, setSizes = append(setKeys, keyStrs[i]), append(setPtrs, ptrs[i]), append(setSizes, sizes[i])
			setIdx = append(setIdx, i)
		}
	}
	if len(setKeys) > 0 {
		s.begin()
		put, err := s.store.BatchPutFrom(ctx, setKeys, setPtrs, setSizes)
		s.observe("batch_put_from", 0, nonNil(put), err)
		if err != nil {
			return nil, err
		}
		if len(put) != len(setKeys) {
			return nil, fmt.Errorf("sglang: batch_put_from returned %d results for %d keys", len(put), len(setKeys))
		}
		for j, i := range setIdx {
			results[i] = put[j]
		}
	}
	return postprocess(results, true, mult), nil
}

// BatchGetV1 is batch_get_v1: one batch_get_into; a page is OK iff every
// component read > 0 bytes.
func (s *MooncakeStore) BatchGetV1(ctx context.Context, keys []string, hostIndices []int64) ([]bool, error) {
	if err := s.kvReady(); err != nil {
		return nil, err
	}
	keyStrs, ptrs, sizes, mult, err := s.pageMeta(keys, hostIndices)
	if err != nil {
		return nil, err
	}
	s.begin()
	res, err := s.store.BatchGetInto(ctx, keyStrs, ptrs, sizes)
	s.observe("batch_get_into", 0, nonNil(res), err)
	if err != nil {
		return nil, err
	}
	if len(res) != len(keyStrs) {
		return nil, fmt.Errorf("sglang: batch_get_into returned %d results for %d keys", len(res), len(keyStrs))
	}
	return postprocess(res, false, mult), nil
}

// HealthCheck calls the binding's health_check() (SGLang's MooncakeStore
// itself has none; scenario steps use it to probe the client).
func (s *MooncakeStore) HealthCheck(ctx context.Context) (int, error) {
	if err := s.ready(); err != nil {
		return 0, err
	}
	s.begin()
	ret, err := s.store.HealthCheck(ctx)
	s.observe("health_check", ret, nil, err)
	return ret, err
}

// Close ends the scheduler: SGLang's close() is a no-op, so this is the
// process going away (the binding's destructor, then the process).
func (s *MooncakeStore) Close(ctx context.Context) error {
	if s.closed {
		return nil
	}
	var errs []error
	if s.store != nil {
		if _, err := s.store.Close(ctx); err != nil {
			if _, ok := engine.AsPyError(err); !ok {
				errs = append(errs, fmt.Errorf("sglang: close store: %w", err))
			}
		}
	}
	if err := s.shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

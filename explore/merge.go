package explore

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Merge joins shard reports: counts add up, generated hashes add up (see
// addHash), runs/s is total runs over the longest shard's wall time, and
// findings with the same signature are kept once (the lowest seed), as
// the corpus keeps one minimal scenario per failure.
func Merge(rs []Report) (Report, error) {
	var out Report
	out.Summary.EngineRuns = map[string]uint64{}
	out.Summary.Skipped = map[string]uint64{}
	var sum [32]byte
	seen := map[string]int{}
	for i, r := range rs {
		s := r.Summary
		out.Summary.Runs += s.Runs
		out.Summary.Errors += s.Errors
		out.Summary.Violations += s.Violations
		out.Summary.Divergences += s.Divergences
		out.Summary.WallS = max(out.Summary.WallS, s.WallS)
		for k, v := range s.EngineRuns {
			out.Summary.EngineRuns[k] += v
		}
		for k, v := range s.Skipped {
			out.Summary.Skipped[k] += v
		}
		h, ok := strings.CutPrefix(s.GeneratedHash, "sha256:")
		b, err := hex.DecodeString(h)
		if !ok || err != nil || len(b) != 32 {
			return Report{}, fmt.Errorf("merge: report %d: generated_hash %q is not sha256:<64 hex>", i+1, s.GeneratedHash)
		}
		sum = addHash(sum, [32]byte(b))
		if i == 0 {
			out.Summary.Seeds = SeedRange{First: s.Seeds.First, Count: s.Seeds.Count, Shards: s.Seeds.Shards}
		} else if s.Seeds.First != out.Summary.Seeds.First || s.Seeds.Shards != out.Summary.Seeds.Shards {
			return Report{}, fmt.Errorf("merge: report %d covers seeds from %d in %d shards, report 1 from %d in %d", i+1, s.Seeds.First, s.Seeds.Shards, out.Summary.Seeds.First, out.Summary.Seeds.Shards)
		}
		for _, f := range r.Findings {
			if j, dup := seen[f.Signature]; dup {
				if f.Seed < out.Findings[j].Seed {
					out.Findings[j] = f
				}
				continue
			}
			seen[f.Signature] = len(out.Findings)
			out.Findings = append(out.Findings, f)
		}
	}
	shards := map[uint64]bool{}
	for _, r := range rs {
		if shards[r.Summary.Seeds.Shard] {
			return Report{}, fmt.Errorf("merge: shard %d/%d given twice", r.Summary.Seeds.Shard, r.Summary.Seeds.Shards)
		}
		shards[r.Summary.Seeds.Shard] = true
	}
	out.Summary.GeneratedHash = "sha256:" + hex.EncodeToString(sum[:])
	if out.Summary.WallS > 0 {
		out.Summary.RunsPerS = float64(out.Summary.Runs) / out.Summary.WallS
	}
	slices.SortFunc(out.Findings, func(a, b Finding) int { return cmpU(a.Seed, b.Seed) })
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	return out, nil
}

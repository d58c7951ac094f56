package engine

// Contents is implemented by processes whose host memory the harness can
// stamp and inspect symbolically (sim): before a set, each page gets a
// fingerprint of its key; after a get, the harness checks that the page
// holds exactly that fingerprint again (the data invariant: a get returns
// the bytes last put under that key). Engines with real memory do not
// implement it and the check is skipped there.
type Contents interface {
	StampContent(ptr uint64, size int64, fp uint64) error
	ContentFP(ptr uint64, size int64) (uint64, error)
}

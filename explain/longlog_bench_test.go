package explain_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
)

// BenchmarkDiagnoseLongLog is explain on a whole process log as an
// operator attaches it: 2,000 glog lines, most of them alike.
func BenchmarkDiagnoseLongLog(b *testing.B) {
	cat, fp := allFingerprints(b)
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "E1201 12:00:00.%06d 1234 client_service.cpp:%d] Transfer failed for key k%d: TRANSFER_FAIL\n", i, 1000+i%7, i)
	}
	log := sb.String()
	b.ResetTimer()
	for range b.N {
		if _, err := explain.Diagnose(cat, fp, log, ""); err != nil {
			b.Fatal(err)
		}
	}
}

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

// BenchmarkDiagnoseLongLine is explain on a log with a 2 MB line (a
// metrics dump pasted whole).
func BenchmarkDiagnoseLongLine(b *testing.B) {
	cat, fp := allFingerprints(b)
	log := "I0320 11:44:26.698262  1822 rpc_service.cpp:41] Master Metrics: " + strings.Repeat("PutStart=2/2, ", 150000)
	b.ResetTimer()
	for range b.N {
		if _, err := explain.Diagnose(cat, fp, log, ""); err != nil {
			b.Fatal(err)
		}
	}
}

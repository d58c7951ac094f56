package toxiproxy_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestToxiproxy(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "faults/toxiproxy")
}

// Package suites_test holds the Ginkgo suites: the scenario catalog on each
// engine, determinism, the loader's error reporting.
package suites_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSuites(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "faultlab suites")
}

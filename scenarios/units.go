package scenarios

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a Go duration written with a unit ("100ms", "30s", "10m").
// A bare number is rejected: "30" could mean seconds or milliseconds.
type Duration time.Duration

// D is the value as a time.Duration.
func (x Duration) D() time.Duration { return time.Duration(x) }

func (x *Duration) decodeNode(d *decoder, n *yaml.Node) {
	if !d.scalar(n, "duration") {
		return
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		d.errorf(n, "%v", err)
		return
	}
	*x = v
}

// ParseDuration parses "30s", "100ms": a non-negative Go duration with a unit.
func ParseDuration(s string) (Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q: want a number with a unit, one of ns, us, ms, s, m, h (e.g. 30s, 100ms)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("bad duration %q: must not be negative", s)
	}
	return Duration(v), nil
}

func (x Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(x).String()) }

// ByteSize is a size in bytes written with a unit: B, KiB, MiB, GiB, TiB
// (powers of 1024) or KB, MB, GB, TB (powers of 1000); a bare integer is
// bytes.
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// ByteUnits lists the accepted unit suffixes, for messages and docs.
const ByteUnits = "B, KiB, MiB, GiB, TiB, KB, MB, GB, TB"

// ParseByteSize parses "1GiB", "512MiB", "4096".
func ParseByteSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("bad size %q: must not be negative", s)
		}
		return n, nil
	}
	for _, u := range byteUnits {
		num, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		num = strings.TrimSpace(num)
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad size %q: %q is not a non-negative integer", s, num)
		}
		if n > (1<<62)/u.mult {
			return 0, fmt.Errorf("bad size %q: too large", s)
		}
		return n * u.mult, nil
	}
	return 0, fmt.Errorf("bad size %q: want an integer with a unit, one of %s (e.g. 1GiB)", s, ByteUnits)
}

func (x *ByteSize) decodeNode(d *decoder, n *yaml.Node) {
	if !d.scalar(n, "size") {
		return
	}
	v, err := ParseByteSize(n.Value)
	if err != nil {
		d.errorf(n, "%v", err)
		return
	}
	*x = ByteSize(v)
}

// CodeExpect is the expected return codes of one method: a single integer
// (every call returned it, and there was at least one) or a list (exactly
// these codes, in call order; [] = never called).
type CodeExpect struct {
	Every *int
	Seq   []int
	// Alt holds, by position in Seq, the other codes real Mooncake may
	// return there by a race of its own (a list element `[-900, -200]`:
	// Seq has the first, the one the models return).
	Alt map[int][]int
	Pos Pos
}

// Matches reports whether got is Seq, position by position, where a
// position with alternatives may hold any of them.
func (x CodeExpect) Matches(got []int) bool {
	if len(got) != len(x.Seq) {
		return false
	}
	for i, g := range got {
		if g != x.Seq[i] && !slices.Contains(x.Alt[i], g) {
			return false
		}
	}
	return true
}

func (x *CodeExpect) decodeNode(d *decoder, n *yaml.Node) {
	x.Pos = d.pos(n)
	switch n.Kind {
	case yaml.ScalarNode:
		i, err := strconv.Atoi(n.Value)
		if err != nil {
			d.errorf(n, "codes: want an integer or a list of integers, got %q", n.Value)
			return
		}
		x.Every = &i
	case yaml.SequenceNode:
		x.Seq = []int{}
		for _, c := range n.Content {
			alts := []*yaml.Node{c}
			if c.Kind == yaml.SequenceNode {
				if len(c.Content) < 2 {
					d.errorf(c, "codes: a list in place of one code names two or more codes real may return there")
					continue
				}
				alts = c.Content
			}
			var codes []int
			for _, a := range alts {
				i, err := strconv.Atoi(a.Value)
				if a.Kind != yaml.ScalarNode || err != nil {
					d.errorf(a, "codes: want an integer, got %s", kindName(a))
					continue
				}
				codes = append(codes, i)
			}
			if len(codes) == 0 {
				continue
			}
			if len(codes) > 1 {
				if x.Alt == nil {
					x.Alt = map[int][]int{}
				}
				x.Alt[len(x.Seq)] = codes[1:]
			}
			x.Seq = append(x.Seq, codes[0])
		}
	default:
		d.errorf(n, "codes: want an integer or a list of integers, got %s", kindName(n))
	}
}

func (x CodeExpect) String() string {
	if x.Every != nil {
		return strconv.Itoa(*x.Every)
	}
	if len(x.Alt) == 0 {
		return fmt.Sprint(x.Seq)
	}
	parts := make([]string, len(x.Seq))
	for i, c := range x.Seq {
		parts[i] = strconv.Itoa(c)
		for _, a := range x.Alt[i] {
			parts[i] += "|" + strconv.Itoa(a)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

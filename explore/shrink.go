package explore

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var digits = regexp.MustCompile(`[0-9]+`)

// Shrink reduces d greedily (delta debugging over the scenario's
// structure) while fails(candidate) holds: fewer faults, steps, nodes,
// config keys and pages; shorter at/for/sleep; simpler topology. It makes
// at most budget runs and returns the smallest failing doc and the runs made.
func Shrink(ctx context.Context, d *Doc, budget int, fails func(*Doc) bool) (*Doc, int) {
	cur := d.Clone()
	runs := 0
	for progress := true; progress && runs < budget && ctx.Err() == nil; {
		progress = false
		for _, m := range mutations(cur) {
			if runs >= budget || ctx.Err() != nil {
				break
			}
			c := cur.Clone()
			if !m(c) {
				continue
			}
			runs++
			if fails(c) {
				cur, progress = c, true
				break
			}
		}
	}
	return cur, runs
}

// mutations lists every one-step simplification of d, biggest first.
func mutations(d *Doc) []func(*Doc) bool {
	var ms []func(*Doc) bool
	add := func(f func(*Doc) bool) { ms = append(ms, f) }
	// Nodes beyond the first, with their steps and faults.
	for i := len(d.Topology.Nodes) - 1; i >= 1; i-- {
		add(func(c *Doc) bool { return dropNode(c, i) })
	}
	for i := range d.Faults {
		add(func(c *Doc) bool { c.Faults = append(c.Faults[:i], c.Faults[i+1:]...); return true })
	}
	for i := len(d.Steps) - 1; i >= 0; i-- {
		add(func(c *Doc) bool {
			if len(c.Steps) <= 1 {
				return false
			}
			c.Steps = append(c.Steps[:i], c.Steps[i+1:]...)
			return true
		})
	}
	add(func(c *Doc) bool {
		if c.Remedy == nil {
			return false
		}
		c.Remedy = nil
		return true
	})
	// Config keys, one at a time.
	for _, k := range sortedKeys(d.Config.Env) {
		add(func(c *Doc) bool { delete(c.Config.Env, k); return true })
	}
	for _, k := range sortedKeys(d.Config.File) {
		add(func(c *Doc) bool { delete(c.Config.File, k); return true })
	}
	for _, k := range sortedKeys(d.Config.ExtraConfig) {
		add(func(c *Doc) bool { delete(c.Config.ExtraConfig, k); return true })
	}
	// Durations: drop for, at → 0s, halve.
	for i := range d.Faults {
		add(func(c *Doc) bool {
			if c.Faults[i].For == "" {
				return false
			}
			c.Faults[i].For = ""
			return true
		})
		add(func(c *Doc) bool { return halve(&c.Faults[i].At) })
		add(func(c *Doc) bool { return halve(&c.Faults[i].For) })
	}
	for i := range d.Steps {
		add(func(c *Doc) bool { return halve(&c.Steps[i].Sleep) })
		add(func(c *Doc) bool {
			for _, p := range []*DocPage{c.Steps[i].Set, c.Steps[i].Get, c.Steps[i].Exists} {
				if p != nil && len(p.Pages) > 1 {
					p.Pages = p.Pages[:len(p.Pages)-1]
					return true
				}
			}
			return false
		})
	}
	// Topology and pool simplifications.
	for i := range d.Topology.Nodes {
		add(func(c *Doc) bool {
			n := &c.Topology.Nodes[i]
			ch := n.NIC != nil || n.Memlock != "" || n.Hugepages != ""
			n.NIC, n.Memlock, n.Hugepages = nil, "", ""
			return ch
		})
		add(func(c *Doc) bool {
			p := &c.Topology.Nodes[i].HostPool
			ch := p.Draft != nil || p.Allocator != "" || p.Layout == "MLA"
			p.Draft, p.Allocator, p.Layout = nil, "", ""
			return ch
		})
	}
	add(func(c *Doc) bool {
		if c.Topology.Master == nil {
			return false
		}
		c.Topology.Master = nil
		return true
	})
	add(func(c *Doc) bool {
		if c.Topology.Metadata == "P2PHANDSHAKE" || c.Topology.Metadata == "" {
			return false
		}
		c.Topology.Metadata = "P2PHANDSHAKE"
		return true
	})
	return ms
}

func dropNode(c *Doc, i int) bool {
	name := c.Topology.Nodes[i].Name
	c.Topology.Nodes = append(c.Topology.Nodes[:i], c.Topology.Nodes[i+1:]...)
	var steps []DocStep
	for _, s := range c.Steps {
		if s.Init == name || s.HealthCheck == name || (s.Set != nil && s.Set.Node == name) || (s.Get != nil && s.Get.Node == name) || (s.Exists != nil && s.Exists.Node == name) {
			continue
		}
		steps = append(steps, s)
	}
	c.Steps = steps
	var fs []DocFault
	for _, f := range c.Faults {
		if f.Target != name {
			fs = append(fs, f)
		}
	}
	c.Faults = fs
	return len(c.Steps) > 0
}

// halve shortens a duration string to half (whole seconds, then 0s).
func halve(s *string) bool {
	if *s == "" || *s == "0s" {
		return false
	}
	d, err := time.ParseDuration(*s)
	if err != nil || d <= 0 {
		return false
	}
	h := d / 2
	if h < time.Second {
		*s = "0s"
	} else {
		*s = strconv.Itoa(int(h/time.Second)) + "s"
	}
	return *s != strings.TrimSpace(d.String())
}

package fakeengine

import (
	"fmt"
	"slices"
)

func linkName(from, to string) string { return from + "→" + to }

// link makes the proxy from → to; models name the party by upstream
// (its canonical address), which the proxy dials (a served container's
// address instead of its name: upstreamOf).
func (w *World) link(from, to, upstream string) error {
	listen, err := w.inj.Link(linkName(from, to), w.upstreamOf(upstream))
	if err != nil {
		return fmt.Errorf("fake engine: %w", err)
	}
	w.netMu.Lock()
	defer w.netMu.Unlock()
	if w.routes[from] == nil {
		w.routes[from] = map[string]string{}
	}
	w.routes[from][upstream] = listen
	return nil
}

// route resolves a canonical address seen from node to the proxy to dial.
func (w *World) route(node, addr string) (string, bool) {
	w.netMu.Lock()
	defer w.netMu.Unlock()
	r, ok := w.routes[node][addr]
	if !ok {
		// "localhost:PORT" names the same listener as 127.0.0.1:PORT.
		if h, p, found := cutHostPort(addr); found && h == "localhost" {
			r, ok = w.routes[node]["127.0.0.1:"+p]
		}
	}
	return r, ok
}

// linksTo lists the links that reach target (a party or a node name).
func (w *World) linksTo(target string) []string {
	var out []string
	for _, n := range w.spec.Nodes {
		if n.Name != target {
			out = append(out, linkName(n.Name, target))
		}
	}
	// mooncake_client's own links (to master and metadata) go through the
	// proxies too, as on the real engine: a master-down reaches it (sim's
	// netsim faults every node's link; explore sim,fake seed 112).
	if target != clientNode {
		out = append(out, linkName(clientNode, target))
	}
	have := w.inj.Links()
	out = slices.DeleteFunc(out, func(l string) bool { return !slices.Contains(have, l) })
	return out
}

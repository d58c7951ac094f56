package scenarios

import "gopkg.in/yaml.v3"

// ExtensionPrefix starts top-level keys the loader ignores (compose's
// convention): where a file keeps the anchors its merge keys refer to.
const ExtensionPrefix = "x-"

// expandMerges applies YAML merge keys (`<<: *defaults`, `<<: [*a, *b]`,
// common in CI files) in place, before the strict decoder walks the
// nodes: a mapping gets the merged mappings' entries that its own keys do
// not override, at the place of its `<<` (the first merged mapping wins
// over later ones), as yaml.v3 does when it decodes into a struct. Merged
// entries keep their own positions (an error in one is at its line in the
// anchored text); a `<<` whose value is not a mapping (or a list of them)
// is an error at the `<<`.
func (d *decoder) expandMerges(n *yaml.Node) {
	d.expand(n, map[*yaml.Node]bool{}, 0)
}

// maxMergeDepth bounds the walk (a document can alias its own ancestors).
const maxMergeDepth = 64

func (d *decoder) expand(n *yaml.Node, done map[*yaml.Node]bool, depth int) {
	if n == nil || done[n] || depth > maxMergeDepth {
		return
	}
	done[n] = true
	for _, c := range n.Content {
		d.expand(c, done, depth+1)
	}
	if n.Kind == yaml.AliasNode {
		d.expand(n.Alias, done, depth+1)
	}
	if n.Kind != yaml.MappingNode || !hasMergeKey(n) {
		return
	}
	own := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !isMergeKey(k) {
			own[k.Value] = true
		}
	}
	var out []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !isMergeKey(k) {
			out = append(out, k, v)
			continue
		}
		var srcs []*yaml.Node
		switch v = resolve(v); {
		case v != nil && v.Kind == yaml.MappingNode:
			srcs = []*yaml.Node{v}
		case v != nil && v.Kind == yaml.SequenceNode:
			for _, s := range v.Content {
				srcs = append(srcs, resolve(s))
			}
		default:
			srcs = []*yaml.Node{v}
		}
		for _, src := range srcs {
			if src == nil || src.Kind != yaml.MappingNode {
				what := "an alias nested too deep"
				if src != nil {
					what = kindName(src)
				}
				d.errorf(k, "merge key <<: want a mapping or a list of mappings (e.g. <<: *defaults), got %s", what)
				continue
			}
			d.expand(src, done, depth+1)
			for j := 0; j+1 < len(src.Content); j += 2 {
				sk := resolve(src.Content[j])
				if sk == nil || own[sk.Value] {
					continue
				}
				own[sk.Value] = true
				out = append(out, src.Content[j], src.Content[j+1])
			}
		}
	}
	n.Content = out
}

func hasMergeKey(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMergeKey(n.Content[i]) {
			return true
		}
	}
	return false
}

// isMergeKey: a plain `<<` (yaml.v3 tags it !!merge); a quoted "<<" is an
// ordinary key.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag == "!!merge"
}

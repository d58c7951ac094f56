package sim

import (
	"github.com/mooncake-faultlab/faultlab/faults"
)

// armMetadataRace arms a te-metadata-race fault on its node; its heal
// disarms it.
func (w *World) armMetadataRace(p faults.TEMetadataRacePrimitive) func() error {
	if w.metadataRace == nil {
		w.metadataRace = map[string]faults.TEMetadataRacePrimitive{}
	}
	w.metadataRace[p.Node] = p
	return func() error { delete(w.metadataRace, p.Node); return nil }
}

// metadataRaced is a register_memory of t meeting an armed
// te-metadata-race fault on its node (te.Engine.LocalDescRaced): the race
// happens once; a death is the process's.
func (t *transferEngine) metadataRaced() error {
	race, armed := t.p.w.metadataRace[t.p.node]
	if !armed {
		return nil
	}
	delete(t.p.w.metadataRace, t.p.node)
	if err := t.py.Engine().LocalDescRaced(race.Throw); err != nil {
		t.p.dead = err
		return err
	}
	return nil
}

package scenarios

import "github.com/mooncake-faultlab/faultlab/engine"

// VirtualTimer is implemented by engines whose worlds run in virtual time
// (sim). Every other engine is wall-clock: its runs take real time under
// load and their traces are not reproducible (replay compares outcomes).
type VirtualTimer interface{ VirtualTime() bool }

// Wall reports whether eng runs in wall-clock time.
func Wall(eng engine.Engine) bool {
	v, ok := eng.(VirtualTimer)
	return !ok || !v.VirtualTime()
}

// ContainerLabel marks a scenario written for container worlds (each
// party in its own container): it runs only on an engine whose worlds
// are container worlds, elsewhere it is a skip saying so.
const ContainerLabel = "container"

// ContainerWorlds is an engine whose worlds may be container worlds
// (real and fake with --containers, sim's modelled one).
type ContainerWorlds interface{ InContainers() bool }

// ContainerModel is an engine that models a container world without
// Docker (sim): a scenario labelled container runs in ContainerWorld()
// instead of being skipped, so the default run skips nothing the engine
// can model (issue 17).
type ContainerModel interface{ ContainerWorld() engine.Engine }

// InContainers reports whether eng builds container worlds.
func InContainers(eng engine.Engine) bool {
	c, ok := eng.(ContainerWorlds)
	return ok && c.InContainers()
}

package faults

import (
	"fmt"
	"strings"
)

// Container: an action on the container of one party or a set of parties
// (target "master", "client,tp0", ...). Only container worlds (`faultlab
// run --containers`) inject it; elsewhere the run is a skip with the reason.
const Container Kind = "container"

// ContainerActions are the container actions, in docs order; each knows its
// undo, which healing at At+For runs.
var ContainerActions = []Action{
	{"stop", "docker stop: SIGTERM, SIGKILL after 2 s (state lost); healed by start", "start"},
	{"kill", "docker kill: SIGKILL at once (state lost); healed by start", "start"},
	{"start", "a new container for a stopped or killed party (same name on the network)", ""},
	{"restart", "killed and started again at once: state lost, a new container (Docker gives it the freed address back)", ""},
	{"replace", "a new container started before the old one is removed, as Kubernetes replaces a pod: state lost, a new address (servers only)", ""},
	{"pause", "docker pause: every process frozen (cgroup freezer); healed by unpause", "unpause"},
	{"unpause", "thawed if paused", ""},
	{"partition", "disconnected from the world network (other parties get no route or no name); healed by reconnect", "reconnect"},
	{"reconnect", "connected again, same name", ""},
	{"memory", "memory limit set to bytes (docker update): a party above it is OOM-killed", ""},
}

// ContainerActionNames are the names of ContainerActions.
var ContainerActionNames = actionNames(ContainerActions)

// ContainerUndo is the action that heals a container action ("" = none).
func ContainerUndo(action string) string { return undoOf(ContainerActions, action) }

// ContainerTargets splits a container fault's target set.
func ContainerTargets(f Fault) []string {
	var out []string
	for _, t := range strings.Split(f.Target, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// ContainerParams are a container fault's parameters.
type ContainerParams struct {
	Bytes int64 `yaml:"bytes" doc:"memory: the limit" gen:"100,100000" trace:"bytes=%d"`
}

// ContainerBytes is a container fault's memory limit (action memory).
func ContainerBytes(f Fault) int64 { return paramsOf[ContainerParams](f).Bytes }

type containerKind struct{ kindBase }

func init() { RegisterKind(containerKind{}) }

func (containerKind) Kind() Kind { return Container }
func (containerKind) Doc() string {
	return "an action on the container of a party or a set of parties (container worlds only)"
}
func (containerKind) Fields() []Field {
	return []Field{
		{"target", "master | metadata | client | <node>, or several comma-separated"},
		{"action", strings.Join(ContainerActionNames, " | ")},
	}
}

func (containerKind) Params(Fault) any { return ContainerParams{} }

// Available: only a container world has containers to act on.
func (containerKind) Available(_ Fault, c Capabilities) error {
	if !c.Containers {
		return fmt.Errorf("needs a container world (faultlab run --containers)")
	}
	return nil
}

func (containerKind) Validate(f Fault) error {
	ts := ContainerTargets(f)
	if len(ts) == 0 {
		return fmt.Errorf("container: target is required (master, metadata, client, a node name, or several comma-separated)")
	}
	if err := oneOf(f, "action", f.Action, ContainerActionNames); err != nil {
		return err
	}
	bytes := ContainerBytes(f)
	if f.Action == "memory" && bytes <= 0 {
		return fmt.Errorf("container memory: bytes must be > 0")
	}
	if f.Action != "memory" && bytes != 0 {
		return fmt.Errorf("container %s: bytes is for action memory only", f.Action)
	}
	return nil
}

func (containerKind) LinkTarget(Fault) string { return "" }

func (containerKind) Lower(f Fault) Primitive {
	return ContainerPrimitive{Fault: f, Targets: ContainerTargets(f), Action: f.Action, Undo: ContainerUndo(f.Action), Bytes: ContainerBytes(f)}
}

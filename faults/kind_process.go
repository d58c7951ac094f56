package faults

import (
	"fmt"
	"slices"
)

// Process: an action on a server process (Target master, metadata or
// client). Each action knows its undo, which healing at At+For runs.
const Process Kind = "process"

// Action is one process action and how it is undone.
type Action struct {
	Name string
	Doc  string
	// Undo is the action that heals it; "" = nothing to undo.
	Undo string
}

// ProcessActions are the process actions, in docs order.
var ProcessActions = []Action{
	{"stop", "killed (state lost); healed by start", "start"},
	{"start", "started if stopped", ""},
	{"restart", "stopped and started again at once (state lost)", ""},
	{"pause", "frozen (SIGSTOP); healed by resume", "resume"},
	{"resume", "thawed if paused", ""},
	{Vanish, "killed, and its address then drops every packet, so connects to it time out (a deleted pod's IP; an HA master only); healed by start", "start"},
}

// Vanish is the process action of an address that goes silent with its
// process (Mooncake#3740: a deleted pod whose IP drops SYNs).
const Vanish = "vanish"

// Actions are the names of ProcessActions.
var Actions = actionNames(ProcessActions)

// drawnActions are the actions explore draws: vanish needs an HA master,
// which a drawn world does not have.
var drawnActions = slices.DeleteFunc(slices.Clone(Actions), func(a string) bool { return a == Vanish })

// Undo is the process action that heals action ("" = none).
func Undo(action string) string { return undoOf(ProcessActions, action) }

func actionNames(as []Action) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

func undoOf(as []Action, action string) string {
	for _, a := range as {
		if a.Name == action {
			return a.Undo
		}
	}
	return ""
}

// TargetMasterLeader is the master holding the leadership when the fault
// fires (topology master.ha: the master named by etcd's master view).
const TargetMasterLeader = "master-leader"

// ProcessTargets are the servers a process fault acts on.
var ProcessTargets = []string{"master", "metadata", "client", TargetMasterLeader}

type processKind struct{ kindBase }

func init() { RegisterKind(processKind{}) }

func (processKind) Kind() Kind  { return Process }
func (processKind) Doc() string { return "an action on a server process" }
func (processKind) Fields() []Field {
	return []Field{
		{"target", "master | metadata | client | master-leader (master.ha: the current leader)"},
		{"action", "stop | start | restart | pause | resume | vanish"},
	}
}

func (processKind) Params(Fault) any { return nil }

func (processKind) Validate(f Fault) error {
	if err := oneOf(f, "target", f.Target, ProcessTargets); err != nil {
		return err
	}
	if err := oneOf(f, "action", f.Action, Actions); err != nil {
		return err
	}
	if f.Action == Vanish && f.Target != "master" && f.Target != TargetMasterLeader {
		return fmt.Errorf("%s %q: target %s: a vanished address is modelled for an HA master only (target master or %s)", f.Kind, f.Action, f.Target, TargetMasterLeader)
	}
	return nil
}

func (processKind) LinkTarget(Fault) string { return "" }

func (processKind) Lower(f Fault) Primitive {
	return ProcessPrimitive{Fault: f, Target: f.Target, Action: f.Action, Undo: Undo(f.Action)}
}

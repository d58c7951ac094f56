package faults

import "context"

// InjectContainer runs a container primitive's action through do and
// returns the heal that runs its undo (nil when the action has none): the
// shape every engine's container faults share.
func InjectContainer(ctx context.Context, p ContainerPrimitive, do func(ctx context.Context, action string) error) (heal func(context.Context) error, err error) {
	if err := do(ctx, p.Action); err != nil {
		return nil, err
	}
	if p.Undo == "" {
		return nil, nil
	}
	return func(ctx context.Context) error { return do(ctx, p.Undo) }, nil
}

// ContainerEnds reports whether action ends the party's container, so a
// start (its undo) or the action itself makes a new one.
func ContainerEnds(action string) bool {
	switch action {
	case "stop", "kill", "restart", "replace", "start":
		return true
	}
	return false
}

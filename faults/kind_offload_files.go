package faults

import "fmt"

// OffloadFilesRemoved: every file in the SSD offload directory
// ({{offload_dir}}: the buckets' .bucket and .meta files) is deleted under
// the running clients, as an operator's cleanup or a wiped tmpfs or
// emptyDir does; their FileStorage still maps the keys to buckets and the
// master still lists the disk replicas. Nothing brings the files back.
const OffloadFilesRemoved Kind = "offload-files-removed"

// OffloadFilesPrimitive: the offload directory's files are deleted.
type OffloadFilesPrimitive struct{ Fault Fault }

func (p OffloadFilesPrimitive) Source() Fault { return p.Fault }

type offloadFilesKind struct{ kindBase }

func init() { RegisterKind(offloadFilesKind{}) }

func (offloadFilesKind) Kind() Kind { return OffloadFilesRemoved }
func (offloadFilesKind) Doc() string {
	return "every file in the SSD offload directory (the offload_dir placeholder's) is deleted under the running clients (rm DIR/*); not undone"
}
func (offloadFilesKind) Fields() []Field  { return nil }
func (offloadFilesKind) Params(Fault) any { return nil }

func (offloadFilesKind) Validate(f Fault) error {
	if f.Target != "" || f.Mode != "" || f.Action != "" {
		return fmt.Errorf("%s: takes no target, mode or action (the world's {{offload_dir}} is emptied)", f.Kind)
	}
	if f.For != 0 {
		return fmt.Errorf("%s: takes no for: deleted files stay deleted", f.Kind)
	}
	return nil
}

func (offloadFilesKind) LinkTarget(Fault) string { return "" }

func (offloadFilesKind) Lower(f Fault) Primitive { return OffloadFilesPrimitive{Fault: f} }

// Weight keeps explore from drawing it: it matters only in a world with
// SSD offload whose keys were written to disk, which a draw does not make.
func (offloadFilesKind) Weight(*Draw) int { return 0 }

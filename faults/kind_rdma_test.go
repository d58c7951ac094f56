package faults_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
)

func TestRDMAKind(t *testing.T) {
	for _, c := range []struct {
		f    faults.Fault
		want string
	}{
		{faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "local_protection"}, ""},
		{faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "port_down", Params: faults.RDMAParams{AfterWR: 3}}, ""},
		{faults.Fault{Kind: faults.RDMA, Mode: "local_protection"}, "rdma: give target, the node whose RNICs fail (e.g. target: tp0)"},
		{faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "local_protect"}, `rdma "local_protect": mode must be one of local_length, local_qp_operation, local_protection, memory_window_bind, bad_response, local_access, remote_invalid_request, remote_access, remote_operation, retry_exceeded, rnr_retry_exceeded, fatal, response_timeout, general, port_down, qp_exhausted (did you mean "local_protection"?)`},
		{faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "fatal", Params: faults.RDMAParams{AfterWR: -1}}, "rdma: after_wr -1: give 0 or more work requests"},
	} {
		got := ""
		if err := c.f.Validate(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	p, err := faults.Lower(faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "local_protection", Params: faults.RDMAParams{AfterWR: 2}})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := p.(faults.RDMAPrimitive)
	if !ok || r.Node != "tp0" || r.AfterWR != 2 || r.PortDown || r.Status.Text != "local protection error" || r.Status.Enum != "IBV_WC_LOC_PROT_ERR" {
		t.Fatalf("%#v", p)
	}
	p, _ = faults.Lower(faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "port_down"})
	if r := p.(faults.RDMAPrimitive); !r.PortDown || r.Status.Text != "transport retry counter exceeded" {
		t.Fatalf("%#v", r)
	}
	p, _ = faults.Lower(faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "qp_exhausted"})
	if r := p.(faults.RDMAPrimitive); !r.QPExhausted || r.PortDown || r.Status != (faults.WCStatus{}) {
		t.Fatalf("%#v", r)
	}
	if s := (faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "fatal", Params: faults.RDMAParams{AfterWR: 5}}).String(); s != "rdma target=tp0 mode=fatal after_wr=5" {
		t.Fatal(s)
	}
}

func TestRDMAContextAndEndpointKinds(t *testing.T) {
	for _, c := range []struct {
		f    faults.Fault
		want string
	}{
		{faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "create_cq", Params: faults.RDMAContextParams{Device: "mlx5_1"}}, ""},
		{faults.Fault{Kind: faults.RDMAContext, Mode: "create_cq"}, "rdma-context: give target, the node whose RNIC fails (e.g. target: tp0)"},
		{faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "reg_mr", Params: faults.RDMAContextParams{Errno: "EINVAL", Scope: "failing"}}, ""},
		{faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "reg_mr"}, "rdma-context: mode reg_mr: give errno, what ibv_reg_mr fails with (e.g. errno: EINVAL)"},
		{faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "reg_mr", Params: faults.RDMAContextParams{Errno: "EINVALID"}}, `rdma-context "EINVALID": errno must be one of EPERM, EIO, EAGAIN, ENOMEM, EACCES, EFAULT, EBUSY, ENODEV, EINVAL, ENOSYS, EOPNOTSUPP (did you mean "EINVAL"?)`},
		{faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "reg_mr", Params: faults.RDMAContextParams{Errno: "EIO", Scope: "some"}}, `rdma-context "some": scope must be one of all, failing`},
		{faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "create_cq", Params: faults.RDMAContextParams{Errno: "EIO"}}, "rdma-context: mode create_cq takes no errno or scope (mode reg_mr does)"},
		{faults.Fault{Kind: faults.RDMAEndpoint, Target: "tp0", Mode: "destroy_race"}, ""},
		{faults.Fault{Kind: faults.RDMAEndpoint, Target: "tp0", Mode: "stale"}, `rdma-endpoint "stale": mode must be one of stale_handshake, destroy_race`},
	} {
		got := ""
		if err := c.f.Validate(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	p, _ := faults.Lower(faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "create_cq", Params: faults.RDMAContextParams{Device: "mlx5_1"}})
	if r := p.(faults.RDMAPrimitive); !r.CreateCQ || r.Device != "mlx5_1" || !r.AtSetup() || r.Status != (faults.WCStatus{}) {
		t.Fatalf("%#v", r)
	}
	p, _ = faults.Lower(faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "reset_rejected", Params: faults.RDMAContextParams{Device: "irdma0"}})
	if r := p.(faults.RDMAPrimitive); !r.ResetRejected || r.CreateCQ || r.Device != "irdma0" || r.AtSetup() {
		t.Fatalf("%#v", r)
	}
	p, _ = faults.Lower(faults.Fault{Kind: faults.RDMAContext, Target: "tp0", Mode: "reg_mr", Params: faults.RDMAContextParams{Errno: "EPERM", Scope: "failing"}})
	if r := p.(faults.RDMAPrimitive); r.RegMR != (faults.Errno{Name: "EPERM", Num: 1, Text: "Operation not permitted"}) || !r.RegMRFailingOnly || r.AtSetup() || r.RegMR.PLOG() != "Operation not permitted [1]" {
		t.Fatalf("%#v", r)
	}
	p, _ = faults.Lower(faults.Fault{Kind: faults.RDMAEndpoint, Target: "tp0", Mode: "stale_handshake"})
	if r := p.(faults.RDMAPrimitive); !r.StaleHandshake || r.DestroyRace || r.AtSetup() {
		t.Fatalf("%#v", r)
	}
	for _, c := range []struct {
		mode  string
		throw bool
	}{{"local_desc", false}, {"local_desc_throw", true}} {
		p, err := faults.Lower(faults.Fault{Kind: faults.TEMetadataRace, Target: "decode", Mode: c.mode})
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := p.(faults.TEMetadataRacePrimitive); !ok || r.Node != "decode" || r.Throw != c.throw {
			t.Fatalf("%s: %#v", c.mode, p)
		}
	}
	if err := (faults.Fault{Kind: faults.TEMetadataRace, Mode: "local_desc"}).Validate(); err == nil || err.Error() != "te-metadata-race: give target, the node whose transfer engine races (e.g. target: tp1)" {
		t.Fatal(err)
	}
}

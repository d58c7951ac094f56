package fakeengine

import (
	"github.com/mooncake-faultlab/faultlab/fakeengine/servers"
	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
	"github.com/mooncake-faultlab/faultlab/models/master"
)

// admitRPCProtocol makes srv serve its connections as mooncake_master with
// MC_RPC_PROTOCOL does to a TCP client (master.Master.TCPClient, the same
// decision sim's transport applies): held until the client's request timer,
// closed, or the process gone. The request's size is the measured
// coro_rpc one (mooncake.Profile.MasterWire), not the fake protocol's.
func (w *World) admitRPCProtocol(srv *servers.MasterServer) {
	if w.masterModel == nil || w.masterModel.Config().RPCProtocol != "rdma" {
		return
	}
	admit := func(method string) (wire.Admission, func()) {
		w.gate.Lock()
		defer w.gate.Unlock()
		req, _, ok := w.profile.MasterWire.Bytes(method, nil)
		if !ok {
			req = 256
		}
		m := w.masterModel
		switch m.TCPClient(req) {
		case master.TCPHeld:
			return wire.Hold, func() {
				w.gate.Lock()
				defer w.gate.Unlock()
				m.HeldClosed()
			}
		case master.TCPClosed:
			return wire.CloseEOF, nil
		case master.TCPExits:
			return wire.Exit, nil
		}
		return wire.Serve, nil
	}
	srv.SetAdmit(admit, func() { w.masterExited(srv) })
}

// masterExited records that the master process serving srv ended by itself
// (its server already closed its listener and connections): a later start
// starts it again; the embedded metadata server went with it. It runs on a
// goroutine of its own, so by then a remedy may have started a new master:
// that one is left alone (CI run 139, a loaded machine: the late callback
// closed the remedy's master, whose client got a reset).
func (w *World) masterExited(srv *servers.MasterServer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.masterSrv != srv {
		return
	}
	if err := w.stopMasterLocked(); err != nil {
		w.logger.Warn("fake engine: master exit", "err", err)
	}
	if w.spec.Metadata == "master" {
		if err := w.stopMetaLocked(); err != nil {
			w.logger.Warn("fake engine: master exit: metadata", "err", err)
		}
	}
}

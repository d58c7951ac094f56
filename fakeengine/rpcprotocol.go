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
	srv.SetAdmit(admit, w.masterExited)
}

// masterExited records that the master process ended by itself (its
// server already closed its listener and connections): a later start
// starts it again; the embedded metadata server went with it.
func (w *World) masterExited() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.stopMasterLocked(); err != nil {
		w.logger.Warn("fake engine: master exit", "err", err)
	}
	if w.spec.Metadata == "master" {
		if err := w.stopMetaLocked(); err != nil {
			w.logger.Warn("fake engine: master exit: metadata", "err", err)
		}
	}
}

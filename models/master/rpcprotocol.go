package master

import (
	"fmt"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// RPCProtocolEnv is the variable mooncake_master reads for its RPC
// transport (master.cpp v0.3.6:357 and :424, v0.3.12.post1:1326 and
// :1480): exactly "rdma" calls coro_rpc_server::init_ibv(), anything else
// serves TCP.
const RPCProtocolEnv = "MC_RPC_PROTOCOL"

// RPCProtocol is the master's RPC transport at release p from its
// environment: "rdma" or "tcp". Releases before the variable (v0.3.5 and
// older: mooncake.Knob MC_RPC_PROTOCOL's Since) serve TCP.
func RPCProtocol(p mooncake.Profile, env map[string]string) string {
	v, ok := env[RPCProtocolEnv]
	if ok && v == "rdma" && mooncake.ParseKnob(p.Version, RPCProtocolEnv, v, true).Read {
		return "rdma"
	}
	return "tcp"
}

// ibSocketInfoBytes is what an RDMA server's ib_socket_t::accept reads
// before anything else: the peer's ib_socket_info (gid[16], lid u16,
// buffer_size u32, qp_num u32) as struct_pack writes it, with its 4-byte
// type hash (ib_socket.hpp yalantinglibs 0.5.5:445-450, 532-546).
const ibSocketInfoBytes = 30

// TCPCall is what one call of a TCP client meets at the master.
type TCPCall int

const (
	// TCPServed: a TCP master, or an RDMA one whose yalantinglibs falls
	// back to TCP (Profile.RDMAServerAcceptsTCP).
	TCPServed TCPCall = iota
	// TCPHeld: the request is shorter than the QP info the server waits
	// for; nothing comes back until the client's request timer closes
	// the connection (RequestTimeout; the server then reads end of file).
	TCPHeld
	// TCPClosed: the request's first bytes do not decode as QP info
	// (protocol_error): the server closes the connection, the client
	// reads end of file (EOF).
	TCPClosed
	// TCPExits: no RDMA device on the master's host; the master process
	// exits at the connect (real 0.3.6.post1, 0.3.7.post2: status 245,
	// docs/REAL-FINDINGS.md §85) and the call reads a reset.
	TCPExits
)

// TCPExitStatus is the master's exit status in TCPExits (real, §85).
const TCPExitStatus = 245

func (t TCPCall) String() string {
	return [...]string{"served", "held", "closed", "exits"}[t]
}

// TCPClient is what a TCP client's call of reqBytes meets at a master of
// this config (cfg.RPCProtocol, cfg.RNIC). A held or closed call is
// logged as coro_connection logs a failed ibverbs accept (0.5.5:209); a
// held one when the client's timer closes it, which the caller reports
// by calling again with TCPHeld's outcome (HeldClosed).
func (m *Master) TCPClient(reqBytes int64) TCPCall {
	c := m.cfg
	if c.RPCProtocol != "rdma" || c.Version.RDMAServerAcceptsTCP {
		return TCPServed
	}
	if !c.RNIC {
		return TCPExits
	}
	m.ibConns++
	if reqBytes < ibSocketInfoBytes {
		return TCPHeld
	}
	m.ibAcceptFailed("Protocol error")
	return TCPClosed
}

// HeldClosed is the server's side of a TCPHeld call once the client's
// request timer closed the connection.
func (m *Master) HeldClosed() { m.ibAcceptFailed("End of file") }

func (m *Master) ibAcceptFailed(why string) {
	// easylog's ELOG_ERROR; two spaces before the id, as printed
	// (Mooncake#1048: "ibverbs init qp failed: End of file conn_id  1").
	m.log.Log(mlog.Error, fmt.Sprintf("ibverbs init qp failed: %s conn_id  %d", why, m.ibConns))
}

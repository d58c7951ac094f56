package client

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// unregisterLocalBuffer is tearDownAll_internal's first step from v0.3.9:
// the local buffer leaves the transfer engine with update_metadata, so
// in HTTP/etcd mode its segment descriptor is written again; a write the
// metadata server refuses fails it (ERR_METADATA), and
// Client::unregisterLocalMemory turns any failure into INVALID_PARAMS
// (real_client.cpp v0.3.9:505, v0.3.12.post1:1224, 3b5a594:1366;
// client_service.cpp v0.3.9:1611). Before v0.3.9 the binding's teardown
// leaves the local buffer to the engine's destructor.
func (c *RealClient) unregisterLocalBuffer(ctx context.Context) {
	if !c.p.Version.AtLeast("0.3.9") || !c.initialized || c.localBuf == nil || c.te == nil {
		return
	}
	if rc := c.te.UnregisterLocalMemory(ctx, c.localBuf.Ptr); rc != 0 {
		c.logf(mlog.Warning, "Failed to unregister client local buffer on tear down: %s", mooncake.INVALID_PARAMS.Name())
	}
}

// unregisterSegment is Client::UnmountSegment(Impl)'s step after the
// master's UnmountSegment succeeded: the segment leaves the transfer
// engine, which rewrites the segment descriptor (client.cpp v0.3.4:622,
// client_service.cpp v0.3.9:1580, v0.3.12.post1:2745, 3b5a594:3455). A
// failure other than ERR_ADDRESS_NOT_REGISTERED is INTERNAL_ERROR, which
// ~Client logs.
func (c *RealClient) unregisterSegment(ctx context.Context, s master.Segment) {
	if c.te == nil {
		return
	}
	rc := c.te.UnregisterLocalMemory(ctx, s.Base)
	if rc == 0 {
		return
	}
	c.logf(mlog.Error, "Failed to unregister transfer buffer with transfer engine ret is %d", rc)
	if rc != mooncake.ERR_ADDRESS_NOT_REGISTERED {
		c.logf(mlog.Error, "%s%s", c.p.DestructorUnmountLog, mooncake.INTERNAL_ERROR.Name())
	}
}

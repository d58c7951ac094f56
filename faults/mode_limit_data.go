package faults

import "fmt"

// ModeLimitData: the connection is closed once bytes have crossed it (per
// connection and direction, as toxiproxy counts).
const ModeLimitData = "limit_data"

type limitData struct{}

func init() { RegisterMode(limitData{}) }

func (limitData) Name() string { return ModeLimitData }
func (limitData) Doc() string {
	return "connection closed once bytes have crossed it, counted per connection and direction"
}
func (limitData) Fields() []Field { return []Field{{"bytes", "bytes let through (> 0)"}} }

func (limitData) Validate(f Fault) error {
	if f.Bytes <= 0 {
		return fmt.Errorf("link limit_data: bytes must be > 0")
	}
	return nil
}

func (limitData) Simulate(f Fault, x *Exchange) Effect {
	// toxiproxy's LimitDataToxic, one per direction, its count per
	// connection: a message goes through until the pipe has passed bytes,
	// the one that reaches the limit is cut there, and the connection is
	// closed. A request that reaches it never gets its reply; a reply that
	// crosses it arrives torn. Either way the reader sees end of file
	// (real 0.3.12.post1 and 0.3.13.post1, 100 bytes on the master link:
	// "RPC call failed: End of file", REAL-FINDINGS §21). The next call
	// dials a new connection, counted from zero (netsim).
	if x.Up {
		x.Conn.Sent[0] += x.ReqBytes
		if x.Conn.Sent[0] >= f.Bytes {
			return Effect{Verdict: Closed}
		}
	}
	if x.Down {
		x.Conn.Sent[1] += x.RespBytes
		if x.Conn.Sent[1] > f.Bytes {
			return Effect{Verdict: Closed}
		}
	}
	return Effect{}
}

func (limitData) Toxic(f Fault) (string, map[string]any, bool) {
	return "limit_data", map[string]any{"bytes": f.Bytes}, true
}

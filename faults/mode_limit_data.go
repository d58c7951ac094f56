package faults

import "fmt"

// ModeLimitData: the connection is closed once bytes have crossed it (per
// connection and direction, as toxiproxy counts).
const ModeLimitData = "limit_data"

// LimitDataParams are limit_data's parameters.
type LimitDataParams struct {
	Bytes int64 `yaml:"bytes" doc:"bytes let through (> 0)" gen:"100,100000" trace:"bytes=%d"`
}

// limitDataState counts the bytes each pipe has let through on one
// connection (0 upstream, node to server; 1 downstream).
type limitDataState struct{ sent [2]int64 }

type limitData struct{ modeBase }

func init() { RegisterMode(limitData{}) }

func (limitData) Name() string { return ModeLimitData }
func (limitData) Doc() string {
	return "connection closed once bytes have crossed it, counted per connection and direction"
}
func (limitData) Params() any   { return LimitDataParams{} }
func (limitData) NewState() any { return &limitDataState{} }

func (limitData) Validate(f Fault) error {
	if paramsOf[LimitDataParams](f).Bytes <= 0 {
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
	limit, st := paramsOf[LimitDataParams](f).Bytes, x.State.(*limitDataState)
	if x.Up {
		st.sent[0] += x.ReqBytes
		if st.sent[0] >= limit {
			return Effect{Verdict: Closed}
		}
	}
	if x.Down {
		st.sent[1] += x.RespBytes
		if st.sent[1] > limit {
			return Effect{Verdict: Closed}
		}
	}
	return Effect{}
}

func (limitData) Toxic(f Fault) (string, map[string]any, bool) {
	return "limit_data", map[string]any{"bytes": paramsOf[LimitDataParams](f).Bytes}, true
}

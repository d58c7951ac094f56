package faults

import "fmt"

// ModeRefuse: connections are refused (ECONNREFUSED), as when the server
// is not running. Toxiproxy: the proxy is stopped; healing restarts it.
const ModeRefuse = "refuse"

type refuse struct{ modeBase }

func init() { RegisterMode(refuse{}) }

func (refuse) Name() string { return ModeRefuse }
func (refuse) Doc() string  { return "connect refused at once (ECONNREFUSED); proxy stopped" }
func (refuse) Validate(f Fault) error {
	if f.Stream != "" && f.Stream != "both" {
		// toxiproxy refuses by stopping the proxy: both directions.
		return fmt.Errorf("link refuse: refuse cannot be one-way (stream %s); use stream both, or blackhole for a one-way cut", f.Stream)
	}
	return nil
}
func (refuse) Simulate(Fault, *Exchange) Effect { return Effect{Verdict: Refuse} }

// Toxic: none — one-way refusal does not exist on TCP, the proxy stops.
func (refuse) Toxic(Fault) (string, map[string]any, bool) { return "", nil, false }

// StopsProxy: toxiproxy refuses by stopping the proxy, which also closes
// the connections it carries.
func (refuse) StopsProxy() bool { return true }
